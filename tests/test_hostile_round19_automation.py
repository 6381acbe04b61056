"""Hostile cases, round 19: an engineer wiring ltrbench into automation (a CI job, a nightly
pipeline, a Makefile, a dashboard that parses its outputs).

They never read the console: only exit codes, the one JSON document of ``--format json`` on
standard output, the files a command writes (``metrics.csv``, ``leaderboard.json``, the
manifest, the status files) and the lines on standard error. So each case checks what a parser
or a shell ``if`` sees: every key the README's "JSON shapes" documents, with its type, in every
case (a key that is there only sometimes is a KeyError in somebody's dashboard), ``null`` and
never a bare ``NaN``, nothing on standard output when a command refuses (half a document is worse
than none), warnings on standard error only and never a changed exit status, a re-run or a
resume that changes no number and no record, and the record a report picks its run by.

Each test names its class of issue 19 in its docstring's first words (silently wrong number,
input destroyed, traceback, unclear error, silent accept). Everything runs in-process through
:func:`bench.cli.main` except the two cases only a process shows (a closed standard input
with a reader that goes away, and an ASCII locale). The golden values are hand arithmetic.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import os
import re
import statistics
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import ROOT, Res, letor_folder, refused

# A tiny TREC pair: query 1 graded, query 2 one relevant document, query 3 blank (no relevant).
QRELS = b"1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 d 1\n2 0 e 0\n3 0 f 0\n"
RUN = (b"1 Q0 a 1 0.4 t\n1 Q0 b 2 0.9 t\n1 Q0 c 3 0.1 t\n2 Q0 d 1 0.2 t\n2 Q0 e 2 0.8 t\n"
       b"3 Q0 f 1 0.5 t\n")
QUICK = ("--quick", "--no-progress")
UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00$")


def _ndcg_by_hand() -> dict[str, float]:
    """ltrbench profile, exp gain, ndcg@10: q1 ranks b(0) a(1) c(2): DCG = 1/log2(3) + 3/2,
    ideal 3 + 1/log2(3); q2 ranks e(0) d(1): DCG = 1/log2(3), ideal 1; q3 is blank (left out)."""
    q1 = (1 / math.log2(3) + 3 / 2) / (3 + 1 / math.log2(3))
    q2 = 1 / math.log2(3)
    return {"1": q1, "2": q2}


def _strict_json(text: str) -> Any:
    """``json.loads`` that refuses ``NaN`` / ``Infinity`` (what a strict parser, jq, does)."""
    def bare(constant: str) -> Any:
        raise AssertionError(f"bare {constant} in a JSON document")
    return json.loads(text, parse_constant=bare)


@contextlib.contextmanager
def _env(**values: str | None) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in values}
    for k, v in values.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _printed(message: Warning | str, category: type[Warning], filename: str, lineno: int,
             file: Any = None, line: str | None = None) -> None:
    """Python's own way of showing a warning (on stderr), not pytest's recorder."""
    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def run_cli(cwd: Path, *argv: str, errors: bool = False, **env: str | None) -> Res:
    """``ltrbench ARGV`` in-process in ``cwd``, with the warnings printed on stderr as the command
    line prints them (not recorded); ``errors``: warnings are errors (``PYTHONWARNINGS=error``)."""
    from bench import cli as bench_cli

    out, err = io.StringIO(), io.StringIO()
    old = Path.cwd()
    status: int | None
    with _env(**env), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            warnings.catch_warnings():
        warnings.simplefilter("error" if errors else "always")
        warnings.showwarning = _printed
        os.chdir(cwd)
        try:
            status = bench_cli.main(list(argv))
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else 2
        except BaseException as exc:  # a traceback
            status = None
            err.write(f"Traceback (most recent call last): {type(exc).__name__}: {exc}")
        finally:
            os.chdir(old)
    return Res(status, out.getvalue(), err.getvalue())


def ok_json(res: Res) -> Any:
    assert not res.traceback, res.err[-1500:]
    assert res.status == 0, (res.status, res.err[-1500:])
    return _strict_json(res.out)


def refused_quietly(res: Res, *words: str) -> None:
    """Exit 2, one ``error:`` line with ``words``, and nothing at all on standard output."""
    problem = refused(res, *words)
    assert problem is None, problem
    assert res.out == "", f"stdout of a refused command: {res.out[:300]!r}"


# ------------------------------------------------------------------------------ shared job
class Job:
    """One folder: TREC files, a LETOR dataset, a dataset whose test split is blank, two finished
    runs of one dataset in ``res`` (the older with seed 0, the newer with seeds 0 and 1), a run
    of the blank dataset in ``blank-res``, and a report of ``res``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "q.txt").write_bytes(QRELS)
        (root / "r.txt").write_bytes(RUN)
        (root / "r2.txt").write_bytes(RUN.replace(b"0.9 t", b"0.05 t"))
        letor_folder(root / "let")
        blank = root / "blank"
        blank.mkdir()
        for split in ("train", "vali"):
            (blank / f"{split}.txt").write_bytes((root / "let" / f"{split}.txt").read_bytes())
        test = (root / "let" / "test.txt").read_text().splitlines()
        (blank / "test.txt").write_text("".join("0" + ln[1:] + "\n" for ln in test))
        self.older = ok_json(run_cli(root, "run", "--dataset", "let", "--models", "random",
                                     "--seeds", "0", *QUICK, "--out", "res", "--format", "json"))
        self._finished_a_minute_ago(self.run_dir(self.older))  # no tie with the newer run
        self.newer = ok_json(run_cli(root, "run", "--dataset", "let", "--models", "random",
                                     "--seeds", "0,1", *QUICK, "--out", "res", "--format",
                                     "json"))
        blank_run = run_cli(root, "run", "--dataset", "blank", "--models", "random", "--seeds",
                            "0", *QUICK, "--out", "blank-res", "--format", "json")
        self.blank = ok_json(blank_run)
        self.blank_err = blank_run.err
        report = run_cli(root, "report", "--runs", "res", "--out", "rep", "--no-plots",
                         "--no-progress", "--format", "json")
        self.report = ok_json(report)
        self.report_err = report.err

    def run_dir(self, summary: dict[str, Any]) -> Path:
        return self.root / summary["run_dir"]

    def _finished_a_minute_ago(self, run_dir: Path) -> None:
        """The older run as finished a minute before the newer: times have whole seconds, and
        two runs of one second are told apart by run id (README), not by which came last."""
        import datetime as dt

        path = run_dir / "manifest.json"
        manifest = json.loads(path.read_text(encoding="utf-8"))
        then = dt.datetime.fromisoformat(manifest["finished"]) - dt.timedelta(minutes=1)
        manifest["finished"] = self.older["finished"] = then.isoformat()
        path.write_text(json.dumps(manifest, indent=2), encoding="utf-8")


