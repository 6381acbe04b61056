"""Round 23, persona "the maintainer closing the gaps the last session wrote down and left alone".

The last session's note (round 22, "Noticed and left alone") listed known holes. Each gap here
is tried as written and on a sibling door (another command, option, input path or library):

1. an option overriding a config value is recorded in the manifest but not printed;
2. ``tune --grid`` reads numbers another grammar than metric cutoffs (``+15``, ``015``);
3. a factory reference that is no ranker factory (``builtins:eval``, ``os:remove``) passes the
   reference check and is called (``os:remove`` with ``path=`` deleted a file);
4. overlapping metric expansions (``ndcg@1,10`` beside ``ndcg@10``) are merged without a word
   on run, tune, report and configs;
5. "a metric named twice" had two rules (by spelling in evaluate, by token in a run);
6. a ratings frame refuses whole float ids that CSV/Parquet ratings files read;
7. ``datasets verify`` never held a card's ``n_queries``/``n_rows`` to the files;
8. the Dask engine refused ``ties="random"``, which is per query now;
9. the ``sklearn`` profile read graded labels as ``label >= 1`` for AUC, where
   ``roc_auc_score`` refuses multi-class ``y_true`` or reads ``{1, 2}`` as 2 relevant.

Each test names its class in a comment: traceback / silently wrong number / input destroyed /
silent accept / unclear error. Golden values from scikit-learn or hand arithmetic.
"""

from __future__ import annotations

import sys
import warnings
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from tests.hostile_kit import cli, ok, own_error, refused

CONFIG = ('dataset = "synthetic"\nmodels = ["random"]\nseeds = [0, 1]\nmetrics = ["ndcg@10"]\n'
          'crosscheck = false\nquick = true\n[params]\nn_trees = 5\n')


class _Stop(Exception):
    pass


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """``run`` and ``tune`` stop where their work would start: what is printed before is what
    a user sees before any fit (the config built, every option read)."""
    from bench.benchmark import pipeline, tune_run
    from bench.errors import ConfigError

    def stop_run(*_a: Any, **_k: Any) -> Any:
        raise ConfigError("stopped before the work (test)")

    def stop_tune(_request: Any, config: Any, **_k: Any) -> Any:
        config()
        raise ConfigError("stopped before the work (test)")

    monkeypatch.setattr(pipeline, "run_benchmark", stop_run)
    monkeypatch.setattr(tune_run, "tune_command", stop_tune)


def _said_before_work(tmp: Path, *argv: str) -> str:
    (tmp / "c.toml").write_text(CONFIG, encoding="utf-8")
    res = cli(tmp, *argv, "--config", "c.toml", "--no-progress", "--out", str(tmp / "o"))
    assert "stopped before the work" in res.err, res.err[-1500:]
    return res.err


# ============================================================ 1. options over the config file
def test_run_seeds_over_the_config_file_is_printed_before_work(tmp_path: Path,
                                                               no_work: None) -> None:
    # silent accept: --seeds 5 over seeds = [0, 1] trained seed 5 only; said nowhere but the
    # manifest
    err = _said_before_work(tmp_path, "run", "--seeds", "5")
    line = next((ln for ln in err.splitlines() if "seeds" in ln and "--seeds" in ln), "")
    assert all(w in line for w in ("[0, 1]", "[5]", "c.toml")), err[-1500:]


def test_run_metrics_over_the_config_file_is_printed_before_work(tmp_path: Path,
                                                                 no_work: None) -> None:
    # silent accept: the file's metrics replaced by --metrics without a word
    err = _said_before_work(tmp_path, "run", "--metrics", "map")
    line = next((ln for ln in err.splitlines() if "--metrics" in ln and "metrics" in ln), "")
    assert all(w in line for w in ("ndcg@10", "map")), err[-1500:]


