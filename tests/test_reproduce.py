"""``ltrbench reproduce``: a recorded config runs again and every number matches (or the diff is shown)."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bench.benchmark.config import RunConfig
from bench.benchmark.pipeline import run_benchmark
from bench.benchmark.reproduce import (
    compare_runs,
    compare_tables,
    reproduce_leaderboard,
    reproduce_run,
)
from bench.data.letor import LetorData, LetorSplits
from bench.data.svmlight import write_svmlight
from bench.errors import ConfigError
from bench.runners.params import Params


def _part(n_queries: int, per: int, seed: int) -> LetorData:
    rng = np.random.default_rng(seed)
    n = n_queries * per
    X = rng.normal(size=(n, 4))
    y = np.digitize(X[:, 0] + rng.normal(scale=0.6, size=n), [0.0, 1.0]).astype(float)
    return LetorData.build(X, y, qid=np.repeat(np.arange(n_queries) + 50 * seed, per))


SPLITS = LetorSplits(name="tiny", train=_part(24, 8, 1), vali=_part(10, 8, 2), test=_part(10, 8, 3))
CONFIG = RunConfig(
    dataset="tiny", models=("lightgbm-lambdarank", "xgboost-ndcg", "random"), seeds=(0, 1),
    params=Params(n_trees=8, num_leaves=5, min_data_in_leaf=3, early_stopping_rounds=3,
                  subsample=0.8, colsample=0.75, n_threads=1),
    crosscheck=False,
)


def _loader(spec: str, data_dir=None) -> LetorSplits:
    assert spec == "tiny"
    return SPLITS


@pytest.fixture(scope="module")
def original(tmp_path_factory) -> Path:
    return run_benchmark(CONFIG, out_dir=tmp_path_factory.mktemp("results"), progress=False, loader=_loader)


def test_reproducing_a_run_matches_bit_for_bit(original, tmp_path):
    outcome = reproduce_run(original, out_dir=tmp_path, loader=_loader)
    assert outcome.status == "match", outcome.differences[:3]
    assert outcome.tolerance == 0.0
    assert "same environment" in outcome.tolerance_reason
    # every metric row, per-query value, score and chosen iteration was compared
    n_metrics = len(pd.read_csv(original / "metrics.csv"))
    n_pq = len(pd.read_parquet(original / "per_query.parquet"))
    n_scores = len(pd.read_parquet(original / "scores.parquet"))
    n_timings = 2 * len(pd.read_csv(original / "timings.csv"))
    assert outcome.compared == 3 + n_metrics + n_pq + n_scores + n_timings  # 3: data fingerprints
    assert Path(outcome.new_run).parent == tmp_path / "runs"


def test_a_changed_number_is_reported_with_its_key(original, tmp_path):
    tampered = tmp_path / "tampered"
    import shutil

    shutil.copytree(original, tampered)
    metrics = pd.read_csv(tampered / "metrics.csv")
    i = metrics.index[(metrics.model == "xgboost-ndcg") & (metrics.metric == "ndcg@10")
                      & (metrics.split == "test") & (metrics.seed == 1)][0]
    metrics.loc[i, "value"] += 1e-4
    metrics.to_csv(tampered / "metrics.csv", index=False)
    outcome = reproduce_run(tampered, loader=_loader)
    assert outcome.status == "mismatch"
    assert outcome.n_differences == 1
    (diff,) = outcome.differences
    assert diff["file"] == "metrics.csv"
    assert diff["key"]["model"] == "xgboost-ndcg"
    assert diff["key"]["seed"] == "1"
    assert diff["abs_diff"] == pytest.approx(1e-4)
    # within a stated tolerance the same number passes
    assert reproduce_run(tampered, loader=_loader, tolerance=1e-3).status == "match"


def test_a_committed_run_without_its_scores_file_reproduces(original, tmp_path):
    # Committed run directories leave out scores.parquet (.gitignore): the rest still compares.
    import shutil

    committed = tmp_path / "committed"
    shutil.copytree(original, committed)
    (committed / "scores.parquet").unlink()
    outcome = reproduce_run(committed, out_dir=tmp_path / "new", loader=_loader)
    assert outcome.status == "match", outcome.differences[:3]
    n_scores = len(pd.read_parquet(original / "scores.parquet"))
    full = reproduce_run(original, out_dir=tmp_path / "full", loader=_loader)
    assert outcome.compared == full.compared - n_scores


def test_missing_rows_are_differences(original, tmp_path):
    other = run_benchmark(replace(CONFIG, seeds=(0,)), out_dir=tmp_path, progress=False, loader=_loader)
    n, diffs = compare_runs(original, other)
    assert n > 0
    assert diffs
    assert all(d["key"]["seed"] == "1" and d["reproduced"] is None for d in diffs)


def test_compare_tables_checks_every_number_but_times_and_ids():
    stored = {"run_id": "a", "rows": [{"model": "m", "metrics": {"ndcg@10": {"mean": 0.5, "std": None}},
                                       "fit_s": {"mean": 1.0}}]}
    same = {"run_id": "b", "rows": [{"model": "m", "metrics": {"ndcg@10": {"mean": 0.5, "std": None}},
                                     "fit_s": {"mean": 9.0}}]}
    n, diffs = compare_tables(stored, same)
    assert diffs == []
    assert n == 3
    moved = json.loads(json.dumps(same))
    moved["rows"][0]["metrics"]["ndcg@10"]["mean"] = 0.5 + 1e-12
    assert compare_tables(stored, moved)[1][0]["key"] == "rows[0].metrics.ndcg@10.mean"
    assert compare_tables(stored, moved, tolerance=1e-9)[1] == []
    reordered = {"run_id": "a", "rows": [{"model": "other", "metrics": {"ndcg@10": {"mean": 0.5, "std": None}}}]}
    assert compare_tables(stored, reordered)[1][0]["original"] == "m"


def test_reproducing_a_leaderboard_rebuilds_each_table_and_compares_it(original, tmp_path):
    build = pytest.importorskip("bench.report.build")
    results = original.parents[1]
    doc = build.build_leaderboard([original], base_dir=results)
    path = results / "leaderboard.json"
    path.write_text(json.dumps(doc))
    (outcome,) = reproduce_leaderboard(results / "leaderboard.md", loader=_loader)
    assert outcome.status == "match", outcome.differences[:3]
    assert outcome.original_run == str(original)
    # the stored table's numbers are compared too: change one and it is found
    doc["tables"][0]["rows"][0]["metrics"]["ndcg@10"]["mean"] += 0.01
    path.write_text(json.dumps(doc))
    (outcome,) = reproduce_leaderboard(path, loader=_loader)
    assert outcome.status == "mismatch"
    assert any(d["file"] == "leaderboard" and d["key"].endswith("ndcg@10.mean") for d in outcome.differences)


def test_a_table_without_a_config_is_skipped_with_the_reason(tmp_path):
    path = tmp_path / "leaderboard.json"
    committed = Path(__file__).resolve().parent.parent / "results" / "leaderboard.json"
    doc = json.loads(committed.read_text())
    doc["tables"] = [{**doc["tables"][0], "run_id": "gone", "run_dir": "runs/gone",
                      "run_config": "runs/gone/config.toml"}]
    path.write_text(json.dumps(doc))
    (outcome,) = reproduce_leaderboard(path)
    assert outcome.status == "skipped"
    assert "config not found" in outcome.reason


def test_a_missing_leaderboard_says_what_to_give(tmp_path):
    with pytest.raises(ConfigError, match="--run DIR"):
        reproduce_leaderboard(tmp_path / "leaderboard.md")


def test_ltrbench_reproduce_run_exit_status_and_json(tmp_path, capsys):
    pytest.importorskip("bench.datasets.resolve")
    from bench.commands import reproduce as cmd

    folder = tmp_path / "tinyletor"
    for name, data in SPLITS.splits().items():
        write_svmlight(data, folder / f"{name}.txt")
    run_dir = run_benchmark(replace(CONFIG, dataset=str(folder), seeds=(0,)), out_dir=tmp_path / "r",
                            progress=False)
    parser = argparse.ArgumentParser()
    cmd.register(parser.add_subparsers())
    args = parser.parse_args(["reproduce", "--run", str(run_dir), "--format", "json"])
    assert args.func(args) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is True
    assert doc["runs"][0]["status"] == "match"
    metrics = pd.read_csv(run_dir / "metrics.csv")
    metrics.loc[0, "value"] = 0.123
    metrics.to_csv(run_dir / "metrics.csv", index=False)
    args = parser.parse_args(["reproduce", "--run", str(run_dir)])
    assert args.func(args) == 1
    out = capsys.readouterr().out
    assert "MISMATCH" in out
    assert "metrics.csv" in out
    assert "0.123" in out


def test_changed_data_is_named_before_any_number(original):
    y = SPLITS.test.y.copy()
    y[0] = 2.0 - y[0]
    changed = replace(SPLITS, test=LetorData.build(SPLITS.test.X, y, qid=SPLITS.test.qid))
    outcome = reproduce_run(original, loader=lambda spec, data_dir=None: changed)
    assert outcome.status == "mismatch"
    first = outcome.differences[0]
    assert first["file"] == "manifest.json"
    assert first["key"] == "dataset.fingerprint.test"
    assert all(not d["key"].startswith("dataset.fingerprint.") or d["key"].endswith("test")
               for d in outcome.differences if isinstance(d["key"], str))


def test_another_cpu_model_is_named_and_not_held_to_bit_identity() -> None:
    """The committed synthetic run was made on an Intel Xeon; on an AMD EPYC with the same
    packages the generated data and the fits differ in the last bits (BLAS and GBDT code paths
    are chosen per CPU). reproduce must name the CPU, not claim 'same environment'."""
    from bench.benchmark.reproduce import CROSS_ENV_TOLERANCE, environment_tolerance
    from bench.runs.manifest import environment

    now = environment()
    manifest = {"environment": {**now, "cpu_model": "Some Other CPU @ 1.00GHz"}, "threads": None}
    tolerance, why = environment_tolerance(manifest, threads=2)
    assert tolerance == CROSS_ENV_TOLERANCE
    assert "cpu_model Some Other CPU @ 1.00GHz -> " in why
    from bench import __version__  # a manifest without it: the evaluator's version unknown

    same, why_same = environment_tolerance({"environment": now, "threads": None,
                                            "ltrbench_version": __version__}, threads=2)
    assert same == 0.0
    assert "same environment" in why_same


def test_the_manifest_records_the_blas_kernels_threadpoolctl_sees() -> None:
    """The oracle is threadpoolctl itself: every BLAS it lists, with the CPU kernels chosen."""
    from threadpoolctl import threadpool_info

    from bench.runs.manifest import environment

    want = [{"internal_api": str(d["internal_api"]), "version": str(d["version"]),
             "architecture": str(d.get("architecture"))}
            for d in threadpool_info() if d["user_api"] == "blas"]
    assert environment()["blas"] == want
    assert want, "NumPy's BLAS was not found by threadpoolctl"


def test_other_blas_kernels_on_the_same_cpu_model_are_named_not_held_to_bit_identity() -> None:
    """Found by reproducing the committed MovieLens table: one 'AMD EPYC' model name, but the
    run was made where OpenBLAS chose AVX2 kernels (Haswell/Zen) and reproduced where it chose
    AVX-512 ones (SkylakeX); the converted splits differed (fingerprint cc741dfe... vs
    79465e51..., the first again under OPENBLAS_CORETYPE=Haswell) and reproduce claimed 'same
    environment: bit-identical expected'."""
    from bench.benchmark.reproduce import CROSS_ENV_TOLERANCE, environment_tolerance
    from bench.runs.manifest import environment

    now = environment()
    other = [{**b, "architecture": "SomeOtherCore"} for b in now["blas"]]
    tolerance, why = environment_tolerance({"environment": {**now, "blas": other},
                                            "threads": None}, threads=2)
    assert tolerance == CROSS_ENV_TOLERANCE
    assert "BLAS kernels openblas SomeOtherCore" in why, why
    assert f"-> openblas {now['blas'][0]['architecture']}" in why, why
    unrecorded = {k: v for k, v in now.items() if k != "blas"}  # a manifest written before
    tolerance, why = environment_tolerance({"environment": unrecorded, "threads": None},
                                           threads=2)
    assert tolerance == CROSS_ENV_TOLERANCE
    assert "BLAS kernels not recorded" in why
    assert "OPENBLAS_CORETYPE=Haswell" in why


def test_reproducing_says_only_its_comparison_not_the_datasets_warnings(tmp_path):
    """A split warning (here: test rows repeating training rows) was said when the run was made
    and is in its manifest; the rerun of ``reproduce`` printed it again before its result."""
    import warnings

    from bench.benchmark.pipeline import SplitWarning

    leaky = LetorSplits(name="tiny", train=SPLITS.train, vali=SPLITS.vali,
                        test=LetorData.build(SPLITS.train.X[:16], SPLITS.train.y[:16],
                                             qid=SPLITS.train.qid[:16] + 1000))

    def loader(spec: str, data_dir=None) -> LetorSplits:
        return leaky

    config = RunConfig(dataset="tiny", models=("random",), seeds=(0,), crosscheck=False)
    with pytest.warns(SplitWarning, match="repeat a training row"):
        run = run_benchmark(config, out_dir=tmp_path / "a", progress=False, loader=loader)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        outcome = reproduce_run(run, out_dir=tmp_path / "b", loader=loader)
    assert outcome.status == "match"
    assert not [w for w in seen if issubclass(w.category, SplitWarning)]
