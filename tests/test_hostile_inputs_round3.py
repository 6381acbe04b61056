"""Hostile inputs, round 3 (issue 19): each case of ``tests/hostile_cases_inputs3.py`` must
behave (a clear one-line error naming file:line / row / column and what was expected, or the
oracle's number; no traceback, no silent accept, no input destroyed), plus unit tests of the
rules behind the fixes: :func:`bench.data.inputs.stray_character` (one rule for every text
reader: a NUL byte, a byte-order mark inside a file, a line end other than LF/CRLF/CR) and the
missing-value spellings of a ratings table's id columns.

``python -m pytest tests/test_hostile_inputs_round3.py -rA`` lists every case by class.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hostile_cases_inputs3 import CASES

from bench.data.inputs import stray_character, text_lines
from bench.errors import DataError


@pytest.mark.parametrize(("klass", "fn"), CASES, ids=[fn.__name__ for _, fn in CASES])
def test_catalogue(klass: str, fn: Any, tmp_path: Path) -> None:
    bad = fn(tmp_path)
    assert bad is None, f"[{klass}] {fn.__name__}: {bad}"


def test_the_catalogue_covers_every_class_and_surface() -> None:
    names = [fn.__name__ for _, fn in CASES]
    assert len(names) == len(set(names))
    assert {k for k, _ in CASES} >= {"silent accepts", "unclear errors", "inputs destroyed",
                                     "silently wrong numbers"}
    for prefix in ("trec_", "scores_", "metric_", "compare_", "frame_", "convert_"):
        assert any(n.startswith(prefix) for n in names), prefix


@pytest.mark.parametrize(("line", "words"), [
    (b"a\x00b", ("NUL", "column 2", "UTF-16LE")),
    (b"\x00a", ("NUL", "column 1", "UTF-16BE")),
    (b"1 Q0 \xef\xbb\xbfd", ("byte-order mark", "column 6")),
    ("\u00e9\u2028x".encode(), ("U+2028", "column 2")),
    ("a\u2029".encode(), ("U+2029",)),
    ("a\u0085".encode(), ("U+0085",)),
    (b"a\x0bb", ("vertical tab",)),
    (b"a\x0cb", ("form feed",)),
    (b"a\x1cb", ("U+001C",)),
])
def test_a_stray_character_is_named_with_its_column(line: bytes, words: tuple[str, ...]) -> None:
    why = stray_character(line)
    assert why is not None
    for w in words:
        assert w in why, (w, why)


@pytest.mark.parametrize("line", [b"1 Q0 a 1 0.5 t", b"1\tQ0\ta", "caf\u00e9 \u00a0x".encode(),
                                  b"", b"# comment \xc2\xa9"])
def test_plain_lines_have_no_stray_character(line: bytes) -> None:
    assert stray_character(line) is None


def test_text_lines_refuses_a_stray_character_naming_file_and_line(tmp_path: Path) -> None:
    p = tmp_path / "f.txt"
    p.write_bytes(b"\xef\xbb\xbfa\nb\r\n\xef\xbb\xbfc\n")  # the first mark is skipped
    with pytest.raises(DataError) as err:
        list(text_lines(p))
    assert "f.txt:3" in str(err.value)
    assert "byte-order mark" in str(err.value)


def test_text_lines_plain_false_keeps_the_bytes(tmp_path: Path) -> None:
    p = tmp_path / "f.txt"
    p.write_bytes(b"1 qid:1 1:1\x0b2:2 # \x00\n")  # SVMlight's own scanner judges these
    assert [raw for _, raw in text_lines(p, plain=False)] == [b"1 qid:1 1:1\x0b2:2 # \x00"]


@pytest.mark.parametrize("spelling", ["NA", "N/A", "nan", "NaN", "null", "NULL", "None", "<NA>",
                                      "#N/A", " NA "])
def test_a_ratings_id_spelled_as_a_missing_value_is_refused(tmp_path: Path,
                                                            spelling: str) -> None:
    from bench.data.tabular import load_ratings_table

    p = tmp_path / "r.csv"
    p.write_text(f"u,i,r,t\n1,10,4,1\n{spelling},11,3,2\n2,10,5,3\n")
    with pytest.raises(DataError) as err:
        load_ratings_table(p, user="u", item="i", rating="r", timestamp="t")
    assert "r.csv:3" in str(err.value)
    assert "'u'" in str(err.value)


def test_ratings_text_ids_that_are_not_missing_stay_ids(tmp_path: Path) -> None:
    from bench.data.tabular import load_ratings_table

    p = tmp_path / "r.csv"
    p.write_text("u,i,r,t\nNAB,10,4,1\nnan2,11,3,2\nNAB,11,5,3\n")
    r = load_ratings_table(p, user="u", item="i", rating="r", timestamp="t")
    assert r.users is not None
    assert sorted(r.users["external_id"]) == ["NAB", "nan2"]


@pytest.mark.parametrize(("ids", "name"), [
    (["1", "1", "\ufeff1", "\ufeff1"], "byte-order mark"),
    (["a", "a", "b\x00", "b\x00"], "NUL byte"),
    (["a", "a", "b\u2028", "b\u2028"], "line separator"),
])
def test_a_frame_or_array_id_with_a_stray_character_is_refused_as_a_file_line_is(
        ids: list[str], name: str) -> None:
    # a file with "\ufeff1" is refused (stray_character); a frame with the same ids made two
    # queries of "1" and "\ufeff1" (one rule for ids on every path)
    import numpy as np
    import pandas as pd

    from bench.errors import DataError
    from bench.metrics import evaluate

    frame = pd.DataFrame({"qid": ids, "label": [1, 0, 0, 1], "score": [0.9, 0.1, 0.2, 0.3]})
    with pytest.raises(DataError, match=f"row 3, column 'qid'.*{name}"):
        evaluate(frame, metrics=["ndcg@10"])
    with pytest.raises(DataError, match=name):
        evaluate(np.array([1.0, 0, 0, 1]), np.array([0.9, 0.1, 0.2, 0.3]),
                 qid=np.array(ids, dtype=object), metrics=["ndcg@10"])
