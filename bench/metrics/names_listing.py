"""The listing of every metric name ltrbench accepts, as text, Markdown or JSON.

What ``ltrbench metrics list`` prints (moved here from ``bench/commands/metrics.py``: the command
parses and prints, the listing is the names' own). The rows are :func:`bench.metrics.names.
describe_names`, generated from the grammar's own tables, so every name listed parses.
"""

from __future__ import annotations

import json

from bench.metrics.families import better
from bench.metrics.names import describe_names as _names
from bench.metrics.names import refused_names

COLUMNS = ("family", "grammar", "spelling", "example", "profile", "better", "meaning")
#: The least width of a folded column (cells fold onto further lines at it, never cut).
_LEAST = 12


def folded_table(rows: list[dict[str, str]], width: int) -> str:
    """The listing as a table ``width`` characters wide at most (without the example column):
    long cells fold onto further lines of their column, nothing is cut. Below the width its
    longest words need (``COLUMNS=20``: rich cut ``ltrbench`` to ``ltrbenc`` and dropped the
    spelling, profile and meaning columns without a word), the table is as wide as every
    column at its least width (:data:`_LEAST`) and wraps on the screen."""
    import io

    from rich.console import Console
    from rich.table import Table

    shown = [c for c in COLUMNS if c not in ("example", "better")]  # the spelling shows it;
    table = Table(box=None, pad_edge=False, show_edge=False)  # the direction ends the meaning
    for c in shown:
        short = c in ("family", "grammar", "profile")
        table.add_column(c, overflow="fold", min_width=11 if short else None,
                         ratio=None if short else (2 if c == "meaning" else 1))
    for r in rows:  # rows of bench.metrics.names.describe_names too: the direction added here
        way = {"none": "no quality measure"}.get(better(r["family"]),
                                                 f"{better(r['family'])} is better")
        table.add_row(*(r[c] + f" [{way}]" if c == "meaning" else r[c] for c in shown))
    least = sum(c.min_width or _LEAST for c in table.columns) + 2 * (len(shown) - 1)
    out = io.StringIO()
    Console(file=out, width=max(width, least), color_system=None, highlight=False).print(table)
    return out.getvalue()



def describe_names() -> list[dict[str, str]]:
    """:func:`bench.metrics.names.describe_names`, each row with ``better``: which way the
    metric is better, ``higher``, ``lower`` (fall-out, ARP, RMSE) or ``none`` (no measure of
    quality: RBP's residual, Judged@k, the counts; :func:`bench.metrics.families.better`)."""
    return [{**r, "better": better(r["family"])} for r in _names()]


def listing_json() -> str:
    """``{"names": [row, ...], "not_computed": {tool: [name, ...]}}``."""
    return json.dumps({"names": describe_names(), "not_computed": refused_names()}, indent=2)


def listing_markdown() -> str:
    """A Markdown table of every row, then the names each peer tool has that are not computed."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in describe_names():
        cells = [f"`{r[c]}`" if c in ("spelling", "example") else r[c] for c in COLUMNS]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    lines.append("")
    for tool, names in refused_names().items():
        lines.append(f"Not computed ({tool}): {', '.join(f'`{n}`' for n in names)}")
    return "\n".join(lines) + "\n"


def listing_text(width: int | None) -> str:
    """The listing for a terminal ``width`` columns wide (folded), or with ``None`` one line per
    name with aligned columns (a script or a file), then the notes on profiles."""
    rows = describe_names()
    if width is not None:
        text = folded_table(rows, width)
    else:
        widths = {c: max(len(c), *(len(r[c]) for r in rows)) for c in COLUMNS[:-1]}
        lines = ["  ".join(c.ljust(widths[c]) for c in COLUMNS[:-1]) + "  meaning"]
        for r in rows:
            lines.append("  ".join(r[c].ljust(widths[c]) for c in COLUMNS[:-1]) + "  "
                         + r["meaning"])
        text = "\n".join(lines) + "\n"
    notes = [
        "",
        "profile \"the call's\": evaluate(..., profile=...) / --profile (evaluate_trec and "
        "--qrels/--run: trec_eval). PROFILE:NAME picks one for any name.",
        "A trec_eval or ir_measures name keeps its tool's profile unless a profile is given; "
        "then it takes the given profile when that is its tool's (trec_eval names: trec_eval, "
        "trec_eval-c; ir_measures names: trec_eval-c) and is refused otherwise. Results are "
        "keyed by the names as written and name each metric's profile.",
        "better: which way the metric is better; \"none\": it measures no quality (RBP's "
        "residual, Judged@k, a count), so no run is best by it and it is refused as a "
        "comparison's or leaderboard's primary metric.",
    ]
    from bench.metrics.qualified import OWN_SPELLINGS

    notes += [f"under --profile {prof}: {', '.join(f'{n}@k' for n in own)} are that tool's own "
              "metrics, computed under that profile" for prof, own in OWN_SPELLINGS.items()]
    notes += [f"not computed ({tool}): {', '.join(names)}"
              for tool, names in refused_names().items()]
    return text + "\n".join(notes) + "\n"
