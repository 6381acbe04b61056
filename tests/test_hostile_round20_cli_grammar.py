"""Hostile cases, round 20: a command-line power user attacks ltrbench's argument grammar.

The persona types fast and reads errors closely: abbreviations, an option given twice, an empty
``--opt=``, values that start with ``-``, ``-`` as a file name, options that do nothing in the
combination given (``--workers`` without ``--engine dask``, ``--svd-factors`` without an SVD
feature), options of one command given to another, numbers out of range or of the wrong kind,
control characters and 100 kB arguments, a misspelt command or choice. What they expect: a
clear error (exit 2) naming the option and what was expected, or the documented behaviour;
never an option dropped in silence, a traceback, or an error that points at the wrong option.

Each test names its class of issue 19 in its docstring's first words (silent accept, unclear
error, traceback, silently wrong number). Everything runs in-process through
:func:`bench.cli.main` (:func:`hostile_kit.cli`); training is stubbed out (:func:`_no_training`),
so a case that ltrbench accepts ends at once with :class:`_WouldTrain`, a traceback the judge
reports, instead of training models. Golden values are hand arithmetic (see the evaluate case).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import DATA, QRELS, RATINGS, RUN, SCORES, Res, cli, csv_values, refused, write


class _WouldTrain(Exception):
    """Raised by the stubbed trainers: the command accepted its options and would train."""


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with a qrels, a run, a data file, scores and a ratings table; no training."""
    import bench.benchmark.folds
    import bench.benchmark.pipeline as pipeline
    import bench.benchmark.reproduce_steps
    import bench.benchmark.tune_run as tune_run

    # folds and reproduce_steps bind run_benchmark at their import: imported before the stub,
    # they keep the real one once the stub is gone (a later test file trains for real)
    assert bench.benchmark.folds.run_benchmark is bench.benchmark.reproduce_steps.run_benchmark

    def stop(*args: Any, **kwargs: Any) -> Any:
        raise _WouldTrain("accepted: the command would train now")

    monkeypatch.setattr(pipeline, "run_benchmark", stop)
    monkeypatch.setattr(tune_run, "run_tune", stop)
    write(tmp_path, {"q.txt": QRELS, "r.txt": RUN, "d.txt": DATA, "s.txt": SCORES,
                     "ratings.csv": RATINGS})
    return tmp_path


def _run(here: Path, *argv: str) -> Res:
    return cli(here, *argv)


#: A small conversion of ``ratings.csv`` (15 users rating 12 items) that succeeds in ~0.1 s.
CONVERT = ("convert", "--ratings", "ratings.csv", "--layout", "csv", "--user", "user", "--item",
           "item", "--rating", "rating", "--timestamp", "timestamp", "--target-size", "2",
           "--min-history", "2", "--negatives", "3", "--features", "user,item", "--no-svmlight")


# ------------------------------------------------------------------ options that do nothing
def test_run_workers_without_dask_engine_refused(here: Path) -> None:
    """Silent accept: ``run --workers 2`` on the local engine trains in this process; 2 is the
    Dask default, so the option was dropped without a word (``--workers 3`` was refused)."""
    res = _run(here, "run", "--workers", "2", "--quick")
    assert refused(res, "--workers", "dask") is None, res


def test_tune_workers_without_dask_engine_refused(here: Path) -> None:
    """Silent accept: ``tune --workers 2`` ran one trial at a time (the local engine); the user
    asked for two at once, and nothing said the option needs ``--engine dask``."""
    res = _run(here, "tune", "--workers", "2", "--quick", "--budget-trials", "2")
    assert refused(res, "--workers", "--engine dask") is None, res


def test_crosscheck_local_engine_keeps_refusing_scheduler(here: Path) -> None:
    """Silent accept (pin): ``run --scheduler`` without ``--engine dask`` is refused, as
    ``--workers`` is now: one rule for the cluster options of a run."""
    res = _run(here, "run", "--scheduler", "tcp://127.0.0.1:1", "--quick")
    assert refused(res, "scheduler", "dask") is None, res


def test_device_cuda_with_baselines_only_is_said() -> None:
    """Silent accept: ``run --device cuda --models popularity,random`` passed the device check
    (it checks the GBDT libraries of the run: none) and trained the baselines on the CPU
    without a word; the run says it, as it says other settings it does not use."""
    from bench.benchmark.config import RunConfig

    said = RunConfig(models=("popularity", "random"), device="cuda").unused()
    assert any("device 'cuda'" in s and "CPU" in s for s in said), said
    gbdt = RunConfig(models=("popularity", "lightgbm-lambdarank"), device="cuda").unused()
    assert not any("device" in s for s in gbdt), gbdt