@pytest.fixture(scope="module")
def job(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Job]:
    root = tmp_path_factory.mktemp("r19f")
    with _env(LTRBENCH_DATA_DIR=str(root / "ltr"), COLUMNS=None, NO_COLOR=None,
              FORCE_COLOR=None):
        yield Job(root)


EVAL = ("evaluate", "--qrels", "q.txt", "--run", "r.txt")


# ============================================================ evaluate: the JSON a job parses
def test_evaluate_json_has_every_documented_key_with_its_type(job: Job) -> None:
    """unclear error (a parser's KeyError): README's evaluate shape, key by key, typed."""
    doc = ok_json(run_cli(job.root, *EVAL, "--metrics", "ndcg@10", "--profile", "ltrbench",
                          "--format", "json"))
    assert isinstance(doc["profile"], str)
    assert isinstance(doc["n_queries"], int)
    for key in ("metrics", "metric_profiles", "metric_n_queries"):
        assert set(doc[key]) == {"ndcg@10"}, (key, doc[key])
    diag = doc["diagnostics"]
    for key in ("n_queries", "n_documents", "n_blank", "n_single_document",
                "n_queries_with_ties_in_topk"):
        assert isinstance(diag[key], int), (key, diag[key])
        assert not isinstance(diag[key], bool), (key, diag[key])
    assert diag["ties_k"] is None or isinstance(diag["ties_k"], int)
    assert isinstance(diag["blank_policy"], str)
    assert isinstance(diag["backend"], str)
    for key in ("mean_blank_excluded", "mean_blank_as_0", "mean_blank_as_1"):
        assert set(diag[key]) == {"ndcg@10"}, key


def test_evaluate_json_ndcg_is_the_hand_computed_mean(job: Job) -> None:
    """silently wrong number: ndcg@10 of the TREC pair against hand arithmetic."""
    doc = ok_json(run_cli(job.root, *EVAL, "--metrics", "ndcg@10", "--profile", "ltrbench",
                          "--format", "json"))
    want = statistics.fmean(_ndcg_by_hand().values())
    assert abs(doc["metrics"]["ndcg@10"] - want) < 1e-12
    assert doc["metric_n_queries"]["ndcg@10"] == 2
    assert doc["diagnostics"]["n_blank"] == 1
    assert abs(doc["diagnostics"]["mean_blank_as_0"]["ndcg@10"] - 2 * want / 3) < 1e-12
    assert abs(doc["diagnostics"]["mean_blank_as_1"]["ndcg@10"] - (2 * want + 1) / 3) < 1e-12


