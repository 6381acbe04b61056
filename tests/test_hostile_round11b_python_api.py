"""Hostile calls of the Python API, round 11b (issue 19): a data scientist in a notebook who
never touches the command line.

``evaluate``, ``evaluate_trec``, ``compare_runs``, ``bench.benchmark.run`` and ``RunResult``
called with what Python lets a user pass: paths as ``str`` / ``pathlib.Path`` / ``os.PathLike``
(one whose ``__fspath__`` raises or returns bytes), ``~``, a pasted trailing newline; per-row
arguments that are generators, sets, dict views, SciPy sparse matrices, 2-D tables, masked
arrays; frames with integer column labels; results compared (``==``), measured (``len``),
pickled, and their returned tables changed by the user. Oracles: hand arithmetic and
pytrec_eval for numbers, copies for "inputs unchanged", a ltrbench error naming the argument
and what was expected for refusals (never ``ValueError: truth value ... ambiguous``, a
``RuntimeError`` from the user's own ``__fspath__`` or a folder named ``~`` created in the
working directory).
"""

from __future__ import annotations

import copy
import os
import pickle
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from bench.errors import ConfigError, DataError, LtrbenchError
from bench.metrics import evaluate, evaluate_trec
from bench.report.compare_runs import compare_runs

LABELS = [2, 0, 1, 0, 1, 0]
SCORES = [0.9, 0.8, 0.1, 0.3, 0.3, 0.7]
QID = ["q1", "q1", "q1", "q2", "q2", "q2"]
# Hand arithmetic (ltrbench profile, gain 2^l - 1, ties averaged): q1 ranks labels 2, 0, 1 ->
# DCG@3 = 3 + 0 + 1/2 = 3.5, ideal 3 + 1/log2(3); q2 ranks 0, then a tie of labels 0 and 1 at
# ranks 2-3 (mean discount of the two, gain shared): DCG@3 = (1/log2(3) + 1/2) / 2, ideal 1.
Q1_NDCG3 = 3.5 / (3 + 1 / np.log2(3))
Q2_NDCG3 = (1 / np.log2(3) + 0.5) / 2
NDCG3 = (Q1_NDCG3 + Q2_NDCG3) / 2

QRELS = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 0, "d5": 1, "d9": 2}}
RUN_A = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}, "q2": {"d4": 0.3, "d5": 0.3, "d6": 0.7}}
RUN_B = {"q1": {"d1": 0.2, "d2": 0.8, "d3": 0.5}, "q2": {"d4": 0.9, "d5": 0.1, "d6": 0.7}}
QRELS_TEXT = "".join(f"{q} 0 {d} {r}\n" for q, docs in QRELS.items() for d, r in docs.items())
RUN_TEXT = "".join(f"{q} Q0 {d} {i + 1} {s} a\n" for q, docs in RUN_A.items()
                   for i, (d, s) in enumerate(docs.items()))
COMMITTED = Path(__file__).resolve().parents[1] / "results" / "runs"


def _pytrec(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]
            ) -> dict[str, float]:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    per = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut_10"}).evaluate(run)
    return {m: float(np.mean([v[m] for v in per.values()])) for m in ("ndcg_cut_10", "map")}


def _clear(exc: BaseException, *words: str) -> None:
    """A ltrbench error (never a bare Python or library exception) naming every word."""
    assert isinstance(exc, LtrbenchError), f"{type(exc).__name__}: {exc}"
    text = str(exc)
    for word in words:
        assert word in text, f"{word!r} not in {text!r}"
    assert "Traceback" not in text


class Raising(os.PathLike):  # type: ignore[type-arg]
    def __fspath__(self) -> str:
        raise RuntimeError("boom from the user's own path object")


class Bytes(os.PathLike):  # type: ignore[type-arg]
    def __init__(self, path: str) -> None:
        self.path = path

    def __fspath__(self) -> bytes:  # type: ignore[override]
        return os.fsencode(self.path)


