"""Round 21 (A), hostile: a strict downstream consumer of ltrbench's machine-readable outputs.

A dashboard and a CI gate are built on the files ltrbench writes, so every file is parsed with a
strict tool (``json.loads`` refusing ``NaN`` / ``Infinity`` and repeated keys, ``tomllib``, the
``csv`` module field for field, pyarrow's schema) and the files are checked against each other
and against what they claim: a run folder's ``manifest.json``, ``config.toml``, ``metrics.csv``,
``per_query.parquet``, ``labels.parquet``, ``timings.csv``, ``evallog.csv`` and ``status/*.json``;
its ``crosscheck.json``; ``report``'s ``leaderboard.json/.csv/.md/.tex``; ``evaluate``'s
``--format json/csv`` and ``--per-query`` CSV and JSON.

The run holds a LightGBM model and the random baseline (two seeds, one thread) on a tiny LETOR folder whose validation and test splits each hold one query without
a relevant document, under a dataset name holding a comma, quotes, ``%``, ``&``, ``#``, ``$`` and
``_``; its metrics include ``gm_map`` and ``set_p``, whose table headers (``gm_map``, ``set_P``)
hold an underscore.

Found on the base (numbers in each test's docstring):

* ``leaderboard.tex`` printed the metric headers raw: ``gm_map`` and ``set_P`` in a header row
  (and ``gm_map`` in a caption, as the primary metric) are LaTeX's subscript character outside
  math mode ("Missing $ inserted"), where the model and dataset names were escaped;
* ``timings.csv`` wrote a LightGBM model's best iteration and tree count as ``3.0`` / ``13.0``
  once a baseline's empty cell shared the column (its status file and the run's JSON say ``3``):
  an integer column that ``int()`` refuses.

Classes (issue 19) in each test's docstring: silently wrong number, silent accept, unclear error,
traceback. Golden values: hand arithmetic, the files' own raw text read with the standard
library, pandas / pyarrow on the other file (never a value ltrbench computed for the same claim).
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import statistics
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import cli

try:
    import tomllib
except ImportError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

#: A dataset name a CSV must quote and LaTeX must escape (``--name``: one printable line).
NAME = 'a,b "c" 5% & #1 $x_y'
MODELS = ("lightgbm-lambdarank", "random")
SEEDS = (0, 1)
METRICS = ("ndcg@10", "map@10", "gm_map", "set_p")


def strict_json(text: str) -> Any:
    """``json.loads`` as a strict consumer runs it: ``NaN`` / ``Infinity`` and a key given twice
    in one object are errors (RFC 8259 §6, §4: JavaScript keeps the last key in silence)."""
    def constant(c: str) -> Any:
        raise ValueError(f"non-standard JSON constant {c}")

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [k for k, _ in items]
        dup = {k for k in keys if keys.count(k) > 1}
        if dup:
            raise ValueError(f"repeated key(s) {dup}")
        return dict(items)
    return json.loads(text, parse_constant=constant, object_pairs_hook=pairs)


def _split(n_queries: int, first: int, seed: int, blank: int | None) -> str:
    """``n_queries`` queries of 8 documents, 4 features following the label; query ``blank``
    (an index) has labels 0 only."""
    rnd = np.random.default_rng(seed)
    lines = []
    for q in range(n_queries):
        for _ in range(8):
            lab = 0 if q == blank else int(rnd.integers(0, 3))
            f = [rnd.random() + 0.4 * lab for _ in range(4)]
            lines.append(f"{lab} qid:{first + q} " + " ".join(f"{j + 1}:{v:.4f}"
                                                             for j, v in enumerate(f)))
    return "\n".join(lines) + "\n"


def _rows(path: Path) -> tuple[list[str], list[list[str]]]:
    """A CSV's header and rows as the csv module reads them (RFC 4180, text only)."""
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    return rows[0], rows[1:]