def test_run_n_trees_over_the_file_params_is_printed(tmp_path: Path, no_work: None) -> None:
    # silent accept: [params] n_trees = 5 replaced by --n-trees 7
    err = _said_before_work(tmp_path, "run", "--n-trees", "7")
    line = next((ln for ln in err.splitlines() if "--n-trees" in ln), "")
    assert all(w in line for w in ("[params] n_trees = 5", "= 7")), err[-1500:]


def test_tune_models_over_the_config_file_is_printed(tmp_path: Path, no_work: None) -> None:
    # silent accept (sibling door): tune --models over the file's models
    err = _said_before_work(tmp_path, "tune", "--models", "lightgbm", "--budget-trials", "1")
    line = next((ln for ln in err.splitlines() if "--models" in ln and "models" in ln), "")
    assert all(w in line for w in ("random", "lightgbm")), err[-1500:]


def test_an_option_equal_to_the_file_value_prints_no_override(tmp_path: Path,
                                                              no_work: None) -> None:
    # guard: --seeds 0,1 over seeds = [0, 1] changes nothing, so nothing is said
    err = _said_before_work(tmp_path, "run", "--seeds", "0,1")
    assert "--seeds" not in err, err[-1500:]


# ================================================================== 2. one grammar for grids
@pytest.mark.parametrize(("text", "words"), [
    pytest.param("num_leaves=+15", ("num_leaves", "'+15'", "sign"), id="int-plus-sign"),
    pytest.param("learning_rate=+0.1", ("learning_rate", "'+0.1'", "sign"), id="float-plus"),
    pytest.param("num_leaves=015", ("num_leaves", "'015'", "leading zero"), id="int-lead-zero"),
    pytest.param("learning_rate=00.1", ("learning_rate", "'00.1'", "leading zero"),
                 id="float-lead-zero"),
    pytest.param("num_leaves=15.0", ("num_leaves", "integer"), id="int-as-float"),
    pytest.param("num_leaves=15,,31", ("num_leaves", "empty value"), id="empty-item"),
])
def test_grid_values_follow_one_number_grammar(text: str, words: tuple[str, ...]) -> None:
    # silent accept: '+15' and '015' were the grid point 15 where metric cutoffs refuse a
    # sign (ndcg@+10) and TOML refuses a leading zero; the others are refused already (guards)
    from bench.benchmark.tune import parse_space

    ok(own_error(lambda: parse_space(text), "--grid", *words))


def test_grid_int_written_with_an_exponent_is_named_as_written() -> None:
    # unclear error: num_leaves=1e1 was refused as "got 10.0 (a float)", not as written
    from bench.benchmark.tune import parse_space

    ok(own_error(lambda: parse_space("num_leaves=1e1"), "--grid num_leaves", "'1e1'", "integer"))


def test_grid_spaces_around_separators_read_as_toml_arrays_do() -> None:
    # guard (documented): 'num_leaves = 15, 31' is [15, 31], as TOML reads '[15, 31]'
    from bench.benchmark.tune import parse_space

    assert parse_space("num_leaves = 15, 31; learning_rate= 0.05") == {
        "num_leaves": [15, 31], "learning_rate": [0.05]}


def test_tune_command_refuses_a_signed_grid_value(tmp_path: Path) -> None:
    # silent accept (CLI door): ltrbench tune --grid num_leaves=+15 started a study
    res = cli(tmp_path, "tune", "--models", "lightgbm", "--grid", "num_leaves=+15",
              "--budget-trials", "1", "--no-progress", "--out", str(tmp_path / "o"))
    ok(refused(res, "--grid num_leaves", "'+15'"))


# ====================================================== 3. references that are no factories
def test_os_remove_as_a_factory_deletes_nothing(tmp_path: Path) -> None:
    # input destroyed: factory = "os:remove", params = {path = ...} removed the file when the
    # reference check built the "ranker"
    from bench.runners.custom import check_custom_model, custom_model

    victim = tmp_path / "keep.txt"
    victim.write_text("data", encoding="utf-8")

    def build() -> Any:
        return check_custom_model(custom_model(
            "mine", {"factory": "os:remove", "params": {"path": str(victim)}}), 0)

    problem = own_error(build, "os:remove", "standard library")
    assert victim.exists(), "the factory check deleted the file"
    ok(problem)


