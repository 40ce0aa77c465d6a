"""Turn gitleaks' own test samples into a data table for memgit's tests.

Gitleaks keeps, beside each rule's definition (`cmd/generate/config/rules/*.go`), the true
positives (`tps`) the rule must find and the false positives (`fps`) it must not. Many are built by
Go code: `utils.GenerateSampleSecrets(id, secret)` wraps a secret in ~30 assignment formats,
`secrets.NewSecret(regex)` draws a random string matching a regex. This script evaluates that small
subset of Go (string literals, `+`, `[]string{}`, `map[string]string{}`, `append`, `fmt.Sprintf`,
the `utils` helpers, local variables) and writes JSON:

- literal text is stored base64-encoded, so the table does not read as a pile of leaked keys;
- a `secrets.NewSecret(regex)` stays a regex, drawn at test time by a seeded generator
  (tests/sample_regex.py), the same draw wherever one Go variable is reused;
- `GenerateSampleSecrets` stays one entry naming its identifier; the formats it expands to are
  stored once (`sample_formats`, read from `cmd/generate/config/utils/generate.go`).

What the subset cannot evaluate (loops, other helpers) is listed under `dropped` with the reason.
Rules defined in the sources but left out of gitleaks' default config are left out here too.

    python tests/data/gitleaks/extract_samples.py GITLEAKS_CHECKOUT [COMMIT] > tests/data/gitleaks/samples.json
"""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

# ---- tokens ---------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""(?P<space>[ \t\r\n]+)|(?P<comment>//[^\n]*|/\*.*?\*/)|(?P<raw>`[^`]*`)|(?P<str>"(?:[^"\\\n]|\\.)*")"""
    r"""|(?P<rune>'(?:[^'\\\n]|\\.)+')|(?P<num>\d+(?:\.\d+)?)|(?P<ident>[A-Za-z_]\w*)"""
    r"""|(?P<op>\.\.\.|:=|==|!=|&&|\|\||\+=|<=|>=|[-+*/%&|^<>=!(){}\[\],;:.])""",
    re.S,
)


@dataclass
class Tok:
    kind: str
    text: str


def tokens(source: str) -> list[Tok]:
    out, pos = [], 0
    while pos < len(source):
        m = _TOKEN.match(source, pos)
        if not m:
            raise SyntaxError(f"cannot read Go at {source[pos:pos + 40]!r}")
        if m.lastgroup not in ("space", "comment"):
            out.append(Tok(m.lastgroup, m.group()))
        pos = m.end()
    return out


def go_string(tok: Tok) -> str:
    if tok.kind == "raw":
        return tok.text[1:-1].replace("\r", "")
    return json.loads(tok.text) if "\\x" not in tok.text else tok.text[1:-1].encode().decode("unicode_escape")


# ---- values ---------------------------------------------------------------------------------


@dataclass(eq=False)
class Gen:
    """A random string matching `regex` (secrets.NewSecret); `plausible`: with a digit, no stopword."""
    regex: str
    plausible: bool = False


Part = str | Gen
Template = tuple  # of Part


@dataclass
class Samples:
    """utils.GenerateSampleSecrets(identifier, secret): the secret in every sample format."""
    identifier: str
    secret: Template


@dataclass
class Unknown:
    reason: str


@dataclass
class Spread:
    """`values...` in a call to append."""
    values: object


@dataclass
class PathSample:
    """One sample of utils.ValidateWithPaths: a file path and its content."""
    path: str | None
    content: object


@dataclass
class Composite:
    fields: dict = field(default_factory=dict)


def concat(a, b):
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return a if isinstance(a, Unknown) else b
    if not (isinstance(a, tuple) and isinstance(b, tuple)):
        return Unknown("+ of non-strings")
    merged = list(a)
    for part in b:
        if merged and isinstance(merged[-1], str) and isinstance(part, str):
            merged[-1] += part
        else:
            merged.append(part)
    return tuple(merged)


def literal(value) -> str | None:
    """The plain string a template stands for, if it has no random part."""
    if isinstance(value, tuple) and all(isinstance(p, str) for p in value):
        return "".join(value)
    return None


# ---- evaluation -----------------------------------------------------------------------------

_REGEX_HELPERS = {
    "Numeric": "[0-9]{%s}", "Hex": "[a-f0-9]{%s}", "AlphaNumeric": "[a-z0-9]{%s}",
    "AlphaNumericExtendedShort": "[a-z0-9_-]{%s}", "AlphaNumericExtended": "[a-z0-9=_\\-]{%s}",
    "AlphaNumericExtendedLong": "[a-z0-9\\/=_\\+\\-]{%s}",
}


