"""The static embedding model of the `semantic` extra: WordLlama's l2_supercat, 256 dimensions.

A static model is a table of one vector per token: a text's embedding is the mean of its tokens'
vectors, normalised. No network, no torch: numpy and the `tokenizers` library do the work, and the
weights (16 MB) and tokenizer ship inside the `wordllama` wheel (`pip install 'memgit[semantic]'`).
They are read straight from that package's folder, without importing it (its import loads
pydantic and sets up logging; a search needs neither). Nothing here is imported unless the
extra is asked for: numpy alone costs more than the prompt hook's whole budget.
"""

from __future__ import annotations

import os
import sys

NAME = "wordllama/l2_supercat_256"  # recorded with every cached vector: another model means new vectors
WEIGHTS = os.path.join("weights", "l2_supercat_256.safetensors")
TOKENIZER = os.path.join("tokenizers", "l2_supercat_tokenizer_config.json")
TENSOR = "embedding.weight"
MAX_TOKENS = 512  # a longer text is embedded from its start (a session note's summary fits)
INSTALL = "pip install 'memgit[semantic]'"


def missing() -> str | None:
    """Why the model cannot be loaded here (a sentence naming what to install), or None when it can."""
    for module in ("numpy", "tokenizers", "wordllama"):
        if find_spec(module) is None:
            return f"semantic search needs {module}: {INSTALL}"
    folder = _folder()
    for part in (WEIGHTS, TOKENIZER):
        if not os.path.isfile(os.path.join(folder, part)):
            return f"the installed wordllama has no {part} (another version?): {INSTALL}"
    return None


def find_spec(name: str):
    """importlib.util.find_spec(name) for a top-level name, without importing importlib.util (~3 ms,
    paid by every search: `missing` runs whenever `[search] semantic` is on, the default)."""
    module = sys.modules.get(name)
    if module is not None:
        return module.__spec__
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        spec = find(name, None) if find is not None else None
        if spec is not None:
            return spec
    return None


def _folder() -> str:
    spec = find_spec("wordllama")  # finds the package without running it
    return os.path.dirname(spec.origin) if spec and spec.origin else ""


class Embedder:
    """The model loaded: `embed(texts)` gives one unit-length float32 row per text."""

    name = NAME

    def __init__(self):
        import numpy as np
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        folder = _folder()
        self._np = np
        self._table = load_file(os.path.join(folder, WEIGHTS))[TENSOR].astype(np.float32)
        self._tokenizer = Tokenizer.from_file(os.path.join(folder, TOKENIZER))
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        self.dim = self._table.shape[1]

    def embed(self, texts: list[str]):
        """The texts' embeddings, shape (len(texts), dim); a text without tokens gets zeros."""
        np = self._np
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(list(texts), add_special_tokens=False)
        last = self._table.shape[0] - 1
        for row, encoding in enumerate(encodings):
            ids = np.asarray(encoding.ids[:MAX_TOKENS], dtype=np.int64)
            if ids.size:
                out[row] = self._table[np.clip(ids, 0, last)].mean(axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms


def load() -> Embedder:
    """The model, ready to embed.

    Raises:
        RuntimeError: the extra is not installed (the message says what to install).
    """
    reason = missing()
    if reason:
        raise RuntimeError(reason)
    return Embedder()