def test_evaluate_json_of_blank_queries_only_is_null_never_bare_nan(job: Job) -> None:
    """silently wrong number: a mean over no query is ``null`` (jq reads it), not ``NaN``."""
    (job.root / "q0.txt").write_bytes(b"1 0 a 0\n1 0 b 0\n")
    res = run_cli(job.root, "evaluate", "--qrels", "q0.txt", "--run", "r.txt", "--metrics",
                  "ndcg@10", "--profile", "ltrbench", "--format", "json")
    doc = ok_json(res)
    assert doc["metrics"]["ndcg@10"] is None
    assert doc["metric_n_queries"]["ndcg@10"] == 0


def test_evaluate_csv_of_a_metric_without_value_is_an_empty_cell(job: Job) -> None:
    """silently wrong number: a CSV cell ``nan`` is read as a number by a spreadsheet job."""
    res = run_cli(job.root, "evaluate", "--qrels", "q0.txt", "--run", "r.txt", "--metrics",
                  "ndcg@10", "--profile", "ltrbench", "--format", "csv")
    assert res.status == 0, res.err
    rows = list(csv.DictReader(io.StringIO(res.out)))
    assert rows == [{"metric": "ndcg@10", "value": "", "profile": "ltrbench"}], rows


def test_evaluate_per_query_json_writes_null_for_a_blank_query(job: Job) -> None:
    """silently wrong number: the per-query records of a blank query hold ``null``."""
    res = run_cli(job.root, *EVAL, "--metrics", "ndcg@10", "--profile", "ltrbench",
                  "--per-query", "pq.json", "--format", "json")
    ok_json(res)
    records = _strict_json((job.root / "pq.json").read_text(encoding="utf-8"))
    by_qid = {r["qid"]: r["ndcg@10"] for r in records}
    want = _ndcg_by_hand()
    assert by_qid["3"] is None
    assert abs(by_qid["1"] - want["1"]) < 1e-12
    assert abs(by_qid["2"] - want["2"]) < 1e-12


def test_evaluate_comparison_json_names_the_better_run_by_hand(job: Job) -> None:
    """silently wrong number: r2 ranks b last in query 1 (a, c, b), so it is best."""
    res = run_cli(job.root, "evaluate", "--qrels", "q.txt", "--run", "a=r.txt", "--run",
                  "b=r2.txt", "--metrics", "ndcg@10", "--profile", "ltrbench", "--format",
                  "json")
    doc = ok_json(res)
    assert doc["best"] == "b"
    assert doc["primary"] == "ndcg@10"
    means = {r["name"]: r["metrics"]["ndcg@10"]["mean"] for r in doc["runs"]}
    q2 = _ndcg_by_hand()["2"]
    q1_b = (1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3))  # a(1), c(2), b(0)
    assert abs(means["b"] - (q1_b + q2) / 2) < 1e-12, means
    assert doc["no_value"] == {"ndcg@10": ["3"]}


def test_evaluate_json_refusal_leaves_standard_output_empty(job: Job) -> None:
    """unclear error: a malformed qrels line is exit 2, one line, and no half document."""
    (job.root / "bad.txt").write_bytes(b"1 0 a 1\n1 0 b\n")
    refused_quietly(run_cli(job.root, "evaluate", "--qrels", "bad.txt", "--run", "r.txt",
                            "--format", "json"), "bad.txt", "2")


def test_evaluate_json_unknown_metric_leaves_standard_output_empty(job: Job) -> None:
    """unclear error: an unknown metric name is refused before any output."""
    refused_quietly(run_cli(job.root, *EVAL, "--metrics", "ndcg@10,nosuch", "--format",
                            "json"), "nosuch")


def test_evaluate_json_warning_is_one_stderr_line_and_exit_stays_0(job: Job) -> None:
    """silent accept: a run without a line for judged queries warns on stderr only."""
    (job.root / "part.txt").write_bytes(b"1 Q0 a 1 0.4 t\n1 Q0 b 2 0.9 t\n1 Q0 c 3 0.1 t\n")
    res = run_cli(job.root, "evaluate", "--qrels", "q.txt", "--run", "a=r.txt", "--run",
                  "b=part.txt", "--metrics", "ndcg@10", "--format", "json")
    doc = ok_json(res)
    assert doc["n_dropped"] == 2
    assert doc["dropped"] == ["2", "3"]
    lines = [ln for ln in res.err.splitlines() if ln.strip()]
    assert len(lines) == 1, lines
    assert lines[0].startswith("warning: "), lines


def test_evaluate_json_with_warnings_as_errors_is_exit_2_and_no_document(job: Job) -> None:
    """traceback: under ``PYTHONWARNINGS=error`` the same warning refuses, one line, exit 2."""
    res = run_cli(job.root, "evaluate", "--qrels", "q.txt", "--run", "a=r.txt", "--run",
                  "b=part.txt", "--metrics", "ndcg@10", "--format", "json", errors=True)
    refused_quietly(res, "PYTHONWARNINGS")


