"""The embedded default is built once per process and each call gets its own copy
(``bench.datasets.built_once``, ``bench.datasets.resolve.synthetic_splits``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from bench.datasets import resolve, synthetic
from bench.datasets.built_once import built_once


def test_a_second_build_is_a_copy_that_a_caller_cannot_change() -> None:
    said_first: list[str] = []
    first = resolve.synthetic_splits(said_first.append)
    first.train.X[:] = -1.0  # a caller (a careless ranker) writes over its arrays
    first.train.y[:] = 0
    said_second: list[str] = []
    second = resolve.synthetic_splits(said_second.append)
    assert said_second == said_first
    assert said_first[0] == "synthetic: generating ratings"
    assert not np.any(second.train.X == -1.0)
    assert second.train.y.max() > 0
    assert second.train.X is not first.train.X


def test_the_kept_build_equals_a_fresh_one_bit_for_bit() -> None:
    kept = resolve.synthetic_splits()
    fresh = resolve.ratings_splits(synthetic.generate_ratings(), name="synthetic")
    for part in ("train", "vali", "test"):
        a, b = getattr(kept, part), getattr(fresh, part)
        np.testing.assert_array_equal(a.X, b.X, strict=True)
        np.testing.assert_array_equal(a.y, b.y, strict=True)
        np.testing.assert_array_equal(a.qid, b.qid, strict=True)


def test_a_replaced_generator_builds_again(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = synthetic.generate_ratings

    def counted(*args: Any, **kw: Any) -> Any:
        calls.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(synthetic, "generate_ratings", counted)
    resolve.synthetic_splits()
    resolve.synthetic_splits()
    assert calls == [1]  # built once with the stand-in, then copied


def test_built_once_builds_again_when_a_key_object_changes() -> None:
    builds: list[str] = []

    def build(say: Any) -> list[int]:
        say("building")
        builds.append("x")
        return [1, 2]

    one, two = object(), object()
    heard: list[str] = []
    a = built_once("test-key-change", (one,), build, heard.append)
    b = built_once("test-key-change", (one,), build, heard.append)
    c = built_once("test-key-change", (two,), build)
    assert builds == ["x", "x"]
    assert heard == ["building", "building"]
    assert a == b == c
    assert a is not b


def test_a_build_that_fails_keeps_nothing_and_the_next_call_builds_again() -> None:
    """An exception (or Ctrl-C) during the build leaves no half-built value behind."""
    tries: list[str] = []

    def build(say: Any) -> list[int]:
        tries.append("x")
        if len(tries) == 1:
            raise KeyboardInterrupt
        return [len(tries)]

    key = (object(),)
    with pytest.raises(KeyboardInterrupt):
        built_once("test-failed-build", key, build)
    assert built_once("test-failed-build", key, build) == [2]
    assert built_once("test-failed-build", key, build) == [2]
    assert tries == ["x", "x"]