def _dicts(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


class Job:
    """The run folder, its ``--format json`` document, the report folder."""

    def __init__(self, root: Path) -> None:
        self.root = root
        data = root / "data"
        data.mkdir()
        (data / "train.txt").write_text(_split(16, 1, 1, None))
        (data / "vali.txt").write_text(_split(5, 101, 2, 2))
        (data / "test.txt").write_text(_split(6, 201, 3, 4))
        (root / "cfg.toml").write_text(
            f"models = {list(MODELS)!r}\nseeds = {list(SEEDS)!r}\nmetrics = {list(METRICS)!r}\n"
            .replace("'", '"'))
        res = cli(root, "run", "--config", "cfg.toml", "--dataset", "data", "--name", NAME,
                  "--quick", "--threads", "1", "--out", "o", "--no-progress", "--format", "json")
        assert res.status == 0, res.err[-3000:]
        self.doc = strict_json(res.out)
        run = Path(self.doc["run_dir"])
        self.run = run if run.is_absolute() else root / run
        self.report = cli(root, "report", "--runs", str(self.run), "--out", "rep",
                          "--no-plots", "--no-progress", "--bootstrap", "50",
                          "--permutations", "200")
        self.rep = root / "rep"
        self.manifest = strict_json((self.run / "manifest.json").read_text(encoding="utf-8"))
        self.labels = pd.read_parquet(self.run / "labels.parquet")
        self.per_query = pd.read_parquet(self.run / "per_query.parquet")
        self.status = {p.stem: strict_json(p.read_text(encoding="utf-8"))
                       for p in sorted((self.run / "status").glob("*.json"))}

    @property
    def board(self) -> dict[str, Any]:
        """leaderboard.json (the report of the run must have succeeded)."""
        assert self.report.status == 0, self.report.err[-2000:]
        return strict_json((self.rep / "leaderboard.json").read_text(encoding="utf-8"))

    @property
    def table(self) -> dict[str, Any]:
        return self.board["tables"][0]

    def blank_qids(self, split: str) -> set[str]:
        lab = self.labels[self.labels["split"] == split]
        top = lab.groupby(lab["qid"].astype(str))["label"].max()
        return set(top[top <= 0].index)

    def qids(self, split: str) -> set[str]:
        return set(self.labels[self.labels["split"] == split]["qid"].astype(str))

    def crosscheck(self) -> dict[str, Any]:
        found = sorted((self.root / "o").glob("*/crosscheck.json"))
        assert len(found) == 1, found
        return strict_json(found[0].read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def job(tmp_path_factory: pytest.TempPathFactory) -> Job:
    return Job(tmp_path_factory.mktemp("r21a_parser"))


# ================================================================ the run folder: strict parsing
def test_report_reads_a_run_whose_metrics_include_gm_map_and_set_p(job: Job) -> None:
    """unclear error: ``report`` checks metrics.csv against per_query.parquet; gm_map's
    per-query values are logarithms (trec_eval) and its mean their exp: base: "value
    0.9458591561306219 of gm_map ... is not the mean of its per-query values
    (-0.055661604597371676): the run is damaged or was edited", exit 2, on a run just written."""
    assert job.report.status == 0, job.report.err[-2000:]
    assert job.table["metrics"] == list(METRICS)


def test_every_json_file_of_the_run_and_report_is_strict_json(job: Job) -> None:
    """silent accept: no NaN/Infinity token and no key twice in any JSON file written."""
    assert job.report.status == 0, job.report.err[-2000:]
    files = [*job.run.rglob("*.json"), *job.rep.rglob("*.json"),
             *(job.root / "o").glob("*/crosscheck.json")]
    assert len(files) >= 2 + len(MODELS) * len(SEEDS)
    for p in files:
        strict_json(p.read_bytes().decode("utf-8"))


def test_config_toml_header_names_the_run_id_and_the_manifest_hash(job: Job) -> None:
    """silently wrong number: the config's comment line, the folder and the manifest agree."""
    first = (job.run / "config.toml").read_text(encoding="utf-8").splitlines()[0]
    m = re.search(r"run (\S+); hash ([0-9a-f]+)", first)
    assert m, first
    assert m.group(1) == job.run.name == job.manifest["run_id"] == job.doc["run_id"]
    assert m.group(2) == job.manifest["config_hash"] == job.doc["config_hash"]


def test_config_toml_seeds_models_metrics_are_the_manifests_and_the_tables(job: Job) -> None:
    """silently wrong number: one list of seeds, models and metrics in every file."""
    cfg = tomllib.loads((job.run / "config.toml").read_text(encoding="utf-8"))
    assert cfg["seeds"] == list(SEEDS) == job.manifest["seeds"] == job.doc["seeds"]
    assert cfg["models"] == list(MODELS) == list(job.manifest["models"]) == job.doc["models"]
    assert cfg["metrics"] == list(METRICS) == job.manifest["evaluation"]["metrics"]
    m = pd.read_csv(job.run / "metrics.csv", dtype=str, keep_default_na=False)
    assert sorted(set(m["seed"])) == [str(s) for s in SEEDS]
    assert sorted(set(m["model"])) == sorted(MODELS)
    assert sorted(set(m["metric"])) == sorted(METRICS)
    assert sorted(set(job.per_query["metric"])) == sorted(METRICS)


def test_config_toml_name_is_the_dataset_column_of_every_table(job: Job) -> None:
    """silently wrong number: the hostile name survives TOML, CSV quoting and Parquet."""
    cfg = tomllib.loads((job.run / "config.toml").read_text(encoding="utf-8"))
    assert cfg["name"] == NAME == job.manifest["dataset"]["name"] == job.doc["dataset"]
    for table in ("metrics.csv", "timings.csv"):
        assert {r["dataset"] for r in _dicts(job.run / table)} == {NAME}, table
    assert set(job.per_query["dataset"]) == {NAME}


def test_status_files_are_named_for_the_model_and_integer_seed_they_hold(job: Job) -> None:
    """silently wrong number: status/<model>-seed<k>.json holds that model and seed k (an
    integer, as the manifest's seeds), one per pair of the manifest."""
    assert set(job.status) == {f"{m}-seed{s}" for m in MODELS for s in SEEDS}
    for key, body in job.status.items():
        assert type(body["seed"]) is int, (key, body["seed"])
        assert key == f"{body['model']}-seed{body['seed']}"
        assert body["status"] == "done"
    assert set(job.doc["status"]) == set(job.status)


def test_status_finish_times_lie_between_the_manifests_start_and_finish(job: Job) -> None:
    """silently wrong number: timestamps as UTC ISO 8601 with offset, in order."""
    import datetime as dt

    start = dt.datetime.fromisoformat(job.manifest["started"])
    end = dt.datetime.fromisoformat(job.manifest["finished"])
    assert start.utcoffset() == dt.timedelta(0)
    assert start <= end
    for key, body in job.status.items():
        t = dt.datetime.fromisoformat(body["finished"])
        assert t.utcoffset() == dt.timedelta(0), key
        assert start <= t <= end, key


def test_metrics_csv_every_line_has_the_header_field_count(job: Job) -> None:
    """silent accept: a name with a comma and quotes is one quoted field (RFC 4180)."""
    for table in ("metrics.csv", "timings.csv", "evallog.csv"):
        header, rows = _rows(job.run / table)
        assert rows, table
        assert all(len(r) == len(header) for r in rows), table


def test_metrics_csv_seed_cells_are_plain_integers(job: Job) -> None:
    """silently wrong number: ``0``, never ``0.0`` or ``"0"``-with-blanks, in every CSV."""
    for table in ("metrics.csv", "timings.csv", "evallog.csv"):
        cells = {r["seed"] for r in _dicts(job.run / table)}
        assert cells == {str(s) for s in SEEDS} or (table == "evallog.csv" and cells <= {"0", "1"})


def test_metrics_csv_value_cells_are_finite_floats_without_nan_text(job: Job) -> None:
    """silent accept: a value is a decimal number (``nan``/``inf`` text would be read back as a
    number by pandas and refused by strict readers)."""
    for r in _dicts(job.run / "metrics.csv"):
        v = r["value"]
        assert v != ""
        assert math.isfinite(float(v))
        assert v.lower() not in ("nan", "inf", "-inf")


def test_metrics_csv_value_text_reads_back_bit_for_bit(job: Job) -> None:
    """silently wrong number: the printed value is the per-query mean to the last bit
    (repr-round-trip text, 17 significant digits where needed)."""
    pqv = job.per_query
    for r in _dicts(job.run / "metrics.csv"):
        if r["profile"] != "ltrbench":
            continue
        sel = pqv[(pqv["model"] == r["model"]) & (pqv["seed"] == int(r["seed"]))
                  & (pqv["split"] == r["split"]) & (pqv["metric"] == r["metric"])]["value"]
        vals = sel.dropna().to_numpy()
        if r["metric"] == "gm_map":  # per query log(max(AP, 1e-5)); the mean exp of their mean
            assert ((vals <= 0) & (vals >= math.log(1e-5))).all(), r
            want = math.exp(float(np.mean(vals)))
            assert float(r["value"]) == pytest.approx(want, rel=1e-12), r
        else:
            assert float(r["value"]) == pytest.approx(float(np.mean(vals)), abs=1e-15), r


def test_metrics_csv_blank_variants_are_the_per_query_means_with_blanks_filled(job: Job) -> None:
    """silently wrong number: ``ltrbench-blank0``/``-blank1`` rows of NDCG are the per-query
    mean with the blank query scored 0 / 1, over every query of the split."""
    seen = 0
    for r in _dicts(job.run / "metrics.csv"):
        if not r["profile"].startswith("ltrbench-blank"):
            continue
        fill = float(r["profile"][-1])
        pqv = job.per_query
        sel = pqv[(pqv["model"] == r["model"]) & (pqv["seed"] == int(r["seed"]))
                  & (pqv["split"] == r["split"]) & (pqv["metric"] == r["metric"])]
        assert len(sel) == len(job.qids(r["split"]))
        assert float(r["value"]) == pytest.approx(sel["value"].fillna(fill).mean(), abs=1e-15)
        seen += 1
    # ndcg@10 on vali and test (one blank query each) x 3 models x 2 seeds x 2 fills
    assert seen == 2 * len(MODELS) * len(SEEDS) * 2


def test_per_query_blank_query_is_null_in_ndcg_rows_only_where_the_labels_say(job: Job) -> None:
    """silently wrong number: the NaN rows of ndcg@10 are the queries whose labels are all 0."""
    pqv = job.per_query
    for split in ("vali", "test"):
        sel = pqv[(pqv["split"] == split) & (pqv["metric"] == "ndcg@10")]
        assert set(sel[sel["value"].isna()]["qid"].astype(str)) == job.blank_qids(split)
        assert len(job.blank_qids(split)) == 1


def test_per_query_arrow_schema_has_the_documented_types(job: Job) -> None:
    """silent accept: seed int64, value float64, text columns strings, qid the type of
    labels.parquet's qid (a join key of one type)."""
    schema = pq.read_schema(job.run / "per_query.parquet")
    types = {f.name: str(f.type) for f in schema}
    assert types["seed"] == "int64"
    assert types["value"] == "double"
    for col in ("dataset", "model", "split", "metric"):
        assert types[col] in ("string", "large_string"), (col, types[col])
    assert types["qid"] == str(pq.read_schema(job.run / "labels.parquet").field("qid").type)


def test_per_query_rows_of_each_pair_are_the_labels_queries_once(job: Job) -> None:
    """silently wrong number: per pair, split and metric one row per query of the split."""
    pqv = job.per_query
    for (model, seed, split, metric), g in pqv.groupby(["model", "seed", "split", "metric"]):
        ids = list(g["qid"].astype(str))
        assert len(ids) == len(set(ids)), (model, seed, split, metric)
        assert set(ids) == job.qids(split), (model, seed, split, metric)
    assert pqv.groupby(["model", "seed"]).ngroups == len(MODELS) * len(SEEDS)


def test_manifest_row_and_query_counts_are_the_labels_parquets(job: Job) -> None:
    """silently wrong number: the manifest's summaries count what was evaluated."""
    for split in ("vali", "test"):
        s = job.manifest["dataset"]["summaries"][split]
        lab = job.labels[job.labels["split"] == split]
        assert s["rows"] == len(lab)
        assert s["queries"] == lab["qid"].nunique()
        assert s["blank_queries"] == len(job.blank_qids(split))


def test_manifest_label_histogram_keys_are_the_label_values_with_their_counts(job: Job) -> None:
    """silently wrong number: ``labels`` maps each label (JSON keys are text) to its count."""
    for split in ("vali", "test"):
        hist = job.manifest["dataset"]["summaries"][split]["labels"]
        lab = job.labels[job.labels["split"] == split]["label"]
        assert {float(k): v for k, v in hist.items()} == {
            float(k): int(v) for k, v in lab.value_counts().items()}
        assert sum(hist.values()) == len(lab)


def test_scores_parquet_has_one_score_per_labels_row_for_every_pair(job: Job) -> None:
    """silently wrong number: scores.parquet rows line up with labels.parquet rows."""
    s = pd.read_parquet(job.run / "scores.parquet")
    for (model, seed, split), g in s.groupby(["model", "seed", "split"]):
        assert sorted(g["row"]) == list(range(int((job.labels["split"] == split).sum()))), \
            (model, seed, split)
        assert np.isfinite(g["score"].to_numpy()).all()


# ============================================================ timings, eval log and status
def test_timings_csv_integer_columns_are_written_as_integers(job: Job) -> None:
    """silently wrong number (type): best_iteration and n_trees are iteration counts; the
    status file writes ``3``, timings.csv wrote ``3.0`` once a baseline's empty cell shared
    the column, which ``int("3.0")`` and a strict integer column refuse."""
    for r in _dicts(job.run / "timings.csv"):
        for col in ("best_iteration", "n_trees", "repeats"):
            assert re.fullmatch(r"\d*", r[col]), (r["model"], col, r[col])


def test_timings_csv_best_iteration_and_trees_are_the_status_files(job: Job) -> None:
    """silently wrong number: the two records of one fit agree (an empty cell is null)."""
    for r in _dicts(job.run / "timings.csv"):
        body = job.status[f"{r['model']}-seed{r['seed']}"]
        for col in ("best_iteration", "n_trees"):
            want = body.get(col)
            assert (r[col] == "") == (want is None), (r["model"], col, r[col], want)
            if want is not None:
                assert float(r[col]) == want


def test_timings_csv_repeats_are_the_status_files_seconds_exactly(job: Job) -> None:
    """silently wrong number: ``fit_s_repeats`` (';'-separated) are the status file's seconds
    bit for bit, and fit_s is their median, fit_s_min/max their ends."""
    for r in _dicts(job.run / "timings.csv"):
        body = job.status[f"{r['model']}-seed{r['seed']}"]
        secs = [float(x) for x in r["fit_s_repeats"].split(";")]
        assert secs == body["fit_s_repeats"], r["model"]
        assert int(r["repeats"]) == len(secs)
        assert float(r["fit_s"]) == statistics.median(secs) == body["fit_s"]
        assert float(r["fit_s_min"]) == min(secs)
        assert float(r["fit_s_max"]) == max(secs)


def test_timings_csv_contended_is_the_status_files_flag(job: Job) -> None:
    """silently wrong number: the flag read back as a bool is the status file's."""
    for r in _dicts(job.run / "timings.csv"):
        body = job.status[f"{r['model']}-seed{r['seed']}"]
        assert r["contended"] in ("True", "False")
        assert (r["contended"] == "True") is body["contended"]


def test_run_json_fit_s_is_the_median_of_the_timings_csv_seeds(job: Job) -> None:
    """silently wrong number: ``timings.<model>.fit_s`` is documented as the median over seeds."""
    t = pd.read_csv(job.run / "timings.csv")
    for model in MODELS:
        want = statistics.median(t[t["model"] == model]["fit_s"])
        assert job.doc["timings"][model]["fit_s"] == pytest.approx(want, abs=1e-15), model


def test_evallog_iterations_run_from_1_to_the_trees_trained(job: Job) -> None:
    """silently wrong number: the log of each fit covers rounds 1..n_trees, integers."""
    header, rows = _rows(job.run / "evallog.csv")
    log = [dict(zip(header, r, strict=True)) for r in rows]
    for seed in SEEDS:
        mine = [r for r in log if r["model"] == "lightgbm-lambdarank" and r["seed"] == str(seed)]
        its = sorted({int(r["iteration"]) for r in mine})
        assert all(re.fullmatch(r"\d+", r["iteration"]) for r in mine)
        assert its == list(range(1, job.status[f"lightgbm-lambdarank-seed{seed}"]["n_trees"] + 1))


def test_evallog_has_no_rows_for_models_without_a_library_log(job: Job) -> None:
    """silent accept: the baseline and the custom ranker log nothing (no made-up curve)."""
    models = {r["model"] for r in _dicts(job.run / "evallog.csv")}
    assert models == {"lightgbm-lambdarank"}


# ======================================================================== crosscheck.json
def test_crosscheck_evallog_value_is_evallog_csv_at_the_status_best_iteration(job: Job) -> None:
    """silently wrong number: a check from the eval log quotes the log's own value at the
    iteration the status file selected."""
    cc = job.crosscheck()
    log = pd.read_csv(job.run / "evallog.csv")
    checks = [c for c in cc["checks"] if c["source"] == "evallog"]
    assert checks
    for c in checks:
        assert c["iteration"] == job.status[f"{c['model']}-seed{c['seed']}"]["best_iteration"]
        row = log[(log["model"] == c["model"]) & (log["seed"] == c["seed"])
                  & (log["iteration"] == c["iteration"]) & (log["split"] == c["split"])
                  & (log["metric"] == c["metric"])]
        assert row["value"].item() == c["builtin"], c


def test_crosscheck_abs_diff_is_builtin_minus_reference(job: Job) -> None:
    """silently wrong number: abs_diff = |builtin - reference| for every check of this run."""
    for c in job.crosscheck()["checks"]:
        if c["builtin"] is not None:
            assert c["abs_diff"] == pytest.approx(abs(c["builtin"] - c["reference"]), abs=1e-15)


def test_crosscheck_case_default_value_is_metrics_csv_value(job: Job) -> None:
    """silently wrong number: the ``ltrbench`` side of each explained gap is the run's own
    metrics.csv number for that model, seed and split."""
    m = pd.read_csv(job.run / "metrics.csv")
    cases = job.crosscheck()["cases"]
    assert cases
    for c in cases:
        row = m[(m["model"] == c["model"]) & (m["seed"] == c["seed"]) & (m["split"] == c["split"])
                & (m["metric"] == c["metric"]) & (m["profile"] == c["default_profile"])]
        assert row["value"].item() == pytest.approx(c["default_value"], abs=1e-15), c


def test_crosscheck_case_reasons_and_residual_add_up_to_the_gap(job: Job) -> None:
    """silently wrong number: gap = library - default = sum(reasons) + residual."""
    for c in job.crosscheck()["cases"]:
        assert c["gap"] == pytest.approx(c["library_value"] - c["default_value"], abs=1e-12)
        assert sum(c["reasons"].values()) + c["residual"] == pytest.approx(c["gap"], abs=1e-12)


def test_crosscheck_case_counts_are_the_labels_counts(job: Job) -> None:
    """silently wrong number: n_queries and n_blank of each case are the split's."""
    for c in job.crosscheck()["cases"]:
        assert c["n_queries"] == len(job.qids(c["split"])), c
        assert c["n_blank"] == len(job.blank_qids(c["split"])), c


def test_crosscheck_blank_queries_are_the_labels_blank_counts(job: Job) -> None:
    """silently wrong number: ``blank_queries`` per split counts queries with labels 0 only."""
    blank = job.crosscheck()["blank_queries"]
    for split in ("vali", "test"):
        assert blank[split] == len(job.blank_qids(split)), (split, blank)


def test_crosscheck_json_dataset_and_run_json_crosscheck_agree(job: Job) -> None:
    """silently wrong number: the file and the run's JSON give one verdict for one dataset."""
    cc = job.crosscheck()
    assert cc["dataset"] == NAME
    assert cc["ok"] is job.doc["crosscheck"]["ok"]


# ============================================================================ leaderboard.json
def test_leaderboard_run_dir_resolves_to_the_run_and_its_manifest(job: Job) -> None:
    """silently wrong number: ``run_dir`` and ``run_config`` (relative to the JSON's folder)
    are this run's files."""
    t = job.table
    run = (job.rep / t["run_dir"]).resolve()
    assert run == job.run.resolve()
    assert (job.rep / t["run_config"]).resolve() == (job.run / "config.toml").resolve()
    assert t["run_id"] == job.manifest["run_id"]
    assert t["run_timestamp"] == job.manifest["finished"]


def test_leaderboard_seeds_queries_and_blanks_are_the_runs(job: Job) -> None:
    """silently wrong number: the table's counts are the test split's."""
    t = job.table
    assert t["seeds"] == list(SEEDS) == job.manifest["seeds"]
    assert t["n_queries"] == len(job.qids("test"))
    assert t["blank_queries"] == len(job.blank_qids("test"))
    assert t["dataset"] == NAME
    assert t["profile"] == "ltrbench"
    assert t["split"] == "test"


def test_leaderboard_metric_n_queries_count_the_per_query_values(job: Job) -> None:
    """silently wrong number: each metric's n_queries is the number of test queries with a
    value (ndcg@10 leaves the blank query out)."""
    pqv = job.per_query[job.per_query["split"] == "test"]
    for row in job.table["rows"]:
        for m, e in row["metrics"].items():
            sel = pqv[(pqv["model"] == row["model"]) & (pqv["metric"] == m)]
            want = sel.groupby(sel["qid"].astype(str))["value"].mean().notna().sum()
            assert e["n_queries"] == want, (row["model"], m)


def test_leaderboard_per_seed_keys_are_the_seeds_and_values_metrics_csv(job: Job) -> None:
    """silently wrong number: ``per_seed`` maps str(seed) (JSON keys are text) to metrics.csv."""
    m = pd.read_csv(job.run / "metrics.csv")
    m = m[(m["split"] == "test") & (m["profile"] == "ltrbench")]
    for row in job.table["rows"]:
        assert row["seeds"] == list(SEEDS)
        for metric, e in row["metrics"].items():
            assert list(e["per_seed"]) == [str(s) for s in SEEDS]
            for s in SEEDS:
                want = m[(m["model"] == row["model"]) & (m["seed"] == s)
                         & (m["metric"] == metric)]["value"].item()
                assert e["per_seed"][str(s)] == want, (row["model"], metric, s)
            assert e["mean"] == pytest.approx(statistics.fmean(e["per_seed"].values()), abs=1e-15)


def test_leaderboard_best_model_has_the_highest_primary_mean_and_no_test(job: Job) -> None:
    """silently wrong number: best_model is the top ndcg@10 mean; vs_best is null only there."""
    rows = job.table["rows"]
    top = max(rows, key=lambda r: r["metrics"]["ndcg@10"]["mean"])
    assert job.table["best_model"] == top["model"]
    for r in rows:
        assert (r["vs_best"] is None) == (r["model"] == top["model"]), r["model"]
    means = [r["metrics"]["ndcg@10"]["mean"] for r in rows]
    assert means == sorted(means, reverse=True)


def test_leaderboard_blank_fills_are_the_metrics_csv_blank_rows(job: Job) -> None:
    """silently wrong number: ``blank.blank0/1`` are the run's ltrbench-blank0/1 test means
    averaged over seeds."""
    m = pd.read_csv(job.run / "metrics.csv")
    for row in job.table["rows"]:
        entry = row["blank"]["ndcg@10"]
        for key in ("blank0", "blank1"):
            sel = m[(m["model"] == row["model"]) & (m["split"] == "test")
                    & (m["metric"] == "ndcg@10") & (m["profile"] == f"ltrbench-{key}")]
            got = entry[key]
            assert got["mean"] == pytest.approx(sel["value"].mean(), abs=1e-15), (row["model"], key)
            assert got["per_seed"] == {str(s): v for s, v in zip(sel["seed"], sel["value"],
                                                                 strict=True)}


def test_leaderboard_interval_is_around_the_per_query_mean_as_the_family_averages(
        job: Job) -> None:
    """silently wrong number: ``ci_mean`` is the mean over test queries of the seed-averaged
    per-query values as the metric's family averages them, inside [ci_low, ci_high]; gm_map's
    per-query values are logarithms, its mean exp of theirs. Base: gm_map's interval was
    [-0.0348, -0.0096] (logarithms) beside its mean 0.9795."""
    pqv = job.per_query[job.per_query["split"] == "test"]
    for row in job.table["rows"]:
        for metric, e in row["metrics"].items():
            sel = pqv[(pqv["model"] == row["model"]) & (pqv["metric"] == metric)]
            per_q = sel.groupby(sel["qid"].astype(str))["value"].mean().dropna()
            want = (math.exp(per_q.mean()) if metric == "gm_map" else per_q.mean())
            assert e["ci_mean"] == pytest.approx(want, abs=1e-12), (row["model"], metric)
            assert e["ci_low"] <= e["ci_mean"] <= e["ci_high"], (row["model"], metric, e)


# ============================================================================= leaderboard.csv
def test_leaderboard_csv_rows_are_the_json_rows_in_order(job: Job) -> None:
    """silently wrong number: same models, order, seeds and queries in the CSV as the JSON."""
    rows = _dicts(job.rep / "leaderboard.csv")
    assert [r["model"] for r in rows] == [r["model"] for r in job.table["rows"]]
    for r in rows:
        assert r["dataset"] == NAME
        assert r["n_seeds"] == str(len(SEEDS))
        assert r["n_queries"] == str(job.table["n_queries"])
        assert r["blank_queries"] == str(job.table["blank_queries"])


def test_leaderboard_csv_metric_headers_parse_back_as_the_metric_names(job: Job) -> None:
    """unclear error: README: a metric's printed name parses back; each ``<metric>_<stat>``
    column's metric part is a name ltrbench reads as itself."""
    from bench.metrics import parse_metrics

    header, _ = _rows(job.rep / "leaderboard.csv")
    stats = ("_mean", "_std", "_ci_low", "_ci_high")
    metric_cols = [h for h in header if h.endswith(stats) and not h.startswith(("fit_s",
                                                                               "predict_s"))]
    names = {h[: -len(s)] for h in metric_cols for s in stats if h.endswith(s)}
    plain = {n for n in names if not n.endswith(("_blank0", "_blank1"))}
    assert plain == set(METRICS)
    # the blank-query variants of NDCG: <metric>_blank0/1, whose metric part parses back too
    assert names - plain == {"ndcg@10_blank0", "ndcg@10_blank1"}
    for n in names:
        base = n.removesuffix("_blank0").removesuffix("_blank1")
        assert [s.name for s in parse_metrics(base)] == [base]


def test_leaderboard_csv_numbers_are_the_json_to_ten_significant_digits(job: Job) -> None:
    """silently wrong number: each CSV mean/std/ci cell is the JSON value at 10 digits."""
    rows = {r["model"]: r for r in _dicts(job.rep / "leaderboard.csv")}
    n = 0
    for row in job.table["rows"]:
        for m, e in row["metrics"].items():
            for f in ("mean", "std", "ci_low", "ci_high"):
                cell = rows[row["model"]][f"{m}_{f}"]
                if e.get(f) is None:
                    assert cell == "", (row["model"], m, f)
                else:
                    assert float(cell) == float(f"{e[f]:.10g}"), (row["model"], m, f)
                    n += 1
    assert n >= len(MODELS) * len(METRICS) * 3


def test_leaderboard_csv_p_values_are_the_json_vs_best(job: Job) -> None:
    """silently wrong number: the best row's p cells are empty, the others the JSON's."""
    rows = {r["model"]: r for r in _dicts(job.rep / "leaderboard.csv")}
    for row in job.table["rows"]:
        for key in ("p_randomization", "p_randomization_holm", "p_t", "p_t_holm"):
            cell = rows[row["model"]][key]
            vs = row["vs_best"]
            if vs is None or vs.get(key) is None:
                assert cell == "", (row["model"], key, cell)
            else:
                assert float(cell) == float(f"{vs[key]:.10g}"), (row["model"], key)


# ============================================================================= leaderboard.md
def _md_rows(text: str) -> list[list[str]]:
    """The first table's body rows, cells de-escaped (Markdown backslash escapes undone)."""
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("| Model"))
    out = []
    for ln in lines[start + 2:]:
        if not ln.startswith("|"):
            break
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", ln.strip())[1:-1]]
        out.append([re.sub(r"\\(.)", r"\1", c) for c in cells])
    return out


def test_leaderboard_md_rows_are_the_json_rows_as_printed(job: Job) -> None:
    """silently wrong number: model order, mean ± std to 4 decimals, bold on the best."""
    text = (job.rep / "leaderboard.md").read_text(encoding="utf-8")
    rows = _md_rows(text)
    assert [r[0] for r in rows] == [r["model"] for r in job.table["rows"]]
    for cells, row in zip(rows, job.table["rows"], strict=True):
        for i, m in enumerate(METRICS, start=1):
            e = row["metrics"][m]
            cell = cells[i].replace("*", "")
            assert cell.startswith(f"{e['mean']:.4f}"), (row["model"], m, cell)
            if e.get("std") is not None:
                assert cell == f"{e['mean']:.4f} ± {e['std']:.4f}", (row["model"], m, cell)


# ============================================================================ leaderboard.tex
def _tex_tables(job: Job) -> list[str]:
    return (job.rep / "leaderboard.tex").read_text(encoding="utf-8").split("\\begin{table}")[1:]


def _unescaped(line: str, ch: str) -> list[int]:
    """Positions of ``ch`` in ``line`` not escaped by a backslash (and not a \\texttt-like
    command name)."""
    return [i for i, c in enumerate(line) if c == ch and (i == 0 or line[i - 1] != "\\")]


def test_leaderboard_tex_has_no_bare_underscore_outside_math(job: Job) -> None:
    """traceback (LaTeX: "Missing $ inserted"): metric headers ``gm_map`` and ``set_P`` and the
    dataset name are escaped (``\\_``) like the dataset name; base: the header row
    printed ``gm_map & set_P`` raw."""
    for body in _tex_tables(job):
        for line in body.splitlines():
            if line.startswith(("\\label", "%")):
                continue
            outside = re.sub(r"(?<!\\)\$[^$]*(?<!\\)\$", "", line)  # text outside math
            assert not _unescaped(outside, "_"), line


def test_leaderboard_tex_has_no_bare_percent_hash_or_ampersand_in_text(job: Job) -> None:
    """traceback (LaTeX): ``%`` would comment out the rest of a caption, ``#`` is a macro
    parameter; ``&`` only as the column separator (as many per row as the tabular has)."""
    for body in _tex_tables(job):
        cols = re.search(r"\\begin\{tabular\}\{([lrc]+)\}", body)
        assert cols
        n = len(cols.group(1))
        for line in body.splitlines():
            assert not _unescaped(line, "%"), line
            assert not _unescaped(line, "#"), line
            if line.endswith("\\\\"):  # a header or body row: n cells
                assert len(_unescaped(line, "&")) == n - 1, line
            else:
                assert not _unescaped(line, "&"), line


def test_leaderboard_tex_math_dollars_pair_up_on_every_line(job: Job) -> None:
    """traceback (LaTeX): the dataset's ``$`` is ``\\$``; the math cells open and close."""
    for body in _tex_tables(job):
        for line in body.splitlines():
            assert len(_unescaped(line, "$")) % 2 == 0, line


def test_leaderboard_tex_caption_names_the_dataset_as_written(job: Job) -> None:
    """silently wrong number: the caption, de-escaped, holds the name exactly."""
    body = _tex_tables(job)[0]
    cap = re.search(r"\\caption\{(.*)\}$", body, re.M)
    assert cap
    text = (cap.group(1).replace("\\textquotedbl{}", '"').replace("\\_", "_")
            .replace("\\%", "%").replace("\\&", "&").replace("\\#", "#").replace("\\$", "$"))
    assert NAME in text


def test_leaderboard_tex_rows_are_the_json_rows_as_printed(job: Job) -> None:
    """silently wrong number: row order and each mean to 4 decimals."""
    body = _tex_tables(job)[0]
    mid = body.split("\\midrule")[1].split("\\bottomrule")[0]
    lines = [ln for ln in mid.splitlines() if ln.strip()]
    assert len(lines) == len(job.table["rows"])
    for line, row in zip(lines, job.table["rows"], strict=True):
        cells = re.split(r"(?<!\\)&", line.removesuffix("\\\\"))
        assert cells[0].strip().replace("\\_", "_") == row["model"]
        for i, m in enumerate(METRICS, start=1):
            assert f"{row['metrics'][m]['mean']:.4f}" in cells[i], (row["model"], m, cells[i])


# ================================================================== evaluate: JSON, CSV, ids
#: Query ids a spreadsheet or pandas would change, each with its own documents; 'blank' has no
#: relevant document.
IDS = ("a,b", '"q"', "007", "NA", "1e5", "12345678901234567890", "blank")
COMMA_METRIC = "nDCG(gains={0:0,1:1,2:3})@10"


@pytest.fixture(scope="module")
def trec(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("r21a_trec")
    qrels, run = [], []
    for i, q in enumerate(IDS):
        labels = [0, 0, 0] if q == "blank" else [2, 0, 1]
        scores = [0.4, 0.9 - 0.01 * i, 0.1]
        for j, (lab, s) in enumerate(zip(labels, scores, strict=True)):
            qrels.append(f"{q} 0 d{j} {lab}")
            run.append(f"{q} Q0 d{j} {j + 1} {s} t")
    (root / "q.txt").write_text("\n".join(qrels) + "\n")
    (root / "r.txt").write_text("\n".join(run) + "\n")
    return root


def _eval(root: Path, *args: str) -> Any:
    res = cli(root, "evaluate", "--qrels", "q.txt", "--run", "r.txt", *args)
    assert res.status == 0, res.err[-2000:]
    return res


#: ltrbench profile, gain 2^l-1, ties none: ranks d1 (0), d0 (2), d2 (1):
#: DCG = 3/log2(3) + 1/2, ideal 3 + 1/log2(3).
NDCG_HAND = (3 / math.log2(3) + 1 / 2) / (3 + 1 / math.log2(3))


def _ir_measures(root: Path, measure: str) -> float:
    """ir_measures' own aggregate of ``measure`` on the fixture's files (the oracle)."""
    import ir_measures

    qrels = list(ir_measures.read_trec_qrels(str(root / "q.txt")))
    run = list(ir_measures.read_trec_run(str(root / "r.txt")))
    m = ir_measures.parse_measure(measure)
    return float(ir_measures.calc_aggregate([m], qrels, run)[m])


def test_evaluate_per_query_csv_keeps_every_id_as_written(trec: Path) -> None:
    """silently wrong number: ids with a comma, quotes, leading zeros, ``NA``, ``1e5`` and 20
    digits read back with the csv module exactly."""
    _eval(trec, "--metrics", "ndcg@10", "--profile", "ltrbench", "--per-query", "pq.csv")
    rows = _dicts(trec / "pq.csv")
    assert sorted(r["qid"] for r in rows) == sorted(IDS)


def test_evaluate_per_query_json_ids_are_strings_as_written(trec: Path) -> None:
    """silently wrong number: ``007`` is no 7, ``1e5`` no 100000.0, the 20 digits no float."""
    _eval(trec, "--metrics", "ndcg@10", "--profile", "ltrbench", "--per-query", "pq.json")
    doc = strict_json((trec / "pq.json").read_text(encoding="utf-8"))
    assert sorted(r["qid"] for r in doc) == sorted(IDS)
    assert all(type(r["qid"]) is str for r in doc)


def test_evaluate_per_query_csv_and_json_hold_the_same_values_bit_for_bit(trec: Path) -> None:
    """silently wrong number: the two per-query files of one call agree to the last bit."""
    _eval(trec, "--metrics", "ndcg@10,p@2", "--profile", "ltrbench", "--per-query", "a.csv")
    _eval(trec, "--metrics", "ndcg@10,p@2", "--profile", "ltrbench", "--per-query", "a.json")
    csv_rows = {r["qid"]: r for r in _dicts(trec / "a.csv")}
    for r in strict_json((trec / "a.json").read_text(encoding="utf-8")):
        for m in ("ndcg@10", "p@2"):
            cell = csv_rows[r["qid"]][m]
            assert (cell == "") == (r[m] is None), (r["qid"], m)
            if r[m] is not None:
                assert float(cell) == r[m], (r["qid"], m)


def test_evaluate_per_query_values_are_the_hand_ndcg(trec: Path) -> None:
    """silently wrong number: every answered query scores the hand NDCG; the blank one null."""
    _eval(trec, "--metrics", "ndcg@10", "--profile", "ltrbench", "--per-query", "h.json")
    for r in strict_json((trec / "h.json").read_text(encoding="utf-8")):
        if r["qid"] == "blank":
            assert r["ndcg@10"] is None
        else:
            assert r["ndcg@10"] == pytest.approx(NDCG_HAND, abs=1e-15), r


def test_evaluate_json_counts_are_the_per_query_files(trec: Path) -> None:
    """silently wrong number: n_queries and metric_n_queries count the queries with a value in
    the per-query file of the same call; the mean is their mean."""
    res = _eval(trec, "--metrics", "ndcg@10,p@2", "--profile", "ltrbench", "--format", "json",
                "--per-query", "c.json")
    doc = strict_json(res.out)
    rows = strict_json((trec / "c.json").read_text(encoding="utf-8"))
    assert doc["diagnostics"]["n_queries"] == len(rows) == len(IDS)
    for m in ("ndcg@10", "p@2"):
        vals = [r[m] for r in rows if r[m] is not None]
        assert doc["metric_n_queries"][m] == len(vals), m
        assert doc["metrics"][m] == pytest.approx(statistics.fmean(vals), abs=1e-15), m
        assert doc["metric_profiles"][m] == "ltrbench"


def test_evaluate_csv_summary_quotes_a_metric_name_holding_commas(trec: Path) -> None:
    """silent accept: ir_measures' ``nDCG(gains={0:0,1:1,2:3})@10`` is one quoted cell; its
    value the hand one, its profile the JSON's."""
    res = _eval(trec, "--metrics", COMMA_METRIC, "--format", "csv")
    rows = list(csv.reader(io.StringIO(res.out)))
    assert rows[0] == ["metric", "value", "profile"]
    assert [len(r) for r in rows] == [3, 3], rows
    assert rows[1][0] == COMMA_METRIC
    assert float(rows[1][1]) == pytest.approx(_ir_measures(trec, COMMA_METRIC), abs=1e-12)
    doc = strict_json(_eval(trec, "--metrics", COMMA_METRIC, "--format", "json").out)
    assert rows[1][2] == doc["metric_profiles"][COMMA_METRIC]
    assert float(rows[1][1]) == doc["metrics"][COMMA_METRIC]


def test_evaluate_per_query_csv_header_quotes_a_metric_name_holding_commas(trec: Path) -> None:
    """silent accept: the per-query CSV's column for that metric is one header cell."""
    _eval(trec, "--metrics", f"{COMMA_METRIC},ndcg_cut_10", "--per-query", "g.csv")
    header, rows = _rows(trec / "g.csv")
    assert COMMA_METRIC in header
    assert "ndcg_cut_10" in header
    assert all(len(r) == len(header) for r in rows)


def test_evaluate_json_keys_are_the_metric_names_as_typed(trec: Path) -> None:
    """silently wrong number: result keys are the spellings given, each with its profile."""
    doc = strict_json(_eval(trec, "--metrics", "ndcg_cut_10,P_2,nDCG@10",
                            "--format", "json").out)
    assert list(doc["metrics"]) == ["ndcg_cut_10", "P_2", "nDCG@10"]
    assert set(doc["metric_profiles"]) == set(doc["metrics"]) == set(doc["metric_n_queries"])
    assert doc["metric_profiles"]["nDCG@10"] == "trec_eval-c"
    assert doc["metric_profiles"]["ndcg_cut_10"] == doc["metric_profiles"]["P_2"] == "trec_eval"


def test_evaluate_csv_summary_empty_cell_for_an_undefined_mean_and_json_null(
        tmp_path: Path) -> None:
    """silent accept: every query blank under ltrbench: CSV cell empty, JSON null, same call."""
    (tmp_path / "q.txt").write_text("1 0 a 0\n1 0 b 0\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 0.5 t\n1 Q0 b 2 0.4 t\n")
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics",
              "ndcg@10", "--profile", "ltrbench", "--format", "csv")
    assert res.status == 0, res.err
    rows = list(csv.reader(io.StringIO(res.out)))
    assert rows[1][:2] == ["ndcg@10", ""], rows
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics",
              "ndcg@10", "--profile", "ltrbench", "--format", "json")
    assert strict_json(res.out)["metrics"]["ndcg@10"] is None