def test_shutil_rmtree_as_a_factory_is_refused_before_it_runs(tmp_path: Path) -> None:
    # input destroyed (sibling): shutil:rmtree with params path = a folder
    from bench.runners.custom import check_custom_model, custom_model

    folder = tmp_path / "keep"
    folder.mkdir()
    (folder / "a.txt").write_text("x", encoding="utf-8")

    def build() -> Any:
        return check_custom_model(custom_model(
            "mine", {"factory": "shutil:rmtree", "params": {"path": str(folder)}}), 0)

    problem = own_error(build, "shutil:rmtree", "standard library")
    assert (folder / "a.txt").exists(), "the factory check removed the folder"
    ok(problem)


def test_builtins_eval_in_a_config_is_refused_naming_the_reference(tmp_path: Path) -> None:
    # unclear error: "calling the factory ... TypeError: eval expected at least 1 argument"
    (tmp_path / "c.toml").write_text(
        'dataset = "synthetic"\nmodels = ["mine"]\nseeds = [0]\nquick = true\n'
        'crosscheck = false\n[custom_models.mine]\nfactory = "builtins:eval"\n', encoding="utf-8")
    res = cli(tmp_path, "run", "--config", "c.toml", "--no-progress", "--out",
              str(tmp_path / "o"))
    ok(refused(res, "[custom_models.mine]", "builtins:eval", "standard library"))


def test_print_given_as_a_python_callable_is_refused() -> None:
    # silent accept (Python door): custom_models={"mine": print} resolved to builtins:print
    from bench.runners.custom import custom_model

    ok(own_error(lambda: custom_model("mine", {"factory": print}), "builtins:print",
                 "standard library"))


