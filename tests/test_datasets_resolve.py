"""``load_dataset``: catalogue names and paths to LetorSplits, checks and card digests."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import with_shared_data

import bench.datasets.fetch as fetch_mod
from bench.data.letor import LetorData
from bench.data.parquet import write_parquet
from bench.datasets.resolve import load_dataset
from bench.errors import ConfigError, DataError


def _adapter_available() -> bool:
    try:
        from bench.adapters import AdapterConfig, ratings_to_letor  # noqa: F401
        from bench.datasets.synthetic import generate_ratings  # noqa: F401
    except ImportError:
        return False
    return True


needs_adapter = pytest.mark.skipif(
    not _adapter_available(),
    reason="bench.adapters.ratings_to_letor / bench.datasets.synthetic.generate_ratings not there yet",
)


@pytest.fixture
def ohsumed(shared_data: Path) -> Path:
    d = shared_data / "letor3-OHSUMED-QueryLevelNorm"
    if not d.is_dir():
        pytest.skip(f"{d} is absent")
    return d


@pytest.fixture
def no_shared(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(fetch_mod.ENV_VAR, raising=False)


def test_ohsumed_by_name_is_fold1_of_the_shared_copy(ohsumed: Path, tmp_path: Path) -> None:
    s = load_dataset("ohsumed", data_dir=with_shared_data(tmp_path))
    assert s.name == "ohsumed"
    assert (s.train.n_queries, s.vali.n_queries, s.test.n_queries) == (63, 21, 22)
    assert s.meta["card"] == "ohsumed"
    assert s.meta["fold"] == "Fold1"
    assert s.meta["folder"] == str(ohsumed)
    train = ohsumed / "Fold1" / "train.txt"
    assert s.inputs[str(train)] == hashlib.sha256(train.read_bytes()).hexdigest()
    checks = s.meta["checks"]
    assert checks["test"]["queries"] == 22
    assert checks["train"]["gain"] == "exp2"
    assert checks["train"]["label_max"] == 2.0


def test_path_gives_the_same_data_as_the_name(ohsumed: Path, tmp_path: Path) -> None:
    by_name = load_dataset("ohsumed", data_dir=with_shared_data(tmp_path))
    by_path = load_dataset(str(ohsumed))
    assert by_path.name == "letor3-OHSUMED-QueryLevelNorm"
    for split in ("train", "vali", "test"):
        a, b = by_name.splits()[split], by_path.splits()[split]
        assert np.array_equal(a.X, b.X)
        assert np.array_equal(a.qid, b.qid)


def test_lightgbm_example_by_name(shared_data: Path, tmp_path: Path) -> None:
    if not (shared_data / "lightgbm-lambdarank").is_dir():
        pytest.skip("lightgbm-lambdarank is absent")
    s = load_dataset("lightgbm-lambdarank", data_dir=with_shared_data(tmp_path))
    assert (s.train.n_queries, s.vali.n_queries, s.test.n_queries) == (161, 40, 50)
    assert s.meta["validation"]["rule"] == "carved from train by query"
    assert len(s.inputs) == 4


def test_a_modified_copy_in_the_data_dir_is_refused_by_name_but_loads_by_path(
    ohsumed: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "letor3-OHSUMED-QueryLevelNorm"
    shutil.copytree(ohsumed / "Fold1", copy / "Fold1")
    with open(copy / "Fold1" / "test.txt", "a") as fh:
        fh.write("0 qid:999 1:0.5\n")
    with pytest.raises(DataError, match=r"test\.txt: sha256 .* differs from the 'ohsumed' card"):
        load_dataset("ohsumed", data_dir=with_shared_data(tmp_path))
    s = load_dataset(str(copy))
    assert s.test.query_ids[-1] == 999


def test_flat_letor_folder_and_parquet_folder_by_path(tmp_path: Path) -> None:
    flat = tmp_path / "flat"
    flat.mkdir()
    (flat / "train.txt").write_text("2 qid:1 1:1\n0 qid:1 1:2\n1 qid:2 2:1\n0 qid:2 1:1\n")
    (flat / "vali.txt").write_text("1 qid:3 1:1\n0 qid:3 1:3\n")
    (flat / "test.txt").write_text("1 qid:4 2:1\n0 qid:4 1:3\n")
    s = load_dataset(str(flat))
    assert s.name == "flat"
    assert s.train.n_features == 2
    pq_dir = tmp_path / "pq"
    for split, part in s.splits().items():
        write_parquet(part, pq_dir / f"{split}.parquet")
    back = load_dataset(str(pq_dir))
    assert np.array_equal(back.vali.X, s.vali.X)


def test_labels_that_exponential_gain_cannot_take_are_caught_before_training(
    tmp_path: Path,
) -> None:
    d = tmp_path / "bad"
    d.mkdir()
    (d / "train.txt").write_text("40 qid:1 1:1\n0 qid:1 1:2\n")
    (d / "vali.txt").write_text("1 qid:2 1:1\n")
    (d / "test.txt").write_text("1 qid:3 1:1\n")
    with pytest.raises(DataError, match=r"train\.txt:1, row 1, column 'label': label 40"):
        load_dataset(str(d))


def test_unknown_name_lists_valid_names_and_missing_path_is_a_data_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"valid: .*ml-latest-small"):
        load_dataset("no-such-dataset")
    with pytest.raises(DataError, match="no such file or folder"):
        load_dataset(str(tmp_path / "missing"))


def test_absent_dataset_says_where_it_looked_and_how_to_get_it(
    tmp_path: Path, no_shared: None
) -> None:
    with pytest.raises(DataError) as info:
        load_dataset("mslr-web10k", data_dir=tmp_path)
    msg = str(info.value)
    assert str(tmp_path) in msg
    assert "ltrbench datasets fetch mslr-web10k" in msg
    with pytest.raises(DataError, match="no automatic download"):
        load_dataset("mq2008", data_dir=tmp_path)


def test_mslr_fold_option_reads_that_fold(tmp_path: Path, no_shared: None) -> None:
    root = tmp_path / "MSLR-WEB10K"
    for k in (1, 3):
        fold = root / f"Fold{k}"
        fold.mkdir(parents=True)
        for split in ("train", "vali", "test"):
            (fold / f"{split}.txt").write_text(f"1 qid:{k} 1:{k}\n0 qid:{k} 136:1\n")
    s = load_dataset("mslr-web10k:Fold3", data_dir=tmp_path)
    assert s.name == "mslr-web10k:Fold3"
    assert s.train.query_ids.tolist() == [3]
    assert s.train.n_features == 136
    assert load_dataset("mslr-web10k", data_dir=tmp_path).name == "mslr-web10k"


def test_a_letor_parquet_file_alone_is_not_a_dataset(tmp_path: Path) -> None:
    f = tmp_path / "train.parquet"
    write_parquet(LetorData.build(np.zeros((1, 1)), [1], qid=[1]), f)
    with pytest.raises(DataError, match="give the folder"):
        load_dataset(str(f))


# --------------------------------------------------------------------------- ratings branch


@needs_adapter
def test_ml_latest_small_by_name_goes_through_the_adapter(shared_data: Path, tmp_path: Path) -> None:
    if not (shared_data / "ml-latest-small").is_dir():
        pytest.skip("ml-latest-small is absent")
    s = load_dataset("ml-latest-small", data_dir=with_shared_data(tmp_path))
    assert s.name == "ml-latest-small"
    ratings_csv = str(shared_data / "ml-latest-small" / "ratings.csv")
    assert s.inputs[ratings_csv] == \
        "aa289ca83157595d0df6aea1be6a4ded676ddc4385472e8313a8ed9805352646"
    assert s.train.user is not None
    assert s.train.n_rows > 0
    assert set(s.meta["checks"]) == {"train", "vali", "test"}


@needs_adapter
def test_synthetic_default_goes_through_the_adapter() -> None:
    s = load_dataset("synthetic")
    assert s.name == "synthetic"
    assert s.inputs == {}
    assert s.test.n_queries > 0


@needs_adapter
def test_ratings_csv_path_with_guessed_columns(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    rows = {(int(u), int(i)) for u, i in zip(rng.integers(0, 30, 3000), rng.integers(0, 200, 3000),
                                             strict=True)}
    lines = [f"{u},{i},{1 + (u * i) % 5},{1000 + k}" for k, (u, i) in enumerate(sorted(rows))]
    f = tmp_path / "my_ratings.csv"
    f.write_text("user_id,item_id,rating,timestamp\n" + "\n".join(lines) + "\n")
    s = load_dataset(str(f))
    assert s.name == "my_ratings"
    assert list(s.inputs) == [str(f)]


def _stand_in_adapter(ratings, config=None, *, progress=None):  # type: ignore[no-untyped-def]
    """A trivial ratings -> LETOR conversion (users are queries; label = 2 * rating)."""
    from bench.data.letor import LetorSplits

    f = ratings.frame.sort_values(["user", "item"], kind="stable")
    data = LetorData.build(f[["timestamp"]].to_numpy(float), (2 * f["rating"]).to_numpy(),
                           qid=f["user"].to_numpy(), user=f["user"].to_numpy(),
                           item=f["item"].to_numpy(), feature_names=("timestamp",))
    return LetorSplits(name="stand-in", train=data, vali=data, test=data,
                       inputs={"adapter": "ignored"}, meta={"adapter": "stand-in"})


def test_ratings_branch_wiring_with_a_stand_in_adapter(
    monkeypatch: pytest.MonkeyPatch, shared_data: Path, tmp_path: Path
) -> None:
    """Until the real adapter lands: names, inputs (full paths) and checks of the ratings path."""
    import bench.adapters

    if not (shared_data / "ml-latest-small").is_dir():
        pytest.skip("ml-latest-small is absent")
    monkeypatch.setattr(bench.adapters, "AdapterConfig", lambda: None, raising=False)
    monkeypatch.setattr(bench.adapters, "ratings_to_letor", _stand_in_adapter, raising=False)
    s = load_dataset("ml-latest-small", data_dir=with_shared_data(tmp_path))
    assert s.name == "ml-latest-small"
    assert s.meta["adapter"] == "stand-in"
    folder = shared_data / "ml-latest-small"
    assert s.inputs == {str(folder / n): hashlib.sha256((folder / n).read_bytes()).hexdigest()
                        for n in ("ratings.csv", "movies.csv", "tags.csv")}
    assert s.meta["checks"]["train"]["queries"] == 610
    assert s.meta["checks"]["train"]["label_max"] == 10.0
    assert s.meta["ratings"]["ratings"] == 100_836
    csv_file = tmp_path / "clicks.csv"
    csv_file.write_text("userId,movieId\n1,5\n1,6\n2,5\n")
    t = load_dataset(str(csv_file))
    assert t.name == "clicks"
    assert list(t.inputs) == [str(csv_file)]
    assert t.train.y.tolist() == [2.0, 2.0, 2.0]  # implicit: every interaction rated 1
