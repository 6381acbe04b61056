"""Five-fold runs (bench/benchmark/folds.py, bench/report/folds.py): one run per fold, the fold
table's numbers equal the fold runs' own files read independently, bad fold requests refused
before any training."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bench.benchmark.config import RunConfig
from bench.benchmark.folds import fold_datasets, run_folds
from bench.errors import ConfigError, DataError
from bench.report.folds import fold_table
from bench.runs.reader import RunDir

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
OHSUMED = SHARED / "letor3-OHSUMED-QueryLevelNorm"
needs_ohsumed = pytest.mark.skipif(not (OHSUMED / "S5.txt").is_file(),
                                   reason=f"LETOR 3.0 OHSUMED not found at {OHSUMED}")


@pytest.fixture(scope="module")
def ohsumed_folds(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    out = tmp_path_factory.mktemp("folds")
    cfg = RunConfig(dataset=str(OHSUMED), models=("random", "lightgbm-lambdarank"), seeds=(0, 1),
                    quick=True, crosscheck=False, metrics=("ndcg@10", "map@10"),
                    params=RunConfig().params.with_overrides(n_trees=5))
    return run_folds(cfg, (1, 2, 3, 4, 5), out_dir=out, progress=False)


@needs_ohsumed
def test_each_fold_is_its_own_run_naming_its_fold(ohsumed_folds) -> None:  # type: ignore[no-untyped-def]
    specs = [json.loads((r / "manifest.json").read_text())["dataset"]["spec"]
             for r in ohsumed_folds.runs]
    assert specs == [f"{OHSUMED}:Fold{k}" for k in range(1, 6)]
    names = [json.loads((r / "manifest.json").read_text())["dataset"]["name"]
             for r in ohsumed_folds.runs]
    assert names == [f"{OHSUMED.name}:Fold{k}" for k in range(1, 6)]
    assert ohsumed_folds.tables[0].dataset == OHSUMED.name


@needs_ohsumed
def test_fold_values_and_their_mean_are_the_fold_runs_own_numbers(ohsumed_folds) -> None:  # type: ignore[no-untyped-def]
    for table in ohsumed_folds.tables:
        # ranked by the mean over folds; the first row is the one the others are tested against
        assert [r.mean for r in table.rows] == sorted((r.mean for r in table.rows), reverse=True)
        assert table.rows[0].p_holm is None
        assert all(r.p_holm is not None for r in table.rows[1:])
        for row in table.rows:
            own = []
            for run in ohsumed_folds.runs:
                m = pd.read_csv(run / "metrics.csv")
                sel = m[(m.model == row.model) & (m.split == "test") & (m.metric == table.metric)
                        & (m.profile == "ltrbench")]
                assert len(sel) == 2  # two seeds
                own.append(sel.value.mean())
            np.testing.assert_allclose(row.per_fold, own, rtol=0, atol=1e-15)
            assert row.mean == pytest.approx(np.mean(own), abs=1e-15)
            assert row.std == pytest.approx(np.std(own, ddof=1), abs=1e-15)


@needs_ohsumed
def test_pooled_values_cover_the_106_queries_once(ohsumed_folds) -> None:  # type: ignore[no-untyped-def]
    table = ohsumed_folds.tables[0]
    # 106 test queries once each; one has no relevant document, blank under the ltrbench
    # profile, so the pooled mean and interval (and the count in the header) are over 105
    assert table.n_queries == 105
    frames = [pd.read_parquet(r / "per_query.parquet") for r in ohsumed_folds.runs]
    pq = pd.concat(frames)
    for row in table.rows:
        sel = pq[(pq.model == row.model) & (pq.split == "test") & (pq.metric == table.metric)]
        per_query = sel.groupby("qid").value.mean()
        assert per_query.size == 106
        assert int(per_query.notna().sum()) == 105
        assert row.pooled_mean == pytest.approx(per_query.mean(), abs=1e-12)
        assert row.ci_low <= row.pooled_mean <= row.ci_high


@needs_ohsumed
def test_the_fold_table_files_are_written(ohsumed_folds) -> None:  # type: ignore[no-untyped-def]
    doc = json.loads(ohsumed_folds.json.read_text())
    assert doc["folds"] == [f"Fold{k}" for k in range(1, 6)]
    assert [t["metric"] for t in doc["tables"]] == ["ndcg@10", "map@10"]
    text = ohsumed_folds.markdown.read_text()
    assert "mean ± std (folds)" in text
    assert "pooled (105 queries)" in text  # the 106 test queries less the blank one


@needs_ohsumed
def test_runs_whose_test_queries_overlap_are_not_a_fold_table(ohsumed_folds) -> None:  # type: ignore[no-untyped-def]
    first = RunDir(ohsumed_folds.runs[0])
    with pytest.raises(DataError, match=r"query \d+ is in the test split of both"):
        fold_table([first, RunDir(ohsumed_folds.runs[0])], "ndcg@10")


@pytest.mark.parametrize("dataset", ["synthetic", "lightgbm-lambdarank", "ml-latest-small"])
def test_folds_of_a_dataset_without_letor_folds_are_refused(dataset: str) -> None:
    with pytest.raises(ConfigError, match=r"--folds: dataset .* has no fold"):
        fold_datasets(dataset, (1, 2))


def test_folds_of_a_folder_without_them_are_refused_naming_what_it_lacks(tmp_path: Path) -> None:
    (tmp_path / "Fold1").mkdir()
    for split in ("train", "vali", "test"):
        (tmp_path / "Fold1" / f"{split}.txt").write_text("0 qid:1 1:0.5\n1 qid:1 1:0.7\n")
    assert fold_datasets(str(tmp_path), (1,)) == [f"{tmp_path}:Fold1"]
    with pytest.raises(DataError, match=r"no Fold2/ folder and no S1\.txt\.\.S5\.txt"):
        fold_datasets(str(tmp_path), (1, 2))


def test_a_refused_fold_request_trains_nothing(tmp_path: Path) -> None:
    cfg = RunConfig(dataset="synthetic", models=("random",), seeds=(0,))
    with pytest.raises(ConfigError, match="--folds"):
        run_folds(cfg, (1, 2), out_dir=tmp_path, progress=False)
    assert not any(tmp_path.iterdir())


@needs_ohsumed
def test_a_chosen_name_is_the_dataset_name_of_every_table(tmp_path: Path) -> None:
    from bench.benchmark.pipeline import run_benchmark

    cfg = RunConfig(dataset=f"{OHSUMED}:Fold2", models=("random",), seeds=(0,),
                    crosscheck=False, metrics=("ndcg@10",), name="OHSUMED-QLN")
    run = run_benchmark(cfg, out_dir=tmp_path, progress=False)
    assert json.loads((run / "manifest.json").read_text())["dataset"]["name"] == "OHSUMED-QLN"
    assert set(pd.read_csv(run / "metrics.csv").dataset) == {"OHSUMED-QLN"}
    assert set(pd.read_parquet(run / "per_query.parquet").dataset) == {"OHSUMED-QLN"}


@pytest.mark.parametrize("folds", [(), (1, 1), (0,), (6,), ("1",), (True,), (1.0,), [[1]], "12"])
def test_folds_that_are_not_distinct_fold_numbers_are_refused_before_any_run(
        tmp_path: Path, folds: object) -> None:
    cfg = RunConfig(dataset="ohsumed", models=("random",), seeds=(0,))
    with pytest.raises(ConfigError, match=r"folds: expected distinct fold numbers 1\.\.5"):
        run_folds(cfg, folds, out_dir=tmp_path, progress=False)  # type: ignore[arg-type]
    assert not any(tmp_path.iterdir())


def _moved(ohsumed_folds, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    """The fold table's results folder copied elsewhere (as a commit would carry it)."""
    import shutil

    source = ohsumed_folds.json.parent.parent
    shutil.copytree(source, tmp_path / "moved")
    return tmp_path / "moved" / "folds" / ohsumed_folds.json.name


