"""memgit.core.record makes what collections.namedtuple makes, for the uses memgit has of its named tuples
(memgit.core.search's Doc and Hit, memgit.core.vocab's LearningType, memgit.store.search_reader's Found)."""

from __future__ import annotations

import copy
import pickle
from collections import namedtuple

import pytest

from memgit.core import search, vocab
from memgit.core.record import record
from memgit.store import search_reader

FIELDS = "branch path unit kind type title text session date support"
Made = record("Made", FIELDS, defaults=(1,), module=__name__)
Reference = namedtuple("Reference", FIELDS, defaults=(1,))
ROW = ("main", "notes/x.md", 0, "pinned", "", "X", "the text", "", "2026-11-21")


def test_a_record_behaves_as_the_namedtuple_of_the_same_fields():
    made, reference = Made(*ROW), Reference(*ROW)
    assert isinstance(made, tuple) and made == reference and tuple(made) == tuple(reference)
    assert hash(made) == hash(reference) and made.support == reference.support == 1
    assert Made._fields == Reference._fields and Made._field_defaults == Reference._field_defaults
    assert Made.__match_args__ == Reference.__match_args__
    assert repr(made) == repr(reference).replace("Reference(", "Made(")
    assert made._asdict() == reference._asdict() and list(made._asdict()) == list(reference._asdict())
    assert made._replace(kind="about", support=3) == reference._replace(kind="about", support=3)
    assert type(made._replace(kind="about")) is Made
    assert Made._make(ROW + (2,)) == Reference._make(ROW + (2,))
    assert Made(**dict(zip(FIELDS.split(), ROW))) == made  # by keyword
    assert pickle.loads(pickle.dumps(made)) == made and type(pickle.loads(pickle.dumps(made))) is Made
    assert copy.copy(made) == made and copy.deepcopy(made) == made
    match made:
        case Made(branch, path):
            assert (branch, path) == ("main", "notes/x.md")


def test_a_record_refuses_what_a_namedtuple_refuses():
    with pytest.raises(TypeError):
        Made(*ROW[:3])
    with pytest.raises(TypeError):
        Made._make(ROW[:3])
    with pytest.raises(ValueError):
        Made(*ROW)._replace(colour="red")
    with pytest.raises(AttributeError):
        Made(*ROW).kind = "note"


@pytest.mark.parametrize("args, kwargs", [
    (ROW[:3], {}), (ROW + (1, 2), {}), (ROW[:2], {"branch": "x"}), (ROW, {"colour": "red"}),
    ((), {"branch": "main"}), (ROW[:8], {"date": "2026-11-21", "support": 2, "path": "y"}),
])
def test_a_record_refuses_a_wrong_call_with_the_message_a_namedtuple_gives(args, kwargs):
    with pytest.raises(TypeError) as made:
        Made(*args, **kwargs)
    with pytest.raises(TypeError) as reference:
        Reference(*args, **kwargs)
    assert str(made.value) == str(reference.value).replace("Reference", "Made")


@pytest.mark.parametrize("args, kwargs", [
    (ROW, {}), (ROW + (3,), {}), (ROW[:8], {"date": "2026-11-21"}), (ROW[:8], {"support": 2, "date": "d"}),
    ((), dict(zip(FIELDS.split(), ROW + (5,)))),
])
def test_a_record_takes_what_a_namedtuple_takes(args, kwargs):
    assert tuple(Made(*args, **kwargs)) == tuple(Reference(*args, **kwargs))


def test_memgits_records_are_defined_where_they_are_pickled_from():
    for made in (search.Doc, search.Hit, vocab.LearningType, search_reader.Found):
        assert getattr(__import__(made.__module__, fromlist=["_"]), made.__name__) is made
    assert vocab.TYPES["gotcha"].rank == 2 and vocab.TYPES["gotcha"]._replace(rank=9).rank == 9
