"""Round 10: input files and frames, attacked where round 9 left doors (issue 19, part h10b).

Each case returns ``None`` when ltrbench behaved (the oracle's number, or a clear error naming
what was expected) and one line otherwise; ``test_case`` runs them all. Oracles: pytrec_eval
(``hostile_kit.pytrec``), the same data through the pandas path (a conversion must keep every
value), hand-made expectations of which file a folder reader picks.

Decisions taken here (documented in the modules' docstrings):

* dict keys that are one id as text (``7`` and ``"7"``) are **one query, merged** as a TREC
  file merges a query's lines and a frame its rows; a document under both is a pair given
  twice, refused naming both spellings (:mod:`bench.data.trec_objects`);
* a foreign LETOR Parquet file: a numeric column named like an id or a label (``Label``,
  ``QID``, ``relevance``, ``docid``) is refused (it would be read as a feature: a second label
  leaks the answer), a missing ``qid``/``label`` names its look-alike, text columns left out are
  warned by name (:mod:`bench.data.parquet`);
* pyarrow Tables and NumPy structured arrays are read as the DataFrame they convert to, on the
  TREC object path and as ratings; a polars frame is refused naming ``polars.DataFrame`` and
  ``.to_pandas()`` (polars is not a dependency); the ratings adapters take a DataFrame;
* split files and fold folders are found without case (``Train.txt``, ``fold1/``, ``s3.txt``:
  what a macOS or Windows disk does), two names differing only in case are refused naming both;
* a folder holding the ratings files of two MovieLens layouts is refused naming both;
  naming the ratings file itself picks its layout (:mod:`bench.data.movielens_layout`);
* a folder of compressed split files or archives says to unpack them
  (:mod:`bench.data.folder_names`);
* a ratings table given by path alone: a rating or time column under an unknown name beside
  other columns is refused (it would become implicit 1.0 / time 0), columns left out are
  warned (:mod:`bench.datasets.guessed_columns`);
* a ratings frame's datetime ``timestamp`` becomes seconds as a file's dates do;
* an SVMlight file with ``qid:`` and a ``.query`` sidecar that groups otherwise is refused.

The guards (``GUARDS``) passed before this round too: other instances of classes closed
earlier (swapped files, VT/FF/NEL/U+2028/U+2029 in every text reader, compressed and zipped
runs, ``qid:`` twice, comments holding ``qid:``, a fold folder linked to another).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import api_refused, call, cli, own_error, pytrec, refused

from bench.metrics.trec import evaluate_trec

Q = {"7": {"a": 1, "b": 0, "c": 2}, "8": {"d": 1, "e": 0}}
R = {"7": {"a": 0.4, "b": 0.9, "c": 0.1}, "8": {"d": 0.2, "e": 0.8}}
QF = pd.DataFrame({"qid": [7, 7, 7, 8, 8], "docno": list("abcde"), "rel": [1, 0, 2, 1, 0]})
RF = pd.DataFrame({"qid": [7, 7, 7, 8, 8], "docno": list("abcde"),
                   "score": [0.4, 0.9, 0.1, 0.2, 0.8]})
M = ["ndcg_cut_10"]


def _ndcg(qrels: Any, run: Any) -> float:
    return float(evaluate_trec(qrels, run, metrics=M).metrics["ndcg_cut_10"])


def _same_number(fn: Callable[[], float], want: float) -> str | None:
    got, exc = call(fn)
    if exc is not None:
        return f"{type(exc).__name__}: {exc}"
    return None if abs(got - want) < 1e-12 else f"got {got}, pytrec_eval gives {want}"


# ---------------------------------------------------------------- (1a) one rule for dict keys
def case_dict_run_keys_7_and_str7_merge_as_file_lines(tmp: Path) -> str | None:
    run = {7: {"a": 0.4}, "8": R["8"], "7": {"b": 0.9, "c": 0.1}}
    return _same_number(lambda: _ndcg(Q, run), pytrec(Q, R, "ndcg_cut_10"))


def case_dict_qrels_keys_np_int_and_str_merge(tmp: Path) -> str | None:
    qrels = {np.int64(7): {"a": 1}, "7": {"b": 0, "c": 2}, 8: Q["8"]}
    return _same_number(lambda: _ndcg(qrels, R), pytrec(Q, R, "ndcg_cut_10"))


def case_dict_merged_query_with_a_document_twice_names_both_spellings(tmp: Path) -> str | None:
    run = {7: {"a": 0.4}, "7": {"a": 0.9}}
    return own_error(lambda: _ndcg(Q, run), "retrieved twice", "[7]['a']", "['7']['a']")


def case_ranx_like_object_with_two_spellings_merges(tmp: Path) -> str | None:
    class Run:  # duck-typed ranx Run
        def to_dict(self) -> dict[Any, Any]:
            return {7: {"a": 0.4, "b": 0.9}, "7": {"c": 0.1}, "8": R["8"]}
    return _same_number(lambda: _ndcg(Q, Run()), pytrec(Q, R, "ndcg_cut_10"))


def case_dict_and_file_give_one_number_for_split_query(tmp: Path) -> str | None:
    (tmp / "q.txt").write_text("".join(f"{q} 0 {d} {r}\n" for q, ds in Q.items()
                                       for d, r in ds.items()))
    (tmp / "r.txt").write_text("7 Q0 a 1 0.4 t\n8 Q0 d 1 0.2 t\n7 Q0 b 2 0.9 t\n"
                               "8 Q0 e 2 0.8 t\n7 Q0 c 3 0.1 t\n")
    want, exc = call(lambda: _ndcg(str(tmp / "q.txt"), str(tmp / "r.txt")))
    if exc is not None:
        return f"file path: {exc}"
    run = {7: {"a": 0.4}, 8: {"d": 0.2}, "7": {"b": 0.9, "c": 0.1}, "8": {"e": 0.8}}
    return _same_number(lambda: _ndcg(Q, run), want)


@pytest.mark.parametrize("columns", [("score", "Score"), ("qid", "QID")])
def test_two_columns_differing_only_in_case_are_refused_not_one_picked(
        columns: tuple[str, str]) -> None:
    """Before: ``score`` and ``Score`` (or ``qid`` and ``QID``) in one run frame ranked by the
    last of the two in silence (a case-insensitive lookup kept one per spelling)."""
    a, b = columns
    run = RF.assign(**{b: RF[a][::-1].to_numpy()})
    assert own_error(lambda: _ndcg(QF, run), f"columns ['{a}', '{b}'] could each be") is None


def test_a_guessed_ratings_column_in_two_cases_is_refused(tmp_path: Path) -> None:
    from bench.datasets.resolve import load_path

    p = _ratings_csv(tmp_path, "user,item,RATING,timestamp,rAting")
    assert own_error(lambda: load_path(p), "['RATING', 'rAting']", "differ only in case") is None


# ------------------------------------------------- (1c) tables that are not pandas DataFrames
def case_pyarrow_table_run_equals_pandas(tmp: Path) -> str | None:
    return _same_number(lambda: _ndcg(QF, pa.Table.from_pandas(RF)), _ndcg(QF, RF))


def case_pyarrow_table_qrels_equals_pandas(tmp: Path) -> str | None:
    return _same_number(lambda: _ndcg(pa.Table.from_pandas(QF, preserve_index=False), RF),
                        _ndcg(QF, RF))


def case_pyarrow_record_batch_with_text_ids_equals_pandas(tmp: Path) -> str | None:
    rb = pa.RecordBatch.from_pandas(RF.assign(qid=RF["qid"].astype(str)), preserve_index=False)
    return _same_number(lambda: _ndcg(QF, rb), _ndcg(QF, RF))


def case_numpy_structured_run_equals_pandas(tmp: Path) -> str | None:
    return _same_number(lambda: _ndcg(QF, RF.to_records(index=False)), _ndcg(QF, RF))


class _FakePolars:
    """Stands for a polars DataFrame (polars is not installed): its module and a ``to_dict``
    that a ranx duck-typing would take."""

    def to_dict(self) -> dict[str, list[int]]:
        return {"qid": [7], "docno": [1], "score": [1]}

    def to_pandas(self) -> pd.DataFrame:
        return RF


_FakePolars.__module__ = "polars.dataframe.frame"
_FakePolars.__qualname__ = "DataFrame"


def case_polars_frame_is_named_with_its_conversion(tmp: Path) -> str | None:
    return own_error(lambda: _ndcg(QF, _FakePolars()), "polars.DataFrame", ".to_pandas()")


def case_a_list_of_rows_names_the_types_expected(tmp: Path) -> str | None:
    return own_error(lambda: _ndcg(QF, [("7", "a", 0.4)]), "got list", "pandas DataFrame")


def _ratings_frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({"user": np.repeat(np.arange(1, 21), 20),
                         "item": np.tile(np.arange(1, 21), 20),
                         "rating": rng.integers(1, 6, 400).astype(float),
                         "timestamp": np.arange(400) + 1_000_000_000})


def case_ratings_from_a_pyarrow_table_equal_pandas(tmp: Path) -> str | None:
    from bench.data.ratings import Ratings

    f = _ratings_frame()
    got, exc = call(lambda: Ratings(pa.Table.from_pandas(f)).frame)
    if exc is not None:
        return f"{type(exc).__name__}: {exc}"
    return None if got[list(f.columns)].equals(f) else "the table's values changed"


def case_ratings_from_a_structured_array_equal_pandas(tmp: Path) -> str | None:
    from bench.data.ratings import Ratings

    f = _ratings_frame()
    got, exc = call(lambda: Ratings(f.to_records(index=False)).summary())
    if exc is not None:
        return f"{type(exc).__name__}: {exc}"
    return None if got == Ratings(f).summary() else f"{got} != {Ratings(f).summary()}"


def case_ratings_from_a_dict_names_the_type_expected(tmp: Path) -> str | None:
    from bench.data.ratings import Ratings

    return own_error(lambda: Ratings(_ratings_frame().to_dict("list")),  # type: ignore[arg-type]
                     "got a dict", "pandas DataFrame", "user, item, rating, timestamp")


def case_ratings_from_polars_names_to_pandas(tmp: Path) -> str | None:
    from bench.data.ratings import Ratings

    return own_error(lambda: Ratings(_FakePolars()),  # type: ignore[arg-type]
                     "polars.DataFrame", ".to_pandas()")


def case_ratings_to_letor_takes_a_dataframe(tmp: Path) -> str | None:
    from bench.adapters.config import AdapterConfig
    from bench.adapters.pipeline import ratings_to_letor
    from bench.data.ratings import Ratings

    f = _ratings_frame()
    cfg = AdapterConfig(target_size=2, min_history=2, negatives=2)
    got, exc = call(lambda: ratings_to_letor(f, cfg))  # type: ignore[arg-type]
    if exc is not None:
        return f"{type(exc).__name__}: {exc}"
    want = ratings_to_letor(Ratings(f), cfg)
    same = all(np.array_equal(getattr(got, s).X, getattr(want, s).X)
               and np.array_equal(getattr(got, s).y, getattr(want, s).y)
               for s in ("train", "vali", "test"))
    return None if same else "a DataFrame gave other splits than Ratings(frame)"


def case_ratings_to_letor_with_a_dict_config_names_adapter_config(tmp: Path) -> str | None:
    from bench.adapters.pipeline import ratings_to_letor
    from bench.data.ratings import Ratings

    return own_error(lambda: ratings_to_letor(Ratings(_ratings_frame()),
                                              {"split": "random"}),  # type: ignore[arg-type]
                     "got a dict", "AdapterConfig")


def case_ratings_to_letor_with_a_bad_ratings_frame_names_the_column(tmp: Path) -> str | None:
    from bench.adapters.pipeline import ratings_to_letor

    f = _ratings_frame().assign(user=lambda d: d["user"].astype(str))
    return own_error(lambda: ratings_to_letor(f), "column 'user'", "expected integer")


def case_ratings_frame_with_dates_reads_as_a_file_of_dates(tmp: Path) -> str | None:
    """A file's text dates and a Parquet timestamp column become seconds (tabular); a frame's
    datetime64 column did not (refused as "not integer"): now the same seconds."""
    from bench.data.ratings import Ratings
    from bench.data.tabular import load_ratings_table

    f = _ratings_frame()
    dates = f.assign(timestamp=pd.to_datetime(f["timestamp"], unit="s"))
    pq.write_table(pa.Table.from_pandas(dates, preserve_index=False), tmp / "r.parquet")
    want = load_ratings_table(tmp / "r.parquet", user="user", item="item", rating="rating",
                              timestamp="timestamp").frame["timestamp"].to_numpy()
    got, exc = call(lambda: Ratings(dates).frame["timestamp"].to_numpy())
    if exc is not None:
        return f"{type(exc).__name__}: {exc}"
    return None if np.array_equal(got, want) and np.array_equal(got, f["timestamp"]) else \
        f"{got[:3]} != {want[:3]}"


def case_ratings_frame_with_zoned_dates_is_utc(tmp: Path) -> str | None:
    from bench.data.ratings import Ratings

    f = _ratings_frame().iloc[:2].assign(timestamp=pd.to_datetime(
        ["2020-01-01T01:00:00+01:00", "2020-01-01T00:00:01+00:00"], utc=True).tz_convert(
        "Europe/Paris"))
    got, exc = call(lambda: Ratings(f).frame["timestamp"].tolist())
    if exc is not None:
        return f"{type(exc).__name__}: {exc}"
    return None if got == [1577836800, 1577836801] else f"{got}"  # date -u -d 2020-01-01 +%s


def case_ratings_frame_with_user_as_index_says_reset_index(tmp: Path) -> str | None:
    from bench.data.ratings import Ratings

    return own_error(lambda: Ratings(_ratings_frame().set_index("user")), "['user']",
                     "reset_index()")


def case_ratings_frame_with_multiindex_columns_says_flatten(tmp: Path) -> str | None:
    from bench.data.ratings import Ratings

    return own_error(lambda: Ratings(pd.concat({"x": _ratings_frame()}, axis=1)), "MultiIndex",
                     "flatten")


# --------------------------------------------------- (1b) foreign Parquet: no silent columns
def _parquet(tmp: Path, columns: dict[str, Any]) -> Path:
    pq.write_table(pa.table(columns), tmp / "d.parquet")
    return tmp / "d.parquet"


def _read_parquet(p: Path) -> Any:
    from bench.data.parquet import read_parquet

    return read_parquet(p)


def case_parquet_misspelt_label_names_the_lookalike(tmp: Path) -> str | None:
    p = _parquet(tmp, {"qid": [1, 1], "Label": [1, 0], "f": [0.1, 0.2]})
    return own_error(lambda: _read_parquet(p), "column 'label'", "found 'Label'",
                     "rename it 'label'")


def case_parquet_uppercase_qid_names_the_lookalike(tmp: Path) -> str | None:
    p = _parquet(tmp, {"QID": [1, 1], "label": [1, 0], "f": [0.1, 0.2]})
    return own_error(lambda: _read_parquet(p), "column 'qid'", "found 'QID'")


def case_parquet_second_label_column_is_no_feature(tmp: Path) -> str | None:
    p = _parquet(tmp, {"qid": [1, 1], "label": [1, 0], "relevance": [1, 0], "f": [0.1, 0.2]})
    return own_error(lambda: _read_parquet(p), "column 'relevance'", "named like the label",
                     "read as a feature")


def case_parquet_numeric_docid_is_no_feature(tmp: Path) -> str | None:
    p = _parquet(tmp, {"qid": [1, 1], "label": [1, 0], "doc_id": [5, 6], "f": [0.1, 0.2]})
    return own_error(lambda: _read_parquet(p), "column 'doc_id'", "a document id")


def case_parquet_case_variant_of_a_reserved_name_is_no_feature(tmp: Path) -> str | None:
    p = _parquet(tmp, {"qid": [1, 1], "label": [1, 0], "User": [5, 6], "f": [0.1, 0.2]})
    return own_error(lambda: _read_parquet(p), "column 'User'", "the user id")


def case_parquet_text_columns_left_out_are_warned_by_name(tmp: Path) -> str | None:
    p = _parquet(tmp, {"qid": [1, 1], "label": [1, 0], "docno": ["a", "b"],
                       "when": pa.array([1, 2], pa.timestamp("s")), "f": [0.1, 0.2]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        d, exc = call(lambda: _read_parquet(p))
    if exc is not None:
        return f"{type(exc).__name__}: {exc}"
    said = " ".join(str(w.message) for w in caught)
    if d.feature_names != ("f",):
        return f"features {d.feature_names}"
    return None if "'docno'" in said and "'when'" in said else f"no warning naming them: {said!r}"


# ------------------------------------------------------- folders: case variants and releases
def _split(q0: int) -> str:
    return "".join(f"{(i + j) % 3} qid:{q0 + i} 1:{i}.5 2:{j}\n" for i in range(3)
                   for j in range(3))


def _letor(folder: Path, names: tuple[str, str, str] = ("train.txt", "vali.txt", "test.txt"),
           q0: int = 1) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for k, n in enumerate(names):
        (folder / n).write_text(_split(q0 + 10 * k))
    return folder


def _read_folder(p: Path) -> Any:
    from bench.data.folders import read_folder

    return read_folder(p)


def case_capitalised_split_files_read_as_lowercase_ones(tmp: Path) -> str | None:
    a = _letor(tmp / "a")
    b = _letor(tmp / "b", ("Train.txt", "Vali.txt", "TEST.TXT"))
    got, exc = call(lambda: _read_folder(b))
    if exc is not None:
        return f"{type(exc).__name__}: {exc}"
    want = _read_folder(a)
    return None if all(np.array_equal(getattr(got, s).X, getattr(want, s).X)
                       for s in ("train", "vali", "test")) else "other data"


def case_train_txt_beside_Train_txt_is_refused_naming_both(tmp: Path) -> str | None:
    d = _letor(tmp / "d")
    (d / "Train.txt").write_text(_split(50))
    return own_error(lambda: _read_folder(d), "train.txt", "Train.txt")


def case_Fold1_beside_fold1_is_refused_naming_both(tmp: Path) -> str | None:
    from bench.datasets.folds import read_fold

    _letor(tmp / "Fold1")
    _letor(tmp / "fold1", q0=100)
    return own_error(lambda: read_fold(tmp, 1), "Fold1 and fold1", "differ only in case")


def case_a_lowercase_fold_folder_is_read(tmp: Path) -> str | None:
    from bench.datasets.folds import read_fold

    _letor(tmp / "fold2")
    got, exc = call(lambda: read_fold(tmp, 2))
    if exc is not None:
        return f"{type(exc).__name__}: {exc}"
    return None if got.test is not None and got.test.n_rows == 9 else "no test split"


def case_S3_beside_s3_part_file_is_refused(tmp: Path) -> str | None:
    from bench.datasets.folds import read_fold

    for i in range(1, 6):
        (tmp / f"S{i}.txt").write_text(_split(10 * i))
    (tmp / "s3.txt").write_text(_split(99))
    return own_error(lambda: read_fold(tmp, 2), "S3.txt and s3.txt")


def case_cli_run_on_a_folder_with_case_twins_is_one_line(tmp: Path) -> str | None:
    _letor(tmp / "ds" / "Fold1")
    _letor(tmp / "ds" / "FOLD1", q0=100)
    res = cli(tmp, "run", "--dataset", str(tmp / "ds"), "--models", "random", "--quick",
              "--out", str(tmp / "out"))
    return refused(res, "Fold1 and FOLD1")


def case_a_folder_of_gzipped_split_files_says_to_unpack_them(tmp: Path) -> str | None:
    import gzip

    from bench.datasets.resolve import load_path

    for k, n in enumerate(("train", "vali", "test")):
        (tmp / f"{n}.txt.gz").write_bytes(gzip.compress(_split(10 * k).encode()))
    return own_error(lambda: load_path(tmp), "train.txt.gz", "compressed", "unpack them")


def case_a_folder_holding_an_archive_says_to_unpack_it(tmp: Path) -> str | None:
    import zipfile

    from bench.datasets.resolve import load_path

    with zipfile.ZipFile(tmp / "MQ2008.zip", "w") as z:
        z.writestr("Fold1/train.txt", _split(1))
    return own_error(lambda: load_path(tmp), "MQ2008.zip", "unpack")


def _movielens(folder: Path, files: tuple[str, ...]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    rows = [(u, i, (u + i) % 5 + 1, 978300760 + 10 * u + i) for u in range(1, 6)
            for i in range(1, 11)]
    text = {"u.data": "\t", "ratings.dat": "::", "ratings.csv": ","}
    for f in files:
        sep = text[f]
        head = "userId,movieId,rating,timestamp\n" if f.endswith(".csv") else ""
        (folder / f).write_text(head + "".join(sep.join(map(str, r)) + "\n" for r in rows))
    return folder


def case_two_movielens_layouts_in_one_folder_are_refused(tmp: Path) -> str | None:
    from bench.data.movielens import load_movielens

    d = _movielens(tmp / "ml", ("u.data", "ratings.csv"))
    return own_error(lambda: load_movielens(d), "u.data", "ratings.csv", "MovieLens layouts")


def case_naming_the_ratings_file_picks_its_layout(tmp: Path) -> str | None:
    from bench.data.movielens import load_movielens

    d = _movielens(tmp / "ml", ("ratings.dat", "ratings.csv"))
    dat = (d / "ratings.dat").read_text().splitlines(keepends=True)
    (d / "ratings.dat").write_text("".join(dat[:20]))  # another file: 20 ratings, not 50
    got, exc = call(lambda: load_movielens(d / "ratings.csv"))
    if exc is not None:
        return f"{type(exc).__name__}: {exc}"
    return None if got.n_ratings == 50 else f"{got.n_ratings} ratings"


def case_cli_convert_of_a_folder_with_two_layouts_is_one_line(tmp: Path) -> str | None:
    d = _movielens(tmp / "ml", ("u.data", "ratings.dat"))
    res = cli(tmp, "convert", "--ratings", str(d), "--out", str(tmp / "out"))
    return refused(res, "u.data", "ratings.dat")


# ---------------------------------------- a ratings table given by path: no silent guesses
def _ratings_csv(tmp: Path, header: str) -> Path:
    rows = "".join(f"{u},{i},{(u + i) % 5 + 1},{1_000_000_000 + 10 * u + i},t\n"
                   for u in range(1, 31) for i in range(1, 21))
    (tmp / "r.csv").write_text(header + "\n" + rows)
    return tmp / "r.csv"


def case_a_rating_column_under_another_name_is_not_made_implicit(tmp: Path) -> str | None:
    from bench.datasets.resolve import load_path

    p = _ratings_csv(tmp, "user,item,preference,timestamp,note")
    return own_error(lambda: load_path(p), "no rating column", "'preference'", "--rating COL")


def case_a_time_column_under_another_name_is_not_made_zero(tmp: Path) -> str | None:
    from bench.datasets.resolve import load_path

    p = _ratings_csv(tmp, "user,item,rating,datetime,note")
    return own_error(lambda: load_path(p), "no timestamp column", "'datetime'")


def case_columns_a_guess_leaves_out_are_warned(tmp: Path) -> str | None:
    from bench.datasets import guessed_columns

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _got, exc = call(lambda: guessed_columns.guess_columns(
            ["userId", "movieId", "rating", "timestamp", "title"], tmp / "r.csv"))
    if exc is not None:
        return f"{type(exc).__name__}: {exc}"
    said = " ".join(str(w.message) for w in caught)
    return None if "'title'" in said else f"no warning naming 'title': {said!r}"


# ------------------------------------------------ a qid: file and a .query sidecar beside it
_GROUPED = "1 qid:1 1:0.4\n0 qid:1 1:0.9\n2 qid:1 1:0.1\n1 qid:2 1:0.2\n0 qid:2 1:0.8\n"
_FIVE = "0.4\n0.9\n0.1\n0.2\n0.8\n"


def case_a_query_sidecar_that_disagrees_with_qid_is_named(tmp: Path) -> str | None:
    res = _cli_files(tmp, {"d.svm": _GROUPED, "d.svm.query": "1\n4\n", "s.txt": _FIVE},
                     "--data", "d.svm", "--scores", "s.txt")
    return refused(res, "d.svm", "d.svm.query", "group 1 has 3 rows")


def case_a_query_sidecar_that_agrees_with_qid_is_read(tmp: Path) -> str | None:
    from bench.data.svmlight import read_svmlight

    (tmp / "d.svm").write_text(_GROUPED)
    (tmp / "d.svm.query").write_text("3\n2\n")
    got, exc = call(lambda: read_svmlight(tmp / "d.svm"))
    if exc is not None:
        return f"{type(exc).__name__}: {exc}"
    return None if got.offsets.tolist() == [0, 3, 5] else f"offsets {got.offsets.tolist()}"


# ------------------------------------------------ (2) guards: swapped files, odd line ends
_TREC_Q = "1 0 a 1\n1 0 b 0\n2 0 d 1\n"
_TREC_R = "1 Q0 a 1 0.4 t\n1 Q0 b 2 0.9 t\n2 Q0 d 1 0.2 t\n"
_SVM = "1 qid:1 1:0.4\n0 qid:1 1:0.9\n1 qid:2 1:0.2\n"
_SCORES = "0.4\n0.9\n0.2\n"


def _cli_files(tmp: Path, files: dict[str, str | bytes], *argv: str) -> Any:
    for n, text in files.items():
        (tmp / n).write_bytes(text if isinstance(text, bytes) else text.encode())
    return cli(tmp, "evaluate", *argv)


def _swapped(files: dict[str, str | bytes], argv: tuple[str, ...], *words: str
             ) -> Callable[[Path], str | None]:
    return lambda tmp: refused(_cli_files(tmp, files, *argv), *words)


_ENDS = {"vertical tab": "\x0b", "form feed": "\x0c", "next-line": "\x85",
         "line separator": "\u2028", "paragraph separator": "\u2029"}


def _odd_end(kind: str, name: str) -> Callable[[Path], str | None]:
    end = _ENDS[name]

    def case(tmp: Path) -> str | None:
        files: dict[str, str | bytes] = {"q.txt": _TREC_Q, "r.txt": _TREC_R, "d.svm": _SVM,
                                         "s.txt": _SCORES}
        target = {"qrels": "q.txt", "run": "r.txt", "svmlight": "d.svm", "scores": "s.txt"}[kind]
        files[target] = str(files[target]).replace("\n", end, 1)
        argv = (("--qrels", "q.txt", "--run", "r.txt", "--metrics", "ndcg_cut_10")
                if kind in ("qrels", "run") else ("--data", "d.svm", "--scores", "s.txt"))
        return refused(_cli_files(tmp, files, *argv), target, name)
    return case


def _compressed_empty(tmp: Path) -> str | None:
    import gzip

    return refused(_cli_files(tmp, {"q.txt": _TREC_Q, "r.gz": gzip.compress(b"")}, "--qrels",
                              "q.txt", "--run", "r.gz"), "r.gz", "gzip")


def _zip_two_members(tmp: Path) -> str | None:
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("a.txt", _TREC_R)
        z.writestr("dir/", "")
    return refused(_cli_files(tmp, {"q.txt": _TREC_Q, "r.zip": buf.getvalue()}, "--qrels",
                              "q.txt", "--run", "r.zip"), "r.zip", "zip")


def _huge_feature_index(tmp: Path) -> str | None:
    """A dense matrix of 2^31 columns: refused at its line (``evaluate --data`` reads no
    features, so only the LETOR reader can say it)."""
    from bench.data.svmlight import read_svmlight

    (tmp / "d.svm").write_text("1 qid:1 2147483648:1\n0 qid:1 1:0.9\n")
    return own_error(lambda: read_svmlight(tmp / "d.svm"), "d.svm:1", "2147483648")


def _symlinked_fold(tmp: Path) -> str | None:
    """``Fold3 -> Fold1``: one fold's queries would be tested twice in a fold table."""
    from bench.datasets.folds import check_distinct_test_folds

    _letor(tmp / "Fold1")
    _letor(tmp / "Fold2", q0=100)
    (tmp / "Fold3").symlink_to(tmp / "Fold1", target_is_directory=True)
    return own_error(lambda: check_distinct_test_folds(tmp, (1, 2, 3)), "Fold3", "Fold1")


