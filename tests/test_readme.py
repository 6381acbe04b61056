"""The README stays true: its generated tables and its example command match the code."""

from __future__ import annotations

import json
import re
from pathlib import Path

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
    listed = set(re.findall(r"^\| `([\w-]+)`", text, flags=re.MULTILINE))
    assert set(PROFILES) <= listed


def test_readme_evaluate_example_runs_on_the_bundled_files(capsys, monkeypatch) -> None:
    monkeypatch.chdir(README.parent)
    status = main(["evaluate", "--data", "bench/examples/example.svmlight",
                   "--scores", "bench/examples/example.scores", "--metrics", "ndcg@10",
                   "--profile", "lightgbm", "--format", "json"])
    assert status == 0
    out = json.loads(capsys.readouterr().out)
    assert out["profile"] == "lightgbm"
    assert out["n_queries"] == 50
    assert 0.0 < out["metrics"]["ndcg@10"] <= 1.0
