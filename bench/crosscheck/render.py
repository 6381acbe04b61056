"""``crosscheck.md``: the agreement table, the gap by reason, the largest per-query contributions."""

from __future__ import annotations

import math

from bench.crosscheck.agreement import CHECK_TOL, EXACT_TOL
from bench.crosscheck.result import CrosscheckResult
from bench.data.look_alike import shown_name
from bench.data.md_cells import md_text
from bench.metrics.reconcile import REASONS
from bench.runners.libraries import LIBRARIES


def _f(x: float | None, digits: int = 6) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return f"{x:.{digits}f}"


def _g(x: float | None) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return "0" if x == 0 else f"{x:+.3g}"


def render_markdown(res: CrosscheckResult, *, top: int = 25) -> str:
    """``crosscheck.md``: agreement table, totals by reason, largest per-query contributions."""
    out = [*_header(res), *_profiles(res), *_agreement_table(res), *_gap_table(res),
           *_top_queries(res, top),
           *_listed("Errors", res.errors), *_listed("Notes", res.notes)]
    return "\n".join(out)


def _header(res: CrosscheckResult) -> list[str]:
    """The title, what is compared, the status and the blank queries."""
    bq = res.blank_queries
    status = "**OK**" if res.ok else "**FAILED**"
    return [
        f"# Cross-check of built-in {res.metric}: {md_text(shown_name(res.dataset))}",
        "",
        f"Run `{res.run_id}`. Each library's built-in {res.metric} (its eval log at the chosen "
        "iteration, and recomputed on the final scores) beside the reference evaluator under the "
        f"library's profile: |diff| ≤ {CHECK_TOL:g} required; above {EXACT_TOL:g} it must be "
        "explained by float32 scores or be the reference rounded to the digits the value shows. "
        "Then the gap to the default profile "
        f"`{res.default_profile}`, split into reasons by changing one profile field at a time.",
        "",
        f"Status: {status} ({len(res.checks)} checks, {len(res.cases)} reconciliations).",
        "",
        "Blank queries (no relevant document): "
        + ", ".join(f"{k} {'?' if v is None else v}" for k, v in bq.items())
        + ".",
        "",
    ]


def _profiles(res: CrosscheckResult) -> list[str]:
    """The library profile of each model whose check did not use its library's own (the run's
    ``label_gain = "linear"``, XGBoost's ``-`` suffix): said, since the reference column
    follows it (nothing when every model used its library's profile)."""
    used = {c.model: c.reconciliation.library_profile for c in res.cases
            if c.library in LIBRARIES
            and c.reconciliation.library_profile != LIBRARIES[c.library].profile}
    if not used:
        return []
    return ["Reference profiles that are not the library's default: "
            + ", ".join(f"{m} `{p}`" for m, p in used.items())
            + " (the run's label_gain, or the metric's '-' suffix).", ""]


def _agreement_table(res: CrosscheckResult) -> list[str]:
    """One row per built-in value beside the reference under the library's profile."""
    out = [
        "## Built-in metric vs reference evaluator (library profile)",
        "",
        "| Model | Seed | Split | Source | Built-in | Reference | abs diff | Agreement |",
        "|---|---:|---|---|---:|---:|---:|---|",
    ]
    for c in res.checks:
        src = c.source if c.iteration is None else f"{c.source} (iter {c.iteration})"
        out.append(
            f"| {c.model} | {c.seed} | {c.split} | {src} | {_f(c.builtin, 9)} | "
            f"{_f(c.reference, 9)} | {c.abs_diff:.2e} | {c.agreement} |"
        )
    out.append("")
    return out


def _gap_table(res: CrosscheckResult) -> list[str]:
    """The gap to the default profile split into reasons, per case and as a mean, and the number
    of queries each reason changed."""
    head = ["Model", "Seed", "Split", "Library profile", "Default", "Gap", *REASONS, "Residual"]
    out = [
        f"## Gap between the library's convention and `{res.default_profile}`, by reason",
        "",
        "Gap = library-profile value − default-profile value; each reason column is that "
        "convention's share of the gap (they add up to the gap; the residual must be ≤ 1e-9).",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "|".join(["---", "---:", "---"] + ["---:"] * (len(head) - 3)) + "|",
    ]
    for case in res.cases:
        r = case.reconciliation
        cells = [
            case.model, str(case.seed), case.split,
            _f(r.library_value), _f(r.default_value), _g(r.gap),
            *[_g(r.reasons[k]) for k in REASONS], _g(r.residual),
        ]
        out.append("| " + " | ".join(cells) + " |")
    totals = res.reasons
    mean_gap = (math.fsum(c.reconciliation.gap for c in res.cases if c.reconciliation.defined)
                / max(1, sum(c.reconciliation.defined for c in res.cases)))
    out.append("| **mean over cases** | | | | | " + _g(mean_gap) + " | "
               + " | ".join(_g(totals[k]) for k in REASONS) + " | |")
    out.append("")
    rq = res.reason_queries()
    out.append(
        "Queries changed by each reason (summed over models, seeds and splits): "
        + ", ".join(f"{k} {v}" for k, v in rq.items())
        + "."
    )
    out.append("")
    return out


def _top_queries(res: CrosscheckResult, top: int) -> list[str]:
    """The ``top`` largest per-query contributions to the gap (nothing when there is none)."""
    tq = res.top_queries(top)
    if not len(tq):
        return []
    out = [
        f"## Largest per-query contributions (top {len(tq)})",
        "",
        "| Model | Seed | Split | qid | Reason | Before | After | Share of the gap |",
        "|---|---:|---|---:|---|---:|---:|---:|",
    ]
    for row in tq.itertuples(index=False):
        out.append(
            f"| {row.model} | {row.seed} | {row.split} | {md_text(row.qid)} | {row.reason} | "
            f"{_f(row.before, 4) or 'excluded'} | {_f(row.after, 4) or 'excluded'} | "
            f"{row.contribution:+.3g} |"
        )
    out.append("")
    return out


def _listed(title: str, items: list[str]) -> list[str]:
    """A section of bullet points (nothing when ``items`` is empty)."""
    if not items:
        return []
    return [f"## {title}", "", *(f"- {item}" for item in items), ""]