# ======================================================================== tune's outputs
@pytest.fixture(scope="module")
def tuned(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """trials.csv / trials.parquet and a summary entry as ``tune`` writes them
    (:mod:`bench.benchmark.tune_out`) for a study of three trials: complete (0.5, 7 rounds),
    pruned, complete (0.625, 12 rounds)."""
    import optuna

    from bench.benchmark.tune_out import model_summary, trials_frame, write_trials

    folder = tmp_path_factory.mktemp("r21a_tune")
    study = optuna.create_study(direction="maximize", study_name="d:lightgbm-lambdarank")
    dist = {"num_leaves": optuna.distributions.IntDistribution(7, 255, log=True),
            "learning_rate": optuna.distributions.FloatDistribution(0.01, 0.3, log=True)}
    for value, state, its, leaves in ((0.5, "COMPLETE", 7, 15), (None, "PRUNED", None, 31),
                                      (0.625, "COMPLETE", 12, 63)):
        attrs: dict[str, Any] = {"cpu_s": 0.25, "wall_s": 0.5}
        if its is not None:
            attrs["best_iteration"] = its
        study.add_trial(optuna.trial.create_trial(
            params={"num_leaves": leaves, "learning_rate": 0.1}, distributions=dist,
            value=value, state=getattr(optuna.trial.TrialState, state), user_attrs=attrs,
            intermediate_values={1: 0.1} if state == "PRUNED" else None))
    frame = trials_frame(study, "lightgbm-lambdarank", "lightgbm", "ndcg@10", "ltrbench")
    table = write_trials(folder, [frame])
    entry = model_summary(study, table, {"model": "lightgbm-lambdarank"})
    return folder, strict_json(json.dumps(entry, allow_nan=False))


def test_tune_trials_csv_is_trials_parquet_cell_for_cell(tuned: tuple[Path, Any]) -> None:
    """silently wrong number: the two trial tables of one tune hold the same cells."""
    folder, _ = tuned
    text = _dicts(folder / "trials.csv")
    table = pq.read_table(folder / "trials.parquet").to_pylist()
    assert list(text[0]) == list(table[0])
    assert len(text) == len(table) == 3
    for a, b in zip(text, table, strict=True):
        for k, v in b.items():
            if isinstance(v, float) or v is None:
                missing = v is None or math.isnan(v)
                assert (a[k] == "") == missing, (k, a[k], v)
                assert missing or float(a[k]) == v, (k, a[k], v)
            else:
                assert a[k] == str(v), (k, a[k], v)


def test_tune_trials_integer_columns_are_integers_in_both_tables(
        tuned: tuple[Path, Any]) -> None:
    """silently wrong number (type): ``trial`` and ``best_iteration`` are counts, as the
    summary writes them (``12``); base: trials.csv wrote ``12.0`` and trials.parquet a double."""
    folder, summary = tuned
    for r in _dicts(folder / "trials.csv"):
        assert re.fullmatch(r"\d+", r["trial"]), r["trial"]
        assert re.fullmatch(r"\d*", r["best_iteration"]), r["best_iteration"]
    types = {f.name: str(f.type) for f in pq.read_schema(folder / "trials.parquet")}
    assert (types["trial"], types["best_iteration"]) == ("int64", "int64"), types
    assert type(summary["best_iteration"]) is int


def test_tune_summary_best_is_the_first_maximum_of_the_trials(tuned: tuple[Path, Any]) -> None:
    """silently wrong number: best_value/trial/params/iteration are the row of the highest
    value of trials.csv; the counts are the states'."""
    folder, entry = tuned
    rows = _dicts(folder / "trials.csv")
    done = [r for r in rows if r["state"] == "COMPLETE"]
    top = max(done, key=lambda r: (float(r["value"]), -int(r["trial"])))
    assert (entry["best_value"], entry["best_trial"]) == (0.625, 2) == (float(top["value"]),
                                                                        int(top["trial"]))
    assert entry["best_params"] == strict_json(top["params"]) == {"learning_rate": 0.1,
                                                                   "num_leaves": 63}
    assert entry["best_iteration"] == 12
    assert (entry["trials_run"], entry["complete"], entry["pruned"]) == (3, 2, 1)


def test_tune_cum_cpu_and_best_so_far_are_running_sums_and_maxima(
        tuned: tuple[Path, Any]) -> None:
    """silently wrong number: cum_cpu_s is the running sum of cpu_s; best_so_far the running
    maximum of the complete trials' values (a pruned trial keeps the best so far)."""
    folder, entry = tuned
    rows = sorted(_dicts(folder / "trials.csv"), key=lambda r: int(r["trial"]))
    assert [r["value"] for r in rows] == ["0.5", "", "0.625"]
    assert [float(r["cum_cpu_s"]) for r in rows] == [0.25, 0.5, 0.75]
    assert [float(r["best_so_far"]) for r in rows] == [0.5, 0.5, 0.625]
    assert entry["cpu_s"] == 0.75
    assert entry["wall_s"] == 1.5


# ===================================================================== more cross-file checks
def test_run_json_timings_are_the_documented_aggregates_of_timings_csv(job: Job) -> None:
    """silently wrong number: per model predict_s the mean, peak_rss_mb the max, best_iteration
    the mean over seeds (null without one), contended the count of busy fits."""
    rows = _dicts(job.run / "timings.csv")
    for model in MODELS:
        mine = [r for r in rows if r["model"] == model]
        t = job.doc["timings"][model]
        assert t["predict_s"] == pytest.approx(
            statistics.fmean(float(r["predict_s"]) for r in mine), abs=1e-15)
        assert t["peak_rss_mb"] == max(float(r["peak_rss_mb"]) for r in mine)
        its = [job.status[f"{model}-seed{s}"]["best_iteration"] for s in SEEDS]
        if all(i is None for i in its):
            assert t["best_iteration"] is None, model
        else:
            assert t["best_iteration"] == pytest.approx(statistics.fmean(its)), model
        assert t["contended"] in (None, sum(r["contended"] == "True" for r in mine))


def test_crosscheck_md_counts_blanks_and_rows_are_the_json(job: Job) -> None:
    """silently wrong number: the Markdown's status line, blank counts and check rows are the
    JSON's (values to the 9 decimals printed)."""
    found = sorted((job.root / "o").glob("*/crosscheck.md"))
    assert len(found) == 1
    text = found[0].read_text(encoding="utf-8")
    cc = job.crosscheck()
    m = re.search(r"\((\d+) checks, (\d+) reconciliations\)", text)
    assert m
    assert (int(m.group(1)), int(m.group(2))) == (len(cc["checks"]), len(cc["cases"]))
    blank = cc["blank_queries"]
    assert (f"train {blank['train']}, vali {blank['vali']}, test {blank['test']}") in text
    body = text.split("## Built-in metric vs reference")[1].split("\n\n")[1].splitlines()[2:]
    assert len(body) == len(cc["checks"])
    for line, c in zip(body, cc["checks"], strict=True):
        cells = [x.strip() for x in line.strip().strip("|").split("|")]
        assert re.sub(r"\\(.)", r"\1", cells[0]) == c["model"]
        assert int(cells[1]) == c["seed"]
        assert cells[2] == c["split"]
        assert float(cells[4]) == pytest.approx(c["builtin"], abs=5e-10)
        assert float(cells[5]) == pytest.approx(c["reference"], abs=5e-10)
        assert cells[7] == c["agreement"]
        if c["source"] == "evallog":
            assert cells[3] == f"evallog (iter {c['iteration']})"


def test_leaderboard_fit_time_is_the_timings_csv_seconds(job: Job) -> None:
    """silently wrong number: a row's fit_s (median, min, max, n over seeds x repeats, per
    seed) is timings.csv's, and the mean of its seeds."""
    rows = _dicts(job.run / "timings.csv")
    for row in job.table["rows"]:
        mine = [r for r in rows if r["model"] == row["model"]]
        secs = [float(x) for r in mine for x in r["fit_s_repeats"].split(";")]
        fit = row["fit_s"]
        assert fit["n"] == len(secs) == len(SEEDS)
        assert fit["median"] == statistics.median(secs)
        assert (fit["min"], fit["max"]) == (min(secs), max(secs))
        per_seed = {r["seed"]: float(r["fit_s"]) for r in mine}
        assert fit["per_seed"] == per_seed, row["model"]
        assert fit["contended"] == sum(r["contended"] == "True" for r in mine), row["model"]
        assert fit["mean"] == pytest.approx(statistics.fmean(per_seed.values()), abs=1e-15)


def test_report_file_list_names_exactly_the_files_written(job: Job) -> None:
    """silent accept: ``.ltrbench-report.json`` lists each leaderboard file, and each listed
    file exists (a dashboard syncs what it lists)."""
    doc = strict_json((job.rep / ".ltrbench-report.json").read_text(encoding="utf-8"))
    listed = set(doc["files"])
    assert {f"leaderboard.{ext}" for ext in ("json", "csv", "md", "tex")} <= listed
    for name in listed:
        assert (job.rep / name).exists(), name
    assert len(doc["files"]) == len(listed)


# ======================================================================= the fold table
def test_fold_table_pools_gm_map_as_a_geometric_mean(tmp_path: Path) -> None:
    """silently wrong number: the pooled column of ``folds/<name>-folds12345.md/.json`` averaged
    gm_map's per-query logarithms: pooled APs 0.5, 1, 0.25, 1 printed -0.5199
    beside fold means 0.7071 and 0.5; the geometric mean is 0.125 ** (1/4) = 0.5946."""
    from bench.report.folds import fold_table, render_fold_markdown
    from bench.runs.reader import RunDir

    aps = {1: {"a-model": [0.5, 1.0], "b-model": [0.25, 0.5]},
           2: {"a-model": [0.25, 1.0], "b-model": [0.125, 0.5]}}
    runs = [RunDir(_hand_run(tmp_path / f"toy-Fold{k}", f"toy:Fold{k}", "gm_map",
                             {m: [math.log(v) for v in vals] for m, vals in per_model.items()},
                             lambda logs: math.exp(statistics.fmean(logs)), fold=f"Fold{k}",
                             qids=[f"q{k}{i}" for i in range(2)]))
            for k, per_model in aps.items()]
    table = fold_table(runs, "gm_map", bootstrap_resamples=50, randomization_resamples=100)
    rows = {r.model: r for r in table.rows}
    a, b = rows["a-model"], rows["b-model"]
    assert a.per_fold == pytest.approx((0.5 ** 0.5, 0.25 ** 0.5), abs=1e-15)
    assert a.pooled_mean == pytest.approx(0.125 ** 0.25, abs=1e-15)
    assert b.pooled_mean == pytest.approx((0.25 * 0.5 * 0.125 * 0.5) ** 0.25, abs=1e-15)
    for r in (a, b):
        assert 0 < r.ci_low <= r.pooled_mean <= r.ci_high <= 1, r
    assert f"{a.pooled_mean:.4f} [" in render_fold_markdown(table)


def test_per_query_json_keeps_integer_ids_beyond_2_53_apart_for_double_readers(
        tmp_path: Path) -> None:
    """silently wrong number: SVMlight qids 2**53 and 2**53 + 1 were written as JSON numbers,
    which JavaScript, jq 1.6 and any reader holding numbers as doubles read as one query
    (RFC 8259 §6: integers beyond 2**53 - 1 are not interoperable); parsed as doubles the two
    queries must stay two, each with its own value."""
    big = 2**53
    (tmp_path / "d.txt").write_text(f"1 qid:{big} 1:0.5\n0 qid:{big} 1:0.1\n"
                                    f"1 qid:{big + 1} 1:0.3\n0 qid:{big + 1} 1:0.9\n")
    (tmp_path / "s.txt").write_text("0.9\n0.1\n0.3\n0.9\n")
    res = cli(tmp_path, "evaluate", "--data", "d.txt", "--scores", "s.txt", "--metrics",
              "ndcg@10", "--per-query", "pq.json")
    assert res.status == 0, res.err
    rows = json.loads((tmp_path / "pq.json").read_text(encoding="utf-8"), parse_int=float)
    by_id = {r["qid"]: r["ndcg@10"] for r in rows}
    assert len(by_id) == 2, rows
    # q 2**53 ranks its relevant document first: 1; q 2**53 + 1 second: 1 / log2(3)
    assert sorted(by_id.values()) == pytest.approx([1 / math.log2(3), 1.0], abs=1e-15)
    assert {str(k) for k in by_id} == {str(big), str(big + 1)}


def test_crosscheck_json_run_dir_names_the_run_from_the_files_own_folder(job: Job) -> None:
    """silently wrong number (a wrong path): leaderboard.json's run_dir is relative to its own
    folder; crosscheck.json's was the command's relative path (``o/runs/<id>``, committed as
    ``results/runs/<id>``), which from ``o/<dataset>/`` names no run."""
    (path,) = (job.root / "o").glob("*/crosscheck.json")
    cc = strict_json(path.read_text(encoding="utf-8"))
    run = Path(cc["run_dir"])
    run = run if run.is_absolute() else path.parent / run
    assert run.resolve() == job.run.resolve(), cc["run_dir"]
    assert cc["run_id"] == job.manifest["run_id"]


def test_leaderboard_md_verdict_is_the_json_best_and_tests(job: Job) -> None:
    """silently wrong number: the verdict names the JSON's best model and mean (4 decimals) and
    as not distinguishable exactly the rows whose Holm p is at least 0.05."""
    text = (job.rep / "leaderboard.md").read_text(encoding="utf-8")
    m = re.search(r"Verdict: best ndcg@10 is (\S+) \((\d\.\d{4})\)(.*)", text)
    assert m, text[:1500]
    best = next(r for r in job.table["rows"] if r["model"] == job.table["best_model"])
    assert m.group(1) == best["model"]
    assert m.group(2) == f"{best['metrics']['ndcg@10']['mean']:.4f}"
    alike = [r["model"] for r in job.table["rows"] if r["vs_best"] is not None
             and r["vs_best"]["p_randomization_holm"] >= 0.05]
    said = re.search(r"not distinguishable from it \(p >= 0\.05\): ([^(]+) \(", m.group(3))
    assert (said.group(1).split(", ") if said else []) == alike, m.group(0)


def test_leaderboard_md_blank_table_is_the_json_blank_means(job: Job) -> None:
    """silently wrong number: the blank-query table's three NDCG columns are the JSON's
    excluded mean and its blank0 / blank1 entries, mean ± std to 4 decimals."""
    text = (job.rep / "leaderboard.md").read_text(encoding="utf-8")
    part = text.split("NDCG@10 blank=1 |")[1]
    lines = [ln for ln in part.splitlines()[2:] if ln.startswith("|")]
    assert len(lines) == len(job.table["rows"])
    for line, row in zip(lines, job.table["rows"], strict=True):
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[0] == row["model"]
        entries = (row["metrics"]["ndcg@10"], row["blank"]["ndcg@10"]["blank0"],
                   row["blank"]["ndcg@10"]["blank1"])
        assert cells[1:] == [f"{e['mean']:.4f} ± {e['std']:.4f}" for e in entries], line


def test_per_query_csv_guards_a_formula_id_as_documented_and_json_keeps_it(
        tmp_path: Path) -> None:
    """documented (evaluate's module, OWASP CSV injection): a query id a spreadsheet would run
    (``=1``) gets a leading ``'`` in the per-query CSV, a plain number (``-1``) none; the JSON
    of the same call keeps both exactly (the one file to join on ids)."""
    (tmp_path / "q.txt").write_text("-1 0 a 1\n-1 0 b 0\n=1 0 c 1\n")
    (tmp_path / "r.txt").write_text("-1 Q0 a 1 0.9 t\n-1 Q0 b 2 0.1 t\n=1 Q0 c 1 0.5 t\n")
    for out in ("pq.csv", "pq.json"):
        res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics",
                  "ndcg@10", "--per-query", out)
        assert res.status == 0, res.err
    assert sorted(r["qid"] for r in _dicts(tmp_path / "pq.csv")) == ["'=1", "-1"]
    doc = strict_json((tmp_path / "pq.json").read_text(encoding="utf-8"))
    assert sorted(r["qid"] for r in doc) == ["-1", "=1"]


