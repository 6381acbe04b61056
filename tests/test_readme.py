"""The README stays true: its generated tables and its example command match the code."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bench.cli import main
from bench.metrics import PROFILES
from bench.runners.params import parity_markdown

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_parity_table_is_the_generated_one() -> None:
    text = README.read_text(encoding="utf-8")
    block = text.split("<!-- parity:begin -->")[1].split("<!-- parity:end -->")[0]
    assert block.strip() == parity_markdown().strip()


def test_readme_profile_table_lists_every_named_profile() -> None:
    text = README.read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([\w@.-]+)`", text, flags=re.MULTILINE))
    assert set(PROFILES) <= listed


def _readme_evaluate_json() -> dict:
    text = README.read_text(encoding="utf-8")
    block = text.split("`ltrbench evaluate --format json`:")[1].split("```json")[1].split("```")[0]
    return json.loads(block)


def test_readme_evaluate_json_example_is_what_the_command_prints(capsys, monkeypatch) -> None:
    # The README shows the output of this command on the bundled example, rounded to 4 places.
    monkeypatch.chdir(README.parent)
    status = main(["evaluate", "--data", "bench/examples/example.svmlight",
                   "--scores", "bench/examples/example.scores", "--metrics", "ndcg@10",
                   "--profile", "lightgbm", "--format", "json"])
    assert status == 0
    out = json.loads(capsys.readouterr().out)
    shown = _readme_evaluate_json()
    assert set(out) == set(shown)
    assert set(out["diagnostics"]) == set(shown["diagnostics"])
    assert out["profile"] == shown["profile"]
    assert out["n_queries"] == shown["n_queries"]
    assert out["metrics"]["ndcg@10"] == pytest.approx(shown["metrics"]["ndcg@10"], abs=5e-5)
    for key, value in shown["diagnostics"].items():
        if isinstance(value, dict):
            assert out["diagnostics"][key]["ndcg@10"] == pytest.approx(value["ndcg@10"], abs=5e-5)
        else:
            assert out["diagnostics"][key] == value