def test_convert_svd_factors_without_svd_feature_refused(here: Path) -> None:
    """Silent accept: ``--svd-factors 8`` with ``--features user,item`` fits no SVD; the
    conversion ran as if the option were not there (``--binary-threshold`` beside graded
    labels is refused by the same rule)."""
    res = _run(here, *CONVERT, "--svd-factors", "8", "--out", "o")
    assert refused(res, "--svd-factors", "svd") is None, res
    assert not (here / "o").exists()


def test_convert_similarity_history_without_similarity_refused(here: Path) -> None:
    """Silent accept: ``--similarity-history 3`` without the ``similarity`` group is unused."""
    res = _run(here, *CONVERT, "--similarity-history", "3", "--out", "o")
    assert refused(res, "--similarity-history", "similarity") is None, res


def test_convert_negative_sampling_with_no_negatives_refused(here: Path) -> None:
    """Silent accept: ``--negative-sampling popularity`` with ``--negatives 0`` samples none."""
    argv = [a if a != "3" else "0" for a in CONVERT]  # --negatives 0
    res = _run(here, *argv, "--negative-sampling", "popularity", "--out", "o")
    assert refused(res, "--negative-sampling", "--negatives") is None, res


def test_convert_svd_factors_with_similarity_only_accepted(here: Path) -> None:
    """Silent accept (pin, the other side): the similarity group uses the SVDs too, so
    ``--svd-factors`` with ``--features user,similarity`` is used and stays accepted: the
    command gets past its options to the next check, the output folder (``--out -``)."""
    argv = [a if a != "user,item" else "user,similarity" for a in CONVERT]
    res = _run(here, *argv, "--svd-factors", "2", "--similarity-history", "3", "--out", "-")
    assert refused(res, "--out '-'") is None, res


def test_convert_fold_without_kfold_names_the_option_given(here: Path) -> None:
    """Unclear error: ``--fold 1`` with the temporal split was refused as ``--folds 5, fold=1
    apply to split='kfold'``: it named ``--folds``, which the user never typed."""
    res = _run(here, *CONVERT, "--fold", "1", "--out", "o")
    assert refused(res, "--fold 1", "kfold") is None, res
    assert "--folds" not in res.err


# ------------------------------------------------------------------------- '-' as a path
@pytest.mark.parametrize("argv", [
    ("run", "--quick", "--out", "-"),
    ("tune", "--quick", "--budget-trials", "2", "--out", "-"),
    ("crosscheck", "--quick", "--out", "-"),
    ("convert", *CONVERT[1:], "--out", "-"),
], ids=["run", "tune", "crosscheck", "convert"])
def test_dash_as_output_folder_refused(here: Path, argv: tuple[str, ...]) -> None:
    """Silent accept: ``--out -`` (standard output, to every Unix tool) made a folder named
    ``-`` and wrote the results into it; ``evaluate --per-query -`` is refused already."""
    res = _run(here, *argv)
    assert refused(res, "--out", "'-'", "./-") is None, res
    assert not (here / "-").exists()


def test_dash_inside_a_path_is_a_name(here: Path) -> None:
    """Silent accept (pin, the other side): ``./-`` says a folder named ``-``: accepted."""
    res = _run(here, "run", "--quick", "--out", "./-")
    assert "_WouldTrain" in res.err, res


def test_evaluate_dash_run_is_no_stdin(here: Path) -> None:
    """Unclear error (pin): ``--run -`` is not standard input: refused, naming the file ``-``."""
    res = _run(here, "evaluate", "--qrels", "q.txt", "--run", "-", "--metrics", "map")
    assert refused(res, "-", "TREC") is None, res


def test_evaluate_run_named_dash_x_with_equals(here: Path) -> None:
    """Silently wrong number (pin): a run file named ``-x`` read through ``--run=-x``: MAP by
    hand. Query 1 ranks b(0.9, rel 0) a(0.4, 1) c(0.1, 2): AP = (1/2 + 2/3)/2 = 7/12; query 2
    ranks e(0.8, 0) d(0.2, 1): AP = 1/2; mean 13/24."""
    write(here, {"-x": RUN})
    res = _run(here, "evaluate", "--qrels", "q.txt", "--run=-x", "--metrics", "map",
               "--format", "csv")
    assert res.status == 0, res
    assert abs(csv_values(res)["map"] - 13 / 24) < 1e-12, res.out