class Evaluator:
    def __init__(self, toks: list[Tok], env: dict, funcs: dict):
        self.toks, self.i, self.env, self.funcs = toks, 0, env, funcs

    def peek(self, k: int = 0) -> Tok | None:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def take(self, text: str | None = None) -> Tok:
        tok = self.toks[self.i]
        if text is not None and tok.text != text:
            raise SyntaxError(f"expected {text!r}, got {tok.text!r}")
        self.i += 1
        return tok

    def at(self, text: str) -> bool:
        tok = self.peek()
        return tok is not None and tok.text == text

    def skip_balanced(self) -> None:
        """Skip one bracketed group starting at the current token."""
        depth = 0
        while True:
            tok = self.take()
            if tok.text in "([{" and tok.kind == "op":
                depth += 1
            elif tok.text in ")]}" and tok.kind == "op":
                depth -= 1
                if depth == 0:
                    return

    # expressions
    def expr(self):
        value = self.unary()
        while self.at("+"):
            self.take()
            value = concat(value, self.unary())
        return value

    def unary(self):
        if self.at("&") or self.at("*"):
            self.take()
        return self.postfix(self.primary())

    def primary(self):
        tok = self.take()
        if tok.kind in ("raw", "str"):
            return (go_string(tok),)
        if tok.kind == "num":
            return int(tok.text) if tok.text.isdigit() else Unknown("number")
        if tok.text == "(":
            value = self.expr()
            self.take(")")
            return value
        if tok.text == "[" and self.at("]") and self.peek(1).text == "byte":  # []byte(x): the same text
            self.take()
            self.take()
            return self.args()[0]
        if tok.text in ("[", "map"):  # a composite literal's type: []string, map[string]string, []*x.Y
            self.i -= 1
            kind = self.type_name()
            return self.composite(kind)
        if tok.kind == "ident":
            name = tok.text
            while self.at(".") and self.peek(1) and self.peek(1).kind == "ident":
                self.take()
                name += "." + self.take().text
            if self.at("{"):
                return self.composite(name)
            if self.at("("):
                return self.call(name)
            if name in ("nil", "true", "false"):
                return Unknown(name)
            return self.env.get(name, Unknown(f"unknown name {name}"))
        raise SyntaxError(f"unexpected {tok.text!r}")

    def type_name(self) -> str:
        parts = []
        while not self.at("{"):
            parts.append(self.take().text)
        return "".join(parts)

    def postfix(self, value):
        while True:
            if self.at("..."):
                self.take()
                value = Spread(value)
            elif self.at("[") and not isinstance(value, tuple):
                self.skip_balanced()
                value = Unknown("index")
            else:
                return value

    def composite(self, kind: str):
        self.take("{")
        items, fields = [], {}
        while not self.at("}"):
            if self.at("{"):  # an element whose type is implied
                self.skip_balanced()
                items.append(Unknown("nested literal"))
            else:
                start = self.i
                first = self.expr()
                if self.at(":"):
                    self.take()
                    key = self.toks[start].text if self.toks[start].kind == "ident" else first
                    if self.at("{"):
                        self.skip_balanced()
                        value = Unknown("nested literal")
                    else:
                        value = self.expr()
                    fields[key if isinstance(key, str) else literal(key)] = value
                else:
                    items.append(first)
            if self.at(","):
                self.take()
        self.take("}")
        if kind.startswith("map["):
            return {k: v for k, v in fields.items()}
        if kind.startswith("[]"):
            return list(items)
        return Composite(fields)

    def args(self) -> list:
        self.take("(")
        values = []
        while not self.at(")"):
            values.append(self.expr())
            if self.at(","):
                self.take()
        self.take(")")
        return values

    def call(self, name: str):
        args = self.args()
        short = name.split(".")[-1]
        if name == "append":
            out = list(args[0]) if isinstance(args[0], list) else [Unknown("append to non-list")]
            for arg in args[1:]:
                if isinstance(arg, Spread):
                    out.extend(arg.values if isinstance(arg.values, list) else [arg.values])
                else:
                    out.append(arg)
            return out
        if name == "secrets.NewSecret":
            regex = literal(args[0])
            return (Gen(regex),) if regex is not None else Unknown("NewSecret of a non-literal")
        if name == "newPlausibleSecret":
            regex = literal(args[0])
            return (Gen(regex, plausible=True),) if regex is not None else Unknown("non-literal regex")
        if name.startswith("utils.") and short in _REGEX_HELPERS:
            return (_REGEX_HELPERS[short] % literal(args[0]),)
        if name == "utils.Hex8_4_4_4_12":
            return ("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",)
        if name == "utils.GenerateSampleSecret":
            ident = literal(args[0])
            return concat((f"{ident}_api_token = \"",), concat(args[1], ("\"",))) if ident else Unknown("id")
        if name == "utils.GenerateSampleSecrets":
            ident = literal(args[0])
            return [Samples(ident, args[1])] if ident and isinstance(args[1], tuple) else [Unknown("samples")]
        if name == "fmt.Sprintf":
            return sprintf(args)
        if name in ("strings.ToUpper", "strings.ToLower") and literal(args[0]) is not None:
            text = literal(args[0])
            return (text.upper() if short == "ToUpper" else text.lower(),)
        if name in self.funcs:
            return self.funcs[name](args)
        return Unknown(f"call {name}")

    # statements
    def block(self) -> None:
        """Evaluate a function body's statements until its closing brace."""
        self.take("{")
        while not self.at("}"):
            self.statement()
        self.take("}")

    def statement(self) -> None:
        tok = self.peek()
        if tok.text in ("for", "if", "switch", "go", "defer", "select"):
            self.take()
            while not self.at("{"):
                self.take()
            self.skip_balanced()
            while self.at("else"):
                self.take()
                while not self.at("{"):
                    self.take()
                self.skip_balanced()
            self.env["__tainted__"] = (tok.text,)  # the names assigned in it are not followed
            return
        if tok.text == "return":
            self.take()
            self.env["__return__"] = self.expr() if not self.at("}") else None
            return
        if tok.text in ("var", "const") and self.peek(1).text == "(":
            self.take()
            self.take("(")
            while not self.at(")"):
                name = self.take().text
                self.take("=")
                self.env[name] = self.expr()
            self.take(")")
            return
        if tok.text in ("var", "const"):
            self.take()
            name = self.take().text
            if self.at("="):
                self.take()
                self.env[name] = self.expr()
            else:
                while not (self.at("=") or self.peek().text in ("}",) or self.peek_newline_statement()):
                    self.take()
                if self.at("="):
                    self.take()
                    self.env[name] = self.expr()
                else:
                    self.env[name] = []
            return
        start = self.i
        target = self.expr()
        if self.at(":=") or self.at("="):
            self.take()
            value = self.expr()
            if self.toks[start].kind == "ident" and self.i and start + 1 < len(self.toks) \
                    and self.toks[start + 1].text in (":=", "="):
                self.env[self.toks[start].text] = value
            return
        if self.at("+="):
            self.take()
            value = self.expr()
            name = self.toks[start].text
            self.env[name] = concat(self.env.get(name, Unknown(name)), value)
            return
        del target

    def peek_newline_statement(self) -> bool:
        tok = self.peek()
        return tok.kind == "ident" and tok.text in ("tps", "fps", "r", "return")


