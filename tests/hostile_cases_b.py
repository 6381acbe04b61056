"""Hostile cases, part B: tracebacks, config files, silent accepts, open doors.

Each function takes a fresh folder and returns None (ltrbench behaved) or what went wrong; see
``tests/hostile_catalogue.py``.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hostile_kit import (
    QRELS,
    RATINGS,
    ROOT,
    RUN,
    api_refused,
    call,
    cli,
    letor_folder,
    refused,
    sub,
    write,
)

Fn = Callable[[Path], "str | None"]
CASES: list[tuple[str, str, Fn, str, bool]] = []


def case(klass: str, source: str = "more", slow: bool = False) -> Callable[[Fn], Fn]:
    def add(fn: Fn) -> Fn:
        CASES.append((fn.__name__.replace("_", "-"), klass, fn, source, slow))
        return fn
    return add


TRACE, CONFIG, ACCEPT, DOORS = "tracebacks", "config files", "silent accepts", "open doors"


# ------------------------------------------------------------------------------ tracebacks
def _shards(tmp: Path, parts: list[Any]) -> Path:
    import pandas as pd

    folder = tmp / "shards"
    folder.mkdir()
    for i, part in enumerate(parts):
        p = folder / f"part-{i:05d}.parquet"
        if isinstance(part, bytes):
            p.write_bytes(part)
        else:
            pd.DataFrame(part).to_parquet(p)
    return folder


def _dask_evaluate(tmp: Path, parts: list[Any], *words: str) -> str | None:
    _shards(tmp, parts)
    res = sub(tmp, "evaluate", "--engine", "dask", "--data", "shards", "--workers", "1",
              "--metrics", "ndcg@10", timeout=240)
    return refused(res, *words)


GOOD = {"qid": [1, 1, 2], "label": [1.0, 0.0, 1.0], "score": [0.5, 0.2, 0.1]}


@case(TRACE, "issue", slow=True)
def dask_shard_that_is_not_parquet(tmp: Path) -> str | None:
    return _dask_evaluate(tmp, [GOOD, b"this is not parquet\n"], "part-00001.parquet")


@case(TRACE, "issue", slow=True)
def dask_qid_int_in_one_shard_str_in_another(tmp: Path) -> str | None:
    # round 23b: read by the text rule, as a frame of [1, 1, 2, "3", "3"] is (it was a
    # TypeError traceback, then refused naming both types): q1 and q2 rank their relevant
    # document first (1.0), q3 second: 1/log2(3); the mean of the three by hand
    _shards(tmp, [GOOD, {"qid": ["3", "3"], "label": [1.0, 0.0], "score": [0.1, 0.2]}])
    res = sub(tmp, "evaluate", "--engine", "dask", "--data", "shards", "--workers", "1",
              "--metrics", "ndcg@10", "--format", "json", timeout=240)
    if res.status != 0 or res.traceback:
        return f"exit {res.status}: {res.err[-300:]}"
    want = (1 + 1 + 1 / math.log2(3)) / 3
    got = json.loads(res.out)["metrics"]["ndcg@10"]
    return None if math.isclose(got, want, abs_tol=1e-12) else f"ndcg@10 {got}, expected {want}"


@case(TRACE, "issue", slow=True)
def dask_shard_without_the_score_column(tmp: Path) -> str | None:
    return _dask_evaluate(tmp, [GOOD, {"qid": [3, 3], "label": [1.0, 0.0]}], "score",
                          "part-00001.parquet")


@case(TRACE, slow=True)
def dask_shard_with_a_text_label(tmp: Path) -> str | None:
    return _dask_evaluate(tmp, [GOOD, {"qid": [3, 3], "label": ["1", "x"], "score": [0.1, 0.2]}],
                          "label", "part-00001.parquet")


@case(TRACE, slow=True)
def dask_empty_parquet_file(tmp: Path) -> str | None:
    return _dask_evaluate(tmp, [GOOD, b""], "part-00001.parquet")


_RUN_DIR: dict[str, Path] = {}


def _a_run(tmp: Path, name: str = "letor") -> Path:
    """A finished run of the ``random`` model on a small LETOR folder (a copy of a cached one)."""
    key = name
    if key not in _RUN_DIR or not _RUN_DIR[key].exists():
        import tempfile

        base = Path(tempfile.mkdtemp(prefix="ltrbench-hostile-run-"))
        letor_folder(base / name)
        res = cli(base, "run", "--dataset", f"./{name}", "--quick", "--no-cache", "--no-progress",
                  "--no-crosscheck", "--models", "random", "--seeds", "0", "--out", "res")
        if res.status != 0:
            raise RuntimeError(f"the run for the report cases failed: {res.err[-300:]}")
        _RUN_DIR[key] = next((base / "res/runs").iterdir())
    dest = tmp / "res/runs" / _RUN_DIR[key].name
    shutil.copytree(_RUN_DIR[key], dest)
    return dest


def _report(tmp: Path, damage: Callable[[Path], None], *words: str) -> str | None:
    run = _a_run(tmp)
    damage(run)
    res = cli(tmp, "report", "--runs", "res/runs", "--out", "rep", "--no-plots", "--no-progress")
    return refused(res, *words)


def _set_value(run: Path, value: str) -> None:
    p = run / "metrics.csv"
    lines = p.read_text().splitlines()
    head = lines[0].split(",")
    row = lines[5].split(",")
    row[head.index("value")] = value
    lines[5] = ",".join(row)
    p.write_text("\n".join(lines) + "\n")


@case(TRACE, "issue", slow=True)
def report_over_a_metrics_csv_with_a_text_value(tmp: Path) -> str | None:
    return _report(tmp, lambda r: _set_value(r, "abc"), "metrics.csv")


@case(ACCEPT, slow=True)
def report_over_a_metrics_csv_with_an_inf_value(tmp: Path) -> str | None:
    return _report(tmp, lambda r: _set_value(r, "inf"), "metrics.csv")


@case(TRACE, slow=True)
def report_over_a_metrics_csv_without_its_value_column(tmp: Path) -> str | None:
    def damage(r: Path) -> None:
        p = r / "metrics.csv"
        p.write_text("\n".join(",".join(ln.split(",")[:6]) for ln in p.read_text().splitlines()))
    return _report(tmp, damage, "metrics.csv")


@case(TRACE, slow=True)
def report_over_a_damaged_manifest(tmp: Path) -> str | None:
    return _report(tmp, lambda r: (r / "manifest.json").write_text("{not json"), "manifest.json")


@case(ACCEPT, slow=True)
def report_over_a_manifest_that_is_a_list(tmp: Path) -> str | None:
    return _report(tmp, lambda r: (r / "manifest.json").write_text("[1, 2]"), "manifest.json")


@case(TRACE, slow=True)
def report_over_an_empty_metrics_csv(tmp: Path) -> str | None:
    return _report(tmp, lambda r: (r / "metrics.csv").write_bytes(b""), "metrics.csv")


def _tune(tmp: Path, grid: str, *words: str, extra: tuple[str, ...] = ()) -> str | None:
    letor_folder(tmp / "letor")
    res = cli(tmp, "tune", "--dataset", "./letor", "--model", "lightgbm", "--grid", grid,
              "--quick", "--no-cache", "--no-progress", "--cv", "2", "--out", "t", *extra)
    return refused(res, *words)


@case(TRACE, "issue", slow=True)
def tune_grid_device_cpu_and_cuda(tmp: Path) -> str | None:
    return _tune(tmp, "device=cpu,cuda", "device")


@case(TRACE, slow=True)
def tune_grid_with_a_text_value(tmp: Path) -> str | None:
    return _tune(tmp, "num_leaves=abc,7", "num_leaves")


@case(ACCEPT, slow=True)
def tune_grid_with_an_inf_learning_rate(tmp: Path) -> str | None:
    return _tune(tmp, "learning_rate=inf,0.1", "learning_rate")


@case(TRACE, slow=True)
def tune_grid_with_a_fractional_tree_count(tmp: Path) -> str | None:
    return _tune(tmp, "n_trees=1.5,3", "n_trees")


@case(TRACE)
def tune_grid_without_equals(tmp: Path) -> str | None:
    return _tune(tmp, "num_leaves", "num_leaves", "name=")


@case(TRACE)
def evaluate_with_an_empty_metric_list(tmp: Path) -> str | None:
    write(tmp, {"q.txt": QRELS, "r.txt": RUN})
    return refused(cli(tmp, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", ""),
                   "metric")


@case(TRACE)
def convert_with_a_missing_user_column(tmp: Path) -> str | None:
    write(tmp, {"r.csv": RATINGS})
    return refused(cli(tmp, "convert", "--ratings", "r.csv", "--layout", "csv", "--user", "nosuch",
                       "--item", "item", "--out", "o"), "nosuch")


# ------------------------------------------------------------------------------ config files
# (key path, TOML text, words the error must contain); run through ``ltrbench run --config``.
CONFIGS_ISSUE: list[tuple[str, str, tuple[str, ...]]] = [
    ("params-n-trees-1.5", "[params]\nn_trees = 1.5\n", ("n_trees",)),
    ("params-n-trees-true", "[params]\nn_trees = true\n", ("n_trees",)),
    ("params-min-data-in-leaf-1e12", "[params]\nmin_data_in_leaf = 1e12\n", ("min_data_in_leaf",)),
    ("params-subsample-1e-300", "[params]\nsubsample = 1e-300\n", ("subsample",)),
    ("data-dir-5", "data_dir = 5\n", ("data_dir",)),
    ("seeds-huge-string", 'seeds = "99999999999999999999"\n', ("seeds",)),
    ("quick-false-string", 'quick = "false"\n', ("quick",)),
    ("crosscheck-no", 'crosscheck = "no"\n', ("crosscheck",)),
    ("seeds-1.5", "seeds = [1.5]\n", ("seeds",)),
    ("seeds-true", "seeds = [true]\n", ("seeds",)),
    ("eval-at-1.5", "eval_at = [1.5]\n", ("eval_at",)),
    ("params-n-trees-string", '[params]\nn_trees = "100"\n', ("n_trees",)),
    ("params-learning-rate-inf", "[params]\nlearning_rate = inf\n", ("learning_rate",)),
    ("model-params-n-trees-1.5", "[model_params.lightgbm-lambdarank]\nn_trees = 1.5\n",
     ("[model_params.lightgbm-lambdarank] n_trees",)),
]
CONFIGS_MORE: list[tuple[str, str, tuple[str, ...]]] = [
    ("models-list-of-int", "models = [1]\n", ("models",)),
    ("select-metric-int", "select_metric = 5\n", ("select_metric",)),
    ("eval-at-string", 'eval_at = "x"\n', ("eval_at",)),
    ("params-unknown-key-typo", "[params]\nn_tree = 10\n", ("n_tree", "n_trees")),
    ("unknown-top-level-key-typo", "seed = [1]\n", ("seed", "seeds")),
    ("params-num-leaves-1", "[params]\nnum_leaves = 1\n", ("num_leaves",)),
    ("params-learning-rate-negative", "[params]\nlearning_rate = -0.1\n", ("learning_rate",)),
    ("params-max-bin-1", "[params]\nmax_bin = 1\n", ("max_bin",)),
    ("params-subsample-2", "[params]\nsubsample = 2.0\n", ("subsample",)),
    ("params-lightgbm-raw-table-nonsense", '[params]\nlightgbm = "x"\n', ("lightgbm",)),
    ("model-params-unknown-model", "[model_params.nosuch-model]\nn_trees = 5\n", ("nosuch-model",)),
    ("workers-zero", "workers = 0\n", ("workers",)),
    ("timing-repeats-negative", "timing_repeats = -1\n", ("timing_repeats",)),
    ("profile-int", "profile = 5\n", ("profile",)),
    ("metrics-list-of-int", "metrics = [5]\n", ("metric",)),
    ("strict-string-yes", 'strict = "yes"\n', ("strict",)),
    ("seeds-negative", "seeds = [-1]\n", ("seeds",)),
    ("params-early-stopping-rounds-float", "[params]\nearly_stopping_rounds = 2.5\n",
     ("early_stopping_rounds",)),
    ("params-n-threads-huge", "[params]\nn_threads = 100000000000\n", ("n_threads",)),
]
_RUN = ("run", "--dataset", "./letor", "--models", "lightgbm", "--no-cache", "--no-progress",
        "--out", "res")


def _config_file(tmp: Path, text: bytes, words: tuple[str, ...]) -> str | None:
    letor_folder(tmp / "letor")
    (tmp / "c.toml").write_bytes(text)
    argv = [*_RUN, "--config", "c.toml"]
    if b"seeds" not in text:
        argv += ["--seeds", "0"]
    if b"quick" not in text:
        argv += ["--quick"]
    if b"crosscheck" not in text:
        argv += ["--no-crosscheck"]
    # In-process (fast); a value that may kill the process (OpenMP allocating per thread) runs
    # in a child so that the crash stays there.
    child = b"n_threads" in text or b"workers" in text
    res = sub(tmp, *argv, timeout=300) if child else cli(tmp, *argv)
    return refused(res, "c.toml", *words)


def _from_dict(text: str, words: tuple[str, ...]) -> str | None:
    import tomllib

    from bench.benchmark.config import RunConfig

    _, exc = call(lambda: RunConfig.from_dict(tomllib.loads(text)).resolved())
    return api_refused(exc, *(w.split()[-1] for w in words))


def _add_config_cases() -> None:
    for source, table in (("issue", CONFIGS_ISSUE), ("more", CONFIGS_MORE)):
        for name, text, words in table:
            def file_case(tmp: Path, text: str = text, words: tuple[str, ...] = words) -> str | None:
                return _config_file(tmp, text.encode(), words)

            def api_case(tmp: Path, text: str = text, words: tuple[str, ...] = words) -> str | None:
                return _from_dict(text, words)

            CASES.append((f"config-file-{name}", CONFIG, file_case, source, True))
            CASES.append((f"config-api-{name}", CONFIG, api_case, source, False))


_add_config_cases()


@case(CONFIG, "issue")
def config_file_in_utf16(tmp: Path) -> str | None:
    return _config_file(tmp, "seeds = [0]\n".encode("utf-16"), ("UTF-16",))


@case(CONFIG)
def config_file_not_utf8(tmp: Path) -> str | None:
    return _config_file(tmp, b"name = \"\xff\"\n", ("UTF-8",))


@case(CONFIG)
def config_file_with_a_nul_byte(tmp: Path) -> str | None:
    return _config_file(tmp, b"name = \"a\x00b\"\n", ())


@case(CONFIG)
def cli_n_trees_fraction(tmp: Path) -> str | None:
    return refused(cli(tmp, *_RUN, "--n-trees", "1.5"), "--n-trees")


@case(CONFIG)
def cli_seeds_huge(tmp: Path) -> str | None:
    letor_folder(tmp / "letor")
    return refused(cli(tmp, *_RUN, "--quick", "--no-crosscheck", "--seeds",
                       "99999999999999999999"), "seeds")


# ------------------------------------------------------------------------------ silent accepts
def ratings_with(line: int, rating: bytes) -> bytes:
    """RATINGS with the rating of file line ``line`` (1-based, header = line 1) replaced."""
    lines = RATINGS.split(b"\n")
    u, i, _, t = lines[line - 1].split(b",")
    lines[line - 1] = b",".join([u, i, rating, t])
    return b"\n".join(lines)


@case(ACCEPT, "issue")
def convert_negative_rating_graded_relevant_without_a_word(tmp: Path) -> str | None:
    write(tmp, {"r.csv": ratings_with(3, b"-3")})
    res = cli(tmp, "convert", "--ratings", "r.csv", "--layout", "csv", "--user", "user",
              "--item", "item", "--rating", "rating", "--timestamp", "timestamp",
              "--min-history", "2", "--target-size", "2", "--features", "user", "--out", "o")
    if res.status == 2 and not res.traceback:
        return refused(res, "r.csv")
    if res.status == 0 and "negative" in (res.err + res.out).lower():
        return None
    return f"exit {res.status}, nothing said about the negative rating"


@case(ACCEPT, "issue", slow=True)
def tune_models_plural_tunes_lightgbm(tmp: Path) -> str | None:
    letor_folder(tmp / "letor")
    res = cli(tmp, "tune", "--dataset", "./letor", "--models", "xgboost", "--grid",
              "num_leaves=3,7", "--quick", "--no-cache", "--no-progress", "--cv", "2",
              "--out", "t")
    if res.status == 2 and not res.traceback:
        return refused(res, "--model")
    done = list((tmp / "t/tune").glob("*/summary.json")) if (tmp / "t/tune").exists() else []
    tuned = [m for d in done for m in json.loads(d.read_text())["models"]]
    if res.status == 0 and tuned == ["xgboost-ndcg"]:
        return None
    return f"exit {res.status}; tuned {tuned} for --models xgboost"


@case(ACCEPT, "issue", slow=True)
def report_keeps_the_latest_run_without_saying(tmp: Path) -> str | None:
    first = _a_run(tmp)
    second = first.with_name(first.name.replace("T", "T9", 1))
    shutil.copytree(first, second)
    res = cli(tmp, "report", "--runs", "res/runs", "--out", "rep", "--no-plots", "--no-progress")
    said = res.out + res.err
    if res.status == 2 and not res.traceback:
        return None
    if res.status == 0 and ("skip" in said.lower() or (first.name in said and second.name in said)):
        return None
    return f"exit {res.status}: two runs of one dataset, the report names neither choice"


@case(ACCEPT, "issue", slow=True)
def report_leaves_stale_plots_of_an_earlier_report(tmp: Path) -> str | None:
    run = _a_run(tmp)
    (tmp / "rep/oldset").mkdir(parents=True)
    cli(tmp, "report", "--runs", "res/runs", "--out", "rep", "--no-progress")
    shutil.rmtree(run)
    _RUN_DIR.pop("other", None)
    _a_run(tmp, "other")
    cli(tmp, "report", "--runs", "res/runs", "--out", "rep", "--no-progress")
    stale = [str(p.relative_to(tmp)) for p in (tmp / "rep/letor").glob("*.png")] \
        if (tmp / "rep/letor").exists() else []
    return f"stale plots of the earlier report left: {stale}" if stale else None


@case(ACCEPT)
def qrels_queries_without_run_lines_are_not_mentioned(tmp: Path) -> str | None:
    write(tmp, {"q.txt": QRELS + b"3 0 z 1\n4 0 y 1\n", "r.txt": RUN})
    res = cli(tmp, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", "ndcg@10")
    if res.status == 0 and any(w in res.err + res.out for w in ("2 qrels quer", "no run line",
                                                                "missing from the run")):
        return None
    return f"exit {res.status}; nothing said about 2 qrels queries without run lines"


@case(ACCEPT, slow=True)
def tune_grid_of_an_unknown_parameter(tmp: Path) -> str | None:
    return _tune(tmp, "nosuch_param=1,2", "nosuch_param")


@case(ACCEPT)
def evaluate_run_name_with_an_equals_in_the_path(tmp: Path) -> str | None:
    write(tmp, {"q.txt": QRELS, "a=b.txt": RUN})
    res = cli(tmp, "evaluate", "--qrels", "q.txt", "--run", "a=b.txt", "--metrics", "ndcg@10")
    return None if res.status == 0 or (res.status == 2 and "a=b.txt" in res.err) else (
        f"exit {res.status}: {res.err.strip()[-200:]}")


# ------------------------------------------------------------------------------ open doors
def _listeners(pid: int) -> set[str]:
    """Local addresses of LISTEN sockets in ``pid``'s network namespace, hex as in /proc."""
    found = set()
    for f in ("tcp", "tcp6"):
        try:
            lines = Path(f"/proc/{pid}/net/{f}").read_text().splitlines()[1:]
        except OSError:
            continue
        for ln in lines:
            parts = ln.split()
            if len(parts) > 3 and parts[3] == "0A":
                found.add(parts[1])
    return found


