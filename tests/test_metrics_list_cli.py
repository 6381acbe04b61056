"""``ltrbench metrics list``: every name it prints parses back to what the row says."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from bench.cli import main
from bench.metrics import parse_metrics


def _json(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["metrics", "list", "--format", "json"]) == 0
    out: dict[str, object] = json.loads(capsys.readouterr().out)
    return out


def test_every_listed_example_and_name_parses_back_to_the_row_family_and_profile(
        capsys: pytest.CaptureFixture[str]) -> None:
    rows = _json(capsys)["names"]
    assert isinstance(rows, list)
    grammars = {r["grammar"] for r in rows}
    assert grammars == {"ltrbench", "trec_eval", "ir_measures", "qualified", "ranx"}
    for row in rows:
        (spec,) = parse_metrics(row["example"])
        assert spec.family == row["family"], row
        assert (spec.profile or "the call's") == row["profile"], row
        assert parse_metrics(row["name"]) == [spec], row


def test_the_listing_shows_what_a_user_of_each_tool_types(
        capsys: pytest.CaptureFixture[str]) -> None:
    listing = _json(capsys)
    examples = {r["example"]: r for r in listing["names"]}  # type: ignore[union-attr]
    assert examples["ndcg_cut_10"]["profile"] == "trec_eval"
    assert examples["R@10"]["profile"] == "the call's"
    assert examples["R@10"]["family"] == "recall"
    assert examples["Success@10"]["family"] == "hits"
    assert "gm_bpref" in listing["not_computed"]["trec_eval"]  # type: ignore[index]
    assert "infAP" not in listing["not_computed"]["trec_eval"]  # type: ignore[index]  # issue 23


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_text_and_markdown_list_every_example(fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _json(capsys)["names"]
    assert main(["metrics", "list", "--format", fmt]) == 0
    out = capsys.readouterr().out
    for row in rows:  # type: ignore[union-attr]
        assert row["example"] in out
    assert "not computed (trec_eval)" in out.lower()


def test_evaluate_csv_quotes_a_metric_name_that_holds_a_comma(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path
    (folder / "q").write_text("1 0 a 2\n1 0 b 1\n", encoding="utf-8")
    (folder / "r").write_text("1 Q0 a 1 0.9 x\n1 Q0 b 2 0.5 x\n", encoding="utf-8")
    name = "nDCG(gains={1:2,2:3})@3"
    assert main(["evaluate", "--qrels", str(folder / "q"), "--run", str(folder / "r"),
                 "--metrics", name, "--format", "csv"]) == 0
    rows = list(csv.reader(capsys.readouterr().out.splitlines()))
    # a then b: the ideal order, so NDCG = 1
    assert rows == [["metric", "value", "profile"],
                    [name, "1.0", "trec_eval-c+gain=table"]]


@pytest.mark.parametrize("width", [80, 120])
def test_the_terminal_listing_folds_to_the_width_and_keeps_every_row(width: int) -> None:
    from bench.metrics.names import describe_names
    from bench.metrics.names_listing import folded_table

    rows = describe_names()
    lines = folded_table(rows, width).splitlines()
    assert max(len(line) for line in lines) <= width
    text = " ".join(lines)
    for row in rows:  # every meaning's words are there (folded, not cut)
        assert all(word in text for word in row["meaning"].split() if len(word) < 12), row
    assert len([ln for ln in lines if ln[:1].strip()]) == len(rows) + 1  # a first line per row
