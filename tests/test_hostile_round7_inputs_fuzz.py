"""Property tests, round 7 (issue 19 item 9): the entry points earlier fuzz tests did not reach.

Random Parquet tables (every Arrow type a ratings or LETOR column may be given as: text,
dictionary, large text, bool, decimal, date, timestamp, list, null, float16, uint64, with
missing values) read as ratings (:func:`bench.data.tabular.load_ratings_table`) and as LETOR
(:func:`bench.data.parquet.read_parquet`); random dataset spellings through
:func:`bench.datasets.resolve.resolve_spec`; random ``predict`` outputs of a custom ranker
(:func:`bench.runners.custom.train_custom`); random id lists holding NUL, BOM and look-alike
characters through :func:`bench.metrics.evaluate`; random mutations of a MovieLens
``ratings.dat``. The property everywhere: a value, or ltrbench's own error
(:class:`bench.errors.LtrbenchError`), never another exception; where a value comes back it
is the oracle's (pandas' reading of a clean column; the same rows as plain arrays).
"""

from __future__ import annotations

import decimal
import sys
from datetime import date, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fuzz_helpers import clear_error, fuzz_settings, mutated, outcome

FEW = fuzz_settings(25)

#: Arrow arrays of length 4 an attacker gives as a column.
ARROW_COLUMNS = st.sampled_from([
    pa.array([1, 1, 2, 2]), pa.array([1, 1, None, 2]), pa.array(["1", "1", "2", "2"]),
    pa.array(["a", "a", "b", "b"]).dictionary_encode(), pa.array(["1", "x", "2", "2"]),
    pa.array(["1", "1", "2", "2"], type=pa.large_string()), pa.array([True, False, True, True]),
    pa.array([decimal.Decimal("1.5")] * 4), pa.array([date(2020, 1, d) for d in range(1, 5)]),
    pa.array([datetime(2020, 1, d) for d in range(1, 5)]), pa.array([[1], [1], [2], [2]]),
    pa.array([None] * 4, type=pa.null()), pa.array(np.asarray([1, 2, 3, 4], dtype=np.float16)),
    pa.array(np.asarray([1, 2, 2**63 + 1, 4], dtype=np.uint64)),
    pa.array([1.0, float("nan"), 2.0, 3.0]), pa.array([1.0, float("inf"), 2.0, 3.0]),
    pa.array(["1\x00", "1", "2", "2"]), pa.array(["\ufeff1", "1", "2", "2"]),
    pa.array([b"1", b"1", b"2", b"2"]), pa.array([1.5, 2.5, 3.5, 4.5]),
])


@FEW
@given(user=ARROW_COLUMNS, item=ARROW_COLUMNS, rating=ARROW_COLUMNS)
def test_random_parquet_ratings_load_or_are_refused(tmp_path: Path, user: pa.Array,
                                                    item: pa.Array, rating: pa.Array) -> None:
    from bench.data.tabular import load_ratings_table

    p = tmp_path / "r.parquet"
    pq.write_table(pa.table({"user": user, "item": item, "rating": rating}), p)
    got = outcome(lambda: load_ratings_table(p, user="user", item="item", rating="rating"))
    if not got.ok:
        clear_error(got.error, "r.parquet")  # type: ignore[arg-type]
        return
    frame = got.value.frame
    assert len(frame) == 4
    assert np.isfinite(frame["rating"].to_numpy(dtype=float)).all()


@FEW
@given(qid=ARROW_COLUMNS, label=ARROW_COLUMNS, f1=ARROW_COLUMNS)
def test_random_letor_parquet_reads_or_is_refused(tmp_path: Path, qid: pa.Array, label: pa.Array,
                                                  f1: pa.Array) -> None:
    from bench.data.parquet import read_parquet

    p = tmp_path / "train.parquet"
    pq.write_table(pa.table({"qid": qid, "label": label, "f1": f1}), p)
    got = outcome(lambda: read_parquet(p))
    if not got.ok:
        clear_error(got.error, "train.parquet")  # type: ignore[arg-type]
        return
    d = got.value
    assert d.X.shape[0] == 4
    assert np.isfinite(np.asarray(d.X, dtype=float)).all()
    assert np.isfinite(d.y).all()


