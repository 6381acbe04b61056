"""Round 4 of hostile inputs to ``ltrbench run`` and ``bench.benchmark.run`` (issue 19): values
a Python user naturally passes (NumPy integers, a ``Path``, a ``range``), config keys that were
silently accepted (a model named twice, ``data_dir`` that is a file, a ``[params.xgboost]`` table
in a run without XGBoost), dataset specs and folders that were read without a word (a folder
with both flat files and ``Fold1/``, a scale too small to rank anything) and errors that did not
say where (a label the profile refuses, named without its file).

Every refusal is exit status 2 with one line ``error: ...`` naming the key, file or option, and
no run directory with results.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import bench.benchmark as bb
from bench import cli
from bench.errors import ConfigError, DataError

DATA = b"2 qid:1 1:0.5 2:1\n0 qid:1 1:0.1\n1 qid:1 2:0.3\n1 qid:2 1:0.2\n0 qid:2 1:0.9\n"
SPLITS = {"train": DATA, "vali": DATA.replace(b"1:0.1", b"1:0.2"),
          "test": DATA.replace(b"1:0.9", b"1:0.7")}
BASE = ('dataset = "./letor"\nmodels = ["random"]\nseeds = [0]\nquick = true\n'
        'crosscheck = false\ncache = false\n')


def _letor(folder: Path, splits: dict[str, bytes] = SPLITS) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for split, data in splits.items():
        (folder / f"{split}.txt").write_bytes(data)
    return folder


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    _letor(tmp_path / "letor")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str], *words: str) -> str:
    status = cli.main(argv)
    _, err = capsys.readouterr()
    assert "Traceback" not in err
    lines = [ln for ln in err.strip().splitlines() if ln.startswith("error: ")]
    assert status == 2, err
    assert len(lines) == 1, err
    for word in words:
        assert word in lines[0], f"{word!r} not in {lines[0]!r}"
    return lines[0]


def _config(here: Path, text: str) -> list[str]:
    (here / "c.toml").write_text(text)
    return ["run", "--config", "c.toml", "--no-progress", "--out", "res"]


# --- the Python API: NumPy integers, a Path, a range are the values they stand for ---------------

@pytest.mark.parametrize("seeds", [
    [np.int64(0), np.int32(1)], np.array([0, 1]), range(2), (np.uint8(0), 1),
], ids=["numpy-ints", "numpy-array", "range", "tuple-of-uint8-and-int"])
def test_numpy_integer_seeds_are_seeds(here: Path, seeds: object) -> None:
    result = bb.run("./letor", models="random", seeds=seeds, out_dir=here / "o")  # type: ignore[arg-type]
    assert result.config.seeds == (0, 1)
    assert all(type(s) is int for s in result.config.seeds)


def test_a_numpy_integer_scalar_is_one_seed(here: Path) -> None:
    result = bb.run("./letor", models="random", seeds=np.int64(3), out_dir=here / "o")  # type: ignore[arg-type]
    assert result.config.seeds == (3,)


@pytest.mark.parametrize(("seeds", "words"), [
    ([np.float64(1.0)], ("seeds", "item 1", "integer")),
    ([np.bool_(True)], ("seeds", "item 1", "integer")),
    (np.array([1.5]), ("seeds", "1.5")),
    ({0, 1}, ("seeds", "set")),
    ((s for s in [0]), ("seeds", "generator")),
])
def test_seeds_that_are_not_integers_stay_refused(here: Path, seeds: object,
                                                  words: tuple[str, ...]) -> None:
    with pytest.raises(ConfigError) as info:
        bb.run("./letor", models="random", seeds=seeds, out_dir=here / "o")  # type: ignore[arg-type]
    for word in words:
        assert word in str(info.value)


def test_a_path_is_a_dataset_and_a_data_dir(here: Path) -> None:
    result = bb.run(here / "letor", models="random", seeds=[0], data_dir=here,
                    out_dir=here / "o")
    assert result.config.dataset == str(here / "letor")
    assert result.config.data_dir == str(here)


def test_numpy_values_in_params_and_flags_are_their_python_values(here: Path) -> None:
    result = bb.run("./letor", models="lightgbm-lambdarank", seeds=[0], quick=np.bool_(True),  # type: ignore[arg-type]
                    params={"n_trees": np.int64(3), "learning_rate": np.float32(0.5)},
                    crosscheck=False, out_dir=here / "o")
    assert result.config.quick is True
    assert result.config.params.n_trees == 3
    assert type(result.config.params.n_trees) is int
    assert result.config.params.learning_rate == 0.5


@pytest.mark.parametrize(("kw", "words"), [
    ({"custom_models": ["mine"]}, ("custom_models", "mapping", "['mine']")),
    ({"custom_models": "mine"}, ("custom_models", "mapping", "string")),
    ({"out_dir": 5}, ("out_dir", "path", "5")),
    ({"out_dir": ""}, ("out_dir", "empty")),
    ({"dataset": b"./letor"}, ("dataset", "bytes")),
    ({"params": [("n_trees", 3)]}, ("params", "table")),
])
def test_python_arguments_of_the_wrong_type_are_one_clear_error(here: Path, kw: dict,  # type: ignore[type-arg]
                                                                words: tuple[str, ...]) -> None:
    kw = {"dataset": "./letor", "models": "random", "seeds": [0], "out_dir": here / "o", **kw}
    with pytest.raises(ConfigError) as info:
        bb.run(kw.pop("dataset"), **kw)
    for word in words:
        assert word in str(info.value), str(info.value)
    assert not (here / "o" / "runs").exists()


# --- config keys that were silently accepted --------------------------------------------------------

@pytest.mark.parametrize("models", ['["random", "random"]', '"random,random"',
                                    '["lightgbm-lambdarank", "random", "lightgbm-lambdarank"]'])
def test_a_model_named_twice_is_refused(here: Path, capsys: pytest.CaptureFixture[str],
                                        models: str) -> None:
    argv = _config(here, BASE.replace('["random"]', models))
    _refused(argv, capsys, "c.toml", "models", "named twice")


def test_a_model_named_twice_on_the_command_line_is_refused(here: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    _refused(["run", "--dataset", "./letor", "--models", "random,random", "--seeds", "0",
              "--no-progress", "--out", "res"], capsys, "--models", "named twice")


def test_an_alias_that_covers_a_named_model_is_still_one_model(here: Path) -> None:
    from bench.benchmark.config import RunConfig

    cfg = RunConfig.from_dict({"dataset": "./letor", "models": ["lightgbm", "lightgbm-lambdarank"]})
    assert cfg.models.count("lightgbm-lambdarank") == 1


def test_data_dir_that_is_a_file_is_refused(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "afile").write_text("x")
    argv = _config(here, BASE + 'data_dir = "afile"\n')
    _refused(argv, capsys, "data_dir", "afile", "not a folder")
    assert (here / "afile").read_text() == "x"


def test_a_data_dir_list_with_a_file_is_refused(here: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    (here / "afile").write_text("x")
    _refused(["run", "--dataset", "./letor", "--models", "random", "--seeds", "0", "--no-progress",
              "--data-dir", f"{here}{os.pathsep}afile", "--out", "res"], capsys,
             "--data-dir", "afile", "not a folder")


def test_a_library_table_for_a_library_not_in_the_run_is_warned(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bench.benchmark.pipeline import ConfigWarning

    argv = _config(here, BASE + "[params.xgboost]\neta = 0.1\n")
    with pytest.warns(ConfigWarning, match=r"\[params\.xgboost\]: no XGBoost model.*eta"):
        assert cli.main(argv) == 0


def test_a_config_folder_named_without_a_slash_is_a_directory_error(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _refused(["run", "--config", "letor", "--no-progress", "--out", "res"], capsys,
             "--config letor", "looks like a dataset folder", "goes to --dataset")


def test_a_config_file_with_a_unicode_name_is_read(here: Path) -> None:
    (here / "cönfig✓.toml").write_text(BASE)
    assert cli.main(["run", "--config", "cönfig✓.toml", "--no-progress", "--out", "res"]) == 0


# --- a profile that refuses the dataset's labels: said before training, naming the file ------------

def test_a_profile_that_refuses_the_labels_names_the_split_file_before_training(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = _config(here, BASE + 'profile = "recbole"\n')
    line = _refused(argv, capsys, "recbole", "is above 1")
    assert "letor/vali.txt" in line or "letor/test.txt" in line, line
    assert not list((here / "res").rglob("metrics.csv"))


# --- dataset specs and folders --------------------------------------------------------------------

def test_a_fold_the_dataset_does_not_have_lists_its_folds(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _refused(["run", "--dataset", "mslr-web10k:Fold6", "--models", "random", "--no-progress",
              "--out", "res"], capsys, "Fold6", "Fold1", "Fold5")


@pytest.mark.parametrize("spec", ["synthetic:0", "synthetic:seed=-1", "synthetic:Fold2"])
def test_an_option_of_a_dataset_that_takes_none_says_so(
        here: Path, capsys: pytest.CaptureFixture[str], spec: str) -> None:
    _refused(["run", "--dataset", spec, "--models", "random", "--no-progress", "--out", "res"],
             capsys, repr(spec.split(":", 1)[1]), "takes no")


def test_a_scale_too_small_to_rank_anything_is_refused(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _refused(["run", "--dataset", "synthetic-mslr30k:0.0000001", "--models", "random",
              "--no-progress", "--data-dir", str(here / "data"), "--out", "res"], capsys,
             "synthetic-mslr30k", "one document", "scale")
    assert not (here / "data").exists() or not any((here / "data").iterdir())


def test_a_folder_with_flat_files_and_fold1_is_refused_as_ambiguous(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _letor(here / "both")
    _letor(here / "both" / "Fold1", {**SPLITS, "test": SPLITS["vali"].replace(b"2 qid", b"1 qid")})
    _refused(["run", "--dataset", "./both", "--models", "random", "--seeds", "0",
              "--no-progress", "--out", "res"], capsys, "both", "Fold1", "train.txt")


def test_a_dataset_that_is_a_link_to_itself_is_named_as_a_link_loop(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    os.symlink("self", here / "self")
    _refused(["run", "--dataset", "self", "--models", "random", "--no-progress", "--out", "res"],
             capsys, "self", "symbolic link")


def test_splits_that_the_profile_refuses_are_refused_from_python_naming_the_split(
        here: Path) -> None:
    from bench.data.letor import LetorData, LetorSplits

    def part(y: list[float], src: str) -> LetorData:
        n = len(y)
        return LetorData.build(np.arange(2 * n, dtype=np.float64).reshape(n, 2),
                                     np.asarray(y), qid=np.repeat([1, 2], n // 2), source=src)

    splits = LetorSplits(name="mine", train=part([1, 0, 0, 1], "tr"),
                         vali=part([0, 1, 1, 0], "va"), test=part([40, 0, 1, 0], "te"))
    with pytest.raises(DataError, match=r"te.*above 31|te.*0\.\.31"):
        bb.run("mine", models="lightgbm-lambdarank", seeds=[0], splits=splits, quick=True,
               crosscheck=False, out_dir=here / "o")


@pytest.mark.parametrize(("tables", "pattern"), [
    ('[model_params.lightgbm-lambdarank]\nn_trees = 3\n',
     r"\[model_params\.lightgbm-lambdarank\]: 'lightgbm-lambdarank' is not among the models"),
    ("[als]\nfactors = 8\n", r"\[als\]: 'als' is not among the models"),
    ('[custom_models.mine]\nfactory = "custom_rankers:LinearRanker"\n',
     r"\[custom_models\.mine\]: 'mine' is not among the models; not trained"),
])
def test_a_table_for_a_model_the_run_does_not_train_is_warned(here: Path, tables: str,
                                                              pattern: str) -> None:
    from bench.benchmark.pipeline import ConfigWarning

    argv = _config(here, BASE + tables)
    with pytest.warns(ConfigWarning, match=pattern):
        assert cli.main(argv) == 0


def test_a_published_table_that_does_not_exist_is_refused_when_the_config_is_read(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = _config(here, BASE + 'published = "lightgbm-experimnts"\n')
    _refused(argv, capsys, "c.toml", "published", "lightgbm-experimnts", "valid:")


def test_an_empty_out_folder_name_is_refused(here: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:  # argparse's usage error
        cli.main(["run", "--dataset", "./letor", "--models", "random", "--seeds", "0",
                  "--no-progress", "--out", ""])
    status = exit_.value.code
    err = capsys.readouterr().err
    assert status == 2
    assert "Traceback" not in err
    assert "ltrbench run: error: argument --out: an empty value" in err, err  # a usage error
    assert not (here / "runs").exists()


# --- splits= from Python: what LetorData.build and the run accept -------------------------------

def _part(seed: int, *, nf: int = 4, y: object = None, qid: object = None) -> object:
    from bench.data.letor import LetorData

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(20, nf))
    labels = np.digitize(X[:, 0], [0.3, 1.2]).astype(float) if y is None else y
    return LetorData.build(X, labels, qid=np.repeat(np.arange(4) + 10 * seed, 5)
                           if qid is None else qid, source=f"part{seed}")


@pytest.mark.parametrize("nf", [2, 6])
def test_splits_with_different_feature_counts_are_one_clear_error(here: Path, nf: int) -> None:
    from bench.data.letor import LetorSplits

    splits = LetorSplits(name="mine", train=_part(1), vali=_part(2), test=_part(3, nf=nf))  # type: ignore[arg-type]
    with pytest.raises(DataError, match=rf"different numbers of feature columns.*train 4.*test {nf}"):
        bb.run("mine", models="lightgbm-lambdarank", seeds=[0], splits=splits, quick=True,
               crosscheck=False, out_dir=here / "o")


@pytest.mark.parametrize(("kw", "pattern"), [
    ({"y": np.r_[np.nan, np.zeros(19)]}, r"part1, row 1, column 'label': label nan is not a finite"),
    ({"y": np.r_[np.inf, np.zeros(19)]}, r"row 1, column 'label': label inf"),
    ({"y": np.array(["1"] * 20)}, r"part1.*y \(labels\) must be real numbers"),
    ({"y": np.zeros(20, dtype=complex)}, r"must be real numbers; got dtype complex128"),
    ({"qid": np.repeat([1.2, 1.7, 2.0, 3.0], 5)}, r"row 1, column 'qid': qid 1.2 is not an integer"),
    ({"qid": np.repeat(["a", "b", "c", "d"], 5)}, r"column 'qid': qid must be integers"),
    ({"qid": np.r_[np.nan, np.ones(19)]}, r"row 1, column 'qid': qid nan"),
    ({"qid": np.repeat(np.array([2**63 + 5, 1, 2, 3], dtype=np.uint64), 5)}, r"beyond int64"),
    ({"qid": np.repeat([True, False, True, False], 5)}, r"qid must be integers; got dtype bool"),
])
def test_arrays_that_are_no_ranking_data_are_refused_when_built(kw: dict, pattern: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(DataError, match=pattern):
        _part(1, **kw)


def test_integer_valued_float_qids_are_accepted_and_boolean_labels_refused() -> None:
    """Round 23b: a bool label is refused here as by ``evaluate`` and the shard reader (one
    rule: a bool is no grade); whole float qids are the integers they hold."""
    d = _part(1, qid=np.repeat([1.0, 2.0, 3.0, 4.0], 5), y=np.tile([1.0, 0.0], 10))
    assert d.qid.tolist() == np.repeat([1, 2, 3, 4], 5).tolist()  # type: ignore[attr-defined]
    with pytest.raises(DataError, match=r"row 1: y \(labels\) value True is a bool"):
        _part(1, qid=np.repeat([1.0, 2.0, 3.0, 4.0], 5), y=np.tile([True, False], 10))


# --- RunResult: save and to_frame ------------------------------------------------------------------

@pytest.fixture
def result(here: Path) -> object:
    return bb.run("./letor", models="random", seeds=[0], crosscheck=False, out_dir=here / "o")


def test_saving_a_run_into_itself_is_refused_and_leaves_it_as_it_was(result: object) -> None:
    run_dir = result.run_dir  # type: ignore[attr-defined]
    before = sorted(p.name for p in run_dir.iterdir())
    for inside in (run_dir, run_dir / "sub"):
        with pytest.raises(ConfigError, match="inside the run directory"):
            result.save(inside)  # type: ignore[attr-defined]
    assert sorted(p.name for p in run_dir.iterdir()) == before


@pytest.mark.parametrize("where", ["parent", "twice", "file", "under-file", "int", "empty"])
def test_saving_where_a_copy_cannot_go_is_one_clear_error(result: object, here: Path,
                                                          where: str) -> None:
    (here / "afile").write_text("x")
    folder: object = {"parent": result.run_dir.parent, "twice": here / "s",  # type: ignore[attr-defined]
                      "file": here / "afile", "under-file": here / "afile" / "x", "int": 5,
                      "empty": ""}[where]
    if where == "twice":
        result.save(folder)  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match="save: "):
        result.save(folder)  # type: ignore[attr-defined]
    assert (here / "afile").read_text() == "x"


@pytest.mark.parametrize("split", ["train", "nope", 5])
def test_a_frame_of_a_split_the_run_did_not_evaluate_is_refused_not_empty(result: object,
                                                                         split: object) -> None:
    with pytest.raises(ConfigError, match=r"split: expected one of the run's evaluated splits"):
        result.to_frame(split)  # type: ignore[attr-defined]
    assert not result.to_frame("test").empty  # type: ignore[attr-defined]


@pytest.mark.parametrize(("options", "pattern"), [
    ({"primry": "ndcg@10"}, r"leaderboard: unknown option 'primry'; did you mean 'primary'"),
    ({"confidence": 2}, r"leaderboard: .*confidence"),
])
def test_a_leaderboard_option_that_does_not_exist_or_fit_is_one_clear_error(
        result: object, options: dict, pattern: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ConfigError, match=pattern):
        result.leaderboard(**options)  # type: ignore[attr-defined]


def test_a_run_result_is_read_from_a_string_path_and_refused_for_a_folder_that_is_no_run(
        result: object, here: Path) -> None:
    from bench.benchmark.api import RunResult

    again = RunResult(str(result.run_dir))  # type: ignore[arg-type, attr-defined]
    assert again.to_frame().equals(result.to_frame())  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match="not a run directory"):
        RunResult(here / "nope")


def test_relative_paths_in_a_config_are_relative_to_the_current_folder_not_the_config(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Decided and documented in :mod:`bench.benchmark.config`: as on the command line."""
    (here / "sub").mkdir()
    (here / "sub" / "c.toml").write_text(BASE)  # dataset = "./letor": here/letor, not sub/letor
    assert cli.main(["run", "--config", "sub/c.toml", "--no-progress", "--out", "res"]) == 0
    manifest = next((here / "res").rglob("manifest.json")).read_text()
    assert "letor/train.txt" in manifest
    assert "sub/letor" not in manifest
    _letor(here / "sub" / "letor")
    (here / "letor" / "train.txt").unlink()  # only sub/letor is whole now: still not read
    _refused(["run", "--config", "sub/c.toml", "--no-progress", "--out", "res2"], capsys,
             "letor")
