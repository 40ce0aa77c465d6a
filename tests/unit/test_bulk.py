"""memgit.core.bulk: the cycle collector held off for a block, and resumed however the block ends."""

import gc

import pytest

from memgit.core import bulk


def test_the_collector_is_off_in_the_block_and_on_after_it_even_after_an_error():
    assert gc.isenabled()
    with bulk.paused():
        assert not gc.isenabled()
        with bulk.paused():  # nested: the outer block resumes it
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ValueError), bulk.paused():
        raise ValueError("the block failed")
    assert gc.isenabled()


def test_a_collector_someone_else_turned_off_stays_off():
    gc.disable()
    try:
        with bulk.paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
