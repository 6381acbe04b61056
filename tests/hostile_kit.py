"""The tools of the hostile catalogue (``tests/hostile_catalogue.py``): run a command, judge it.

A case gets a fresh folder and returns ``None`` when ltrbench behaved (a clear error, or the
oracle's number, or the input left intact), else one line saying what went wrong. The command
line runs in-process through :func:`bench.cli.main` (:func:`cli`; an exception escaping it is a
traceback) or, where a case needs a timeout or a process of its own (FIFOs, Dask), in a child
process (:func:`sub`).
"""

from __future__ import annotations

import contextlib
import csv
import io
import math
import os
import subprocess
import sys
import traceback
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

#: The classes of issue 19, in its order.
CLASSES = ("silently wrong numbers", "inputs destroyed", "tracebacks", "unclear errors",
           "config files", "silent accepts", "open doors")

QRELS = b"1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 d 1\n2 0 e 0\n"
RUN = b"1 Q0 a 1 0.4 t\n1 Q0 b 2 0.9 t\n1 Q0 c 3 0.1 t\n2 Q0 d 1 0.2 t\n2 Q0 e 2 0.8 t\n"
DATA = b"2 qid:1 1:0.5 2:1\n0 qid:1 1:0.1\n1 qid:1 2:0.3\n1 qid:2 1:0.2\n0 qid:2 1:0.9\n"
SCORES = b"0.9\n0.1\n0.5\n0.2\n0.8\n"
RATINGS = b"user,item,rating,timestamp\n" + b"".join(
    f"{u},{i},{(u * 7 + i) % 5 + 1},{1000 * u + i}\n".encode()
    for u in range(1, 16) for i in range(1, 13))


def letor_split(n_queries: int, first_qid: int, seed: int) -> bytes:
    """A small learnable LETOR split: 8 documents a query, 4 features that follow the label."""
    import random

    rnd = random.Random(seed)
    lines = []
    for q in range(n_queries):
        for _ in range(8):
            lab = rnd.randint(0, 2)
            feats = " ".join(f"{j}:{rnd.random() + 0.3 * lab:.3f}" for j in range(1, 5))
            lines.append(f"{lab} qid:{first_qid + q} {feats}")
    return ("\n".join(lines) + "\n").encode()


