"""Keywords of a session: the tools, frameworks and libraries it names or uses."""

from __future__ import annotations

import re
from collections import Counter

# Names that are safe to spot in prose (not ordinary English words).
_VOCABULARY = frozenset(
    """
    pytest tox nox ruff mypy pyright black isort flake8 pylint uv poetry pipenv pdm hatch hatchling setuptools pip
    django flask fastapi starlette pydantic sqlalchemy alembic celery jinja jinja2 numpy pandas polars scipy
    pytorch torch tensorflow jax sklearn transformers huggingface langchain litellm openai anthropic
    textual rich typer click dulwich asyncio aiohttp httpx requests uvicorn gunicorn playwright selenium
    npm pnpm yarn bun deno node nodejs typescript javascript react nextjs vue nuxt svelte sveltekit angular
    vite webpack esbuild rollup turbo turborepo nx jest vitest mocha cypress eslint prettier biome tsc
    tailwind tailwindcss redux zustand graphql apollo trpc prisma drizzle express nestjs electron tauri
    cargo rust rustc clippy tokio serde axum golang gofmt golangci-lint cobra gin
    java kotlin gradle maven mvn spring swift swiftui xcode dotnet csharp ruby rails rspec bundler
    php laravel composer elixir phoenix haskell scala clojure zig cmake bazel
    docker dockerfile kubernetes k8s helm terraform ansible nginx caddy systemd
    postgres postgresql mysql sqlite redis mongodb elasticsearch opensearch typesense meilisearch kafka rabbitmq
    supabase firebase vercel netlify cloudflare aws gcp azure heroku fly.io
    git github gitlab gh pre-commit mise asdf direnv nix homebrew brew
    graphql grpc protobuf websocket oauth jwt
    claude-code gemini codex mcp linear jira slack notion
    """.split()
)
# Also English words: trusted when run as a program, not when spotted in prose.
_AMBIGUOUS = frozenset(
    "click black rich textual requests express spring phoenix turbo rails nix gin cobra swift apollo jest mocha "
    "helm rollup composer maven caddy flow act make just task go linear notion slack rust node bun deno vite "
    "hatch brew".split()
)
_ALIASES = {"next.js": "nextjs", "node.js": "node", "nodejs": "node", "postgresql": "postgres", "k8s": "kubernetes",
            "golang": "go", "torch": "pytorch", "tailwindcss": "tailwind", "jinja2": "jinja", "mvn": "maven",
            "dockerfile": "docker", "brew": "homebrew", "turborepo": "turbo", "gh": "github"}
_EXTENSIONS = {"py": "python", "go": "go", "ts": "typescript", "tsx": "react", "jsx": "react", "js": "javascript",
               "rs": "rust", "rb": "ruby", "java": "java", "kt": "kotlin", "swift": "swift", "php": "php",
               "ex": "elixir", "vue": "vue", "svelte": "svelte", "sql": "sql", "tf": "terraform"}
_PROGRAM_NAMES = {"go": "go", "make": "make", "just": "just", "act": "act", "gradlew": "gradle", "python": "python",
                  "python3": "python", "npx": "npm", "bunx": "bun"}
_TOKEN = re.compile(r"[a-z][a-z0-9+#-]*(?:\.[a-z]+)?")
_MCP = re.compile(r"^mcp__(?P<server>[a-z0-9_-]+?)(?:-server|-mcp)?__")
MAX_KEYWORDS = 8
SUBJECT_WORDS = 4  # the words of a statement that say what it is about


def about_a_tool(text: str) -> bool:
    """True when a statement is about a tool, framework or library by name ("Golangci-lint v2 requires …",
    "Vercel doesn't have SSH keys …"): a name safe to spot in prose among its first words."""
    head = _TOKEN.findall(text.lower())[:SUBJECT_WORDS]
    return any(_norm(word.removesuffix("'s")) in _VOCABULARY and word not in _AMBIGUOUS for word in head)


def _norm(word: str) -> str:
    return _ALIASES.get(word, word)


def keywords(
    *, prose: list[str], commands: list[str], programs: list[str], files: list[str], read: list[str], tools: list[str]
) -> list[str]:
    """Up to 8 lowercase names, highest score first: build/test commands weigh 3, types of edited files
    and MCP servers 2, other programs run, files read and prose mentions 1 each (at most 3 per message)."""
    score: Counter[str] = Counter()
    order: dict[str, int] = {}

    def add(word: str, weight: int) -> None:
        word = _norm(word)
        score[word] += weight
        order.setdefault(word, len(order))

    for command in commands:
        for word in command.split():
            if word.startswith("-") or "=" in word:
                continue
            name = word.rsplit("/", 1)[-1]
            if name in _VOCABULARY or name in _PROGRAM_NAMES:
                add(_PROGRAM_NAMES.get(name, name), 3)
    for name in programs:
        if name in _VOCABULARY:
            add(name, 1)
    for weight, paths in ((2, files), (1, read)):
        for path in paths:
            name = path.rsplit("/", 1)[-1].lower()
            ext = name.rsplit(".", 1)[-1] if "." in name else ""
            if ext in _EXTENSIONS:
                add(_EXTENSIONS[ext], weight)
            elif name == "dockerfile" or name.startswith("docker-compose"):
                add("docker", weight)
            if ".github/workflows/" in path:
                add("github-actions", weight)
    for tool in tools:
        if (match := _MCP.match(tool)) and (server := match.group("server")) in _VOCABULARY:
            add(server, 2)
    for text in prose:
        seen: Counter[str] = Counter()
        for token in _TOKEN.findall(text.lower().replace("claude code", "claude-code")):
            if token in _VOCABULARY and token not in _AMBIGUOUS and seen[token] < 3:
                seen[token] += 1
                add(token, 1)
    ranked = sorted(score, key=lambda w: (-score[w], order[w]))
    return ranked[:MAX_KEYWORDS]
