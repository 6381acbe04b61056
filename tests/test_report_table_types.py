"""The typed leaderboard table writes exactly the JSON the committed leaderboards hold, and
reads it back: ``Table.from_json(t).to_json() == t`` key for key and in key order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.report.table import MetricCell, Row, Table

COMMITTED = Path(__file__).resolve().parent.parent / "results" / "leaderboard.json"


def _tables() -> list[dict]:  # type: ignore[type-arg]
    return list(json.loads(COMMITTED.read_text())["tables"])


@pytest.mark.parametrize("index", range(len(_tables())))
def test_every_committed_table_round_trips_through_the_typed_table(index: int) -> None:
    table = _tables()[index]
    typed = Table.from_json(table)
    assert json.dumps(typed.to_json()) == json.dumps(table)
    assert all(isinstance(r, Row) for r in typed.rows)
    assert all(isinstance(c, MetricCell) for r in typed.rows for c in r.metrics.values())


def test_a_table_missing_a_key_is_an_error_not_a_silent_default() -> None:
    table = _tables()[0]
    del table["rows"][0]["metrics"][table["metrics"][0]]["ci_low"]
    with pytest.raises(KeyError):
        Table.from_json(table)