def sprintf(args: list):
    fmt = literal(args[0])
    if fmt is None:
        return Unknown("Sprintf format")
    pieces = re.split(r"(%[sv])", fmt)
    if any(re.search(r"%[^sv%]", p) for p in pieces if not p.startswith("%")):
        return Unknown("Sprintf verb")
    out, rest = ("",), list(args[1:])
    for piece in pieces:
        if piece in ("%s", "%v"):
            arg = rest.pop(0)
            out = concat(out, arg if isinstance(arg, tuple) else Unknown("Sprintf arg"))
        elif piece:
            out = concat(out, (piece.replace("%%", "%"),))
    return out


# ---- files ----------------------------------------------------------------------------------


def functions(toks: list[Tok]) -> dict[str, tuple[int, int]]:
    """Top-level `func Name(...) ... {body}`: name -> (index of the body's `{`, index after it)."""
    found, i = {}, 0
    while i < len(toks):
        if toks[i].text == "func" and i + 1 < len(toks) and toks[i + 1].kind == "ident":
            name = toks[i + 1].text
            j = i + 2
            while toks[j].text != "{":
                j += 1
            depth, k = 0, j
            while True:
                if toks[k].text == "{":
                    depth += 1
                elif toks[k].text == "}":
                    depth -= 1
                    if depth == 0:
                        break
                k += 1
            found[name] = (j, k + 1)
            i = k + 1
        else:
            i += 1
    return found


def package_env(toks: list[Tok]) -> dict:
    """Package-level `var name = value` that evaluate (lists of keywords, shared samples)."""
    env, depth = {}, 0
    for i, tok in enumerate(toks):
        if tok.text == "{":
            depth += 1
        elif tok.text == "}":
            depth -= 1
        elif depth == 0 and tok.text in ("var", "const") and toks[i + 1].kind == "ident" and toks[i + 2].text == "=":
            ev = Evaluator(toks[i + 3 :], env, {})
            try:
                env[toks[i + 1].text] = ev.expr()
            except (SyntaxError, IndexError):
                pass
    return env


