"""LETOR-shaped synthetic datasets: the published shapes, determinism, the text round trip, and a
model that learns something.

Golden values are the published numbers (typed in here from the sources each card cites), not
anything the generator computes: the cards must hold them, and the generated data must match them
at scale 0.01 (query and row counts exactly, after rounding; label proportions within 0.002,
that is rounding at a few thousand rows).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from bench.data.folders import read_letor_folder
from bench.data.letor import LetorData, LetorSplits
from bench.datasets.catalogue import generation_options, get_card, load_card, render_markdown
from bench.datasets.fetch import fetch
from bench.datasets.letor_shapes import (
    _fit_sigma,
    generate_letor_shape,
    generate_split,
    shape_folder,
    shape_of,
    write_letor_shape,
)
from bench.datasets.letor_text import write_letor_text
from bench.datasets.resolve import load_dataset
from bench.errors import ConfigError, DataError

SHAPES = ("synthetic-mslr30k", "synthetic-yahoo", "synthetic-istella")

#: The published numbers (sources: the [shape.sources] of each card).
PUBLISHED: dict[str, dict[str, object]] = {
    "synthetic-mslr30k": {  # MSLR-WEB30K Fold1
        "queries": {"train": 18919, "vali": 6306, "test": 6306},
        "rows": {"train": 2270296, "vali": 747218, "test": 753611},
        "features": 136,
        "labels": [1940687, 1225770, 504052, 69893, 30723],
    },
    "synthetic-yahoo": {  # Yahoo! LTR Challenge set 1
        "queries": {"train": 19944, "vali": 2994, "test": 6983},
        "rows": {"train": 473134, "vali": 71083, "test": 165660},
        "features": 700,
        "labels": [223089, 340921, 241265, 61172, 16300],
    },
    "synthetic-istella": {  # Istella LETOR full: train and test only
        "queries": {"train": 23219, "test": 9799},
        "rows": {"train": 7325625, "test": 3129004},
        "features": 220,
        "labels": [0.96, 0.014, 0.013, 0.009, 0.004],  # assumed (no published histogram)
    },
}
SCALE = 0.01


def _expected(name: str, split: str, scale: float = SCALE) -> tuple[int, int]:
    pub = PUBLISHED[name]
    q = max(1, round(pub["queries"][split] * scale))  # type: ignore[index]
    return q, max(q, round(pub["rows"][split] * scale))  # type: ignore[index]


def _proportions(y: np.ndarray) -> np.ndarray:
    return np.bincount(y.astype(np.int64), minlength=5) / y.shape[0]


@pytest.fixture(scope="module")
def generated() -> dict[str, LetorSplits]:
    return {name: generate_letor_shape(shape_of(get_card(name)), scale=SCALE) for name in SHAPES}


@pytest.mark.parametrize("name", SHAPES)
def test_cards_hold_the_published_numbers_and_their_sources(name: str) -> None:
    card = get_card(name)
    assert card.kind == "synthetic"
    assert card.loader == "letor-shapes"
    pub = PUBLISHED[name]
    for key in ("queries", "rows", "features", "labels"):
        assert card.shape[key] == pub[key], key
    shape = shape_of(card)
    for key in ("queries", "rows", "features", "labels", "docs"):
        assert len(shape.sources[key]) > 20, key
    get_card(shape.stands_in_for)  # the real dataset it stands in for is catalogued
    total = sum(pub["labels"])  # type: ignore[arg-type]
    assert shape.labels == pytest.approx([x / total for x in pub["labels"]])  # type: ignore[union-attr]
    assert f"`{name}`" in render_markdown()


@pytest.mark.parametrize("name", SHAPES)
def test_shape_at_scale_matches_the_published_numbers(
    name: str, generated: dict[str, LetorSplits]
) -> None:
    pub, splits, shape = PUBLISHED[name], generated[name], shape_of(get_card(name))
    labels = np.array(pub["labels"], dtype=np.float64)
    labels /= labels.sum()
    parts = splits.splits()
    if "vali" not in pub["queries"]:  # type: ignore[operator]
        # Istella full has no validation file: 20% of the training queries are carved out
        train_q, train_rows = _expected(name, "train")
        assert parts["train"].n_queries + parts["vali"].n_queries == train_q
        assert parts["vali"].n_queries == round(0.2 * train_q)
        assert parts["train"].n_rows + parts["vali"].n_rows == train_rows
        pooled = np.concatenate([parts["train"].y, parts["vali"].y])
        assert np.abs(_proportions(pooled) - labels).max() < 0.002
        parts = {"test": parts["test"]}
    for split, data in parts.items():
        q, rows = _expected(name, split)
        assert (data.n_queries, data.n_rows) == (q, rows), split
        assert data.n_features == pub["features"]
        assert data.X.dtype == np.float32
        assert set(np.unique(data.y)) <= {0.0, 1.0, 2.0, 3.0, 4.0}
        assert np.abs(_proportions(data.y) - labels).max() < 0.002, split
        sizes = data.group_sizes
        assert sizes.min() >= 1
        if shape.docs_max is not None:
            assert sizes.max() <= shape.docs_max
        assert np.isfinite(data.X).all()
        assert np.unique(data.qid).shape[0] == data.n_queries
    ids = [d.query_ids for d in splits.splits().values()]
    assert np.unique(np.concatenate(ids)).shape[0] == sum(i.shape[0] for i in ids)


def test_yahoo_is_sparse_as_published(generated: dict[str, LetorSplits]) -> None:
    X = generated["synthetic-yahoo"].train.X
    assert ((X != 0).sum(axis=1).mean()) == pytest.approx(223, abs=3)  # non-zero per row
    assert (X != 0).any(axis=0).sum() == 519  # features defined in set 1
    assert X.min() >= 0  # normalised to [0, 1]
    assert X.max() <= 1


def test_documents_per_query_lognormal_fitted_to_the_published_maximum() -> None:
    sigma = _fit_sigma(3771125 / 31531, 1251, 31531)  # MSLR-WEB30K
    draws = np.random.default_rng(0).lognormal(0, sigma, (20, 31531))
    draws *= (3771125 / 31531) / draws.mean(axis=1, keepdims=True)
    assert draws.max(axis=1).mean() == pytest.approx(1251, rel=0.25)


def test_generation_is_deterministic_for_a_seed() -> None:
    shape = shape_of(get_card("synthetic-mslr30k"))
    a = generate_split(shape, "vali", scale=0.002, seed=5)
    b = generate_split(shape, "vali", scale=0.002, seed=5)
    c = generate_split(shape, "vali", scale=0.002, seed=6)
    for field in ("X", "y", "qid", "offsets"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    assert not np.array_equal(a.X, c.X)
    assert not np.array_equal(a.y, c.y)


def _assert_same(a: LetorData, b: LetorData) -> None:
    assert b.X.dtype == np.float32
    assert a.X.shape == b.X.shape
    assert np.array_equal(a.X, b.X)  # float32, bit for bit
    assert np.array_equal(a.y, b.y)
    assert np.array_equal(a.qid, b.qid)
    assert np.array_equal(a.offsets, b.offsets)


@pytest.mark.parametrize(("name", "scale"), [
    ("synthetic-mslr30k", 0.005), ("synthetic-yahoo", 0.01), ("synthetic-istella", 0.001),
])
def test_written_text_folder_reads_back_exactly(tmp_path: Path, name: str, scale: float) -> None:
    card = get_card(name)
    shape = shape_of(card)
    files = write_letor_shape(shape, tmp_path, scale=scale, seed=1)
    assert {s: p.relative_to(tmp_path).as_posix() for s, p in files.items()} == shape.files
    back = read_letor_folder(tmp_path, splits=card.splits)
    expected = generate_letor_shape(shape, scale=scale, seed=1)
    for split in ("train", "vali", "test"):
        _assert_same(expected.splits()[split], back.splits()[split])
    line = files["train"].read_text(encoding="utf-8").split("\n", 1)[0]
    values = [t.split(":", 1)[1] for t in line.split()[2:]]
    assert line.split()[1] == "qid:1"
    assert not any(re.search(r"\.\d*0$", v) for v in values)  # no trailing zeros
    if name == "synthetic-mslr30k":  # every feature written, counts without a decimal point
        assert len(values) == 136
        assert re.fullmatch(r"\d+", values[0])
    else:  # zero features left out, as in the real files
        assert "0" not in values


def test_load_dataset_generates_once_then_reads_the_text_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = "synthetic-mslr30k:0.002,seed=3"
    splits = load_dataset(spec, data_dir=tmp_path)
    card = get_card(spec)
    folder = tmp_path / shape_folder(card, 0.002, 3)
    assert folder.name == "synthetic-mslr30k-v1-scale0.002-seed3"
    assert splits.name == spec
    assert splits.meta["folder"] == str(folder)
    assert splits.meta["generated"]["stands_in_for"] == "mslr-web30k:Fold1"  # type: ignore[index]
    assert set(splits.inputs) == {str(folder / "Fold1" / f) for f in
                                  ("train.txt", "vali.txt", "test.txt")}
    expected = generate_letor_shape(shape_of(card), scale=0.002, seed=3)
    for split in ("train", "vali", "test"):
        _assert_same(expected.splits()[split], splits.splits()[split])

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("generated twice")

    monkeypatch.setattr("bench.datasets.letor_shapes.write_letor_shape", refuse)
    again = load_dataset(spec, data_dir=tmp_path)
    assert np.array_equal(again.test.X, splits.test.X)
    # nothing left behind but the folder and the parsed-file cache
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", folder.name]


def test_istella_shape_carves_validation_like_the_real_full(tmp_path: Path) -> None:
    splits = load_dataset("synthetic-istella:0.0005", data_dir=tmp_path)
    assert splits.meta["validation"]["rule"] == "carved from train by query"  # type: ignore[index]
    assert sorted(p.name for p in (tmp_path / "synthetic-istella-v1-scale0.0005-seed0" / "full")
                  .iterdir()) == ["test.txt", "train.txt"]
    assert splits.train.n_features == splits.test.n_features == 220


def test_spec_options() -> None:
    assert generation_options("synthetic-mslr30k") == (1.0, 0)
    assert generation_options("synthetic-mslr30k:0.01") == (0.01, 0)
    assert generation_options("synthetic-yahoo:scale=0.1,seed=2") == (0.1, 2)
    assert generation_options("synthetic-istella:seed=4") == (1.0, 4)
    assert get_card("synthetic-mslr30k:0.01").name == "synthetic-mslr30k"
    for bad in ("synthetic-mslr30k:abc", "synthetic-mslr30k:0", "synthetic-mslr30k:seed=-1",
                "synthetic-mslr30k:0.1,colour=red", "synthetic-mslr30k:11"):
        with pytest.raises(ConfigError, match="NAME:SCALE"):
            get_card(bad)
    with pytest.raises(ConfigError, match="generated by ltrbench"):
        fetch("synthetic-mslr30k")


def test_writer_refuses_values_off_their_grid(tmp_path: Path) -> None:
    data = LetorData.build(np.array([[0.5, 0.1234567]], dtype=np.float32), [1], qid=[1])
    with pytest.raises(DataError, match=r"feature 2 .* not on its 4-decimal grid"):
        write_letor_text(data, tmp_path / "x.txt", decimals=[1, 4])
    assert not (tmp_path / "x.txt").exists()
    write_letor_text(data, tmp_path / "y.txt", decimals=[1, 7])
    assert (tmp_path / "y.txt").read_text() == "1 qid:1 1:0.5 2:0.1234567\n"


def test_bad_shape_table_is_a_config_error(tmp_path: Path) -> None:
    text = (Path(get_card("synthetic-yahoo").path).read_text(encoding="utf-8")
            .replace("defined_features = 519", "defined_features = 901"))
    f = tmp_path / "synthetic-yahoo.toml"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=r"synthetic-yahoo\.toml \[shape\]: need 1 <= defined"):
        shape_of(load_card(f))


@pytest.mark.slow
def test_lightgbm_learns_synthetic_mslr30k_well_above_random(
    generated: dict[str, LetorSplits],
) -> None:
    import lightgbm as lgb

    from bench.metrics.evaluate import evaluate

    data = generated["synthetic-mslr30k"]
    params = {"objective": "lambdarank", "num_leaves": 31, "learning_rate": 0.1,
              "num_threads": 1, "verbose": -1, "seed": 0}
    booster = lgb.train(params, lgb.Dataset(data.train.X, data.train.y,
                                            group=data.train.group_sizes), num_boost_round=30)
    test = data.test

    def ndcg10(scores: np.ndarray) -> float:
        return evaluate(test.y, scores, group=test.group_sizes, metrics="ndcg@10").metrics["ndcg@10"]

    model = ndcg10(booster.predict(test.X))
    random = float(np.mean([ndcg10(np.random.default_rng(s).random(test.n_rows))
                            for s in range(5)]))
    assert model > random + 0.2, (model, random)