def test_evaluate_run_named_dash_x_without_equals_explained(here: Path) -> None:
    """Unclear error (pin): ``--run -x`` says why the value was not read and how to write it."""
    res = _run(here, "evaluate", "--qrels", "q.txt", "--run", "-x", "--metrics", "map")
    assert refused(res, "--run", "--run=-x") is None, res


# ------------------------------------------------------------------- a misspelt command
@pytest.mark.parametrize(("argv", "close"), [
    (("evalute", "--qrels", "q.txt"), "evaluate"),
    (("crosscheck-version", "lightgbm==installed"), "crosscheck-versions"),
    (("datasets", "lsit"), "list"),
    (("metrics", "lsit"), "list"),
    (("perf", "evaluatr"), "evaluator"),
], ids=["command", "command-plural", "datasets-action", "metrics-action", "perf-benchmark"])
def test_misspelt_command_suggests_the_close_one(here: Path, argv: tuple[str, ...],
                                                 close: str) -> None:
    """Unclear error: ``ltrbench evalute`` listed all eleven commands; the one meant (a letter
    off) was not named, while a misspelt option is (``--met``: did you mean --metrics?)."""
    res = _run(here, *argv)
    assert refused(res, f"did you mean {close!r}") is None, res


@pytest.mark.parametrize(("argv", "close"), [
    (("run", "--format", "jsn"), "json"),
    (("evaluate", "--qrels", "q.txt", "--run", "r.txt", "--format", "tabel"), "table"),
    (("convert", *CONVERT[1:], "--split", "temporl", "--out", "o"), "temporal"),
], ids=["run-format", "evaluate-format", "convert-split"])
def test_misspelt_choice_suggests_the_close_one(here: Path, argv: tuple[str, ...],
                                                close: str) -> None:
    """Unclear error: a choice a letter off named no close choice."""
    res = _run(here, *argv)
    assert refused(res, "invalid choice", f"did you mean {close!r}") is None, res


def test_unknown_command_far_from_any_lists_them(here: Path) -> None:
    """Unclear error (pin): a word near no command suggests none and lists them all."""
    res = _run(here, "frobnicate")
    assert refused(res, "invalid choice", "evaluate", "crosscheck-versions") is None, res
    assert "did you mean" not in res.err


def test_no_arguments_names_the_commands(here: Path) -> None:
    """Unclear error (pin): bare ``ltrbench`` (an empty variable in a CI step) exits 2."""
    res = _run(here)
    assert refused(res, "a command is required", "run", "evaluate") is None, res


# ------------------------------------------------------ an option of another command
@pytest.mark.parametrize(("argv", "option", "owners"), [
    (("evaluate", "--qrels", "q.txt", "--run", "r.txt", "--seeds", "1"), "--seeds", "run"),
    (("evaluate", "--qrels", "q.txt", "--run", "r.txt", "--quick"), "--quick", "run"),
    (("report", "--n-trees", "5"), "--n-trees", "run"),
    (("run", "--bootstrap", "5"), "--bootstrap", "report"),
    (("convert", *CONVERT[1:], "--tolerance", "0.1", "--out", "o"), "--tolerance", "reproduce"),
], ids=["evaluate-seeds", "evaluate-quick", "report-n-trees", "run-bootstrap",
        "convert-tolerance"])
def test_option_of_another_command_says_whose(here: Path, argv: tuple[str, ...], option: str,
                                              owners: str) -> None:
    """Unclear error: ``evaluate --seeds 1`` answered "did you mean --scores?" (a file option
    one letter off) and ``evaluate --quick`` said nothing; the option is another command's, and
    the error should say which command takes it."""
    res = _run(here, *argv)
    assert refused(res, option, f"an option of ltrbench {owners}") is None, res
    assert "did you mean --scores" not in res.err


