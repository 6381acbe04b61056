"""``ltrbench run --folds`` and ``--name``: parsed at the door, refused clearly, and a fold run
printing its fold table."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile_kit import cli

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
OHSUMED = SHARED / "letor3-OHSUMED-QueryLevelNorm"


@pytest.mark.parametrize(("argv", "message"), [
    (("--folds", "0"), "--folds: fold '0' is not one of 1..5"),
    (("--folds", "1,1"), "--folds: fold 1 is named twice"),
    (("--folds", ""), "--folds: an empty value"),
    (("--folds", "all", "--resume"), "--folds: dataset 'synthetic' has no fold"),
    (("--folds", "all"), "--folds: dataset 'synthetic' has no fold"),
    (("--name", ""), "--name: an empty value"),
    (("--name", "a\nb"), "--name: 'a\\nb' holds a control character"),
    (("--name", "x" * 101), "--name: 101 characters"),
])
def test_bad_folds_and_names_are_one_line_errors(tmp_path: Path, argv: tuple[str, ...],
                                                 message: str) -> None:
    res = cli(tmp_path, "run", "--models", "random", "--seeds", "0", "--out", str(tmp_path / "o"),
              *argv)
    assert res.status == 2
    assert message in res.err
    assert not res.traceback


@pytest.mark.skipif(not (OHSUMED / "S5.txt").is_file(), reason=f"OHSUMED not found at {OHSUMED}")
def test_a_fold_run_prints_its_fold_table_under_the_chosen_name(tmp_path: Path) -> None:
    res = cli(tmp_path, "run", "--dataset", str(OHSUMED), "--folds", "2,4", "--name", "OHS",
              "--models", "random", "--seeds", "0,1", "--metrics", "ndcg@10",
              "--no-crosscheck", "--out", str(tmp_path / "o"))
    assert res.status == 0, res.err
    assert "**OHS**: ndcg@10 on the test folds" in res.out
    # Fold2 and Fold4 test on S1 and S3: 42 queries, 41 with a relevant document (counted with
    # scikit-learn's reader); the other is blank under the ltrbench profile, out of the pool
    assert "| model | Fold2 | Fold4 | mean ± std (folds) | pooled (41 queries)" in res.out
    from sklearn.datasets import load_svmlight_file

    with_relevant = 0
    for part in ("S1", "S3"):
        _, y, qid = load_svmlight_file(str(OHSUMED / f"{part}.txt"), query_id=True)
        with_relevant += len({q for q, label in zip(qid, y, strict=True) if label > 0})
    assert with_relevant == 41
    assert (tmp_path / "o" / "folds" / "OHS-folds24.md").is_file()
    # 'OHS:Fold2' is not a folder name as spelt: the slug adds a digest (bench.runs.naming)
    runs = sorted(p.name for p in (tmp_path / "o" / "runs").iterdir())
    assert [r[:10] for r in runs] == ["OHS-Fold2-", "OHS-Fold4-"]



@pytest.mark.parametrize(("value", "message"), [
    ('"a\\nb"', "name: 'a\\nb' holds a control character"),
    ('"   "', "name: an empty name"),
    ('"' + "x" * 101 + '"', "name: 101 characters"),
    ("5", "name: expected"),
])
def test_a_config_name_is_checked_as_the_option_is(tmp_path: Path, value: str,
                                                   message: str) -> None:
    (tmp_path / "c.toml").write_text(f'models = ["random"]\nname = {value}\n', encoding="utf-8")
    res = cli(tmp_path, "run", "--config", "c.toml", "--out", str(tmp_path / "o"))
    assert res.status == 2, res.err
    assert "c.toml" in res.err
    assert message in res.err
    assert not res.traceback