def encode(value, gens: dict) -> dict | str:
    """A template as JSON: literal parts base64-encoded, random parts as regexes with a shared id."""
    if isinstance(value, Unknown):
        return value.reason
    if isinstance(value, Samples):
        secret = encode(value.secret, gens)
        return secret if isinstance(secret, str) else {**secret, "samples": value.identifier}
    if not isinstance(value, tuple):
        return f"not a string ({type(value).__name__})"
    parts = []
    for part in value:
        if isinstance(part, str):
            parts.append({"text": base64.b64encode(part.encode()).decode()})
        else:
            gens.setdefault(id(part), len(gens))
            parts.append({"regex": part.regex, "draw": gens[id(part)], **({"plausible": True} if part.plausible else {})})
    return {"parts": parts}


def rule_samples(path: Path, shared_funcs: dict) -> dict[str, dict]:
    toks = tokens(path.read_text(encoding="utf-8"))
    env0 = package_env(toks)
    bodies = functions(toks)
    out = {}
    for name, (start, end) in bodies.items():
        body = toks[start:end]
        if not any(t.text == "RuleID" for t in body):
            continue
        env = dict(env0)
        ev = Evaluator(body, env, shared_funcs)
        try:
            ev.block()
        except (SyntaxError, IndexError) as e:
            ids = [body[i + 2].text for i, t in enumerate(body[:-2]) if t.text == "RuleID" and body[i + 2].kind == "str"]
            for rule_id in ids:
                out[json.loads(rule_id)] = {"function": f"{path.name}:{name}", "tps": [], "fps": [],
                                            "dropped": [f"the function could not be evaluated: {e}"]}
            continue
        rule = next((v for v in env.values() if isinstance(v, Composite) and "RuleID" in v.fields), None)
        returned = env.get("__return__")
        if rule is None:
            continue
        rule_id = literal(rule.fields["RuleID"])
        # return utils.Validate(r, tps, fps): which names were passed
        last = max(i for i, t in enumerate(body) if t.text == "return")
        call_args = [t.text for t in body[last:] if t.kind == "ident"][4:6]
        tps_name, fps_name = (call_args + ["", ""])[:2]
        del returned
        gens: dict = {}
        entry: dict = {"function": f"{path.name}:{name}", "tps": [], "fps": [], "dropped": []}
        for label, var in (("tps", tps_name), ("fps", fps_name)):
            value = env.get(var, [] if var == "nil" else Unknown(f"no {var}"))
            if isinstance(value, dict):  # ValidateWithPaths: path -> content
                value = [PathSample(literal(p), v) for p, v in value.items()]
            if not isinstance(value, list):
                entry["dropped"].append(f"{label}: {getattr(value, 'reason', value)}")
                continue
            for item in value:
                path_of = None
                if isinstance(item, PathSample):
                    path_of, item = item.path, item.content
                encoded = encode(item, gens)
                if isinstance(encoded, str):
                    entry["dropped"].append(f"{label}: {encoded}")
                else:
                    entry[label].append(encoded if path_of is None else {**encoded, "path": path_of})
        if env.get("__tainted__"):
            entry["dropped"].append(f"a `{env['__tainted__'][0]}` statement (not followed) in the function")
        out[rule_id] = entry
    return out


def sample_formats(gitleaks: Path) -> list[str]:
    """The formats of utils.GenerateSampleSecrets, in source order."""
    toks = tokens((gitleaks / "cmd/generate/config/utils/generate.go").read_text(encoding="utf-8"))
    start, end = functions(toks)["GenerateSampleSecrets"]
    body = toks[start:end]
    i = next(i for i, t in enumerate(body) if t.text == "samples")
    while body[i].text != "{":
        i += 1
    ev = Evaluator(body[i - 5 :], {}, {})
    while not ev.at("map"):
        ev.take()
    table = ev.expr()
    return [literal(v) for v in table.values()]


def main() -> None:
    gitleaks = Path(sys.argv[1])
    commit = sys.argv[2] if len(sys.argv) > 2 else subprocess.run(
        ["git", "-C", str(gitleaks), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    shipped = set(re.findall(r'^id = "([^"]+)"', (gitleaks / "config/gitleaks.toml").read_text(), re.M))
    rules: dict[str, dict] = {}
    for path in sorted((gitleaks / "cmd/generate/config/rules").glob("*.go")):
        rules.update(rule_samples(path, {}))
    unshipped = sorted(set(rules) - shipped)  # defined in the sources but not in the default config
    rules = {k: v for k, v in rules.items() if k in shipped}
    json.dump({
        "source": {
            "repository": "https://github.com/gitleaks/gitleaks",
            "commit": commit,
            "files": "cmd/generate/config/rules/*.go (tps, fps); cmd/generate/config/utils/generate.go",
            "license": "MIT, Copyright (c) 2019 Zachary Rice (see LICENSE-gitleaks beside this file)",
            "generator": "tests/data/gitleaks/extract_samples.py",
        },
        "sample_formats": sample_formats(gitleaks),
        "not_in_config": unshipped,
        "rules": dict(sorted(rules.items())),
    }, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