@pytest.mark.parametrize("columns", ["abc", "0", "-5", "20"])
def test_evaluate_csv_is_the_same_whatever_columns_says(job: Job, columns: str) -> None:
    """silently wrong number: ``COLUMNS`` from a CI runner never cuts or changes a number."""
    base = run_cli(job.root, *EVAL, "--format", "csv")
    res = run_cli(job.root, *EVAL, "--format", "csv", COLUMNS=columns, TERM="dumb",
                  NO_COLOR="1")
    assert res.status == 0, res.err
    assert not res.traceback, res.err
    assert res.out == base.out
    assert "\x1b" not in res.out


def test_evaluate_table_under_a_non_number_columns_keeps_every_value(job: Job) -> None:
    """silently wrong number: the table under ``COLUMNS=abc`` prints each mean to 6 places."""
    res = run_cli(job.root, *EVAL, "--metrics", "ndcg@10", "--profile", "ltrbench",
                  COLUMNS="abc")
    assert res.status == 0, res.err
    assert f"{statistics.fmean(_ndcg_by_hand().values()):.6f}" in res.out, res.out


# ============================================================ catalogue commands as a job reads them
def test_metrics_list_json_is_one_document(job: Job) -> None:
    """unclear error: ``metrics list --format json`` is one object with its names."""
    doc = ok_json(run_cli(job.root, "metrics", "list", "--format", "json"))
    assert isinstance(doc, dict), list(doc)
    assert doc["names"], list(doc)


def test_datasets_list_json_names_the_data_directories(job: Job) -> None:
    """unclear error: the listing says where it looked, as absolute paths."""
    doc = ok_json(run_cli(job.root, "datasets", "list", "--format", "json"))
    assert doc["data_dirs"]
    assert all(Path(d).is_absolute() for d in doc["data_dirs"])
    assert any(d.get("name") == "synthetic" for d in doc["datasets"])


def test_datasets_list_json_never_calls_an_absent_dataset_complete(job: Job) -> None:
    """silently wrong number: every absent dataset was listed ``"complete": true`` (and its
    ``present`` is the truthy text ``"absent"``, pinned by test_datasets_fetch), so a job that
    selected the complete datasets selected all of them; added after the first measurement."""
    doc = ok_json(run_cli(job.root, "datasets", "list", "--format", "json", "--data-dir",
                          str(job.root / "empty-data")))
    rows = {r["name"]: r for r in doc["datasets"]}
    assert rows["mslr-web10k"]["present"] == "absent"
    assert rows["mslr-web10k"]["complete"] is False, rows["mslr-web10k"]
    assert rows["synthetic"]["complete"] is True  # built in: nothing to be missing


def test_datasets_info_json_of_an_unknown_name_leaves_stdout_empty(job: Job) -> None:
    """unclear error: an unknown dataset is exit 2 and names the valid ones."""
    refused_quietly(run_cli(job.root, "datasets", "info", "nosuch", "--format", "json"),
                    "nosuch", "ohsumed")


def test_datasets_verify_json_of_an_absent_dataset_is_exit_1_and_ok_false(job: Job) -> None:
    """silent accept: an absent dataset never verifies: ``ok`` false, ``folder`` null, exit 1."""
    res = run_cli(job.root, "datasets", "verify", "mslr-web10k", "--format", "json")
    assert res.status == 1, res.err
    assert not res.traceback, res.err
    doc = _strict_json(res.out)
    assert doc["ok"] is False
    assert doc["folder"] is None


def test_datasets_verify_counts_have_the_same_keys_in_every_report() -> None:
    """unclear error (a KeyError in a dashboard): ``counts`` held ``foreign`` only when a
    foreign file was found, so ``counts["foreign"]`` failed on every clean folder."""
    from bench.datasets.verify import FileCheck, VerifyReport

    clean = VerifyReport("x", "/d", [FileCheck("a.txt", "e", "e", "ok")])
    foreign = VerifyReport("x", "/d", [FileCheck("b.txt", "?", "f", "foreign")])
    absent = VerifyReport("x", None)
    assert set(clean.counts) == set(foreign.counts) == set(absent.counts), (
        clean.counts, foreign.counts, absent.counts)
    assert clean.counts["foreign"] == 0
    assert foreign.counts["foreign"] == 1


# ============================================================ run --format json
RUN_KEYS = {"run_id": str, "run_dir": str, "dataset": str, "config_hash": str, "profile": str,
            "models": list, "seeds": list, "finished": str, "status": dict, "metrics": dict,
            "timings": dict}


def test_run_json_has_every_documented_key_with_its_type(job: Job) -> None:
    """unclear error: README's run shape, key by key."""
    for key, kind in RUN_KEYS.items():
        assert isinstance(job.newer[key], kind), (key, job.newer.get(key))
    assert "crosscheck" in job.newer
    assert "permute_check" in job.newer
    assert job.newer["seeds"] == [0, 1]
    assert job.newer["models"] == ["random"]
    timing = job.newer["timings"]["random"]
    assert set(timing) >= {"fit_s", "contended", "predict_s", "peak_rss_mb", "best_iteration"}


