"""``ltrbench perf evaluator`` runs end to end on a tiny input (a smoke test, not a timing)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from bench.perf import evaluator


def test_perf_evaluator_writes_a_report_with_ratios_and_agreement(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The report's figures, ratios and agreement, and what it says of the machine: the OpenMP
    wait policy, the kernel's threads, the load average, the medians and the older threads' run
    time inside each call (tests/test_perf_evaluator_turns.py checks how the turns are timed)."""
    pytest.importorskip("lightgbm")
    monkeypatch.setenv("OMP_WAIT_POLICY", "passive")
    parser = argparse.ArgumentParser()
    evaluator.add_arguments(parser)
    out = tmp_path / "perf.md"
    args = parser.parse_args(["--queries", "300", "--peers", "lightgbm", "--repeat", "1",
                              "--no-compile-check", "--out", str(out)])
    assert evaluator.run(args) == 0
    text = out.read_text()
    assert "| reference: 8 metrics (group sizes) |" in text
    assert "reference (8 metrics) / LightGBM built-in ndcg@10: **" in text
    assert "reference (8 metrics) / LightGBM built-in ndcg@10, 1 thread: **" in text
    assert "lightgbm profile ndcg@10" in text
    diff = float(text.split("(|diff| ")[1].split(")")[0])
    assert diff < 1e-9
    assert "bytes/document" in capsys.readouterr().out
    assert "- OpenMP wait: OMP_WAIT_POLICY=passive" in text
    assert "- compiled kernel threads: " in text
    assert "- load average at the start: " in text
    assert "- load average at the end: " in text
    assert "- reference alone (8 metrics): median " in text
    assert "older threads ran " in text
    assert "| reference: 8 metrics, in turns with LightGBM | " in text


def test_generated_queries_have_the_documented_shape() -> None:
    labels, scores, sizes = evaluator.generate(1000, 40, seed=1)
    assert sizes.min() >= 30
    assert sizes.max() <= 52
    assert abs(sizes.mean() - 41) < 0.5
    assert set(labels.tolist()) == {0.0, 1.0, 2.0, 3.0, 4.0}
    assert labels.shape == scores.shape == (sizes.sum(),)


def test_unknown_peer_is_an_error() -> None:
    from bench.errors import ConfigError

    parser = argparse.ArgumentParser()
    evaluator.add_arguments(parser)
    with pytest.raises(ConfigError, match="unknown peers"):
        evaluator.run(parser.parse_args(["--queries", "10", "--peers", "catboost"]))