def test_every_file_names_one_library_per_model(job: Job) -> None:
    """silently wrong number: the manifest, metrics.csv, timings.csv, the status files and the
    leaderboard give each model one library (a dashboard groups rows by it)."""
    want = {m: job.manifest["models"][m]["library"] for m in MODELS}
    assert want == {"lightgbm-lambdarank": "lightgbm", "random": "baseline"}
    for table in ("metrics.csv", "timings.csv"):
        assert {(r["model"], r["library"]) for r in _dicts(job.run / table)} == set(want.items())
    assert {(b["model"], b["library"]) for b in job.status.values()} == set(want.items())
    assert {(r["model"], r["library"]) for r in job.table["rows"]} == set(want.items())
    assert {(r["model"], r["library"]) for r in _dicts(job.rep / "leaderboard.csv")} == \
        set(want.items())


def _hand_run(run: Path, dataset: str, metric: str, per_query: dict[str, list[float]],
              mean: Any, *, fold: str | None = None, qids: list[str] | None = None,
              first: tuple[str, dict[str, list[float]]] | None = None) -> Path:
    """A finished one-seed run written by hand as the run loop writes it: ``per_query`` model ->
    test values, metrics.csv's value ``mean(values)`` (the family's own averaging); ``first``
    (metric, per_query), a plain-mean metric written before it."""
    from hostile_kit import write_run_tables

    run.mkdir(parents=True)
    models = list(per_query)
    (run / "config.toml").write_text(
        f'dataset = "{dataset.partition(":")[0]}"\nprofile = "ltrbench"\n'
        f"models = {json.dumps(models)}\nseeds = [0]\nquick = true\n")
    meta = {"meta": {"fold": fold}} if fold else {}
    (run / "manifest.json").write_text(json.dumps({
        "finished": "2026-01-01T00:00:00+00:00", "seeds": [0],
        "models": {m: {} for m in models}, "evaluation": {"profile": "ltrbench"},
        "dataset": {"name": dataset, **meta}}))
    name = dataset.partition(":")[0]
    rows, pq_rows = [], []
    for m, vals in per_query.items():
        ids = qids or [f"q{i}" for i in range(len(vals))]
        for key, values, average in ([(first[0], first[1][m], statistics.fmean)] if first
                                     else []) + [(metric, vals, mean)]:
            rows.append((name, m, "baseline", 0, "test", key, average(values), "ltrbench"))
            pq_rows += [(name, m, 0, "test", q, key, v)
                        for q, v in zip(ids, values, strict=True)]
    return write_run_tables(run, rows, pq_rows, [(name, m, "baseline", 0, 1.0, 0.01, 100.0,
                                                  None, None) for m in models])