def test_run_json_crosscheck_has_its_documented_keys_when_it_does_not_apply(job: Job) -> None:
    """unclear error: ``crosscheck`` is documented as ``{"ok", "errors", "reasons"} | null``;
    a run of baselines only gave an object without ``reasons`` (``d["crosscheck"]["reasons"]``
    raised where the same line works on every GBDT run)."""
    cc = job.newer["crosscheck"]
    assert cc is None or {"ok", "errors", "reasons"} <= set(cc), cc
    if cc is not None:
        assert cc["ok"] in (True, False, None)
        assert isinstance(cc["errors"], list)
        assert isinstance(cc["reasons"], dict)


def test_run_json_seed_values_equal_metrics_csv_and_mean_std_by_hand(job: Job) -> None:
    """silently wrong number: per_seed, mean and sample std against the run's own CSV."""
    rows = list(csv.DictReader((job.run_dir(job.newer) / "metrics.csv").open(encoding="utf-8")))
    values = {int(r["seed"]): float(r["value"]) for r in rows
              if r["split"] == "test" and r["metric"] == "ndcg@10" and r["model"] == "random"}
    entry = job.newer["metrics"]["random"]["test"]["ndcg@10"]
    assert entry["per_seed"] == {str(s): v for s, v in values.items()}
    assert abs(entry["mean"] - statistics.fmean(values.values())) < 1e-15
    assert abs(entry["std"] - statistics.stdev(values.values())) < 1e-15


def test_run_json_std_of_one_seed_is_null(job: Job) -> None:
    """silently wrong number: one seed has no spread: ``null``, never 0.0 or NaN."""
    assert job.older["metrics"]["random"]["test"]["ndcg@10"]["std"] is None


def test_run_json_status_names_every_model_seed_pair(job: Job) -> None:
    """silent accept: each (model, seed) of the config has its status."""
    assert job.newer["status"] == {"random-seed0": "done", "random-seed1": "done"}


def test_run_json_of_a_blank_test_split_holds_null_and_warns_on_stderr(job: Job) -> None:
    """silently wrong number: every blank query: means ``null`` and the split problem said."""
    entry = job.blank["metrics"]["random"]["test"]["ndcg@10"]
    assert entry["mean"] is None
    assert entry["per_seed"] == {"0": None}
    assert "no_relevant" in job.blank_err
    assert "warning:" in job.blank_err


def test_run_json_times_are_utc_with_offset(job: Job) -> None:
    """unclear error: ``finished`` and the manifest's and status files' times carry ``+00:00``."""
    assert UTC.match(job.newer["finished"]), job.newer["finished"]
    run_dir = job.run_dir(job.newer)
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    assert UTC.match(manifest["started"]), manifest
    assert UTC.match(manifest["finished"]), manifest
    for status in (run_dir / "status").glob("*.json"):
        assert UTC.match(json.loads(status.read_text())["finished"]), status


def test_run_json_with_an_unknown_model_leaves_standard_output_empty(job: Job) -> None:
    """unclear error: an unknown model is refused before any data or output."""
    refused_quietly(run_cli(job.root, "run", "--dataset", "let", "--models", "nosuchmodel",
                            *QUICK, "--out", "x", "--format", "json"), "nosuchmodel")
    assert not (job.root / "x").exists()


def test_run_json_ctrl_c_in_a_custom_model_is_130_and_no_document(job: Job) -> None:
    """traceback: Ctrl-C in a ranker's fit ends with 130, one line, nothing on stdout."""
    (job.root / "r19f_stop.py").write_text(
        "class Stop:\n"
        "    def __init__(self, seed=0): pass\n"
        "    def fit(self, X, y, group=None): raise KeyboardInterrupt\n"
        "    def predict(self, X): return X[:, 0]\n")
    (job.root / "stop.toml").write_text(
        'dataset = "let"\nmodels = ["stop"]\nseeds = [0]\n'
        '[custom_models.stop]\nfactory = "r19f_stop:Stop"\n')
    sys.path.insert(0, str(job.root))
    try:
        res = run_cli(job.root, "run", "--config", "stop.toml", *QUICK, "--out", "stop",
                      "--format", "json")
    finally:
        sys.path.remove(str(job.root))
    assert res.status == 130, (res.status, res.err)
    assert not res.traceback, (res.status, res.err)
    assert res.out == ""
    assert "--resume" in res.err


# ============================================================ the run's files
def test_metrics_csv_has_one_header_and_stable_types_in_two_runs(job: Job) -> None:
    """silently wrong number: seed an integer and value a float (or empty) in every run."""
    headers = set()
    for summary in (job.older, job.newer, job.blank):
        with (job.run_dir(summary) / "metrics.csv").open(encoding="utf-8") as f:
            reader = csv.DictReader(f)
            headers.add(tuple(reader.fieldnames or ()))
            for row in reader:
                assert re.fullmatch(r"\d+", row["seed"]), row
                assert row["value"] == "" or math.isfinite(float(row["value"])), row
    assert len(headers) == 1, headers


