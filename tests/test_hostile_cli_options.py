"""Hostile command-line options: an empty value is refused (never read as "use the default"),
and a misspelt model, dataset, profile or device names the closest valid one."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.cli import main
from bench.errors import ConfigError
from bench.metrics.profiles import get_profile
from bench.runners.registry import get_model


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    try:
        status = main(list(argv))
    except SystemExit as exc:  # argparse's usage errors (exit 2, one "error:" line)
        status = int(exc.code or 0)
    err = capsys.readouterr().err
    return status, err


@pytest.mark.parametrize(("option", "said"), [  # one rule for every option (bench.cli)
    ("--models", "argument --models: an empty value"),
    ("--dataset", "argument --dataset: an empty value"),
    ("--profile", "argument --profile: an empty value"),
    ("--data-dir", "argument --data-dir: an empty value"),
    ("--metrics", "argument --metrics: an empty value"),
])
def test_an_empty_run_option_is_refused_not_read_as_the_default(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, option: str, said: str
) -> None:
    argv = ["run", "--dataset", "synthetic", "--models", "random", "--quick", "--seeds", "0",
            "--no-progress", "--out", str(tmp_path / "out")]
    i = argv.index(option) + 1 if option in argv else None
    if i is None:
        argv += [option, ""]
    else:
        argv[i] = ""
    status, err = _run(capsys, *argv)
    assert status == 2, err
    assert said in err
    assert "Traceback" not in err
    assert not (tmp_path / "out").exists()  # refused before any work


@pytest.mark.parametrize(("typo", "meant"), [
    ("lightgbm-lambdarnk", "lightgbm-lambdarank"),
    ("xgboost-ndgc", "xgboost-ndcg"),
    ("LightGBM", "lightgbm"),
])
def test_a_misspelt_model_names_the_closest(typo: str, meant: str) -> None:
    with pytest.raises(ConfigError, match=f"did you mean '{meant}'"):
        get_model(typo)


def test_a_misspelt_profile_names_the_closest() -> None:
    with pytest.raises(ConfigError, match="did you mean 'trec_eval'"):
        get_profile("trec_eva")


def test_a_misspelt_dataset_names_the_closest(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    status, err = _run(capsys, "run", "--dataset", "synthetc", "--models", "random", "--quick",
                       "--no-progress", "--out", str(tmp_path / "out"))
    assert status == 2
    assert "did you mean 'synthetic'" in err


def test_a_name_far_from_every_valid_one_gets_no_guess() -> None:
    with pytest.raises(ConfigError) as info:
        get_model("zzzzzzzz")
    assert "did you mean" not in str(info.value)
    assert "valid:" in str(info.value)


def _ratings_csv(path: Path) -> Path:
    rows = ["user,item,rating,ts"]
    for u in range(12):
        rows += [f"{u},{i},{1 + (u + i) % 5},{100 * i + u}" for i in range(20)]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_column_options_read_a_table_without_layout_csv(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``--user/--item`` name a table's columns: they are not ignored in favour of a MovieLens
    guess (before: '.: not a MovieLens folder')."""
    src = _ratings_csv(tmp_path / "r.csv")
    status, err = _run(capsys, "convert", "--ratings", str(src), "--user", "user", "--item",
                       "item", "--rating", "rating", "--timestamp", "ts", "--target-size", "2",
                       "--min-history", "2", "--out", str(tmp_path / "out"))
    assert status == 0, err
    assert (tmp_path / "out" / "train.txt").is_file()


