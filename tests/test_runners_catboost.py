"""CatBoost through the GBDT skeleton: selection on the validation log only, scores from the
chosen iteration, the built-in metric equal to the reference under the ``catboost`` profile."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("catboost")

from bench.data.letor import LetorData, LetorSplits
from bench.metrics import evaluate
from bench.runners.dispatch import run_model
from bench.runners.params import Params


def _split(seed: int, queries: int = 40, per: int = 10) -> LetorData:
    rng = np.random.default_rng(seed)
    n = queries * per
    X = rng.normal(size=(n, 5)).astype(np.float32)
    y = np.clip(np.round(X[:, 0] + 0.5 * X[:, 1] + rng.normal(0, 0.7, n) + 1), 0, 3)
    qid = np.repeat(np.arange(queries) + 1000 * seed, per)
    return LetorData(X=X, y=y.astype(np.float64), qid=qid,
                     offsets=np.arange(0, n + 1, per, dtype=np.int64),
                     feature_names=tuple(f"f{j}" for j in range(5)), source=f"s{seed}")


@pytest.mark.parametrize("model", ["catboost-yetirank", "catboost-pairlogit"])
def test_catboost_selects_on_validation_and_its_log_is_the_reference_metric(model: str) -> None:
    splits = LetorSplits("toy", _split(1), _split(2), _split(3))
    params = Params(n_trees=30, num_leaves=8, learning_rate=0.2, early_stopping_rounds=5,
                    n_threads=1, seed=0)
    r = run_model(model, splits, params, seed=0, eval_at=(10,), select_metric="ndcg@10")
    log = r.evallog
    assert set(log["split"]) <= {"train", "vali"}  # the test split never reaches the library
    vali = log[(log["split"] == "vali") & (log["metric"] == "ndcg@10")].sort_values("iteration")
    values = vali["value"].to_numpy()
    assert r.best_iteration == int(vali["iteration"].to_numpy()[int(np.argmax(values))])
    assert r.n_trees is not None
    assert r.best_iteration <= r.n_trees <= 30
    assert r.scores["test"].shape == (splits.test.n_rows,)
    # CatBoost's own NDCG at the chosen iteration = the reference under the catboost profile
    ref = evaluate(splits.vali.y, r.scores["vali"], qid=splits.vali.qid, metrics="ndcg@10",
                   profile="catboost").metrics["ndcg@10"]
    assert ref == pytest.approx(float(values.max()), abs=1e-6)
