"""``leaderboard.json`` is read back by one checked reader: an edited or damaged document is an
error naming the key (exit 2 of ``ltrbench reproduce``), before any config is run again.

Before: ``"tables": {}`` printed "no tables found" with exit 0, an unknown ``schema`` was
accepted, ``stats.bootstrap_resamples = -5`` and ``"stats": "x"`` were tracebacks after the
re-run, and a statistic given as text was reported as a difference instead of a damaged file.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench import cli
from bench.report.build import LeaderboardOptions
from bench.report.document import read_document

COMMITTED = Path(__file__).resolve().parent.parent / "results" / "leaderboard.json"
BASE: dict[str, Any] = json.loads(COMMITTED.read_text())


def _edit(fn: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    doc = copy.deepcopy(BASE)
    fn(doc)
    return doc


def _row0(doc: dict[str, Any]) -> dict[str, Any]:
    return doc["tables"][0]["rows"][0]  # type: ignore[no-any-return]


CASES: dict[str, tuple[dict[str, Any] | list[Any], str]] = {
    "top level a list": ([], "expected a JSON object"),
    "schema unknown": (_edit(lambda d: d.update(schema=99)), "'schema' is 99"),
    "schema missing": (_edit(lambda d: d.pop("schema")), "'schema' is None"),
    "tables an object": (_edit(lambda d: d.update(tables={})), "'tables' is dict"),
    "a table a string": (_edit(lambda d: d["tables"].__setitem__(0, "x")), "tables[0] is str"),
    "rows missing": (_edit(lambda d: d["tables"][0].pop("rows")), "missing key 'rows'"),
    "metrics a string": (_edit(lambda d: _row0(d).update(metrics="x")), "tables[0]: not a leaderboard table"),
    "a mean as text": (_edit(lambda d: _row0(d)["metrics"]["ndcg@10"].update(mean="0.7")),
                       "tables[0].rows[0].metrics.ndcg@10.mean is '0.7'"),
    "a per-seed value true": (_edit(lambda d: _row0(d)["metrics"]["ndcg@10"]["per_seed"].update(
        {"0": True})), "per_seed.0 is True"),
    "an interval bound infinite": (_edit(lambda d: _row0(d)["metrics"]["ndcg@10"].update(
        ci_low=float("inf"))), "ci_low is inf"),
    "stats a string": (_edit(lambda d: d.update(stats="x")), "'stats' is str"),
    "negative resamples": (_edit(lambda d: d["stats"].update(bootstrap_resamples=-5)),
                           "stats.bootstrap_resamples is -5"),
    "resamples as float": (_edit(lambda d: d["stats"].update(randomization_resamples=10.5)),
                           "stats.randomization_resamples is 10.5"),
    "confidence 1": (_edit(lambda d: d["stats"].update(confidence=1)), "stats.confidence is 1"),
    "metrics not names": (_edit(lambda d: d["stats"].update(metrics=[1])), "stats.metrics is [1]"),
    "seed negative": (_edit(lambda d: d["stats"].update(seed=-1)), "stats.seed is -1"),
}


def test_the_committed_document_reads_back_with_its_options() -> None:
    doc = read_document(COMMITTED)
    assert [t.dataset for t in doc.tables] == [t["dataset"] for t in BASE["tables"]]
    # the recorded primary metric is the default one (ndcg@10), which reads back as the default
    # (not named: a run without it falls back, as when the document was written)
    assert doc.options.named_primary() == BASE["stats"]["primary"] == "ndcg@10"
    assert doc.options == LeaderboardOptions(
        metrics=tuple(BASE["stats"]["metrics"]), primary=None,
        bootstrap_resamples=BASE["stats"]["bootstrap_resamples"],
        randomization_resamples=BASE["stats"]["randomization_resamples"],
        seed=BASE["stats"]["seed"], confidence=BASE["stats"]["confidence"])


@pytest.mark.parametrize("case", list(CASES))
def test_a_damaged_document_is_an_error_naming_the_key(tmp_path: Path, case: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    doc, expected = CASES[case]
    p = tmp_path / "leaderboard.json"
    p.write_text(json.dumps(doc))
    status = cli.main(["reproduce", str(p)])
    err = capsys.readouterr().err
    assert status == 2, err
    assert "Traceback" not in err
    assert err.startswith(f"error: {p}: "), err
    assert expected in err, err


def test_not_json_names_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "leaderboard.json"
    p.write_text('{\n"schema": 1,\n"tables": [\n')
    assert cli.main(["reproduce", str(p)]) == 2
    assert f"error: {p}:4: not valid JSON" in capsys.readouterr().err