def letor_folder(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i, (split, n) in enumerate((("train", 20), ("vali", 6), ("test", 6))):
        (folder / f"{split}.txt").write_bytes(letor_split(n, 1 + 100 * i, i))
    return folder


@dataclass
class Res:
    """What a command did: exit status (None: an exception escaped), stdout, stderr."""

    status: int | None
    out: str
    err: str

    @property
    def traceback(self) -> bool:
        return self.status is None or "Traceback (most recent call last)" in self.err


@contextlib.contextmanager
def umask(mask: int) -> Iterator[None]:
    """The process umask set to ``mask`` for the block, the one before put back."""
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


@contextlib.contextmanager
def chdir(path: Path) -> Iterator[None]:
    old = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def main_status(argv: Sequence[str], err: io.StringIO) -> int | None:
    """``bench.cli.main(argv)``'s exit status (argparse's ``SystemExit``: its code, else 2), or
    ``None`` with the traceback written to ``err`` when an exception escapes ``main``."""
    from bench import cli as bench_cli

    try:
        return bench_cli.main(list(argv))
    except SystemExit as exc:  # argparse: usage error, exit 2
        return exc.code if isinstance(exc.code, int) else 2
    except BaseException:
        err.write(traceback.format_exc())
        return None


def cli(cwd: Path, *argv: str) -> Res:
    """``ltrbench ARGV`` in-process in ``cwd``; an exception escaping ``main`` is a traceback."""
    out, err = io.StringIO(), io.StringIO()
    with chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        status = main_status(argv, err)
    text = err.getvalue() + "".join(f"\n{w.category.__name__}: {w.message}" for w in caught)
    return Res(status, out.getvalue(), text)


def sub(cwd: Path, *argv: str, timeout: float = 300, prefix: tuple[str, ...] = ()) -> Res:
    """``python -m bench ARGV`` in a child process (a timeout is status 124)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        p = subprocess.run([*prefix, sys.executable, "-m", "bench", *argv], cwd=cwd, env=env,
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        return Res(124, str(exc.stdout or ""), f"timed out after {timeout} s")
    return Res(p.returncode, p.stdout, p.stderr)


def call(fn: Callable[[], Any]) -> tuple[Any, BaseException | None]:
    """``fn()``: (value, None), or (None, the exception)."""
    try:
        return fn(), None
    except Exception as exc:
        return None, exc


# ------------------------------------------------------------------------------------ judges
def ok(problem: str | None) -> None:
    """Assert that a check found no problem (each check returns its problem in words, or None)."""
    assert problem is None, problem


def done(res: Res) -> Res:
    """``res``, asserted to be a clean success: exit status 0 and no traceback."""
    assert res.status == 0, (res.status, res.err[-2000:])
    assert not res.traceback, res.err[-2000:]
    return res


def refused(res: Res, *words: str) -> str | None:
    """None when the command exited 2 with one ``error:`` line containing every word."""
    if res.traceback:
        return "traceback: " + _last(res.err)
    if res.status != 2:
        return f"exit {res.status}, expected 2 (a clear error){_tail(res)}"
    lines = [ln for ln in res.err.strip().splitlines() if ln.strip()
             and not ln.startswith(("UserWarning", "RuntimeWarning", "FutureWarning"))]
    errs = [ln for ln in lines if ln.startswith("error:") or ": error: " in ln]  # argparse too
    if not errs:
        return f"exit 2 without an 'error:' line: {_last(res.err)}"
    missing = [w for w in words if w not in errs[0]]
    if missing:
        return f"message {errs[0]!r} lacks {missing}"
    return None


def api_refused(exc: BaseException | None, *words: str) -> str | None:
    """None when ``exc`` is ltrbench's own error containing every word."""
    from bench.errors import LtrbenchError

    if exc is None:
        return "accepted, expected a clear error"
    if not isinstance(exc, LtrbenchError):
        return f"traceback: {type(exc).__name__}: {exc}"
    missing = [w for w in words if w not in str(exc)]
    return f"message {str(exc)!r} lacks {missing}" if missing else None


def own_error(fn: Callable[[], Any], *words: str) -> str | None:
    """None when ``fn()`` raises ltrbench's own error containing every word
    (:func:`api_refused` of :func:`call`); an accepted call names what it returned."""
    value, exc = call(fn)
    if exc is None:
        return f"accepted, expected an error naming {words}: got {str(value)[:100]}"
    return api_refused(exc, *words)


def csv_values(res: Res) -> dict[str, float]:
    """``metric -> value`` of ``evaluate --format csv`` (one run)."""
    out: dict[str, float] = {}
    for row in csv.DictReader(io.StringIO(res.out)):  # metric,value[,profile]
        with contextlib.suppress(KeyError, TypeError, ValueError):
            out[row["metric"]] = float(row["value"])
    return out


def close(got: float | None, want: float, tol: float = 1e-9) -> bool:
    if got is None:
        return False
    if math.isnan(want):
        return math.isnan(got)
    return abs(got - want) <= tol


def value_or_refused(res: Res, metric: str, want: float, *words: str) -> str | None:
    """None when the command printed ``want`` for ``metric`` or refused with a clear error."""
    if res.status == 2 and not res.traceback:
        return refused(res, *words)
    if res.traceback:
        return "traceback: " + _last(res.err)
    got = csv_values(res).get(metric)
    if res.status != 0 or not close(got, want):
        return f"exit {res.status}, {metric} = {got}, expected {want:.6f} (or a clear error)"
    return None


def _last(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][:200] if lines else "(nothing on stderr)"


def _tail(res: Res) -> str:
    return f": {_last(res.err)}" if res.err.strip() else ""


def write(folder: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        p = folder / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (relative path -> bytes)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def untouched(before: dict[str, bytes], folder: Path) -> str | None:
    for name, data in before.items():
        p = folder / name
        if not p.is_file():
            return f"input {name} was removed"
        if p.read_bytes() != data:
            return f"input {name} was overwritten"
    return None


def pytrec(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]], measure: str,
           *, complete: bool = False) -> float:
    """pytrec_eval's mean of ``measure``; ``complete``: over every qrels query (trec_eval -c)."""
    import pytrec_eval

    base = measure.rsplit("_", 1)[0] if measure[-1].isdigit() else measure
    per_q = pytrec_eval.RelevanceEvaluator(qrels, {base}).evaluate(run)
    total = sum(v[measure] for v in per_q.values())
    return total / (len(qrels) if complete else len(per_q))