def test_metrics_csv_of_a_blank_split_has_empty_cells_not_nan(job: Job) -> None:
    """silently wrong number: ``nan`` text in a CSV is read as a value by some readers."""
    text = (job.run_dir(job.blank) / "metrics.csv").read_text(encoding="utf-8").lower()
    assert "nan" not in text
    assert "inf" not in text


def test_timings_csv_has_the_same_columns_in_every_run(job: Job) -> None:
    """unclear error: a column present in one run only breaks a concatenating job."""
    heads = {(job.run_dir(s) / "timings.csv").read_text(encoding="utf-8").splitlines()[0]
             for s in (job.older, job.newer, job.blank)}
    assert len(heads) == 1, heads


# ============================================================ resume and re-run
def test_resume_of_a_finished_run_keeps_its_finish_time(job: Job, tmp_path: Path) -> None:
    """silently wrong number: ``--resume`` of a finished run trained nothing and re-stamped
    ``finished`` with the time of the resume; report picks the newest finished run by that
    time, so a nightly no-op resume made an older run the leaderboard's (next case)."""
    run_dir = job.run_dir(job.older)
    before = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))["finished"]
    res = run_cli(job.root, "run", "--resume", str(run_dir), "--no-progress", "--format",
                  "json")
    doc = ok_json(res)
    after = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))["finished"]
    assert doc["metrics"] == job.older["metrics"]
    assert after == before, f"finished moved from {before} to {after} by a resume that did nothing"
    assert doc["finished"] == before


def test_report_after_a_no_op_resume_still_uses_the_newer_run(job: Job) -> None:
    """silently wrong number: the leaderboard of ``res`` is the newer run (seeds 0 and 1)
    before and after ``--resume`` of the older one (seed 0)."""
    assert job.report["tables"][0]["run_id"] == job.newer["run_id"]
    resumed = run_cli(job.root, "run", "--resume", str(job.run_dir(job.older)))
    assert resumed.status == 0, resumed.err
    # a resume that trains nothing says so in a CI log (stderr no terminal), pair by pair
    assert resumed.err.count("done earlier") == 1, resumed.err
    assert "done earlier" not in resumed.out
    doc = ok_json(run_cli(job.root, "report", "--runs", "res", "--out", "rep2", "--no-plots",
                          "--no-progress", "--format", "json"))
    table = doc["tables"][0]
    assert table["run_id"] == job.newer["run_id"], (table["run_id"], table["seeds"])
    assert table["seeds"] == [0, 1]


def test_resume_of_a_folder_that_is_no_run_is_exit_2_and_no_document(job: Job) -> None:
    """unclear error: ``--resume`` of the dataset folder names what is missing."""
    refused_quietly(run_cli(job.root, "run", "--resume", "let", "--no-progress", "--format",
                            "json"), "let")


def test_the_writer_lock_names_its_start_in_utc_with_offset(tmp_path: Path) -> None:
    """unclear error: the lock a second writer is refused with named its start in the local
    zone with a bare ``+0100``; every other record is UTC as ``+00:00`` (a job on another host
    or zone read the holder's time wrong); added after the first measurement."""
    import time

    from bench.runs.lock import LOCK_NAME, writer_lock

    try:
        with _env(TZ="EST5EDT"):
            time.tzset()
            with writer_lock(tmp_path):
                held = (tmp_path / LOCK_NAME).read_text(encoding="utf-8")
    finally:
        time.tzset()  # the zone of the environment as it was
    stamp = held.rsplit("since ", 1)[-1]
    assert UTC.match(stamp), held


def test_two_run_folders_of_one_second_and_config_never_collide(tmp_path: Path) -> None:
    """input destroyed: two jobs starting the same config in one second get two folders."""
    from bench.runs.naming import new_run_dir

    first = new_run_dir(tmp_path, "let", "abcdef0123456789")
    second = new_run_dir(tmp_path, "let", "abcdef0123456789")
    assert first != second
    assert first.is_dir()
    assert second.is_dir()


# ============================================================ report --format json
TABLE_KEYS = ("dataset", "run_id", "run_dir", "run_config", "profile", "split", "seeds",
              "metrics", "primary_metric", "n_queries", "blank_queries", "best_model", "notes",
              "rows", "published")
ROW_KEYS = ("model", "library", "seeds", "metrics", "fit_s", "predict_s", "vs_best", "blank")
STAT_KEYS = ("metrics", "primary", "split", "confidence", "bootstrap_resamples",
             "randomization_resamples", "seed")