class Text(os.PathLike):  # type: ignore[type-arg]
    def __init__(self, path: str) -> None:
        self.path = path

    def __fspath__(self) -> str:
        return self.path


@pytest.fixture
def trec_files(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "q").write_text(QRELS_TEXT)
    (tmp_path / "r").write_text(RUN_TEXT)
    return tmp_path / "q", tmp_path / "r"


# ------------------------------------------------------------------ evaluate: per-row arguments

def test_the_hand_arithmetic_holds_for_the_plain_call() -> None:
    r = evaluate(LABELS, SCORES, qid=QID, metrics=["ndcg@3"])
    assert r["ndcg@3"] == pytest.approx(NDCG3, abs=1e-15)


@pytest.mark.parametrize("arg", ["labels", "scores", "qid"])
def test_a_generator_per_row_argument_is_named_not_a_shape_message(arg: str) -> None:
    kwargs: dict[str, Any] = {"labels": LABELS, "scores": SCORES, "qid": QID}
    kwargs[arg] = (v for v in kwargs[arg])
    with pytest.raises(DataError) as info:
        evaluate(kwargs.pop("labels"), kwargs.pop("scores"), **kwargs)
    _clear(info.value, arg, "generator", "list(")
    assert "shape ()" not in str(info.value)
    assert "Decimal" not in str(info.value)


def test_a_map_object_as_qid_is_named_as_a_one_pass_iterator() -> None:
    with pytest.raises(DataError) as info:
        evaluate(LABELS, SCORES, qid=map(str, QID))
    _clear(info.value, "qid", "map", "iterator")


def test_a_set_of_scores_is_refused_as_having_no_row_order() -> None:
    with pytest.raises(DataError) as info:
        evaluate(LABELS, set(SCORES), qid=QID)
    _clear(info.value, "scores", "set", "row order")


def test_dict_values_as_scores_are_named_not_read_as_one_object() -> None:
    scores = dict(zip("abcdef", SCORES, strict=True))
    with pytest.raises(DataError) as info:
        evaluate(LABELS, scores.values(), qid=QID)
    _clear(info.value, "scores", "dict_values", "list(")


def test_a_scipy_sparse_score_row_says_how_to_densify_it() -> None:
    sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(DataError) as info:
        evaluate(LABELS, sparse.csr_matrix(np.array(SCORES)), qid=QID)
    _clear(info.value, "scores", "sparse", "toarray")
    assert "Decimal" not in str(info.value)


def test_sparse_weights_are_named_like_sparse_scores() -> None:
    sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(DataError) as info:
        evaluate(LABELS, SCORES, qid=QID, weights=sparse.csr_matrix(np.ones(6)))
    _clear(info.value, "weights", "sparse")


def test_a_two_dimensional_weights_table_is_refused_not_read_row_by_row() -> None:
    """Weights (2, 3) were flattened to 6 row weights without a word (query 2's rows 3,3,3:
    its weight 3): a table is no per-row vector, as a (6, 1) score column is refused."""
    with pytest.raises(DataError) as info:
        evaluate(LABELS, SCORES, qid=QID, weights=np.array([[1, 1, 1], [3, 3, 3]]))
    _clear(info.value, "weights", "one-dimensional", "(2, 3)")


def test_a_weights_column_is_refused_as_a_score_column_is() -> None:
    for arg in ("weights", "scores"):
        kwargs: dict[str, Any] = {"qid": QID}
        scores: Any = SCORES
        if arg == "weights":
            kwargs["weights"] = np.ones((6, 1))
        else:
            scores = np.array(SCORES).reshape(-1, 1)
        with pytest.raises(DataError) as info:
            evaluate(LABELS, scores, **kwargs)
        _clear(info.value, arg, "one-dimensional", "(6, 1)")


def test_per_query_weights_still_weigh_the_queries() -> None:
    r = evaluate(LABELS, SCORES, qid=QID, metrics="ndcg@3", weights=[1, 3])
    assert r["ndcg@3"] == pytest.approx((Q1_NDCG3 + 3 * Q2_NDCG3) / 4, abs=1e-15)