def test_a_count_is_reported_as_its_sum_with_an_interval_around_it(tmp_path: Path) -> None:
    """silently wrong number / unclear error: num_rel_ret is summed over queries (trec_eval);
    report checked metrics.csv's sum against the per-query mean ("the run is damaged") and
    its interval was the bootstrap of the per-query mean (about 1.5 beside a sum of 9)."""
    hits = {"a-model": [2.0, 1.0, 3.0, 0.0, 2.0, 1.0], "b-model": [1.0, 1.0, 0.0, 0.0, 1.0, 2.0]}
    ndcg = {"a-model": [0.5] * 6, "b-model": [0.25] * 6}
    _hand_run(tmp_path / "runs" / "r1", "toy", "num_rel_ret", hits, math.fsum,
              first=("ndcg@10", ndcg))
    argv = ["report", "--runs", "runs/r1", "--out", "rep", "--no-plots", "--no-progress",
            "--bootstrap", "50", "--permutations", "100"]
    # round 23b: a count is no primary metric (no run is best by it), refused naming it
    bad = cli(tmp_path, *argv, "--primary", "num_rel_ret")
    assert bad.status == 2, bad.err[-1500:]
    assert "'num_rel_ret' is a count" in bad.err, bad.err[-1500:]
    res = cli(tmp_path, *argv)  # ndcg@10 first: the count is a column beside it
    assert res.status == 0, res.err[-1500:]
    doc = strict_json((tmp_path / "rep" / "leaderboard.json").read_text(encoding="utf-8"))
    rows = {r["model"]: r["metrics"]["num_rel_ret"] for r in doc["tables"][0]["rows"]}
    assert (rows["a-model"]["mean"], rows["b-model"]["mean"]) == (9.0, 5.0)
    for model, e in rows.items():
        assert e["ci_mean"] == math.fsum(hits[model]), model
        assert e["ci_low"] <= e["ci_mean"] <= e["ci_high"], (model, e)


