"""A run directory summarised for people (a text table) and for tools (the ``--format json`` shape).

JSON shape of ``ltrbench run --format json``::

    {"run_id": str, "run_dir": str, "dataset": str, "config_hash": str, "profile": str,
     "models": [str], "seeds": [int], "finished": str | null,
     "status": {"<model>-seed<k>": "done" | "skipped: <reason>"},
     "metrics": {model: {split: {metric: {"mean": float, "std": float | null,
                                          "per_seed": {seed: float}}}}},
     "timings": {model: {"fit_s": float (median over seeds), "contended": int | null,
                         "predict_s": float, "peak_rss_mb": float,
                         "best_iteration": float | null}},
     "crosscheck": {"ok": bool | null, "errors": [str], "reasons": {reason: float | null},
                    ...} | null,  (ok null: no built-in metric to check, "skipped" says why)
     "permute_check": {"file": str, "max_abs_delta": {evaluator: float}} | null}

Means and sample standard deviations (:func:`bench.report.stats.mean_std`: ddof = 1, NaN seeds
left out; ``null`` for fewer than two seeds) are over seeds, from
``metrics.csv`` rows of the run's profile; NaN is written as ``null``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.data.jsonio import json_number, read_json_object
from bench.data.toml import read_toml
from bench.metrics.families import DEFAULT_METRICS
from bench.metrics.profiles import DEFAULT_PROFILE
from bench.report.stats import mean_std
from bench.runs.layout import read_status, read_table, status_summary
from bench.runs.timing_checks import busy_count, fmt_seconds


def summarize_run(run_dir: str | Path) -> dict[str, Any]:
    """The JSON-ready summary of a run directory (see the module docstring)."""
    run_dir = Path(run_dir)
    manifest = read_json_object(run_dir / "manifest.json", "the run's manifest.json as "
                                "'ltrbench run' writes it")  # strict: a NaN is named
    config = read_toml(run_dir / "config.toml")
    profile = str(config.get("profile", DEFAULT_PROFILE))
    metrics = read_table(run_dir / "metrics.csv")
    if len(metrics):
        metrics = metrics[metrics["profile"].astype(str) == profile]
    out_metrics: dict[str, Any] = {}
    for (model, split, metric), g in metrics.groupby(["model", "split", "metric"], sort=False):
        values = g.set_index("seed")["value"].astype(np.float64)
        mean, std = mean_std(values.to_numpy(), ddof=1)
        out_metrics.setdefault(str(model), {}).setdefault(str(split), {})[str(metric)] = {
            "mean": json_number(mean),
            "std": json_number(std),
            "per_seed": {str(int(s)): json_number(v) for s, v in values.items()},
        }
    timings = read_table(run_dir / "timings.csv")
    out_timings = {}
    for model, g in timings.groupby("model", sort=False):
        out_timings[str(model)] = {
            "fit_s": json_number(g["fit_s"].median()),
            "contended": busy_count(g),
            "predict_s": json_number(g["predict_s"].mean()),
            "peak_rss_mb": json_number(g["peak_rss_mb"].max()),
            "best_iteration": json_number(pd.to_numeric(g["best_iteration"], errors="coerce").mean()),
        }
    status = status_summary(read_status(run_dir))
    permute = None
    pfile = run_dir / "permute.csv"
    if pfile.is_file():
        frame = pd.read_csv(pfile)
        # a retrained model's change is the model's, not the evaluator's: its own key (it was
        # filed under "reference", which read as if the order-free evaluator had moved)
        retrained = frame["retrained"].astype(bool) if "retrained" in frame else False
        key = np.where(retrained, "retrained model (reference metric)", frame["evaluator"])
        permute = {
            "file": str(pfile),
            "max_abs_delta": {
                str(k): json_number(v)
                for k, v in frame["delta"].abs().groupby(key).max().items()
            },
        }
    return {
        "run_id": run_dir.name,
        "run_dir": str(run_dir),
        "dataset": (manifest.get("dataset") or {}).get("name"),
        "config_hash": manifest.get("config_hash"),
        "profile": profile,
        "models": list(config.get("models", [])),
        "seeds": list(config.get("seeds", [])),
        "finished": manifest.get("finished"),
        "status": status,
        "metrics": out_metrics,
        "timings": out_timings,
        "crosscheck": _crosscheck(manifest.get("crosscheck")),
        "permute_check": permute,
    }


def _crosscheck(recorded: Any) -> Any:
    """The manifest's ``crosscheck`` with every documented key: a run of baselines only
    recorded no ``reasons``, so ``summary["crosscheck"]["reasons"]`` failed on it alone."""
    if not isinstance(recorded, dict):
        return recorded
    return {"ok": None, "errors": [], "reasons": {}, **recorded}


#: The columns of the terminal table of a run with the default metrics.
SUMMARY_COLUMNS = ("ndcg@1", "ndcg@10", "map@10", "mrr")
#: At most this many columns of a run's own metrics (``run --metrics ...``).
MAX_COLUMNS = 6


def summary_columns(summary: dict[str, Any], split: str = "test") -> tuple[str, ...]:
    """The metric columns of :func:`summary_text`: :data:`SUMMARY_COLUMNS` for a run of the
    default metrics, else the run's own metrics in their order (at most :data:`MAX_COLUMNS`),
    so that ``run --metrics NDCG@10,P@10`` shows those two."""
    found: list[str] = []
    for per_split in summary["metrics"].values():
        for m in per_split.get(split, {}):
            if m not in found:
                found.append(m)
    if set(found) <= set(DEFAULT_METRICS) and any(m in found for m in SUMMARY_COLUMNS):
        return tuple(m for m in SUMMARY_COLUMNS if m in found)
    return tuple(found[:MAX_COLUMNS])


def _fewer_seeds(model: str, per: dict[str, Any], summary: dict[str, Any]) -> list[str]:
    """A note for a row whose values are over fewer seeds than the run's (a seed failed or was
    skipped): the header names every seed, and the row's mean ± std would pass for theirs."""
    got = {s for e in per.values() for s in (e.get("per_seed") or {})}
    lost = [str(s) for s in summary["seeds"] if str(s) not in got]
    if not got or not lost:
        return []
    why = [f"seed {s}: {summary['status'].get(f'{model}-seed{s}', 'no row')}" for s in lost]
    return [f"{model}: over seed(s) {', '.join(sorted(got, key=_seed_order))} only "
            f"({'; '.join(why)})"]