def test_a_masked_group_size_is_refused_as_other_masked_arguments() -> None:
    """group=[3, --] read the masked 3 as data (NDCG of two queries); every other argument
    refuses masked values."""
    with pytest.raises(DataError) as info:
        evaluate(LABELS, SCORES, group=np.ma.array([3, 3], mask=[False, True]))
    _clear(info.value, "group", "masked")
    assert info.value.row == 2


def test_an_unmasked_masked_group_reads_as_its_data() -> None:
    r = evaluate(LABELS, SCORES, group=np.ma.array([3, 3]), metrics="ndcg@3")
    assert r["ndcg@3"] == pytest.approx(NDCG3, abs=1e-15)


@pytest.mark.parametrize("dtype", [">f8", "<f4", np.float16, np.longdouble])
def test_scores_of_any_float_width_or_byte_order_give_the_hand_number(dtype: Any) -> None:
    r = evaluate(np.array(LABELS, dtype=">i8"), np.array(SCORES, dtype=dtype),
                 qid=np.array([1, 1, 1, 2, 2, 2], dtype=">i4"), metrics="ndcg@3")
    assert r["ndcg@3"] == pytest.approx(NDCG3, abs=1e-12)


def test_read_only_and_strided_views_give_the_hand_number_and_stay_unchanged() -> None:
    wide = np.repeat(np.array(SCORES), 2)[::2]  # a view with stride 2
    assert not wide.flags["C_CONTIGUOUS"]
    labels = np.array(LABELS)
    labels.flags.writeable = False
    before = wide.copy()
    r = evaluate(labels, wide, qid=QID, metrics="ndcg@3")
    assert r["ndcg@3"] == pytest.approx(NDCG3, abs=1e-15)
    assert np.array_equal(wide, before)


def test_nullable_float_scores_with_na_name_the_row() -> None:
    with pytest.raises(DataError) as info:
        evaluate(LABELS, pd.array([0.9, 0.8, None, 0.3, 0.3, 0.7], dtype="Float64"), qid=QID)
    _clear(info.value, "score")
    assert info.value.row == 3


def test_metric_lists_of_every_container_keep_the_order_asked() -> None:
    for metrics in (["map", "ndcg@3"], ("map", "ndcg@3"), (m for m in ["map", "ndcg@3"]),
                    np.array(["map", "ndcg@3"]), pd.Series(["map", "ndcg@3"]), "map ndcg@3",
                    "map,ndcg@3"):
        r = evaluate(LABELS, SCORES, qid=QID, metrics=metrics)
        assert list(r.metrics) == ["map", "ndcg@3"], metrics
        assert r["ndcg@3"] == pytest.approx(NDCG3, abs=1e-15)


def test_a_set_of_metric_names_is_refused_for_having_no_order() -> None:
    with pytest.raises(ConfigError) as info:
        evaluate(LABELS, SCORES, qid=QID, metrics={"map", "ndcg@3"})
    _clear(info.value, "metrics", "set", "order")


@pytest.mark.parametrize("flag", [None, "yes", 1.0])
def test_per_query_that_is_no_bool_is_refused_by_name(flag: Any) -> None:
    with pytest.raises(ConfigError) as info:
        evaluate(LABELS, SCORES, qid=QID, per_query=flag)
    _clear(info.value, "per_query")


def test_numpy_bools_and_integers_for_options_are_their_values() -> None:
    r = evaluate(LABELS, SCORES, qid=QID, per_query=np.bool_(True), sort_by_qid=np.bool_(False),
                 threads=np.int64(2), metrics=f"ndcg@{np.int64(3)}")
    assert r["ndcg@3"] == pytest.approx(NDCG3, abs=1e-15)
    assert r.per_query is not None
    assert r.per_query.shape[0] == 2


# ------------------------------------------------------------------ evaluate: frames

def _frame(columns: list[Any]) -> pd.DataFrame:
    return pd.DataFrame(dict(zip(columns, [QID, LABELS, SCORES], strict=True)))