def test_an_arp_row_keeps_its_interval_around_its_plain_mean(tmp_path: Path) -> None:
    """silent accept (an interval dropped): under the default profile ARP's mean is the plain
    mean of its per-query values (its own weights apply under tf-ranking only), so the
    leaderboard has an interval around it, as for NDCG."""
    arp = {"a-model": [1.0, 2.0, 1.5, 3.0], "b-model": [2.0, 2.5, 3.0, 4.0]}
    _hand_run(tmp_path / "runs" / "r1", "toy", "arp", arp, statistics.fmean)
    res = cli(tmp_path, "report", "--runs", "runs/r1", "--out", "rep", "--no-plots",
              "--no-progress", "--bootstrap", "50", "--permutations", "100", "--primary", "arp")
    assert res.status == 0, res.err[-1500:]
    doc = strict_json((tmp_path / "rep" / "leaderboard.json").read_text(encoding="utf-8"))
    rows = doc["tables"][0]["rows"]
    assert [r["model"] for r in rows] == ["a-model", "b-model"]  # lower is better
    for r in rows:
        e = r["metrics"]["arp"]
        assert e["ci_mean"] == statistics.fmean(arp[r["model"]]) == e["mean"]
        assert e["ci_low"] <= e["mean"] <= e["ci_high"], e


