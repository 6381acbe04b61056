"""The README stays true: its generated tables and its example command match the code."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bench.metrics import PROFILES
from bench.runners.params import parity_markdown

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_parity_table_is_the_generated_one() -> None:
    text = README.read_text(encoding="utf-8")
    block = text.split("<!-- parity:begin -->")[1].split("<!-- parity:end -->")[0]
    assert block.strip() == parity_markdown(catboost=True).strip()


def test_readme_profile_table_lists_every_named_profile() -> None:
    text = README.read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([\w@.-]+)`", text, flags=re.MULTILINE))
    assert set(PROFILES) <= listed


def _readme_evaluate_json() -> dict:
    text = README.read_text(encoding="utf-8")
    block = text.split("`ltrbench evaluate --format json`:")[1].split("```json")[1].split("```")[0]
    return json.loads(block)


def test_readme_evaluate_json_example_is_what_the_command_prints() -> None:
    # The README shows the output of this command on the bundled example, rounded to 4 places,
    # as a user's fresh process prints it (the SVMlight reader loads numba, so the compiled
    # kernel is used; a TREC pair of this size would say "python").
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "bench", "evaluate", "--data", "bench/examples/example.svmlight",
         "--scores", "bench/examples/example.scores", "--metrics", "ndcg@10",
         "--profile", "lightgbm", "--format", "json"],
        cwd=README.parent, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
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


def test_the_python_api_example_runs_and_prints_what_the_peer_tools_print(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's evaluator example, run as written; its numbers against pytrec_eval,
    ir_measures and hand arithmetic."""
    import math
    import re

    import ir_measures
    import pytrec_eval

    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    (block,) = [b for b in blocks if "compare_runs(" in b]
    monkeypatch.chdir(tmp_path)
    names: dict[str, object] = {}
    exec(compile(block, "README.md", "exec"), names)  # our own README
    qrels, run_a = names["qrels"], names["run_a"]
    theirs = pytrec_eval.RelevanceEvaluator(
        qrels, {"ndcg_cut_10", "P_5", "map", "Rprec", "bpref"}).evaluate(run_a)
    trec = names["trec"].metrics  # type: ignore[attr-defined]
    for ours, key in (("ndcg_cut_10", "ndcg_cut_10"), ("P_5", "P_5"), ("map", "map"),
                      ("Rprec", "Rprec"), ("bpref", "bpref")):
        assert trec[ours] == pytest.approx(sum(q[key] for q in theirs.values()) / 2, abs=1e-12)
    irm = names["irm"].metrics  # type: ignore[attr-defined]
    q = [ir_measures.Qrel(a, d, r) for a, docs in qrels.items() for d, r in docs.items()]  # type: ignore[attr-defined]
    r = [ir_measures.ScoredDoc(a, d, s) for a, docs in run_a.items() for d, s in docs.items()]  # type: ignore[attr-defined]
    for name, key in (("nDCG@10", "nDCG@10"), ("P(rel=2)@5", "P(rel=2)@5"), ("R@10", "R@10")):
        assert irm[key] == pytest.approx(ir_measures.parse_measure(name).calc_aggregate(q, r),
                                         abs=1e-12)
    # LightGBM's convention on the shuffled frame (rows keep their order within a query):
    # q1 ranks labels 2, 0, 1: (3 + 1/log2 4) / (3 + 1/log2 3); q2 scores 0.7 (label 0), then the
    # tie at 0.3 in frame order, label 1 before label 0: (1/log2 3) / 1.
    q1 = (3 + 1 / math.log2(4)) / (3 + 1 / math.log2(3))
    q2 = 1 / math.log2(3)
    assert names["lgb"].metrics["ndcg@3"] == pytest.approx((q1 + q2) / 2, abs=1e-12)  # type: ignore[attr-defined]
    table = names["table"]
    assert list(table["run"]) == ["a", "b"]  # type: ignore[index]
    assert bool(table["best"].iloc[0])  # type: ignore[index]