def test_a_frame_read_without_a_header_is_named_by_its_integer_labels() -> None:
    """pd.read_csv(header=None) gives columns 0, 1, 2: ``label=1`` said "no column 1" while
    listing '1' among the columns, and ``label="1"`` ended in a pandas ``KeyError``."""
    frame = _frame([0, 1, 2])
    for names in ({"label": 1, "score": 2, "qid": "0"}, {"label": "1", "score": "2", "qid": "0"}):
        r = evaluate(frame, metrics="ndcg@3", **names)
        assert r["ndcg@3"] == pytest.approx(NDCG3, abs=1e-15)


def test_a_label_name_that_matches_no_integer_column_lists_the_columns() -> None:
    with pytest.raises(DataError) as info:
        evaluate(_frame([0, 1, 2]), label=7, score=2, qid="0")
    _clear(info.value, "no column 7", "label=")


def test_a_frame_with_a_duplicated_score_column_is_refused_naming_it() -> None:
    frame = _frame(["qid", "label", "score"])
    frame = pd.concat([frame, frame[["score"]]], axis=1)
    with pytest.raises(DataError) as info:
        evaluate(frame)
    _clear(info.value, "score", "2 times")


def test_a_frame_slice_and_a_shuffled_copy_give_the_hand_number_and_stay_unchanged() -> None:
    frame = _frame(["qid", "label", "score"])
    both = pd.concat([frame, frame.assign(qid=["q3"] * 3 + ["q4"] * 3)], ignore_index=True)
    part = both.iloc[[4, 0, 5, 2, 3, 1]]
    before = part.copy(deep=True)
    r = evaluate(part, metrics="ndcg@3", per_query=True)
    assert r["ndcg@3"] == pytest.approx(NDCG3, abs=1e-15)
    pd.testing.assert_frame_equal(part, before)


def test_the_qid_in_a_multiindex_level_is_found() -> None:
    frame = _frame(["qid", "label", "score"]).set_index("qid", append=True)
    r = evaluate(frame, metrics="ndcg@3")
    assert r["ndcg@3"] == pytest.approx(NDCG3, abs=1e-15)


# ------------------------------------------------------------------ results as objects

def test_two_results_of_the_same_call_with_per_query_tables_are_equal() -> None:
    """``r1 == r2`` raised ``ValueError: The truth value of a DataFrame is ambiguous``."""
    a = evaluate(LABELS, SCORES, qid=QID, metrics="ndcg@3 map", per_query=True)
    b = evaluate(LABELS, SCORES, qid=QID, metrics="ndcg@3 map", per_query=True)
    assert a == b
    assert a == b
    c = evaluate(LABELS, SCORES[::-1], qid=QID, metrics="ndcg@3 map", per_query=True)
    assert a != c


def test_results_with_a_nan_mean_equal_themselves_recomputed() -> None:
    """A query without relevant documents under a profile that leaves it out: NaN mean."""
    kwargs: dict[str, Any] = {"qid": [1, 1], "metrics": "ndcg@2", "profile": "ltrbench"}
    a = evaluate([0, 0], [0.5, 0.1], **kwargs)
    b = evaluate([0, 0], [0.5, 0.1], **kwargs)
    assert np.isnan(a["ndcg@2"])
    assert a == b


def test_a_result_is_a_sized_mapping_of_its_metrics() -> None:
    r = evaluate(LABELS, SCORES, qid=QID, metrics=["ndcg@1,3", "map"])
    assert len(r) == 3 == len(dict(r))
    assert list(r) == ["ndcg@1", "ndcg@3", "map"]
    with pytest.raises(TypeError, match="unhashable"):
        hash(r)


def test_a_result_pickles_and_compares_equal_after() -> None:
    r = evaluate(LABELS, SCORES, qid=QID, metrics="ndcg@3", per_query=True)
    again = pickle.loads(pickle.dumps(r))
    assert again == r
    assert again["ndcg@3"] == pytest.approx(NDCG3, abs=1e-15)
    assert "ndcg@3" in repr(r)


