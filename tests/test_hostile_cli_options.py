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
    status = main(list(argv))
    err = capsys.readouterr().err
    return status, err


@pytest.mark.parametrize(("option", "said"), [
    ("--models", "no models given"),
    ("--dataset", "dataset: expected a non-empty string"),
    ("--profile", "profile: expected a non-empty string"),
    ("--data-dir", "data_dir: expected a non-empty string"),
    ("--metrics", "no metric names given"),
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
