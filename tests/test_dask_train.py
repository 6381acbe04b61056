"""Both Dask rankers train on query-aligned shards, choose their iteration on validation only, and
their validation numbers agree with the reference evaluator on the same scores."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("distributed")
pytest.importorskip("dask.dataframe")

import dask.dataframe as dd

from bench.data.dask_cluster import cluster
from bench.data.query_shards import read_query_shards, write_query_shards
from bench.datasets.catalogue import get_card
from bench.datasets.letor_shapes import generate_split, shape_of
from bench.errors import ConfigError, DataError
from bench.metrics.distributed import evaluate_frame
from bench.runners.dask_gbdt import predict_frame, stopping_point, train_dask
from bench.runners.params import Params

pytestmark = pytest.mark.slow

PARAMS = Params(n_trees=8, num_leaves=7, learning_rate=0.3, min_data_in_leaf=5,
                early_stopping_rounds=3, seed=1)


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with cluster(workers=2, threads=1, memory_limit="2GB") as c:
        yield c


@pytest.fixture(scope="module")
def frames(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("shards")
    shape = shape_of(get_card("synthetic-mslr30k"))
    out = {}
    for split in ("train", "vali"):
        data = generate_split(shape, split, scale=0.002, seed=3)
        write_query_shards(data, root / split, rows_per_shard=1500 if split == "train" else 500)
        out[split] = read_query_shards(root / split).persist()
    out["root"] = root
    return out


def test_stopping_point_follows_early_stoppings_rule() -> None:
    # best 0.5 at iteration 2; three rounds without a strict improvement stop at iteration 5
    assert stopping_point([0.1, 0.5, 0.5, 0.4, 0.45, 0.9], patience=3) == (5, 2)
    assert stopping_point([0.1, 0.2, 0.3], patience=3) == (3, 3)
    assert stopping_point([0.3, 0.3, 0.3], patience=1) == (2, 1)


@pytest.mark.parametrize(("library", "objective", "profile"),
                         [("xgboost", "ndcg", "xgboost"), ("lightgbm", "lambdarank", "lightgbm")])
def test_a_dask_ranker_selects_on_validation_and_its_metric_is_the_reference_one(
        client: Any, frames: dict[str, Any], library: str, objective: str, profile: str) -> None:
    fit = train_dask(library, client, frames["train"], frames["vali"], PARAMS, objective=objective)
    assert len(fit.curve) == fit.trees_grown
    assert 1 <= fit.best_iteration <= fit.stopped_at <= fit.trees_grown <= PARAMS.n_trees
    assert fit.stopped_at == stopping_point(fit.curve, PARAMS.early_stopping_rounds)[0]
    assert fit.curve[fit.best_iteration - 1] == max(fit.curve[:fit.stopped_at])
    assert len(fit.features) == 136
    scored = predict_frame(fit, frames["vali"])
    ref = evaluate_frame(scored, metrics="ndcg@10", profile=profile)
    # XGBoost's all-reduced eval log / LightGBM's curve vs the reference evaluator on the
    # model's scores at the chosen iteration, under the library's profile
    tol = 1e-6 if library == "xgboost" else 0.0
    assert abs(ref.metrics["ndcg@10"] - fit.curve[fit.best_iteration - 1]) <= tol
    assert 0.3 < ref.metrics["ndcg@10"] < 1.0
    if library == "lightgbm":  # machines from the workers' addresses, a port each, recorded
        entries = fit.notes["machines"].split(",")
        assert len(entries) == 2
        assert {e.split(":")[0] for e in entries} == {"127.0.0.1"}
        assert len({e.split(":")[1] for e in entries}) == 2


@pytest.mark.parametrize(("library", "objective", "fits"),
                         [("xgboost", "ndcg", 2), ("lightgbm", "lambdarank", 4)])
def test_fits_on_the_same_cluster_give_the_same_scores(
        client: Any, frames: dict[str, Any], library: str, objective: str, fits: int) -> None:
    # LightGBM chose which worker is which rank itself, at random between fits (the model
    # depends on it: bench.runners.lightgbm_network); 4 fits all equal by chance had 1 in 8.
    # It also took a worker's parts in the order of a set of their random keys (its
    # client.who_has): with bagging, whose draw is by row position, another model when the
    # worker holding partitions 0 and 2 read them as 2, 0 (round 17: 3 models in 4 runs)
    bagged = replace(PARAMS, subsample=0.8)
    assert frames["train"].npartitions > 2  # a worker holds two partitions
    scores = []
    for _ in range(fits):
        fit = train_dask(library, client, frames["train"], frames["vali"], bagged,
                         objective=objective)
        scores.append(predict_frame(fit, frames["vali"])["score"].compute().to_numpy())
    for other in scores[1:]:
        np.testing.assert_array_equal(scores[0], other)


def test_while_a_lightgbm_fit_is_pinned_where_parts_live_is_told_in_the_order_asked(
        client: Any) -> None:
    from bench.runners.lightgbm_network import ranks_in_worker_order

    futures = client.scatter([np.full(3, i) for i in range(24)])  # random keys: a set's order
    keys = [f.key for f in futures]
    assert list(client.who_has(futures)) != keys  # Dask's own order (24! orders, one asked)
    with ranks_in_worker_order({}, client):
        assert list(client.who_has(futures)) == keys
        assert list(client.who_has(futures[::-1])) == keys[::-1]
        assert list(client.who_has(futures[0])) == [keys[0]]  # one future: as Dask answers
        assert set(client.who_has()) >= set(keys)  # every key: as Dask answers
    assert "who_has" not in vars(client)  # the client's own method again after the fit


def test_a_split_query_is_refused_before_any_training(client: Any, frames: dict[str, Any]) -> None:
    df = frames["train"].compute().reset_index(drop=True)
    q = df["qid"].to_numpy()
    cut = int(np.flatnonzero(q[1:] == q[:-1])[3]) + 1
    bad = dd.from_map(lambda p: p, [df.iloc[:cut], df.iloc[cut:]], meta=df.iloc[:0])
    with pytest.raises(DataError, match=r"train: query qid=\d+ lies in partitions 0 and 1"):
        train_dask("xgboost", client, bad, frames["vali"], PARAMS, objective="ndcg")


def test_xgboost_refuses_fewer_validation_partitions_than_workers(
        client: Any, frames: dict[str, Any]) -> None:
    one = frames["vali"].repartition(npartitions=1)
    with pytest.raises(ConfigError, match="vali has 1 partition"):
        train_dask("xgboost", client, frames["train"], one, PARAMS, objective="ndcg")


def test_a_learning_rate_decay_is_refused_on_dask(client: Any, frames: dict[str, Any]) -> None:
    from dataclasses import replace

    decaying = replace(PARAMS, learning_rate_decay=0.01)
    with pytest.raises(ConfigError, match="learning_rate_decay is not available on the Dask engine"):
        train_dask("lightgbm", client, frames["train"], frames["vali"], decaying,
                   objective="lambdarank")


def test_an_unknown_library_is_a_config_error(client: Any, frames: dict[str, Any], tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"CatBoost has no Dask trainer; the Dask engine trains "
                                          r"lightgbm, xgboost"):
        train_dask("catboost", client, frames["train"], frames["vali"], PARAMS, objective="ndcg")


# test_run_engine_dask_writes_a_complete_run_with_the_cluster_in_its_manifest: its assertions are
# checked, on one default Dask run shared with two other tests, by tests/test_dask_loopback.py::
# test_a_default_dask_run_listens_on_loopback_only_is_complete_and_keeps_library_logs_off_the_terminal


def test_engine_settings_are_checked_and_the_local_engine_keeps_earlier_hashes() -> None:
    from dataclasses import replace

    from bench.benchmark.config import RunConfig

    base = RunConfig.from_dict({"dataset": "synthetic"})
    with pytest.raises(ConfigError, match="workers = 5 applies to engine 'dask'"):
        replace(base, engine="local", workers=5)  # the local engine would ignore it
    dask = replace(base, engine="dask")
    assert dask.config_hash() != base.config_hash()
    assert replace(dask, scheduler="tcp://10.0.0.1:8786").config_hash() == dask.config_hash()
    with pytest.raises(ConfigError, match="engine: expected one of 'local', 'dask'; got 'spark'"):
        replace(base, engine="spark")
    with pytest.raises(ConfigError, match="timing isolated applies to the local engine"):
        replace(base, engine="dask", timing="isolated")


def _die_at_iteration_2(doomed: str) -> Any:
    def callback(env: Any) -> None:
        import os

        from distributed import get_worker

        if env.iteration == 2 and get_worker().address == doomed:
            os._exit(1)  # a worker process killed in the middle of training

    return callback


def test_a_worker_killed_mid_fit_is_a_clear_error_and_the_run_resumes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    import bench.engines.dask_trainer as engine
    from bench.benchmark.config import RunConfig
    from bench.benchmark.pipeline import run_benchmark
    from bench.errors import LtrbenchError

    real = engine.train_dask

    def killing(library: str, client: Any, *args: Any, **kwargs: Any) -> Any:
        if library == "lightgbm":
            doomed = sorted(client.scheduler_info()["workers"])[1]
            kwargs["callbacks"] = [_die_at_iteration_2(doomed)]
        return real(library, client, *args, **kwargs)

    config = RunConfig.from_dict({"dataset": "synthetic", "seeds": [0], "quick": True,
                                  "models": ["xgboost-ndcg", "lightgbm-lambdarank"],
                                  "engine": "dask", "crosscheck": False})
    monkeypatch.setattr(engine, "train_dask", killing)
    # (the worker's exit is seen by the fit's watch: the lost-worker line, not LightGBM's own
    # socket error, which it was before the watch)
    with pytest.raises(LtrbenchError, match=r"lost during the lightgbm fit \(tcp://.*2 workers "
                       r"at the start, 1 of them later\).*'run --resume' trains the others"):
        run_benchmark(config, out_dir=tmp_path, progress=False)
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert sorted(p.name for p in (run_dir / "status").iterdir()) == ["xgboost-ndcg-seed0.json"]

    monkeypatch.setattr(engine, "train_dask", real)
    again = run_benchmark(config, out_dir=tmp_path, progress=False, resume=True)
    assert again == run_dir
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == {"lightgbm-lambdarank-seed0": "done", "xgboost-ndcg-seed0": "done"}
    assert manifest["finished"] is not None


@pytest.mark.parametrize(("library", "objective"), [("xgboost", "ndcg"), ("lightgbm", "lambdarank")])
def test_on_one_worker_the_dask_model_is_the_local_model(
        frames: dict[str, Any], tmp_path: Path, library: str, objective: str) -> None:
    from dataclasses import replace

    from bench.data.letor import LetorSplits
    from bench.runners.gbdt import train_gbdt

    train, vali = (frames[s].compute().reset_index(drop=True) for s in ("train", "vali"))
    from bench.data.letor import LetorData

    def letor(df: Any) -> LetorData:
        feats = [c for c in df.columns if c.startswith("f")]
        return LetorData.build(df[feats].to_numpy(np.float32), df["label"].to_numpy(np.float64),
                               qid=df["qid"].to_numpy())

    v = letor(vali)
    splits = LetorSplits(name="t", train=letor(train), vali=v,
                         test=v.take_queries(np.arange(v.n_queries - 1)))  # (a distinct test split)
    local = train_gbdt(library, splits, replace(PARAMS, n_threads=1), model=f"{library}-x",
                       objective=objective, eval_at=(10,), select_metric="ndcg@10", log_train=False)
    with cluster(workers=1, threads=1) as one:  # (its own frames: the others live on `client`)
        mine = {s: read_query_shards(frames["root"] / s) for s in ("train", "vali")}
        fit = train_dask(library, one, mine["train"], mine["vali"], PARAMS, objective=objective)
        dask_scores = predict_frame(fit, mine["vali"])["score"].compute().to_numpy()
    assert fit.best_iteration == local.best_iteration
    np.testing.assert_allclose(dask_scores, local.scores["vali"], rtol=0, atol=1e-12)