def test_report_json_has_every_documented_key(job: Job) -> None:
    """unclear error: README's leaderboard.json shape, key by key."""
    doc = job.report
    assert doc["schema"] == 1, doc["stats"]
    assert all(k in doc["stats"] for k in STAT_KEYS), doc["stats"]
    table = doc["tables"][0]
    assert all(k in table for k in TABLE_KEYS), set(TABLE_KEYS) - set(table)
    row = table["rows"][0]
    assert all(k in row for k in ROW_KEYS), set(ROW_KEYS) - set(row)
    for entry in row["metrics"].values():
        assert {"mean", "std", "per_seed", "ci_low", "ci_high", "n_queries"} <= set(entry)


def test_report_json_on_stdout_is_the_file_it_wrote(job: Job) -> None:
    """silently wrong number: the document a job reads equals ``leaderboard.json`` on disk."""
    on_disk = _strict_json((job.root / "rep" / "leaderboard.json").read_text(encoding="utf-8"))
    assert on_disk["tables"] == job.report["tables"]


def test_report_json_lists_its_run_selection_on_stderr_only(job: Job) -> None:
    """silent accept: which run each table used is said on stderr and in ``selection``."""
    assert job.newer["run_id"] in job.report_err
    assert "report:" in job.report_err
    assert job.report["selection"], job.report


def test_report_json_ci_of_the_newer_run_brackets_its_mean(job: Job) -> None:
    """silently wrong number: ci_low <= mean <= ci_high and n_queries is the test split's 6."""
    entry = job.report["tables"][0]["rows"][0]["metrics"]["ndcg@10"]
    assert entry["ci_low"] <= entry["mean"] <= entry["ci_high"], entry
    assert entry["n_queries"] == 6


def test_report_json_of_a_blank_run_has_no_best_model(job: Job) -> None:
    """silently wrong number: no row has a primary value (every test query blank): the text
    verdict says "none", but ``best_model`` named the first row and its table said "best"."""
    res = run_cli(job.root, "report", "--runs", "blank-res", "--out", "rep-blank",
                  "--no-plots", "--no-progress", "--format", "json")
    table = ok_json(res)["tables"][0]
    assert table["rows"][0]["metrics"]["ndcg@10"]["mean"] is None
    assert table["best_model"] is None, table["best_model"]


def test_run_summary_of_a_blank_run_calls_no_row_best(job: Job) -> None:
    """silently wrong number (the lead's, from the automation report): with every test query
    blank, the run's text summary printed "best" beside every row while its verdict said
    "none"; a row without a value is "no value"."""
    from bench.report.story import story

    (run_dir,) = [d for d in (job.root / "blank-res" / "runs").iterdir() if d.is_dir()]
    text = story(run_dir)
    rows = [line for line in text.splitlines() if line.startswith("  ")]
    assert rows, text
    assert all(line.rstrip().endswith("no value") for line in rows), text
    assert "verdict: none" in text, text


def test_leaderboard_csv_cells_are_numbers_or_empty(job: Job) -> None:
    """silently wrong number: every mean/std/ci cell parses as a finite float or is empty."""
    text = (job.root / "rep" / "leaderboard.csv").read_text(encoding="utf-8")
    for row in csv.DictReader(io.StringIO(text)):
        for key, cell in row.items():
            if key.endswith(("_mean", "_std", "_ci_low", "_ci_high")):
                assert cell == "" or math.isfinite(float(cell)), (key, cell)


def test_leaderboard_csv_writes_every_measurement_as_a_float(job: Job) -> None:
    """silently wrong number (a schema flip): ``%.10g`` wrote a recall of 1.0 as ``1`` and a fit
    time of 0.0 as ``0``, so pandas or a warehouse loader typed the column integer in this run
    and float in the next; counts stay integers; added after the first measurement."""
    text = (job.root / "rep" / "leaderboard.csv").read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    counts = ("n_seeds", "n_queries", "blank_queries")
    names = ("dataset", "run_id", "run_config", "profile", "split", "model", "library")
    for row in rows:
        for key, cell in row.items():
            if key in counts:
                assert re.fullmatch(r"\d+", cell), (key, cell)
            elif key not in names and cell != "":
                assert not re.fullmatch(r"-?\d+", cell), (key, cell)
    assert rows[0]["recall@10_mean"] == "1.0", rows[0]["recall@10_mean"]


def test_report_of_a_folder_without_runs_is_exit_2_and_no_document(job: Job) -> None:
    """unclear error: nothing to report is a refusal, never an empty document."""
    (job.root / "none").mkdir(exist_ok=True)
    refused_quietly(run_cli(job.root, "report", "--runs", "none", "--out", "rep-none",
                            "--no-plots", "--format", "json"), "none")


