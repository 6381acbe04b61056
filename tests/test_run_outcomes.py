"""What a finished run reports about itself: the permute summary's keys, a cross-check that
does not apply."""

from __future__ import annotations

import numpy as np

from bench.data.letor import LetorData, LetorSplits


def _clean(seed: int, rows: int = 40) -> LetorData:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(rows, 3)).astype(np.float32)
    y = np.tile([0.0, 1.0, 2.0, 0.0], rows // 4)
    qid = np.repeat(np.arange(rows // 4) + 100 * seed, 4)
    offsets = np.arange(0, rows + 1, 4, dtype=np.int64)
    return LetorData(X=X, y=y, qid=qid, offsets=offsets,
                     feature_names=tuple(f"f{j}" for j in range(3)), source="d")


def test_a_retrained_models_change_is_not_filed_under_the_reference_evaluator(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import pandas as pd

    from bench.benchmark.config import RunConfig
    from bench.benchmark.pipeline import run_benchmark
    from bench.benchmark.summary import summarize_run

    config = RunConfig(dataset="d", models=("random",), seeds=(0,), crosscheck=False)
    run_dir = run_benchmark(config, splits=LetorSplits("d", _clean(1), _clean(2), _clean(3)),
                            out_dir=tmp_path, progress=False)
    pd.DataFrame({
        "model": ["m", "m", "m"], "seed": [0, 0, 0], "split": ["test"] * 3,
        "metric": ["ndcg@10"] * 3, "evaluator": ["reference", "lightgbm", "reference"],
        "original": [0.5, 0.5, 0.5], "permuted": [0.5, 0.4, 0.47], "delta": [0.0, -0.1, -0.03],
        "tied_rows": [0.0] * 3, "retrained": [False, False, True],
    }).to_csv(run_dir / "permute.csv", index=False)
    deltas = summarize_run(run_dir)["permute_check"]["max_abs_delta"]
    assert deltas == {"reference": 0.0, "lightgbm": 0.1,
                      "retrained model (reference metric)": 0.03}


def test_a_run_of_baselines_only_skips_the_cross_check_instead_of_failing(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    from bench import cli
    from bench.data.parquet import write_parquet

    folder = tmp_path / "d"
    folder.mkdir()
    for name, d in (("train", _clean(1)), ("vali", _clean(2)), ("test", _clean(3))):
        write_parquet(d, folder / f"{name}.parquet")
    status = cli.main(["run", "--dataset", str(folder), "--models", "random", "--seeds", "0",
                       "--out", str(tmp_path / "res"), "--no-progress", "--no-cache"])
    out = capsys.readouterr().out
    assert status == 0
    assert "cross-check: not applicable (no LightGBM/XGBoost/CatBoost model" in out
    run_dir = next((tmp_path / "res" / "runs").iterdir())
    assert json.loads((run_dir / "manifest.json").read_text())["crosscheck"]["ok"] is None