def _ratings_text(end: str, name: str) -> Callable[[Path], str | None]:
    def case(tmp: Path) -> str | None:
        from bench.data.tabular import load_ratings_table

        rows = "".join(f"{u},{i},3,{1000 + i}\n" for u in range(1, 4) for i in range(1, 5))
        (tmp / "r.csv").write_text("user,item,rating,timestamp\n" + rows.replace("\n", end, 2))
        return own_error(lambda: load_ratings_table(tmp / "r.csv", user="user", item="item",
                                                    rating="rating", timestamp="timestamp"),
                         "r.csv", name)
    return case


GUARDS: dict[str, Callable[[Path], str | None]] = {
    "run file given as qrels": _swapped({"r.txt": _TREC_R}, (
        "--qrels", "r.txt", "--run", "r.txt"), "r.txt:1", "swapped"),
    "svmlight file given as a run": _swapped({"q.txt": _TREC_Q, "d.svm": _SVM}, (
        "--qrels", "q.txt", "--run", "d.svm"), "d.svm:1"),
    "ratings csv given as LETOR data": _swapped({"r.csv": "user,item,rating\n1,2,3\n",
                                                 "s.txt": "1\n"}, (
        "--data", "r.csv", "--scores", "s.txt"), "r.csv:1", "SVMlight"),
    "qrels given as scores": _swapped({"d.svm": _SVM, "q.txt": _TREC_Q}, (
        "--data", "d.svm", "--scores", "q.txt"), "q.txt:1"),
    "comment holding qid: only": _swapped({"d.svm": "1 1:1 # qid:5\n0 1:2 # qid:6\n",
                                           "s.txt": "1\n2\n"}, (
        "--data", "d.svm", "--scores", "s.txt"), "d.svm", "qid:"),
    "qid: twice on a line": _swapped({"d.svm": "1 qid:1 qid:2 1:1\n", "s.txt": "1\n"}, (
        "--data", "d.svm", "--scores", "s.txt"), "d.svm:1", "qid:"),
    "feature index 2^31 in a LETOR file": _huge_feature_index,
    "a gzip of an empty file as a run": _compressed_empty,
    "a zip with a folder member as a run": _zip_two_members,
    "a fold folder that is a link to another fold": _symlinked_fold,
    **{f"{name} in a ratings csv": _ratings_text(end, name) for name, end in (
        ("vertical tab", "\x0b"), ("next-line", "\x85"), ("line separator", "\u2028"),
        ("byte-order mark", "\n\ufeff"), ("NUL", "\x00\n"))},
    **{f"{name} in a {kind} file": _odd_end(kind, name)
       for kind in ("qrels", "run", "svmlight", "scores") for name in _ENDS},
}