def test_a_user_module_factory_still_resolves(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # guard: a callable of the user's own module passes the new check
    from bench.runners.custom import custom_model

    (tmp_path / "r23f_rankers.py").write_text(
        "class R:\n    def __init__(self, seed=0):\n        self.seed = seed\n"
        "    def fit(self, X, y, group=None):\n        return self\n"
        "    def predict(self, X):\n        return X[:, 0]\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        model = custom_model("mine", "r23f_rankers:R")
        assert model.factory == "r23f_rankers:R"
    finally:
        sys.modules.pop("r23f_rankers", None)


# ============================================= 4 + 5. a metric named twice, one rule, one owner
@pytest.mark.parametrize("names", [
    pytest.param("ndcg@1,10 ndcg@10", id="cutoff-list-then-name"),
    pytest.param("ndcg@10,ndcg@1,10", id="name-then-cutoff-list"),
    pytest.param(["ndcg@1,10", "ndcg@10"], id="two-items"),
])
def test_run_metrics_refuse_an_overlapping_expansion_naming_both(names: Any) -> None:
    # silent accept: a run's --metrics / metrics = [...] merged ndcg@10 of 'ndcg@1,10' with
    # 'ndcg@10' without a word (evaluate refused it, naming one spelling)
    from bench.benchmark.scoring import run_metrics

    ok(own_error(lambda: run_metrics(names, "--metrics"), "--metrics", "'ndcg@10'",
                 "'ndcg@1,10'", "twice"))


def test_config_metrics_overlap_is_refused_naming_the_key_and_both() -> None:
    # silent accept (config door): metrics = ["ndcg@5,10", "ndcg@10"]
    from bench.benchmark.config import RunConfig

    ok(own_error(lambda: RunConfig.from_dict({"models": ["random"],
                                              "metrics": ["ndcg@5,10", "ndcg@10"]}),
                 "metrics", "'ndcg@5,10'", "'ndcg@10'", "twice"))


def test_two_cutoff_lists_sharing_a_cutoff_are_refused_naming_both() -> None:
    # silent accept: ndcg@1,10 and ndcg@5,10 both ask ndcg@10
    from bench.benchmark.scoring import run_metrics

    ok(own_error(lambda: run_metrics("ndcg@1,10 ndcg@5,10", "metrics"), "'ndcg@1,10'",
                 "'ndcg@5,10'", "'ndcg@10'"))


def test_report_metrics_overlap_is_refused_at_the_door(tmp_path: Path) -> None:
    # silent accept (report door): report --metrics ndcg@1,10,ndcg@10
    (tmp_path / "runs").mkdir()
    res = cli(tmp_path, "report", "--metrics", "ndcg@1,10,ndcg@10", "--out", str(tmp_path))
    ok(refused(res, "--metrics", "'ndcg@1,10'", "twice"))


def test_tune_metrics_overlap_is_refused(tmp_path: Path) -> None:
    # silent accept (tune door)
    res = cli(tmp_path, "tune", "--models", "lightgbm", "--metrics", "ndcg@1,10 ndcg@10",
              "--budget-trials", "1", "--no-progress", "--out", str(tmp_path / "o"))
    ok(refused(res, "--metrics", "'ndcg@1,10'", "twice"))


def test_evaluate_names_both_spellings_of_the_repeat() -> None:
    # unclear error: evaluate said "metric 'ndcg@10' is named twice" without the list item
    # 'ndcg@1,10' that also gave it (the parser's one rule, used by evaluate)
    from bench.metrics.names import parse_metrics

    ok(own_error(lambda: parse_metrics("ndcg@1,10 ndcg@10", repeated="refuse"), "'ndcg@10'",
                 "'ndcg@1,10'", "twice"))


def test_run_and_evaluate_say_a_repeat_in_the_same_words() -> None:
    # unclear error: two mechanisms, two wordings ("is given twice" / "is named twice")
    from bench.benchmark.scoring import run_metrics
    from bench.metrics.names import parse_metrics

    _, run_exc = _raised(lambda: run_metrics("map ndcg@10 map", "metrics"))
    _, ev_exc = _raised(lambda: parse_metrics("map ndcg@10 map", repeated="refuse"))
    assert run_exc is not None, "run accepted a metric named twice"
    assert ev_exc is not None, "evaluate accepted a metric named twice"
    assert str(run_exc) == f"metrics: {ev_exc}", (str(run_exc), str(ev_exc))


def test_two_spellings_in_a_run_stay_one_column_with_a_note() -> None:
    # guard (documented): ndcg@10 and NDCG@10 are one metric, one column of a run, said
    from bench.benchmark.scoring import MetricNameWarning, run_metrics

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert run_metrics("ndcg@10 NDCG@10", "metrics") == ("ndcg@10",)
    assert any(issubclass(w.category, MetricNameWarning) for w in caught)


def _raised(fn: Any) -> tuple[Any, BaseException | None]:
    try:
        return fn(), None
    except Exception as exc:  # the two errors compared
        return None, exc


# ==================================================================== 6. one id rule, ratings
def _ratings(user: list[Any]) -> pd.DataFrame:
    return pd.DataFrame({"user": user, "item": [3.0, 4.0, 4.0], "rating": [4.0, 5.0, 3.0],
                         "timestamp": [10, 20, 30]})


def test_a_ratings_frame_reads_whole_float_ids_as_its_csv_does(tmp_path: Path) -> None:
    # silent accept elsewhere / refusal here: the CSV of a frame with float ids 1.0, 2.0 loads
    # (ids 1, 2), the frame itself was refused ("has dtype float64, expected integer")
    from bench.data.ratings import as_ratings
    from bench.data.tabular import load_ratings_table

    frame = _ratings([1.0, 2.0, 1.0])
    frame.to_csv(tmp_path / "r.csv", index=False)
    from_file = load_ratings_table(tmp_path / "r.csv", user="user", item="item",
                                   rating="rating", timestamp="timestamp").frame
    got = as_ratings(frame).frame
    assert got["user"].tolist() == from_file["user"].tolist() == [1, 2, 1]
    assert got["item"].tolist() == from_file["item"].tolist() == [3, 4, 4]
    assert got["user"].dtype.kind == "i", got.dtypes


def test_a_ratings_frame_refuses_a_fractional_id_at_its_row_as_the_csv_does(
        tmp_path: Path) -> None:
    # unclear error: the frame's refusal said the dtype, the CSV's the row and the value
    from bench.data.ratings import as_ratings
    from bench.data.tabular import load_ratings_table

    frame = _ratings([1.0, 1.5, 1.0])
    frame.to_csv(tmp_path / "r.csv", index=False)
    ok(own_error(lambda: load_ratings_table(tmp_path / "r.csv", user="user", item="item",
                                            rating="rating", timestamp="timestamp"),
                 "'user'", "1.5", "not an integer"))
    ok(own_error(lambda: as_ratings(frame), "row 2", "'user'", "1.5", "not an integer"))


def test_letor_ids_beyond_int64_are_refused_alike_on_every_letor_path(tmp_path: Path) -> None:
    # unclear error / one rule (documented: LETOR qids are int64, the Parquet layout's schema):
    # SVMlight, LETOR Parquet and LetorData.build refuse 2^63 + 5 each naming where it is
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bench.data.letor import LetorData
    from bench.data.parquet import read_parquet
    from bench.data.svmlight import read_svmlight

    big = 2**63 + 5
    q = np.array([big, big], dtype=np.uint64)
    pq.write_table(pa.table({"qid": pa.array(q), "label": [1.0, 0.0], "f1": [2.0, 1.0]}),
                   tmp_path / "l.parquet")
    (tmp_path / "l.txt").write_text(f"1 qid:{big} 1:2\n0 qid:{big} 1:1\n", encoding="utf-8")
    ok(own_error(lambda: read_parquet(tmp_path / "l.parquet"), "row 1", "'qid'", str(big),
                 "int64"))
    ok(own_error(lambda: read_svmlight(tmp_path / "l.txt"), "l.txt:1", str(big)))
    ok(own_error(lambda: LetorData.build(X=np.ones((2, 1)), y=[1.0, 0.0], qid=q), "'qid'",
                 str(big), "int64"))


# ======================================================== 7. verify holds the card's counts
CARD = """name = "r23fcard"
title = "A hand-made card"
kind = "letor"
loader = "letor"
homepage = "https://example.org"
size = "{size}"
licence = "CC0"
citation = "none"
dir = "r23f"
{extra}
[splits]
train = "train.txt"
vali = "vali.txt"
test = "test.txt"
"""


def _letor(qids: list[int]) -> str:
    return "".join(f"{lab} qid:{q} 1:{0.1 + 0.3 * lab:.2f} 2:{0.2 * lab:.2f}\n"
                   for q in qids for lab in (2, 0, 1))


@pytest.fixture
def card_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    from bench.datasets import catalogue

    cards = tmp_path / "cards"
    cards.mkdir()

    def make(extra: str = "n_queries = 4\nn_rows = 12", size: str = "4 queries, 12 rows",
             qids: tuple[list[int], list[int], list[int]] = ([1, 2], [3], [4])) -> Path:
        (cards / "r23fcard.toml").write_text(CARD.format(extra=extra, size=size))
        catalogue.load_catalogue.cache_clear()
        folder = tmp_path / "data" / "r23f"
        folder.mkdir(parents=True, exist_ok=True)
        for name, q in zip(("train.txt", "vali.txt", "test.txt"), qids, strict=True):
            (folder / name).write_text(_letor(q), encoding="utf-8")
        return tmp_path / "data"

    monkeypatch.setattr(catalogue, "cards_dir", lambda: cards)
    yield make
    monkeypatch.undo()
    catalogue.load_catalogue.cache_clear()


def test_verify_json_reports_a_query_count_the_card_does_not_state(card_folder: Any,
                                                                   tmp_path: Path) -> None:
    # silent accept: a 3-query copy under a card of 4 queries verified "ok": true (its load
    # warns CardCountWarning)
    import json

    data = card_folder(qids=([1], [3], [4]))
    res = cli(tmp_path, "datasets", "verify", "r23fcard", "--data-dir", str(data),
              "--format", "json")
    doc = json.loads(res.out)
    assert res.status == 1, (res.status, res.out)
    assert doc["ok"] is False, doc
    assert "3 queries" in str(doc.get("card_counts")), doc
    assert "4 queries" in str(doc.get("card_counts")), doc


def test_datasets_verify_command_prints_the_row_count_mismatch(card_folder: Any,
                                                               tmp_path: Path) -> None:
    # silent accept (CLI door): 'OK' printed for a test file cut to one line (10 rows of 12)
    data = card_folder()
    test = data / "r23f" / "test.txt"
    test.write_text(_letor([4]).splitlines()[0] + "\n", encoding="utf-8")
    res = cli(tmp_path, "datasets", "verify", "r23fcard", "--data-dir", str(data))
    assert res.status == 1, (res.status, res.out, res.err[-800:])
    assert all(w in res.out for w in ("10 rows", "12 rows", "FAILED")), res.out


def test_verify_of_a_folder_matching_its_card_counts_is_ok(card_folder: Any,
                                                           tmp_path: Path) -> None:
    # guard: the counts check says nothing on the card's own counts
    res = cli(tmp_path, "datasets", "verify", "r23fcard", "--data-dir", str(card_folder()))
    assert res.status == 0, (res.out, res.err[-800:])
    assert "counts" not in res.out, res.out


# ============================================================ 8. Dask and ties = "random"
def _random_frame() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    rows = []
    for q, size in zip(range(1, 7), (3, 5, 4, 6, 2, 5), strict=True):
        labels = rng.integers(0, 3, size)
        scores = rng.choice([0.1, 0.5, 0.9], size)  # many ties
        rows += [(q, float(lab), float(s)) for lab, s in zip(labels, scores, strict=True)]
    return pd.DataFrame(rows, columns=["qid", "label", "score"])


def _random_profile() -> Any:
    from dataclasses import replace

    from bench.metrics.profiles import get_profile

    return replace(get_profile("ltrbench"), name="ltrbench-random", ties="random", tie_seed=3)


@pytest.mark.parametrize("parts", [1, 3])
def test_dask_with_random_ties_gives_the_in_memory_numbers(parts: int) -> None:
    # silent accept of a refusal: ties="random" is per query (a hash of the seed and the row's
    # place in its query), so each partitioning gives the local numbers, per query
    dd = pytest.importorskip("dask.dataframe")
    import dask

    from bench.metrics import evaluate
    from bench.metrics.distributed import evaluate_frame

    frame, prof = _random_frame(), _random_profile()
    bounds = [0, 8, 18, len(frame)] if parts == 3 else [0, len(frame)]
    ddf = dd.from_delayed([dask.delayed(frame.iloc[a:b]) for a, b in pairwise(bounds)],
                          meta=frame.iloc[:0])
    with dask.config.set(scheduler="sync"):
        got = evaluate_frame(ddf, metrics="ndcg@3 map p@2", profile=prof, per_query=True)
    want = evaluate(frame, metrics="ndcg@3 map p@2", profile=prof, per_query=True)
    assert got.metrics == want.metrics
    assert got.per_query.equals(want.per_query)


# ======================================================== 9. sklearn's AUC of graded labels
# scikit-learn 1.x roc_auc_score (sklearn/metrics/_ranking.py): y_true of three or more values
# raises ValueError "multi_class must be in ('ovo', 'ovr')"; two values are two classes, the
# larger positive. Values below by hand (pairs positive above negative, ties 1/2).
def _auc_said(y: list[int], s: list[float]) -> tuple[Any, list[str]]:
    from bench.metrics import evaluate

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value, exc = _raised(lambda: evaluate(y, s, group=[len(y)], metrics="auc",
                                              profile="sklearn"))
    return value, [str(w.message) for w in caught] + ([str(exc)] if exc is not None else [])


def test_sklearn_auc_of_a_three_grade_query_is_not_a_silent_number() -> None:
    # silently wrong number: roc_auc_score([0, 1, 2, 0], s) refuses (three classes), the
    # sklearn profile printed 0.5 for it as if label >= 1 were what sklearn reads
    value, said = _auc_said([0, 1, 2, 0], [0.9, 0.5, 0.3, 0.1])
    assert any("roc_auc_score" in m and "label >= 1" in m for m in said), (value, said)


def test_sklearn_auc_of_grades_one_and_two_is_not_a_silent_blank() -> None:
    # silently wrong number: roc_auc_score([1, 2, 1], [0.9, 0.5, 0.1]) reads grade 2 as the
    # positive class (0.5 above 0.1, below 0.9: AUC 1/2), the sklearn profile read both grades
    # as relevant and left the query out (NaN) without a word
    value, said = _auc_said([1, 2, 1], [0.9, 0.5, 0.1])
    assert any("roc_auc_score" in m and "label >= 1" in m for m in said), (value, said)


def test_sklearn_auc_of_binary_grades_equals_roc_auc_score_without_a_word() -> None:
    # guard: labels {0, 2} are two classes to sklearn, 2 positive: positives 0.5, 0.7, 0.3
    # against negatives 0.9, 0.1 win 3 of 6 pairs, AUC 0.5; the same number, unsaid
    value, said = _auc_said([0, 2, 2, 0, 2], [0.9, 0.5, 0.7, 0.1, 0.3])
    assert value.metrics["auc"] == pytest.approx(0.5, abs=1e-12)
    assert not [m for m in said if "roc_auc_score" in m], said


def test_sklearn_auc_on_the_trec_door_warns_per_query_only() -> None:
    # silently wrong number (TREC door) / guard: q1 judged 0, 1, 2 is three classes to
    # roc_auc_score (said, naming q1); q2 judged 0, 2 is two classes, 2 positive (unsaid)
    from bench.metrics.trec import evaluate_trec

    qrels = {"q1": {"a": 0, "b": 1, "c": 2}, "q2": {"d": 0, "e": 2}}
    run = {"q1": {"a": 0.9, "b": 0.5, "c": 0.3}, "q2": {"d": 0.2, "e": 0.8}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate_trec(qrels, run, metrics="auc", profile="sklearn")
    said = [str(w.message) for w in caught if "roc_auc_score" in str(w.message)]
    assert len(said) == 1, said
    assert "'q1'" in said[0], said
    assert "'q2'" not in said[0], said


def test_an_alias_of_os_remove_in_a_user_module_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # input destroyed (sibling): make = os.remove in the user's own module, params path =
    # a file: the function is the standard library's, whatever module names it
    from bench.runners.custom import check_custom_model, custom_model

    victim = tmp_path / "keep.txt"
    victim.write_text("data", encoding="utf-8")
    (tmp_path / "r23f_alias.py").write_text("from os import remove as make\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        problem = own_error(lambda: check_custom_model(custom_model(
            "mine", {"factory": "r23f_alias:make", "params": {"path": str(victim)}}), 0),
            "r23f_alias:make", "standard library")
    finally:
        sys.modules.pop("r23f_alias", None)
    assert victim.exists(), "the factory check deleted the file"
    ok(problem)