def test_two_comparisons_of_the_same_runs_are_equal_and_pickle() -> None:
    a = compare_runs(QRELS, {"a": RUN_A, "b": RUN_B}, metrics="ndcg@10 map", n_bootstrap=50)
    b = compare_runs(QRELS, {"a": RUN_A, "b": RUN_B}, metrics="ndcg@10 map", n_bootstrap=50)
    assert a == b
    assert pickle.loads(pickle.dumps(a)) == a
    other = compare_runs(QRELS, {"a": RUN_A, "b": RUN_B}, metrics="map", n_bootstrap=50)
    assert a != other


def test_threads_evaluating_the_same_inputs_agree_and_change_nothing() -> None:
    rng = np.random.default_rng(7)
    n = 30_000  # past the interpreted small-input path
    labels, scores = rng.integers(0, 4, n), rng.random(n)
    qid = np.repeat(np.arange(n // 30), 30)
    copies = labels.copy(), scores.copy(), qid.copy()
    out: list[dict[str, float]] = []

    def work() -> None:
        out.append(evaluate(labels, scores, qid=qid, metrics="ndcg@10 map").metrics)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    reference = evaluate(labels, scores, qid=qid, metrics="ndcg@10 map", backend="numpy")
    assert len(out) == 3
    for got in out:
        assert got == pytest.approx(reference.metrics, abs=1e-12)
    assert all(np.array_equal(x, y) for x, y in zip(copies, (labels, scores, qid), strict=True))


# ------------------------------------------------------------------ evaluate_trec: paths

def test_str_path_and_path_like_give_pytrec_evals_numbers(trec_files: tuple[Path, Path]) -> None:
    q, r = trec_files
    want = _pytrec(QRELS, RUN_A)
    for qrels, run in ((str(q), str(r)), (q, r), (Text(str(q)), Text(str(r)))):
        got = evaluate_trec(qrels, run, metrics=["ndcg_cut_10", "map"]).metrics
        assert got == pytest.approx(want, abs=1e-12)


def test_a_path_object_whose_fspath_raises_is_named_not_reraised(
        trec_files: tuple[Path, Path]) -> None:
    with pytest.raises(ConfigError) as info:
        evaluate_trec(Raising(), trec_files[1], metrics="map")
    _clear(info.value, "qrels", "__fspath__", "boom")


def test_a_path_object_returning_bytes_is_named_as_the_run(
        trec_files: tuple[Path, Path]) -> None:
    with pytest.raises(ConfigError) as info:
        evaluate_trec(trec_files[0], Bytes(str(trec_files[1])), metrics="map")
    _clear(info.value, "run", "__fspath__", "bytes")


def test_a_bytes_path_says_how_to_decode_it(trec_files: tuple[Path, Path]) -> None:
    with pytest.raises(ConfigError) as info:
        evaluate_trec(bytes(trec_files[0]), trec_files[1], metrics="map")
    _clear(info.value, "qrels", "bytes")


def test_a_tilde_path_is_the_home_folder_as_for_datasets(
        trec_files: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(trec_files[0].parent))
    got = evaluate_trec("~/q", Path("~/r"), metrics=["ndcg_cut_10", "map"]).metrics
    assert got == pytest.approx(_pytrec(QRELS, RUN_A), abs=1e-12)


def test_compare_runs_reads_tilde_paths_too(
        trec_files: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(trec_files[0].parent))
    cmp = compare_runs("~/q", {"file": "~/r", "dict": RUN_A}, metrics="map", n_bootstrap=20)
    assert cmp.mean["map"][0] == pytest.approx(cmp.mean["map"][1], abs=1e-15)


def test_a_path_with_a_pasted_newline_is_a_clear_missing_file(
        trec_files: tuple[Path, Path]) -> None:
    with pytest.raises(DataError) as info:
        evaluate_trec(f"{trec_files[0]}\n", trec_files[1], metrics="map")
    _clear(info.value, "no such file", "\\n")


def test_an_empty_path_names_the_argument(trec_files: tuple[Path, Path]) -> None:
    with pytest.raises(ConfigError) as info:
        evaluate_trec(trec_files[0], "", metrics="map")
    _clear(info.value, "run", "empty path")


def test_dict_inputs_are_not_mutated_and_compare_runs_is_repeatable() -> None:
    qrels, run_a, run_b = copy.deepcopy(QRELS), copy.deepcopy(RUN_A), copy.deepcopy(RUN_B)
    first = compare_runs(qrels, {"a": run_a, "b": run_b}, metrics="ndcg@10 map", n_bootstrap=50)
    second = compare_runs(qrels, {"a": run_a, "b": run_b}, metrics="ndcg@10 map", n_bootstrap=50)
    assert (qrels, run_a, run_b) == (QRELS, RUN_A, RUN_B)
    pd.testing.assert_frame_equal(first.to_frame(), second.to_frame())


# ------------------------------------------------------------------ bench.benchmark.run / RunResult

class _Reached(Exception):
    pass


def _reach(**kwargs: Any) -> Path:
    """``run(**kwargs)`` up to the pipeline: the ``out_dir`` it would write into."""
    import bench.benchmark.pipeline as pipeline
    from bench.benchmark import api

    def stub(config: Any, *, out_dir: Path, **_: Any) -> Path:
        raise _Reached(out_dir)

    saved = pipeline.run_benchmark
    pipeline.run_benchmark = stub  # type: ignore[assignment]
    try:
        api.run("synthetic", models=["random"], seeds=[0], quick=True, **kwargs)
    except _Reached as reached:
        return Path(reached.args[0])
    finally:
        pipeline.run_benchmark = saved  # type: ignore[assignment]
    raise AssertionError("the pipeline was not reached")


def test_run_out_dir_with_a_tilde_writes_under_home_not_a_folder_named_tilde(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    out = _reach(out_dir="~/results")
    assert out == tmp_path / "home" / "results"
    assert not (tmp_path / "~").exists()


def test_run_out_dir_with_a_pasted_newline_is_refused(tmp_path: Path) -> None:
    from bench.benchmark import run

    with pytest.raises(ConfigError) as info:
        run("synthetic", models=["random"], out_dir=f"{tmp_path}/out\n")
    _clear(info.value, "out_dir", "control character", "U+000A")
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("bad", [Raising(), Bytes("/tmp/x")])
def test_run_out_dir_path_objects_that_fail_are_named(bad: Any) -> None:
    from bench.benchmark import run

    with pytest.raises(ConfigError) as info:
        run("synthetic", models=["random"], out_dir=bad)
    _clear(info.value, "out_dir", "__fspath__")


@pytest.fixture
def reached(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The configs ``api.run`` hands the pipeline, which stops there (:class:`_Reached`)."""
    import bench.benchmark.pipeline as pipeline

    seen: list[Any] = []

    def stub(config: Any, **_: Any) -> Path:
        seen.append(config)
        raise _Reached

    monkeypatch.setattr(pipeline, "run_benchmark", stub)
    return seen


def test_run_seeds_from_range_and_numpy_reach_the_pipeline_as_integers(
        reached: list[Any]) -> None:
    from bench.benchmark import api

    for seeds in (range(3), np.arange(3), [np.int64(0), np.int32(1), 2]):
        with pytest.raises(_Reached):
            api.run("synthetic", models=["random"], seeds=seeds)
    seen = [config.seeds for config in reached]
    assert seen == [(0, 1, 2)] * 3
    assert all(type(s) is int for got in seen for s in got)


@pytest.mark.parametrize("typo", ["metric", "profiles", "seed"])
def test_run_keyword_typos_name_the_keyword_meant(typo: str) -> None:
    from bench.benchmark import run

    with pytest.raises(ConfigError) as info:
        run("synthetic", **{typo: "x"})
    _clear(info.value, typo, "did you mean")


@pytest.fixture(scope="module")
def committed() -> Path:
    runs = sorted(p for p in COMMITTED.glob("synthetic-*") if (p / "manifest.json").is_file())
    if not runs:
        pytest.skip("no committed synthetic run")
    return runs[-1]


def test_two_results_of_one_run_directory_are_equal(committed: Path) -> None:
    """``RunResult(p) == RunResult(p)`` was False (identity), unlike every other value."""
    from bench.benchmark import RunResult

    a, b = RunResult(committed), RunResult(str(committed) + "/")
    assert a == b
    assert hash(a) == hash(b)
    assert pickle.loads(pickle.dumps(a)) == a


def test_changing_the_metrics_table_a_result_returned_changes_no_later_answer(
        committed: Path) -> None:
    """``result.metrics`` was the cached frame itself: ``result.metrics["value"] = 0`` made
    every later ``to_frame()`` 0."""
    from bench.benchmark import RunResult

    result = RunResult(committed)
    before = result.to_frame()
    manifest, crosscheck = result.manifest, result.crosscheck
    table = result.metrics
    table["value"] = 0.0
    result.manifest["crosscheck"] = {"ok": False, "changed": "by the caller"}
    pd.testing.assert_frame_equal(result.to_frame(), before)
    assert result.manifest == manifest
    assert result.crosscheck == crosscheck
    raw = pd.read_csv(committed / "metrics.csv")
    assert not (raw["value"] == 0).all()


def test_run_result_path_objects_that_fail_are_named() -> None:
    from bench.benchmark import RunResult

    with pytest.raises(ConfigError) as info:
        RunResult(Raising())  # type: ignore[arg-type]
    _clear(info.value, "run_dir", "__fspath__")


def test_run_result_with_a_pasted_newline_says_so(committed: Path) -> None:
    from bench.benchmark import RunResult

    with pytest.raises(ConfigError) as info:
        RunResult(f"{committed}\n")  # type: ignore[arg-type]
    _clear(info.value, "run_dir", "control character")
    assert "\n" not in str(info.value)


def test_run_result_with_a_tilde_reads_the_home_folder(
        committed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.benchmark import RunResult

    monkeypatch.setenv("HOME", str(committed.parent))
    assert RunResult(f"~/{committed.name}") == RunResult(committed)


def test_save_into_a_tilde_folder_copies_under_home_not_into_the_working_directory(
        committed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``save("~/keep")`` created ``./~/keep/<run-id>`` in the working directory."""
    from bench.benchmark import RunResult

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    dest = RunResult(committed).save("~/keep")
    assert dest == tmp_path / "home" / "keep" / committed.name
    assert (dest / "metrics.csv").read_bytes() == (committed / "metrics.csv").read_bytes()
    assert not (tmp_path / "~").exists()


def test_save_into_a_folder_with_a_pasted_newline_is_refused(
        committed: Path, tmp_path: Path) -> None:
    from bench.benchmark import RunResult

    with pytest.raises(ConfigError) as info:
        RunResult(committed).save(f"{tmp_path}/keep\n")
    _clear(info.value, "save", "control character")
    assert not any(tmp_path.iterdir())


def test_save_with_a_path_object_that_raises_is_named(committed: Path) -> None:
    from bench.benchmark import RunResult

    with pytest.raises(ConfigError) as info:
        RunResult(committed).save(Raising())  # type: ignore[arg-type]
    _clear(info.value, "save", "__fspath__", "boom")


# ------------------------------------------------------------------ LetorData.build (splits=)

def _build(**kwargs: Any) -> Any:
    from bench.data import LetorData

    args: dict[str, Any] = {"X": np.arange(18, dtype=np.float64).reshape(6, 3), "y": LABELS,
                            "qid": [1, 1, 1, 2, 2, 2], "source": "mine"}
    args.update(kwargs)
    return LetorData.build(args.pop("X"), args.pop("y"), **args)


def test_a_sparse_feature_matrix_says_how_to_densify_it() -> None:
    sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(DataError) as info:
        _build(X=sparse.csr_matrix(np.eye(6, 3)))
    _clear(info.value, "X", "sparse", "X.toarray()")
    assert "dtype object" not in str(info.value)


def test_masked_features_are_refused_naming_the_row_not_read_as_data() -> None:
    X = np.ma.array(np.ones((6, 3)), mask=np.zeros((6, 3), dtype=bool))
    X.mask[4, 2] = True
    with pytest.raises(DataError) as info:
        _build(X=X)
    _clear(info.value, "X", "masked")
    assert info.value.row == 5


@pytest.mark.parametrize("arg", ["y", "qid", "user"])
def test_a_two_dimensional_per_row_table_is_refused_not_flattened(arg: str) -> None:
    """y (2, 3) was ravelled into 6 labels in row-major order without a word."""
    value = {"y": np.array(LABELS).reshape(2, 3), "qid": np.array([[1, 1, 1], [2, 2, 2]]),
             "user": np.zeros((2, 3), dtype=int)}[arg]
    with pytest.raises(DataError) as info:
        _build(**{arg: value})
    _clear(info.value, arg, "one-dimensional", "(2, 3)")


@pytest.mark.parametrize(("value", "words"), [
    ([1.5] * 6, ("user 1.5", "not an integer")),  # was cut to user 1
    (["u"] * 6, ("user must be integers",)),  # was a ValueError from int()
])
def test_user_ids_follow_the_query_id_rule(value: list[Any], words: tuple[str, ...]) -> None:
    with pytest.raises(DataError) as info:
        _build(user=value)
    _clear(info.value, "mine", *words)


@pytest.mark.parametrize(("names", "words"), [
    ("abc", ("feature_names", "one string")),  # was split into a, b, c
    ([1, 2, 3], ("feature_names", "int", "text")),
])
def test_feature_names_that_are_no_list_of_text_are_refused(names: Any,
                                                           words: tuple[str, ...]) -> None:
    with pytest.raises(DataError) as info:
        _build(feature_names=names)
    _clear(info.value, *words)


def test_a_generator_of_labels_is_named_and_a_generator_of_names_is_fine() -> None:
    with pytest.raises(DataError) as info:
        _build(y=(v for v in LABELS))
    _clear(info.value, "y", "generator")
    data = _build(feature_names=(f"f{j}" for j in range(3)), user=[1.0] * 6)
    assert data.feature_names == ("f0", "f1", "f2")
    assert data.user.tolist() == [1] * 6


@pytest.mark.parametrize("key", ["dataset", "data_dir"])
def test_run_path_values_whose_fspath_raises_are_named_by_their_key(key: str) -> None:
    """``run(Raising())`` ended in the user's own ``RuntimeError`` from inside the config."""
    from bench.benchmark import run

    kwargs: dict[str, Any] = {"models": ["random"], key: Raising()}
    if key == "dataset":
        with pytest.raises(ConfigError) as info:
            run(kwargs.pop("dataset"), **kwargs)
    else:
        with pytest.raises(ConfigError) as info:
            run("synthetic", **kwargs)
    _clear(info.value, key, "__fspath__", "boom")


def test_run_dataset_as_a_path_object_is_its_text(reached: list[Any]) -> None:
    from bench.benchmark import api

    with pytest.raises(_Reached):
        api.run(Text("synthetic"), models=["random"])  # type: ignore[arg-type]
    assert [config.dataset for config in reached] == ["synthetic"]



def test_leaderboards_from_two_threads_agree_and_leave_the_run_files_as_they_were(
        committed: Path) -> None:
    from bench.benchmark import RunResult

    before = {p.name: p.read_bytes() for p in committed.iterdir() if p.is_file()}
    out: list[pd.DataFrame] = []

    def work() -> None:
        out.append(RunResult(committed).leaderboard(metrics=("ndcg@10",), bootstrap_resamples=200,
                                                    randomization_resamples=200))

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(out) == 2
    pd.testing.assert_frame_equal(out[0], out[1])
    assert {p.name: p.read_bytes() for p in committed.iterdir() if p.is_file()} == before