def test_report_of_an_unfinished_run_only_names_include_unfinished(job: Job) -> None:
    """unclear error: the only run unfinished: exit 2 naming the option that uses it."""
    import shutil

    shutil.copytree(job.root / "blank-res", job.root / "unfin")
    manifest = next((job.root / "unfin" / "runs").glob("*/manifest.json"))
    doc = json.loads(manifest.read_text())
    doc["finished"] = None
    manifest.write_text(json.dumps(doc))
    refused_quietly(run_cli(job.root, "report", "--runs", "unfin", "--out", "rep-unfin",
                            "--no-plots", "--format", "json"), "--include-unfinished")


# ============================================================ reproduce --format json
def test_reproduce_json_of_a_run_has_every_documented_key_and_matches(job: Job) -> None:
    """silently wrong number: reproducing a run of this machine is a match, exit 0."""
    res = run_cli(job.root, "reproduce", "--run", str(job.run_dir(job.older)), "--format",
                  "json")
    doc = ok_json(res)
    assert doc["ok"] is True
    entry = doc["runs"][0]
    for key in ("source", "status", "reason", "config", "original_run", "new_run",
                "tolerance", "tolerance_reason", "compared", "n_differences", "differences"):
        assert key in entry, key
    assert entry["status"] == "match"
    assert entry["n_differences"] == 0
    assert entry["compared"] > 0


def test_reproduce_json_of_a_missing_run_leaves_stdout_empty(job: Job) -> None:
    """unclear error: a run folder that is not there is named, exit 2."""
    refused_quietly(run_cli(job.root, "reproduce", "--run", "res/runs/nosuch", "--format",
                            "json"), "nosuch")


# ============================================================ what only a process shows
def _process(argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    return subprocess.run(["bash", "-c", argv], capture_output=True, text=True, timeout=120,
                          env={**base, "PYTHONPATH": str(ROOT), **env})


def test_json_piped_to_head_with_stdin_closed_ends_0_without_traceback(job: Job) -> None:
    """traceback: ``ltrbench evaluate --format json 0<&- | head -1`` in a CI step: the first
    line read, status 0, nothing on stderr (``set -o pipefail`` sees the command's status)."""
    p = _process(f"cd '{job.root}' && set -o pipefail && '{sys.executable}' -m bench "
                 "evaluate --qrels q.txt --run r.txt --format json --per-query pq-head.json "
                 "0<&- | head -1")
    assert p.returncode == 0, (p.returncode, p.stderr[-800:])
    assert p.stdout == "{\n", (p.stdout, p.stderr[-800:])
    assert p.stderr == "", (p.stdout, p.stderr[-800:])
    records = _strict_json((job.root / "pq-head.json").read_text(encoding="utf-8"))
    assert len(records) == 3  # the file is whole though the reader went away


def test_a_utf8_file_name_under_an_ascii_locale_names_the_locale_not_the_bytes(
        job: Job) -> None:
    """unclear error: under ``LC_ALL=C`` without Python's UTF-8 mode (``PYTHONUTF8=0``, as
    some images set) a UTF-8 name ``qé.txt`` was refused as "holds bytes that are not UTF-8
    text" (they are UTF-8); the cause is the locale, and the remedy is to set a UTF-8 one."""
    (job.root / "qé.txt").write_bytes(QRELS)
    p = _process(f"cd '{job.root}' && '{sys.executable}' -m bench evaluate --qrels qé.txt "
                 "--run r.txt --format json", LC_ALL="C", PYTHONUTF8="0",
                 PYTHONCOERCECLOCALE="0")
    assert "Traceback" not in p.stderr, p.stderr[-800:]
    if p.returncode == 0:  # read as the file it is
        assert _strict_json(p.stdout)["n_queries"] == 3
        return
    assert p.returncode == 2, (p.returncode, p.stdout)
    assert p.stdout == "", (p.returncode, p.stdout)
    last = p.stderr.strip().splitlines()[-1]
    assert "not UTF-8 text" not in last, last
    assert "locale" in last, last
    assert "UTF-8" in last, last


# ============================================================ the command word itself
def test_no_command_is_exit_2_with_the_usage_on_stderr(job: Job) -> None:
    """silent accept: ``ltrbench $STEP`` with ``STEP`` empty in a Makefile printed the help on
    stdout and exited 0, so the step passed having done nothing (``ltrbench datasets`` without
    its action is exit 2); added after the first measurement."""
    res = run_cli(job.root)
    assert res.status == 2, (res.status, res.out[:200])
    assert res.out == ""
    assert "usage: ltrbench" in res.err
    assert "error: a command is required" in res.err


def test_version_is_one_line_on_stdout_and_exit_0(job: Job) -> None:
    """unclear error: ``ltrbench --version`` in a job's log: one line, ``ltrbench X.Y.Z``."""
    res = run_cli(job.root, "--version")
    assert res.status == 0
    assert re.fullmatch(r"ltrbench \d+\.\d+\.\d+\S*\n", res.out), res.out