SPEC_TEXT = st.one_of(
    st.text(max_size=30),
    st.builds(lambda a, b: a + b, st.sampled_from(["synthetic", "synthetic-mslr30k", "mslr-web10k",
                                                  "./x", "~", "", "ml-100k"]),
              st.sampled_from(["", ":", ":0.01", ":Fold0", ":Fold6", ":fold1", ":0.01:Fold2",
                               ":nan", ":-1", ":1e400", ":0.01,seed=-1", ":seed=x", "::",
                               ":Fold1:Fold2", "\x00", ":0x1", ":١"])),
)


@fuzz_settings(80)
@given(text=SPEC_TEXT)
def test_random_dataset_spellings_resolve_or_are_refused(text: str) -> None:
    from bench.datasets.resolve import resolve_spec

    got = outcome(lambda: resolve_spec(text))
    if not got.ok:
        clear_error(got.error)  # type: ignore[arg-type]


OUTPUT_VALUES = st.one_of(
    st.floats(), st.integers(-(2**70), 2**70), st.booleans(), st.none(), st.complex_numbers(),
    st.text(max_size=3), st.sampled_from([np.float16(1), np.longdouble(2), np.int8(3), pd.NA,
                                          decimal.Decimal("0.5"), b"1", [1.0], (1.0,)]),
)


@fuzz_settings(20)  # each example trains a ranker: 7 guarded calls, about 0.4 s
@given(data=st.data())
def test_random_predict_outputs_give_float64_scores_or_name_the_ranker(data: st.DataObject) -> None:
    from fault_rankers import Gives
    from hostile_kit import toy_splits

    from bench.runners.custom import custom_model, train_custom

    kind = data.draw(st.sampled_from(["list", "object", "float", "series", "short"]))
    values = data.draw(st.lists(OUTPUT_VALUES, min_size=1, max_size=3))

    def make(X: np.ndarray) -> Any:
        n = X.shape[0] - (1 if kind == "short" else 0)
        cells = [values[i % len(values)] for i in range(n)]
        if kind == "object":
            a = np.empty(n, dtype=object)
            a[:] = cells
            return a
        if kind == "float":
            return np.asarray([v if isinstance(v, float) else 0.5 for v in cells])
        if kind == "series":
            return pd.Series(cells, dtype=object)
        return cells

    old = Gives.make
    Gives.make = staticmethod(make)
    try:
        splits = toy_splits()
        got = outcome(lambda: train_custom(custom_model("fz", "fault_rankers:Gives"), splits,
                                           seed=0))
    finally:
        Gives.make = old
    if not got.ok:
        clear_error(got.error, "'fz'")  # type: ignore[arg-type]
        return
    for split in ("vali", "test"):
        s = got.value.scores[split]
        assert s.dtype == np.float64
        assert np.isfinite(s).all()
        assert s.shape == (getattr(splits, split).X.shape[0],)


ID_TEXT = st.text(alphabet=st.sampled_from(["1", "2", "a", "\x00", "\ufeff", "\u00a0", " ",
                                             "\u2028", "１", "\u200b", "\t"]), min_size=1,
                  max_size=3)


@fuzz_settings(80)
@given(ids=st.lists(ID_TEXT, min_size=2, max_size=6), as_list=st.booleans())
def test_random_text_ids_are_refused_or_group_as_their_exact_text(ids: list[str],
                                                                  as_list: bool) -> None:
    from bench.metrics import evaluate

    n = len(ids)
    labels = np.arange(n, dtype=float) % 3
    scores = np.linspace(0.1, 0.9, n)
    qid: Any = ids if as_list else np.asarray(ids, dtype=object)
    got = outcome(lambda: evaluate(labels, scores, qid=qid, sort_by_qid=True, per_query=True))
    if not got.ok:
        clear_error(got.error)  # type: ignore[arg-type]
        return
    # accepted: every id is printable text without a NUL, and queries are the exact texts
    assert all("\x00" not in i and "\ufeff" not in i for i in ids), ids
    assert got.value.diagnostics.n_queries == len(set(ids))


@FEW
@given(blob=mutated(b"1::10::4::978300760\n1::11::3::978300761\n2::10::5::978300762\n"))
def test_movielens_ratings_dat_error_or_value(tmp_path: Path, blob: bytes) -> None:
    from bench.data.movielens import load_movielens

    (tmp_path / "ratings.dat").write_bytes(blob)
    got = outcome(lambda: load_movielens(tmp_path))
    if not got.ok:
        clear_error(got.error, "ratings.dat", str(tmp_path))  # type: ignore[arg-type]
        return
    r = got.value.frame["rating"].to_numpy(dtype=float)
    assert np.isfinite(r).all()
    assert len(r) >= 1