def _loopback(hex_addr: str) -> bool:
    ip = hex_addr.split(":")[0]
    if len(ip) == 8:  # IPv4, little-endian: 0100007F is 127.0.0.1
        return ip[-2:] == "7F"
    return ip == "00000000000000000000000001000000" or (ip.startswith("0000000000000000FFFF0000") \
        and ip[-2:] == "7F")


def _bound_outside_loopback(tmp: Path, argv: list[str]) -> str | None:
    unshare, ip = shutil.which("unshare"), shutil.which("ip")
    if not unshare or not ip:
        return "SKIP: unshare/ip not available"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [unshare, "-n", "sh", "-c", f'"{ip}" link set lo up && exec "$@"', "sh",
           sys.executable, "-m", "bench", *argv]
    p = subprocess.Popen(cmd, cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    seen: set[str] = set()
    t0 = time.time()
    mine = os.readlink("/proc/self/ns/net")
    while p.poll() is None and time.time() - t0 < 400:
        try:  # until unshare has moved the child, /proc/PID/net shows this machine's sockets
            moved = os.readlink(f"/proc/{p.pid}/ns/net") != mine
        except OSError:
            moved = False
        if moved:
            seen |= _listeners(p.pid)
        time.sleep(0.05)
    if p.poll() is None:
        p.kill()
    _, err = p.communicate()
    if not seen and p.returncode != 0 and b"Operation not permitted" in err:
        return "SKIP: no network namespace"
    outside = sorted(a for a in seen if not _loopback(a))
    return f"listened outside loopback: {outside}" if outside else None


@case(DOORS, "issue", slow=True)
def dask_run_binds_only_loopback(tmp: Path) -> str | None:
    letor_folder(tmp / "letor")
    return _bound_outside_loopback(tmp, ["run", "--engine", "dask", "--dataset", "./letor",
                                         "--quick", "--no-cache", "--no-progress",
                                         "--no-crosscheck", "--models", "lightgbm,xgboost",
                                         "--seeds", "0", "--workers", "2", "--out", "res"])


@case(DOORS, slow=True)
def dask_evaluate_binds_only_loopback(tmp: Path) -> str | None:
    _shards(tmp, [GOOD, {"qid": [3, 3], "label": [1.0, 0.0], "score": [0.1, 0.2]}])
    return _bound_outside_loopback(tmp, ["evaluate", "--engine", "dask", "--data", "shards",
                                         "--workers", "1", "--metrics", "ndcg@10"])


@case(DOORS, slow=True)
def dask_convert_binds_only_loopback(tmp: Path) -> str | None:
    write(tmp, {"r.csv": RATINGS})
    return _bound_outside_loopback(tmp, ["convert", "--engine", "dask", "--ratings", "r.csv",
                                         "--layout", "csv", "--user", "user", "--item", "item",
                                         "--rating", "rating", "--timestamp", "timestamp",
                                         "--min-history", "2", "--target-size", "2",
                                         "--features", "user", "--workers", "1", "--out", "o"])


@case("unclear errors", "issue", slow=True)
def dask_convert_bad_rating_names_its_line(tmp: Path) -> str | None:
    write(tmp, {"r.csv": ratings_with(7, b"x")})
    res = sub(tmp, "convert", "--engine", "dask", "--ratings", "r.csv", "--layout", "csv",
              "--user", "user", "--item", "item", "--rating", "rating", "--timestamp",
              "timestamp", "--min-history", "2", "--target-size", "2", "--features", "user",
              "--workers", "1", "--out", "o", timeout=240)
    return refused(res, "r.csv:7")
