"""``ltrbench perf scale`` plumbing at a tiny scale: every step runs in its own process, the cold
load really rebuilds the cache, the rows loaded are the card's shape, and the report carries the
run's own per-library timings."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bench.data.letor_cache import entry_path, sha256_files
from bench.datasets.catalogue import get_card
from bench.datasets.letor_shapes import shape_of
from bench.perf import scale

pytestmark = pytest.mark.slow

SPEC = "synthetic-mslr30k:0.002"


def test_tiny_scale_run_measures_cold_and_warm_loads_and_both_libraries(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    started = time.time()
    report = scale.measure(SPEC, "experiments-mslr30k", data_dir=str(data_dir),
                           results=tmp_path / "results", n_trees=3)

    assert report.run_status == 0
    names = [s.name for s in report.steps]
    assert names[0].startswith("cold load")
    assert names[1].startswith("warm load")
    assert names[2] == "ltrbench run --config experiments-mslr30k"
    assert all(s.peak_rss > 10e6 and s.seconds > 0 for s in report.steps)

    shape = shape_of(get_card("synthetic-mslr30k"))
    expected = sum(shape.size(split, 0.002)[1] for split in shape.splits)
    assert f"{expected:,} rows" in report.steps[0].detail
    assert report.steps[0].detail == report.steps[1].detail

    # The cold step parsed the files again: their cache entries were written during this test.
    files = sorted(Path(report.folder).rglob("*.txt"))
    for digest in sha256_files(files):
        assert entry_path(data_dir / "cache", digest).stat().st_mtime >= started - 1

    assert sorted(f["model"] for f in report.fits) == ["lightgbm-lambdarank", "xgboost-ndcg"]
    assert all(f["n_trees"] in ("3", "3.0") for f in report.fits)
    assert set(report.test_ndcg) == {"lightgbm-lambdarank", "xgboost-ndcg"}
    assert all(0.0 < v <= 1.0 for v in report.test_ndcg.values())

    text = scale.render(report, limit_gb=8.0)
    assert "| lightgbm-lambdarank |" in text
    assert "| xgboost-ndcg |" in text
    assert "(target <= 8 GB: met)" in text
    assert "(target <= 0.001 GB: NOT met)" in scale.render(report, limit_gb=0.001)


def test_a_failing_step_is_an_error_naming_the_step(tmp_path: Path) -> None:
    import sys

    from bench.errors import LtrbenchError

    with pytest.raises(LtrbenchError, match="the warm load step failed"):
        scale._child([sys.executable, "-c", "raise SystemExit(3)"], "warm load")


def test_the_report_reads_the_runs_profile_not_its_blank_query_variants(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.toml").write_text('profile = "ltrbench"\n')
    (run / "manifest.json").write_text("{}")
    (run / "timings.csv").write_text("model,fit_s\nm,1.0\n")
    (run / "metrics.csv").write_text(
        "dataset,model,library,seed,split,metric,value,profile\n"
        "d,m,lightgbm,0,test,ndcg@10,0.5,ltrbench\n"
        "d,m,lightgbm,0,test,ndcg@10,0.49,ltrbench-blank0\n"
        "d,m,lightgbm,0,test,ndcg@10,0.51,ltrbench-blank1\n")
    report = scale.Report(dataset="d", config="c")
    scale._read_run(run, report)
    assert report.test_ndcg == {"m": 0.5}
