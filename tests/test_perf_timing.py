"""bench.perf.timing: the objects alive before a benchmark are frozen for its collections."""

from __future__ import annotations

import gc
import weakref

from bench.perf.timing import frozen_heap


class _Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the cyclic collector frees it


def test_inside_the_block_the_old_objects_are_frozen_and_after_it_they_are_not() -> None:
    assert gc.get_freeze_count() == 0
    with frozen_heap():
        assert gc.get_freeze_count() > 1000  # at least the modules' functions and classes
    assert gc.get_freeze_count() == 0


def test_a_collection_inside_the_block_still_frees_the_garbage_made_inside_it() -> None:
    with frozen_heap():
        node = _Node()
        ref = weakref.ref(node)
        del node
        assert ref() is not None  # a cycle: reference counting alone cannot free it
        gc.collect()
        assert ref() is None


def test_garbage_made_before_the_block_is_freed_by_its_first_collection() -> None:
    node = _Node()
    ref = weakref.ref(node)
    del node
    with frozen_heap():
        assert ref() is None  # collected before the freeze, not frozen alive


def test_nested_blocks_and_decorated_calls_freeze_once_and_thaw_at_the_outermost() -> None:
    @frozen_heap()
    def inner() -> int:
        return gc.get_freeze_count()

    with frozen_heap():
        outer = gc.get_freeze_count()
        made = [[] for _ in range(10_000)]  # tracked objects made inside the block
        # a second freeze would take them in; frozen objects freed by reference counting make
        # the count drift down a little, so it is compared with margins, not for equality
        assert inner() < outer + len(made)
        assert gc.get_freeze_count() > outer - len(made)  # the inner exit did not thaw
        del made
    assert gc.get_freeze_count() == 0
    assert inner() > 0
    assert gc.get_freeze_count() == 0


def test_an_exception_in_the_block_still_thaws_the_heap() -> None:
    try:
        with frozen_heap():
            raise ValueError("boom")
    except ValueError:
        pass
    assert gc.get_freeze_count() == 0