def pytrec_per_query(qrels: str, run: str, measure: str) -> dict[str, float]:
    """pytrec_eval's value of ``measure`` per query, from qrels and run TEXT (4- and 6-column
    lines split on blanks: the independent oracle, not ltrbench's reader)."""
    import pytrec_eval

    def rows(text: str, cast: type) -> dict[str, dict[str, object]]:
        out: dict[str, dict[str, object]] = {}
        for line in text.splitlines():
            f = line.split()
            out.setdefault(f[0], {})[f[2]] = cast(f[3] if len(f) == 4 else f[4])
        return out
    got = pytrec_eval.RelevanceEvaluator(rows(qrels, int), {measure}).evaluate(rows(run, float))
    return {q: v[measure] for q, v in got.items()}


def trec_bytes(records: dict[str, dict[str, Any]], kind: str) -> bytes:
    lines = []
    for q, docs in records.items():
        for rank, (d, v) in enumerate(docs.items(), start=1):
            lines.append(f"{q} 0 {d} {v}" if kind == "qrels" else f"{q} Q0 {d} {rank} {v} t")
    return ("\n".join(lines) + "\n").encode()


def toy_splits() -> Any:
    """Small train/vali/test splits (8, 4, 5 queries of 5 rows; labels 0..2 from a feature),
    fresh arrays on every call: what a hostile ranker may damage."""
    import numpy as np

    from bench.data.letor import LetorData, LetorSplits

    def part(n_queries: int, per: int, seed: int) -> LetorData:
        rng = np.random.default_rng(seed)
        n = n_queries * per
        X = rng.normal(size=(n, 4))
        y = np.digitize(X[:, 0] + rng.normal(scale=0.5, size=n), [0.3, 1.2]).astype(float)
        return LetorData.build(X, y, qid=np.repeat(np.arange(n_queries) + 100 * seed, per),
                               source=f"part{seed}")

    return LetorSplits(name="toy", train=part(8, 5, 1), vali=part(4, 5, 2), test=part(5, 5, 3),
                       inputs={})


def overridden(base: Sequence[str], extra: Sequence[str]) -> tuple[str, ...]:
    """``base`` options (``--name value`` pairs) without those ``extra`` gives again, then
    ``extra``: a case overrides a default instead of giving an option twice, which every
    command refuses (one rule, :func:`bench.cli.once_per_option`)."""
    given = {a for a in extra if a.startswith("--")}
    out: list[str] = []
    skip = False
    for i, a in enumerate(base):
        if skip:
            skip = False
            continue
        if a in given:
            skip = i + 1 < len(base) and not base[i + 1].startswith("--")
            continue
        out.append(a)
    return (*out, *extra)


def print_counts(cases: Sequence[tuple[str, Callable[..., str | None]]], *,
                 in_folder: bool) -> None:
    """``python tests/test_hostile_<...>.py``: run every ``(class, case)`` and print the failing
    ones and the counts by class (each case given a fresh temporary folder when ``in_folder``)."""
    import tempfile

    failed: dict[str, int] = {}
    for klass, fn in cases:
        if in_folder:
            with tempfile.TemporaryDirectory() as d:
                problem = fn(Path(d))
        else:
            problem = fn()
        if problem is not None:
            failed[klass] = failed.get(klass, 0) + 1
            print(f"FAIL [{klass}] {fn.__name__}: {problem}")
    print(f"{sum(failed.values())} of {len(cases)} cases failed: {failed}")


