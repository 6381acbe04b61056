"""A conversion's summary as a table: queries, rows, features, labels and blank queries per
partition (what ``ltrbench convert`` prints; moved here from ``bench/commands/convert.py``).
The summary is :func:`bench.adapters.convert.convert`'s (or the Dask conversion's) dictionary."""

from __future__ import annotations

from typing import Any


def print_summary(summary: dict[str, Any], out: str) -> None:
    """A table per partition: queries, rows, features, labels, blank queries."""
    from rich.table import Table

    from bench.streams import whole_word_console

    table = Table(title=f"{summary['name']} -> {out}")
    # fold long cells instead of cutting them to "tra…" on an 80-column terminal
    for c in ("split", "queries", "rows", "features", "per query", "labels (grade:rows)",
              "blank"):
        table.add_column(c, justify="left" if c in ("split", "labels (grade:rows)")
                         else "right", overflow="fold", min_width=len(c) if c != "labels "
                         "(grade:rows)" else 8)
    for name, s in summary["partitions"].items():
        rpq = s["rows_per_query"]
        labels = " ".join(f"{k}:{v}" for k, v in s["labels"].items())
        table.add_row(name, str(s["queries"]), str(s["rows"]), str(s["features"]),
                      f"{rpq['min']}-{rpq['max']}", labels, str(s["blank_queries"]))
    console = whole_word_console(table)
    console.print(table)
    console.print("features: " + ", ".join(summary["feature_names"]))
    meta = summary.get("split_meta") or {}
    skipped = meta.get("features_skipped") or {}
    if skipped:
        console.print("skipped: " + "; ".join(f"{k} ({v})" for k, v in skipped.items()))
    tied = meta.get("tied_window_edges") or {}
    if tied.get("users"):
        who = "1 user's" if tied["users"] == 1 else f"{tied['users']:,} users'"
        console.print(f"ties: {who} windows start inside a second rated on both sides of the "
                      "edge: the order there is the item ids' (see bench.adapters.splits)")
    console.print("files: " + ", ".join(summary["files"]))
