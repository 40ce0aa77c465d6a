"""Named tuples made without importing `collections`.

The prompt hook and `memgit search` build search units, hits and learning types at every start, and
`collections` (with operator, reprlib and keyword, then functools and types) costs ~3-5 ms there: a
sixth to a quarter of a `python -c pass` on the 2-core machine (bench/README.md, issue 20, third pass).

`record(name, fields)` makes what `collections.namedtuple(name, fields)` makes, for the uses memgit has:
a tuple subclass with a read-only property per field, defaults for the last fields, `_fields`,
`_field_defaults`, `_make`, `_replace`, `_asdict`, namedtuple's repr, and pickling by name
(tests/unit/test_record.py holds them equal to namedtuple's). No field checks: the names are memgit's own.
"""

from __future__ import annotations

try:
    from _collections import _tuplegetter  # the C property namedtuple's fields are (a builtin module)
except ImportError:  # pragma: no cover - not CPython
    from operator import itemgetter

    def _tuplegetter(index: int, doc: str) -> property:
        return property(itemgetter(index), doc=doc)


def record(typename: str, field_names, *, defaults: tuple = (), module: str | None = None,
           doc: str | None = None) -> type:
    """A tuple subclass named `typename` with the fields `field_names` (space-separated, or a sequence),
    the last len(defaults) of them optional; `module` is where it is defined (for pickling)."""
    fields = tuple(field_names.split() if isinstance(field_names, str) else field_names)
    args = ", ".join(fields)
    # A generated __new__, as namedtuple's: positional and keyword arguments at the speed of a plain call.
    new = eval(f"lambda _cls, {args}: _tuple_new(_cls, ({args}{',' if len(fields) == 1 else ''}))",
               {"_tuple_new": tuple.__new__, "__builtins__": {}}, {})
    new.__name__, new.__qualname__ = "__new__", f"{typename}.__new__"
    new.__defaults__ = tuple(defaults) or None
    row = ", ".join(f"{name}=%r" for name in fields)

    def _make(cls, iterable):
        made = tuple.__new__(cls, iterable)
        if len(made) != len(fields):
            raise TypeError(f"Expected {len(fields)} arguments, got {len(made)}")
        return made

    def _replace(self, **changes):
        made = self._make(map(changes.pop, fields, self))
        if changes:
            raise ValueError(f"Got unexpected field names: {list(changes)!r}")
        return made

    def __repr__(self):
        return f"{type(self).__name__}({row % self})"

    def _asdict(self):
        return dict(zip(self._fields, self))

    def __getnewargs__(self):
        return tuple(self)

    namespace = {
        "__doc__": doc or f"{typename}({args})", "__slots__": (), "_fields": fields,
        "_field_defaults": dict(zip(fields[len(fields) - len(defaults):], defaults)) if defaults else {},
        "__new__": new, "_make": classmethod(_make), "_replace": _replace, "__repr__": __repr__,
        "_asdict": _asdict, "__getnewargs__": __getnewargs__, "__match_args__": fields,
    }
    for index, name in enumerate(fields):
        namespace[name] = _tuplegetter(index, f"Alias for field number {index}")
    made = type(typename, (tuple,), namespace)
    made.__module__ = module or "memgit.core.record"
    return made