CASES: dict[str, Callable[[Path], str | None]] = {
    **{n[5:]: f for n, f in globals().items() if n.startswith("case_") and callable(f)},
    **GUARDS,
}


@pytest.mark.parametrize("name", list(CASES))
def test_case(name: str, tmp_path: Path) -> None:
    problem = CASES[name](tmp_path)
    assert problem is None, f"{name}: {problem}"


def test_the_parquet_reader_still_reads_a_foreign_table_of_features(tmp_path: Path) -> None:
    """The guard's other side: a plain foreign table (qid, label, numeric features named
    otherwise) is read without a warning, every numeric column a feature in file order."""
    p = _parquet(tmp_path, {"qid": [1, 1, 2], "label": [1, 0, 2], "bm25": [0.5, 1.5, 2.5],
                            "pagerank": [1, 2, 3]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d = _read_parquet(p)
    assert d.feature_names == ("bm25", "pagerank")
    assert d.X.tolist() == [[0.5, 1.0], [1.5, 2.0], [2.5, 3.0]]


def test_api_refusals_are_ltrbench_errors() -> None:
    """``api_refused`` is the judge of the API cases: a foreign exception is a traceback."""
    assert api_refused(ValueError("x")) is not None


# ------------------------------------------- property: a dict and a file give one answer
try:
    from hypothesis import given, settings
    from hypothesis import strategies as st
except ImportError:  # pragma: no cover - hypothesis is a test dependency
    given = None

if given is not None:
    _ENTRY = st.tuples(st.sampled_from([7, "7", 8, "8", np.int64(9), "9"]),
                       st.sampled_from(["a", "b", "c", 1, "1"]),
                       st.integers(0, 2), st.sampled_from([0.1, 0.5, 0.9, 0.3]))

    @settings(max_examples=40, deadline=None)
    @given(st.lists(_ENTRY, min_size=1, max_size=8))
    def test_a_dict_with_two_spellings_answers_as_the_file_of_its_lines(
            entries: list[tuple[Any, Any, int, float]]) -> None:
        """Shrunk example: ``[(7, 'a', 0, 0.1), ('7', 'a', 0, 0.1)]`` (refused on both paths:
        a pair given twice). Each entry is one qrels line and one run line; the dicts hold them
        under the keys as spelled, the files as text: both paths give the same number, or
        both refuse."""
        import tempfile

        from bench.errors import LtrbenchError

        qd: dict[Any, dict[Any, int]] = {}
        rd: dict[Any, dict[Any, float]] = {}
        for q, d, rel, score in entries:
            qd.setdefault(q, {})[d] = rel
            rd.setdefault(q, {})[d] = score
        qlines = "".join(f"{q} 0 {d} {r}\n" for q, ds in qd.items() for d, r in ds.items())
        rlines = "".join(f"{q} Q0 {d} 1 {s} t\n" for q, ds in rd.items() for d, s in ds.items())
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "q.txt").write_text(qlines)
            (Path(tmp) / "r.txt").write_text(rlines)
            got = []
            for qrels, run in ((qd, rd), (str(Path(tmp) / "q.txt"), str(Path(tmp) / "r.txt"))):
                try:
                    got.append(round(_ndcg(qrels, run), 12))
                except LtrbenchError:
                    got.append("refused")
        assert got[0] == got[1], (entries, got)