def test_report_reads_a_run_with_rmse_pooled_over_documents(tmp_path: Path) -> None:
    """unclear error: RMSE is pooled over the documents (sqrt of the mean squared error of every
    row), not the mean of the per-query RMSEs; report compared the two and refused the run as
    damaged ("value 1.0354637868083625 of rmse ... is not the mean of its per-query values
    (1.0272742661630734)" on a random baseline just run). Errors by hand: q0 two rows off by 1
    (RMSE 1), q1 eight rows, one off by 3 (RMSE sqrt(9/8)); pooled sqrt(11/10)."""
    pooled = math.sqrt(11 / 10)
    per_query = {"a-model": [1.0, math.sqrt(9 / 8)], "b-model": [2.0, 2.0]}
    _hand_run(tmp_path / "runs" / "r1", "toy", "rmse", per_query,
              lambda v: pooled if v[0] == 1.0 else 2.0)
    res = cli(tmp_path, "report", "--runs", "runs/r1", "--out", "rep", "--no-plots",
              "--no-progress", "--bootstrap", "50", "--permutations", "100", "--primary", "rmse")
    assert res.status == 0, res.err[-1500:]
    doc = strict_json((tmp_path / "rep" / "leaderboard.json").read_text(encoding="utf-8"))
    rows = {r["model"]: r["metrics"]["rmse"] for r in doc["tables"][0]["rows"]}
    assert rows["a-model"]["mean"] == pooled
    assert doc["tables"][0]["best_model"] == "a-model"
    for e in rows.values():  # no interval it cannot form (the row counts are not in the run)
        assert e["ci_low"] is None or e["ci_low"] <= e["mean"] <= e["ci_high"], e