def write_run_tables(run: Path, metrics: list[tuple[Any, ...]], per_query: list[tuple[Any, ...]],
                     timings: list[tuple[Any, ...]]) -> Path:
    """A hand-made run's ``metrics.csv``, ``per_query.parquet`` and ``timings.csv`` under
    ``run`` from their rows, in the columns ltrbench writes (the caller writes the manifest and
    config); ``run``."""
    import pandas as pd

    pd.DataFrame(metrics, columns=["dataset", "model", "library", "seed", "split", "metric",
                                   "value", "profile"]).to_csv(run / "metrics.csv", index=False)
    pd.DataFrame(per_query, columns=["dataset", "model", "seed", "split", "qid", "metric",
                                     "value"]).to_parquet(run / "per_query.parquet")
    pd.DataFrame(timings, columns=["dataset", "model", "library", "seed", "fit_s", "predict_s",
                                   "peak_rss_mb", "best_iteration", "n_trees"]).to_csv(
        run / "timings.csv", index=False)
    return run


def write_one_seed_run(root: Path, rid: str, dataset: str, pq: dict[str, list[float]],
                       qids: list[str] | None = None) -> Path:
    """A finished one-seed run ``root/rid`` as the run loop writes it: ``pq`` maps each model
    to its per-query ndcg@10 (query ids ``qids``, else 0, 1, ...) and metrics.csv holds their
    mean; ``lightgbm-lambdarank`` is a LightGBM model, ``random`` the baseline, others custom."""
    import json

    import numpy as np

    run = root / rid
    run.mkdir(parents=True)
    models = list(pq)
    (run / "config.toml").write_text(
        f"dataset = {json.dumps(dataset, ensure_ascii=False)}\nprofile = \"ltrbench\"\n"
        f"models = {json.dumps(models, ensure_ascii=False)}\nseeds = [0]\nquick = true\n",
        encoding="utf-8")
    (run / "manifest.json").write_text(json.dumps(
        {"finished": "2026-01-01T00:00:00+00:00", "seeds": [0],
         "models": {m: {} for m in models}, "evaluation": {"profile": "ltrbench"},
         "dataset": {"name": dataset}}), encoding="utf-8")
    p_rows, m_rows, t_rows = [], [], []
    for m, vals in pq.items():
        lib = {"lightgbm-lambdarank": "lightgbm", "random": "baseline"}.get(m, "custom")
        names = qids or [str(q) for q in range(len(vals))]
        p_rows += [(dataset, m, 0, "test", q, "ndcg@10", v) for q, v in zip(names, vals, strict=True)]
        m_rows.append((dataset, m, lib, 0, "test", "ndcg@10", float(np.mean(vals)), "ltrbench"))
        t_rows.append((dataset, m, lib, 0, 1.0, 0.01, 100.0, 10, 10))
    return write_run_tables(run, m_rows, p_rows, t_rows)


def toy_ratings_card(contents: dict[str, bytes], **kw: Any) -> Any:
    """The catalogue card of a one-file MovieLens-shaped dataset ``toy`` packed as
    ``toy.zip`` (folder ``toy``), its files' digests those of ``contents``; ``kw`` replaces
    fields (``files=`` included)."""
    import hashlib
    from dataclasses import replace

    from bench.datasets.catalogue import Card

    base = Card(name="toy", title="Toy", kind="ratings", loader="movielens", homepage="http://x",
                size="1 file", licence="test data", citation="none", dir="toy",
                archive_format="zip", archive="toy.zip", archive_root="toy",
                files={k: hashlib.sha256(v).hexdigest() for k, v in contents.items()})
    return replace(base, **kw)