def test_abbreviation_with_equals_refused(here: Path) -> None:
    """Silent accept (pin): ``--met=map`` is not read as ``--metrics=map`` (no prefixes)."""
    res = _run(here, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--met=map")
    assert refused(res, "--met=map", "--metrics") is None, res


def test_run_prefix_of_two_options_names_both(here: Path) -> None:
    """Unclear error (pin): ``evaluate --ru`` names --run and --run-depth."""
    res = _run(here, "evaluate", "--qrels", "q.txt", "--ru", "r.txt")
    assert refused(res, "--run, --run-depth") is None, res


# --------------------------------------------------------------- numbers of the wrong kind
@pytest.mark.parametrize(("argv", "option"), [
    (("reproduce", "--tolerance", "1e400"), "--tolerance"),
    (("tune", "--budget-cpu-s", "1e400"), "--budget-cpu-s"),
    (("convert", *CONVERT[1:], "--binary-threshold", "-1e999", "--labels", "binary",
      "--out", "o"), "--binary-threshold"),
], ids=["tolerance", "budget-cpu-s", "binary-threshold"])
def test_number_beyond_float_names_what_was_typed(here: Path, argv: tuple[str, ...],
                                                  option: str) -> None:
    """Unclear error: ``--tolerance 1e400`` was refused as ``--tolerance inf: expected a finite
    number``; the user typed no ``inf``. The error should show the value typed and say it is
    beyond the largest number."""
    res = _run(here, *argv)
    typed = argv[argv.index(option) + 1]
    assert refused(res, option, typed, "largest") is None, res


@pytest.mark.parametrize(("argv", "words"), [
    (("run", "--seeds=-1"), ("--seeds", "-1")),
    (("run", "--n-trees=-5"), ("--n-trees", "-5")),
    (("run", "--n-trees", "0x10"), ("--n-trees", "0x10")),
    (("run", "--threads", "nan"), ("--threads", "nan")),
    (("run", "--timing-repeats", "1e3"), ("--timing-repeats", "1e3")),
    (("run", "--engine", "dask", "--workers", "-1"), ("--workers", "-1")),
    (("tune", "--cv", "1"), ("--cv", "2")),
    (("tune", "--seed", "1.5"), ("--seed", "1.5")),
    (("tune", "--budget-trials", "nan"), ("--budget-trials", "nan")),
    (("report", "--permutations", "0"), ("--permutations", "0")),
    (("evaluate", "--qrels", "q.txt", "--run", "r.txt", "--run-depth", "0x10"),
     ("--run-depth", "0x10")),
    (("evaluate", "--qrels", "q.txt", "--run", "r.txt", "--relevance-level", "inf"),
     ("--relevance-level", "inf")),
    (("reproduce", "--tolerance", "-1e-3"), ("--tolerance", ">= 0")),
    (("perf", "evaluator", "--queries", "nan"), ("--queries", "nan")),
    (("perf", "scale", "--limit-gb", "-1"), ("--limit-gb", "-1")),
    (("convert", "--ratings", "synthetic", "--synthetic-items", "9" * 20, "--out", "o"),
     ("--synthetic-items",)),
], ids=["run-seeds-negative", "run-n-trees-negative", "run-n-trees-hex", "run-threads-nan",
        "run-timing-repeats-exponent", "run-workers-negative", "tune-cv-one", "tune-seed-float",
        "tune-budget-trials-nan", "report-permutations-zero", "evaluate-run-depth-hex",
        "evaluate-relevance-level-inf", "reproduce-tolerance-negative-exponent",
        "perf-queries-nan", "perf-limit-gb-negative", "convert-synthetic-items-huge"])
def test_number_out_of_range_names_option(here: Path, argv: tuple[str, ...],
                                          words: tuple[str, ...]) -> None:
    """Silent accept (pins): every numeric option refuses a value out of its range or of the
    wrong kind (negative through ``=``, hexadecimal, NaN, a float for a count) naming itself."""
    res = _run(here, *argv)
    assert refused(res, *words) is None, res


@pytest.mark.parametrize("typed", ["\u0665", "\uff15", "1_000"],
                         ids=["arabic-indic-digit", "full-width-digit", "underscore"])
def test_perf_count_in_other_digits_refused(here: Path, typed: str) -> None:
    """Silent accept: ``perf evaluator --queries ٥`` ran 5 queries (Python's ``int`` reads
    any script's digits and ``1_000``), where ``report --bootstrap ٥`` and ``run --n-trees ٥``
    refuse them: one grammar for a count. (``--bogus`` ends an accepted line at once.)"""
    res = _run(here, "perf", "evaluator", "--queries", typed, "--bogus")
    assert refused(res, "--queries", repr(typed)) is None, res


def test_synthetic_sizes_error_names_the_options(here: Path) -> None:
    """Unclear error: ``--synthetic-ratings 900`` beside 30 users and 60 items was refused as
    ``n_ratings=900 is more than 30 users can rate``: no option named, the keyword of a
    Python function the user never called."""
    res = _run(here, "convert", "--ratings", "synthetic", "--synthetic-users", "30",
               "--synthetic-items", "60", "--synthetic-ratings", "900", "--out", "o")
    assert refused(res, "--synthetic-ratings 900") is None, res
    assert "n_ratings=" not in res.err


def test_synthetic_fewer_ratings_than_users_names_the_options(here: Path) -> None:
    """Unclear error: ``--synthetic-ratings 5 --synthetic-users 30``: both options named."""
    res = _run(here, "convert", "--ratings", "synthetic", "--synthetic-users", "30",
               "--synthetic-items", "60", "--synthetic-ratings", "5", "--out", "o")
    assert refused(res, "--synthetic-ratings 5", "--synthetic-users 30") is None, res


# --------------------------------------------------------- given twice, empty, control text
@pytest.mark.parametrize(("argv", "option"), [
    (("run", "--seeds", "1", "--seeds", "2"), "--seeds"),
    (("tune", "--pruner", "none", "--pruner", "median"), "--pruner"),
    (("datasets", "info", "ohsumed", "--format=json", "--format=text"), "--format"),
    (("convert", *CONVERT[1:], "--features", "user", "--out", "o"), "--features"),
], ids=["run-seeds", "tune-pruner", "datasets-format", "convert-features"])
def test_option_twice_with_different_values_refused(here: Path, argv: tuple[str, ...],
                                                    option: str) -> None:
    """Silent accept (pins): argparse's last-wins; both values named."""
    res = _run(here, *argv)
    assert refused(res, option, "given twice") is None, res


def test_evaluate_metrics_twice_adds_up(here: Path) -> None:
    """Silently wrong number (pin): ``--metrics`` of evaluate adds up (documented ``NAME
    ...``): ``--metrics ndcg@10 --metrics map`` prints both; MAP 13/24 by hand."""
    res = _run(here, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", "ndcg@10",
               "--metrics", "map", "--format", "csv")
    got = csv_values(res)
    assert res.status == 0, res
    assert set(got) == {"ndcg@10", "map"}, res
    assert abs(got["map"] - 13 / 24) < 1e-12


@pytest.mark.parametrize(("argv", "option"), [
    (("run", "--models="), "--models"),
    (("evaluate", "--qrels", "q.txt", "--run", "r.txt", "--profile="), "--profile"),
    (("datasets", "fetch", "ohsumed", "--url="), "--url"),
    (("perf", "evaluator", "--peers="), "--peers"),
], ids=["run-models", "evaluate-profile", "datasets-url", "perf-peers"])
def test_empty_value_refused(here: Path, argv: tuple[str, ...], option: str) -> None:
    """Silent accept (pins): ``--opt=`` is not the option left out."""
    res = _run(here, *argv)
    assert refused(res, option, "an empty value") is None, res


def test_name_with_escape_sequence_refused(here: Path) -> None:
    """Silent accept (pin): a terminal escape in ``--name`` (it would colour every table)."""
    res = _run(here, "run", "--name", "x\x1b[31mred", "--quick")
    assert refused(res, "--name", "control character") is None, res


def test_hundred_kilobyte_dataset_refused_short(here: Path) -> None:
    """Unclear error (pin): a 100 kB ``--dataset`` is refused with its length, not echoed."""
    res = _run(here, "run", "--dataset", "a" * 100_000)
    assert refused(res, "100,000 characters") is None, res
    assert len(res.err) < 2_000


BIG = "a" * 100_000


@pytest.mark.parametrize("argv", [
    ("run", "--models", BIG),
    ("evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", BIG),
    ("report", "--runs", BIG),
    ("crosscheck", "--metric", BIG),
    ("run", "--format", BIG),
    ("run", "--" + BIG),
    (BIG,),
], ids=["run-models", "evaluate-metrics", "report-runs", "crosscheck-metric", "choice",
        "unknown-option", "command"])
def test_hundred_kilobyte_value_is_not_echoed_whole(here: Path, argv: tuple[str, ...]) -> None:
    """Unclear error: a 100 kB value was echoed back whole in the error (100 to 200 kB on
    standard error: ``crosscheck --metric`` twice over), filling the terminal and the CI log
    while what was expected scrolled away; ``--seeds`` and ``--profile`` said the length
    only. Any error line now keeps its head and tail around a count of what was cut."""
    res = _run(here, *argv)
    assert refused(res) is None, res.err[:300]
    assert len(res.err) < 6_000, len(res.err)
    assert "characters cut" in res.err, res.err[:300]


def test_profile_with_bell_character_named(here: Path) -> None:
    """Unclear error (pin): ``--profile 'trec_eval\\a'`` names the control character."""
    res = _run(here, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--profile",
               "trec_eval\x07")
    assert refused(res, "U+0007", "did you mean 'trec_eval'") is None, res


def test_crosscheck_metric_with_line_end_refused(here: Path) -> None:
    """Silent accept (pin): ``--metric 'ndcg@10\\n'`` (a pasted line) is refused."""
    res = _run(here, "crosscheck", "--metric", "ndcg@10\n")
    assert refused(res, "--metric", "line end") is None, res


# --------------------------------------------------------------- options that conflict
@pytest.mark.parametrize(("argv", "words"), [
    (("run", "--quick", "--n-trees", "50"), ("--n-trees 50", "quick")),
    (("run", "--permute-retrain"), ("--permute-retrain", "--permute-check")),
    (("run", "--timing", "isolated", "--engine", "dask"), ("--timing isolated", "local")),
    (("tune", "--model", "lightgbm", "--models", "xgboost"), ("--model", "--models")),
    (("tune", "--folds", "1", "--cv", "3"), ("--folds 1", "--cv")),
    (("report", "--drill", "x"), ("--drill", "--html")),
    (("evaluate", "--data", "d.txt", "--scores", "s.txt", "--judged-only"),
     ("--judged-only", "--qrels")),
    (("evaluate", "--qrels", "q.txt", "--run", "r.txt", "--sort-by-qid"),
     ("--sort-by-qid", "--data")),
    (("crosscheck", "--evaluators", "--models", "lightgbm"), ("--evaluators", "--models")),
], ids=["quick-n-trees", "permute-retrain", "timing-dask", "model-models", "tune-folds",
        "drill", "judged-only-data", "sort-by-qid-trec", "evaluators-models"])
def test_conflicting_options_refused(here: Path, argv: tuple[str, ...],
                                     words: tuple[str, ...]) -> None:
    """Silent accept (pins): an option that another one makes meaningless is refused."""
    res = _run(here, *argv)
    assert refused(res, *words) is None, res


# ---------------------------------------------------------------------- the environment
def test_blas_variable_bad_value_is_said(monkeypatch: pytest.MonkeyPatch) -> None:
    """Silent accept (pin, documented): ``LTRBENCH_BLAS=pined`` (a typo) is said as a warning
    naming the value and what is used instead."""
    from bench.machine import pin_blas_kernels

    said = pin_blas_kernels({"LTRBENCH_BLAS": "pined"})
    assert said.startswith("warning:"), said
    assert "'pined'" in said, said
    assert "'pinned'" in said, said


def test_data_dir_variable_of_separators_only_refused(here: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Unclear error (pin): ``LTRBENCH_DATA_DIR=:`` names no folder: exit 2, the variable
    named."""
    monkeypatch.setenv("LTRBENCH_DATA_DIR", ":")
    res = _run(here, "datasets", "list")
    assert refused(res, "$LTRBENCH_DATA_DIR", "names no folder") is None, res


# ------------------------------------------------------------------------------ help
@pytest.mark.parametrize("argv", [("reproduce",), ("datasets", "fetch"), ("perf", "startup")],
                         ids=["reproduce", "datasets-fetch", "perf-startup"])
def test_help_exits_zero_listing_each_option_once(here: Path, argv: tuple[str, ...]) -> None:
    """Traceback (pin): ``--help`` exits 0 on standard output, each option listed once."""
    import re

    res = _run(here, *argv, "--help")
    assert res.status == 0, res
    assert not res.traceback, res
    assert res.err == "", res
    listed = re.findall(r"^\s{2}(--[\w-]+)", res.out.split("options:")[-1], re.M)
    assert listed, res.out
    assert len(listed) == len(set(listed)), listed