def _first_errors(cc: dict[str, Any]) -> str:
    """The first three errors of a failed cross-check, and where the others are: the line
    showed three of six errors without a word about the rest."""
    errors = list(cc.get("errors", []))
    shown = "; ".join(errors[:3])
    if len(errors) <= 3:
        return shown
    where = (cc.get("files") or {}).get("md")
    return (f"{shown}; and {len(errors) - 3} more: every one in "
            + (f"{where}" if where else "the run's manifest.json (crosscheck), or --format json"))


def _seed_order(seed: str) -> tuple[int, str]:
    return (int(seed), "") if seed.lstrip("-").isdigit() else (0, seed)


def summary_text(summary: dict[str, Any], *, split: str = "test",
                 metrics: tuple[str, ...] | None = None) -> str:
    """A plain-text table: one row per model, ``mean ± std`` over seeds on ``split`` (sample std,
    said in the first line; a row over fewer seeds than the run's named under the table), fit
    time (columns: ``metrics``, else :func:`summary_columns`)."""
    metrics = summary_columns(summary, split) if metrics is None else metrics
    header = ["model", *metrics, "fit s (median)"]
    rows = []
    notes = []
    for model in summary["models"]:
        per = summary["metrics"].get(model, {}).get(split, {})
        cells = [model]
        for m in metrics:
            e = per.get(m)
            if not e or e["mean"] is None:
                cells.append("")
            elif e["std"] is None:
                cells.append(f"{e['mean']:.4f}")
            else:
                cells.append(f"{e['mean']:.4f} ± {e['std']:.4f}")
        t = summary["timings"].get(model, {})
        mark = " †" if t.get("contended") else ""
        cells.append("" if t.get("fit_s") is None else f"{fmt_seconds(t['fit_s'])}{mark}")
        if not per:
            skipped = [v for k, v in summary["status"].items() if k.startswith(f"{model}-seed")]
            cells[1:] = ["(skipped)" if skipped else "(not run)"] + [""] * (len(cells) - 2)
            if skipped:
                notes.append(f"{model} {skipped[0]}")
        else:
            notes += _fewer_seeds(model, per, summary)
        rows.append(cells)
    from bench.streams import spellable  # '±' is '\\xb1' on an ASCII stream: measured so

    rows = [[spellable(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        f"dataset {summary['dataset']} · {split} split · profile {summary['profile']} · "
        f"seeds {', '.join(str(s) for s in summary['seeds'])} · mean ± sample std (ddof 1) "
        "over seeds",
        "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)),
        "  ".join("-" * w for w in widths),
    ]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    lines += notes
    if any(t.get("contended") for t in summary["timings"].values()):
        lines.append("† fit timed while other processes used the machine: not a clean time "
                     "(see timings.csv other_load). For clean times rerun on an idle machine, "
                     "or with --timing isolated (each fit in its own process) and "
                     "--timing-repeats 3 (the median of three fits)")
    cc = summary.get("crosscheck")
    if cc is not None and cc.get("skipped"):
        lines.append(f"cross-check: not applicable ({cc['skipped']})")
    elif cc is not None:
        lines.append(f"cross-check: {'OK' if cc.get('ok') else 'FAILED'}"
                     + ("" if cc.get("ok") else f" ({_first_errors(cc)})"))
    lines.append(f"run directory: {summary['run_dir']}")
    return "\n".join(lines) + "\n"