@needs_ohsumed
def test_a_fold_table_reproduces_every_fold_bit_for_bit_from_another_folder(
        ohsumed_folds, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from bench.benchmark.reproduce_folds import reproduce_document

    doc = _moved(ohsumed_folds, tmp_path)
    assert all(not Path(r).is_absolute() for r in json.loads(doc.read_text())["runs"])
    rendered, outcome = reproduce_document(doc.with_suffix(".md"))  # the .md, then the runs
    assert rendered.status == "match", rendered.differences[:3]
    assert outcome.status == "match", outcome.differences[:3]
    assert outcome.tolerance == 0.0
    # five runs compared file by file, then two tables of two rows rebuilt number by number
    assert outcome.compared > 5 * 2 * 2 * 106 // 5


@needs_ohsumed
def test_a_fold_value_that_the_runs_do_not_give_is_a_mismatch(
        ohsumed_folds, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from bench.benchmark.reproduce_folds import reproduce_folds

    doc = _moved(ohsumed_folds, tmp_path)
    raw = json.loads(doc.read_text())
    raw["tables"][0]["rows"][0]["per_fold"][2] += 1e-3
    doc.write_text(json.dumps(raw))
    rendered, outcome = reproduce_folds(doc)  # the JSON edited alone: its .md differs too
    assert rendered.status == "mismatch"
    assert outcome.status == "mismatch"
    assert [d for d in outcome.differences if "per_fold" in json.dumps(d)]


@needs_ohsumed
def test_a_fold_run_that_is_not_there_is_named(ohsumed_folds, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import shutil

    from bench.benchmark.reproduce_folds import reproduce_folds

    doc = _moved(ohsumed_folds, tmp_path)
    third = json.loads(doc.read_text())["tables"][0]["run_ids"][2]
    shutil.rmtree(doc.parent.parent / "runs" / third)
    with pytest.raises(DataError, match=r"fold run 3 .* not found"):
        reproduce_folds(doc)


@needs_ohsumed
@pytest.mark.parametrize(("runs", "said"), [
    (["../../../etc"], r"runs\[0\] '\.\./\.\./\.\./etc': expected a run directory"),
    (["/etc"], r"runs\[0\] '/etc': expected a run directory"),
    ([3, 4], r"'runs': expected the list of the fold runs' folders"),
    ([], r"'runs': expected the list"),
    ([""], r"'runs': expected the list"),
])
def test_a_fold_document_cannot_make_reproduce_run_what_lies_outside_its_folder(
        ohsumed_folds, tmp_path: Path, runs: list[object], said: str) -> None:  # type: ignore[no-untyped-def]
    """The fold runs are read with the leaderboard's path rules: a hand-edited document naming
    ../../../etc or /etc is refused before anything is read or run."""
    from bench.benchmark.reproduce_folds import reproduce_document

    doc = _moved(ohsumed_folds, tmp_path)
    raw = json.loads(doc.read_text())
    raw["runs"] = runs
    for table in raw["tables"]:
        table["run_ids"] = []
    doc.write_text(json.dumps(raw))
    with pytest.raises(DataError, match=said):
        reproduce_document(doc)