def test_a_table_without_column_options_says_how_to_name_them(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    src = _ratings_csv(tmp_path / "r.csv")
    status, err = _run(capsys, "convert", "--ratings", str(src), "--out", str(tmp_path / "out"))
    assert status == 2
    assert "r.csv" in err
    assert "--user COL --item COL" in err
    assert not (tmp_path / "out").exists()


def test_column_options_with_a_movielens_layout_are_refused_not_ignored(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    src = _ratings_csv(tmp_path / "ratings.csv")
    status, err = _run(capsys, "convert", "--ratings", str(src), "--layout", "movielens-csv",
                       "--user", "user", "--out", str(tmp_path / "out"))
    assert status == 2
    assert "--user name the columns of a table" in err


@pytest.mark.parametrize("extra", [
    ["--score-column", "3"], ["--workers", "4"], ["--scheduler", "tcp://127.0.0.1:1"],
])
def test_a_dask_option_on_the_local_engine_is_refused_not_ignored(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, extra: list[str]
) -> None:
    (tmp_path / "d.txt").write_text("2 qid:1 1:0.5\n0 qid:1 1:0.1\n1 qid:2 1:0.3\n0 qid:2 1:0.2\n")
    (tmp_path / "s.txt").write_text("0.9\n0.1\n0.2\n0.8\n")
    status, err = _run(capsys, "evaluate", "--data", str(tmp_path / "d.txt"), "--scores",
                       str(tmp_path / "s.txt"), "--metrics", "ndcg@10", *extra)
    assert status == 2
    assert f"{extra[0]} apply to --engine dask only" in err


@pytest.mark.parametrize("extra", [["--query", "q.query"], ["--sort-by-qid"]])
def test_a_data_file_option_beside_trec_files_is_refused_not_ignored(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, extra: list[str]
) -> None:
    (tmp_path / "q.txt").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 0.5 r\n1 Q0 b 2 0.9 r\n")
    status, err = _run(capsys, "evaluate", "--qrels", str(tmp_path / "q.txt"), "--run",
                       str(tmp_path / "r.txt"), "--metrics", "map", *extra)
    assert status == 2
    assert f"{extra[0]} apply to a --data file" in err


@pytest.mark.parametrize(("extra", "said"), [
    (["--scheduler", "tcp://127.0.0.1:1"], "scheduler applies to engine 'dask'"),
    (["--workers", "5"], "workers = 5 applies to engine 'dask'"),
    (["--permute-retrain"], "permute_retrain (--permute-retrain) goes with permute_check"),
])
def test_a_run_option_the_chosen_engine_would_ignore_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, extra: list[str], said: str
) -> None:
    status, err = _run(capsys, "run", "--dataset", "synthetic", "--models", "random", "--quick",
                       "--seeds", "0", "--no-progress", "--out", str(tmp_path / "out"), *extra)
    assert status == 2
    assert said in err
    assert not (tmp_path / "out").exists()


def test_complex_or_date_scores_are_refused_not_cast() -> None:
    import numpy as np

    from bench.errors import DataError
    from bench.metrics import evaluate

    y, g = np.array([1, 0, 2, 0]), np.array([2, 2])
    with pytest.raises(DataError, match="scores must be real numbers: got dtype complex128"):
        evaluate(y, np.array([0.1, 0.2 + 5j, 0.3, 0.4]), group=g, metrics="ndcg@10")
    with pytest.raises(DataError, match="must be real numbers: got dtype datetime64"):
        evaluate(y, np.array(["2020-01-01"] * 4, dtype="datetime64[D]"), group=g,
                 metrics="ndcg@10")


def test_long_double_scores_that_float64_ties_are_refused() -> None:
    import numpy as np

    from bench.errors import DataError
    from bench.metrics import evaluate

    one = np.longdouble(1)
    tiny = one + np.finfo(np.longdouble).eps * 4  # distinct in longdouble, 1.0 in float64
    if tiny == one or np.float64(tiny) != 1.0:
        pytest.skip("longdouble is float64 on this platform")
    y, g = np.array([1, 0, 2, 0]), np.array([2, 2])
    with pytest.raises(DataError, match="scores at rows 2 and 3 differ in float128 but are equal as float64"):
        evaluate(y, np.array([one, tiny, 1, 2], dtype=np.longdouble), group=g, metrics="ndcg@10")
    fine = evaluate(y, np.array([1, 3, 1, 2], dtype=np.longdouble), group=g, metrics="ndcg@10")
    plain = evaluate(y, np.array([1.0, 3.0, 1.0, 2.0]), group=g, metrics="ndcg@10")
    assert fine.metrics == plain.metrics


def test_tune_out_into_the_dataset_folder_is_refused_before_any_fit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    letor = tmp_path / "letor"
    letor.mkdir()
    for split in ("train", "vali", "test"):
        (letor / f"{split}.txt").write_text("".join(
            f"{(q + d) % 3} qid:{q} 1:{d / 7:.3f} 2:{q / 9:.3f}\n" for q in range(1, 7)
            for d in range(5)))
    before = {p.name: p.read_bytes() for p in letor.iterdir()}
    monkeypatch.chdir(tmp_path)
    status, err = _run(capsys, "tune", "--model", "lightgbm", "--dataset", "./letor", "--quick",
                       "--grid", "num_leaves=7", "--cv", "2", "--no-progress", "--out", "letor")
    assert status == 2
    assert "is the input folder --dataset" in err
    assert {p.name: p.read_bytes() for p in letor.iterdir()} == before  # nothing written there


def test_a_data_dir_that_is_a_file_is_refused(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    not_a_folder = tmp_path / "q.txt"
    not_a_folder.write_text("1 0 a 1\n")
    status, err = _run(capsys, "datasets", "list", "--data-dir", str(not_a_folder))
    assert status == 2
    assert "is not a folder: expected the data directory" in err
    monkeypatch.setenv("LTRBENCH_DATA_DIR", str(not_a_folder))
    status, err = _run(capsys, "datasets", "list")
    assert status == 2
    assert "$LTRBENCH_DATA_DIR" in err
