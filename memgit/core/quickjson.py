"""JSON for the hooks' and search's start-up path: the C scanner and string encoder of the standard
library (`_json`) used directly, without importing the `json` package.

`import json` compiles six regular expressions its C accelerator never uses: ~3 ms of a prompt
hook that must answer within 2x `python -c pass` (bench/README.md). The values are json.loads's;
whatever is not the plain case (no C accelerator, text that does not parse, bytes in another
encoding) goes through `json` itself, so errors and edge cases are exactly json's.
"""

from __future__ import annotations

try:
    from _json import encode_basestring_ascii as _quote
    from _json import make_scanner as _make_scanner
except ImportError:  # an interpreter without the accelerator: the json package does everything
    _quote = _make_scanner = None

_WHITESPACE = " \t\n\r"  # JSON's own, no more (str.strip() would also drop \x1c-\x1f, \x85...)


class _Settings:
    """What the C scanner reads off a json.JSONDecoder: json.loads's defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}.__getitem__


_scan = _make_scanner(_Settings()) if _make_scanner is not None else None


def loads(data: str | bytes):
    """The value json.loads(data) returns; it raises what json.loads raises."""
    if _scan is not None:
        text = None
        if isinstance(data, str):
            text = data
        elif data[:1] not in (b"\xef", b"\xfe", b"\xff", b"\x00") and data[1:2] != b"\x00":  # not UTF-16/32, no BOM
            try:
                text = data.decode("utf-8", "surrogatepass")
            except UnicodeDecodeError:
                text = None
        if text is not None:
            body = text.strip(_WHITESPACE)
            try:
                value, end = _scan(body, 0)
            except StopIteration:
                pass  # no value at all: json says so below
            else:
                if end == len(body):
                    return value
    import json

    return json.loads(data)


def load_file(path: str):
    """json.load of the file at `path` (UTF-8).

    Raises:
        OSError: it cannot be read; ValueError: it is not JSON (or not UTF-8).
    """
    with open(path, encoding="utf-8") as f:
        return loads(f.read())


def quote(text: str) -> str:
    """`text` as a JSON string, as json.dumps writes it (ASCII only)."""
    if _quote is not None:
        return _quote(text)
    import json

    return json.dumps(text)
