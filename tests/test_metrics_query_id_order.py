"""The order a mean adds its queries up in (:func:`bench.metrics.query_parts.id_order`): its
vectorised reading of text ids against the obvious Python rule, key by key."""

from __future__ import annotations

import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.metrics.query_parts import id_order

_WHOLE = re.compile(r"-?[0-9]{1,30}")


def _slow_order(ids: np.ndarray) -> np.ndarray | None:
    """Whole numbers (``-?[0-9]{1,30}``) first, by value then text; other text after them in
    code-point order; ties in input order. ``None`` when that is the input order."""
    texts = ids.astype(str).tolist()
    keys = [(0, int(t), t) if _WHOLE.fullmatch(t) else (1, 0, t) for t in texts]
    order = np.asarray(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.int64)
    return None if np.array_equal(order, np.arange(len(keys))) else order


def test_numbers_by_value_then_text_and_other_text_after_them() -> None:
    ids = np.array(["q2", "10", 9, "007", "7", "-3", "q10", "9"], dtype=object)
    got = id_order(ids)
    assert got is not None
    assert [str(ids[i]) for i in got] == ["-3", "007", "7", "9", "9", "10", "q10", "q2"]
    assert id_order(np.array(["-3", "007", "7", "q1"], dtype=object)) is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(st.sampled_from(list("0123456789-+ az\u00e9\u0663\u00a0.")),
                        max_size=35), min_size=2, max_size=12))
def test_text_ids_sort_as_the_slow_rule(ids: list[str]) -> None:
    arr = np.array(ids, dtype=object)
    got, want = id_order(arr), _slow_order(arr)
    assert (got is None and want is None) or np.array_equal(got, want), (ids, got, want)
