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
    count, tuple_new = len(fields), tuple.__new__
    optional = dict(zip(fields[count - len(defaults):], defaults)) if defaults else {}

    # namedtuple generates its __new__ with eval, for positional and keyword arguments at the speed of a plain
    # call; compiling it costs ~0.15-0.25 ms per record, at every start of the hooks and a search. A call with
    # every field in place is one length check slower; keywords and defaults go the long way (_bound).
    def __new__(_cls, *values, **named):
        if named or len(values) != count:
            values = _bound(typename, fields, optional, values, named)
        return tuple_new(_cls, values)

    __new__.__qualname__ = f"{typename}.__new__"
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
        "_field_defaults": dict(optional),
        "__new__": __new__, "_make": classmethod(_make), "_replace": _replace, "__repr__": __repr__,
        "_asdict": _asdict, "__getnewargs__": __getnewargs__, "__match_args__": fields,
    }
    for index, name in enumerate(fields):
        namespace[name] = _tuplegetter(index, f"Alias for field number {index}")
    made = type(typename, (tuple,), namespace)
    made.__module__ = module or "memgit.core.record"
    return made


def _bound(typename: str, fields: tuple, optional: dict, values: tuple, named: dict) -> tuple:
    """The fields' values of a call by keyword, or with defaults left out, in the fields' order.

    Raises:
        TypeError: as the generated __new__ of a namedtuple does: too many values, a field given twice or not
            at all, a name that is no field.
    """
    if len(values) > len(fields):
        takes = f"from {len(fields) - len(optional) + 1} to " if optional else ""
        raise TypeError(f"{typename}.__new__() takes {takes}{len(fields) + 1} positional arguments but "
                        f"{len(values) + 1} were given")
    bound, missing = list(values), []
    for name in fields[len(values):]:
        if name in named:
            bound.append(named.pop(name))
        elif name in optional:
            bound.append(optional[name])
        else:
            missing.append(name)
    if named:
        name = next(iter(named))
        again = name in fields
        raise TypeError(f"{typename}.__new__() got {'multiple values for' if again else 'an unexpected keyword'} "
                        f"argument {name!r}")
    if missing:
        names = [repr(m) for m in missing]
        listed = " and ".join(names) if len(names) <= 2 else f"{', '.join(names[:-1])}, and {names[-1]}"
        raise TypeError(f"{typename}.__new__() missing {len(missing)} required positional argument"
                        f"{'s' if len(missing) > 1 else ''}: {listed}")
    return tuple(bound)
