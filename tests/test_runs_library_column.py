"""The library of a run's model comes from the run's records, never from its name's prefix.

A run records every model's library (``manifest.json`` ``models.<name>.library``, the
``library`` column of ``metrics.csv`` and ``timings.csv``, ``config.toml`` ``[custom_models]``);
:func:`bench.runs.models.model_libraries` reads them for every reader: the cross-check
(``crosscheck --run``, and the one after ``run``), the run search of ``crosscheck`` and the
leaderboard. Before, the readers took the prefix before the first '-' of the name
(``runs/naming.py`` ``library_of``), so a user's model named ``lightgbm-foo`` would have been
cross-checked as a LightGBM model, and custom names with a library prefix were refused.

The hostile runs are made two ways: a run written by ltrbench whose custom models ``mine1..3``
are renamed ``lightgbm-foo``, ``xgboost-ndcg2``, ``catboost-x`` in every file (what a run with
such names writes; it exercises the readers alone), and the same names through ``ltrbench
run``, ``report`` and ``crosscheck --run``. The damaged runs contradict or blank the records.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bench import cli
from bench.benchmark import pipeline
from bench.benchmark.config import RunConfig
from bench.crosscheck.run import crosscheck_run
from bench.data.letor import LetorData, LetorSplits
from bench.data.svmlight import write_svmlight
from bench.errors import DataError
from bench.runs.models import model_libraries
from bench.runs.reader import RunDir
from bench.runs.search import find_matching_run

REPO = Path(__file__).resolve().parents[1]
HOSTILE = {"mine1": "lightgbm-foo", "mine2": "xgboost-ndcg2", "mine3": "catboost-x"}
#: Custom names with the other prefixes a reader once took for a library ("baseline", "custom").
MORE_HOSTILE = ("baseline-y", "custom-z", "lightgbm-dart")
FACTORY = "custom_rankers:LinearRanker"
FAST = ["--bootstrap", "20", "--permutations", "20", "--no-progress", "--no-plots"]
CSV_TABLES = ("metrics.csv", "timings.csv", "evallog.csv")
PARQUET_TABLES = ("per_query.parquet", "scores.parquet")


def _part(seed: int) -> LetorData:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0.2).astype(float) + (X[:, 1] > 1.0)
    return LetorData.build(X, y, qid=np.repeat(np.arange(6) + 10 * seed, 10), source=f"p{seed}")


@pytest.fixture(scope="module")
def splits() -> LetorSplits:
    return LetorSplits(name="toy", train=_part(1), vali=_part(2), test=_part(3),
                       inputs={"toy.txt": "0" * 64})


PARAMS = {"n_trees": 5, "num_leaves": 4, "min_data_in_leaf": 3, "n_threads": 1}


@pytest.fixture(scope="module")
def base_run(tmp_path_factory: pytest.TempPathFactory, splits: LetorSplits) -> Path:
    """A run written by ltrbench: LightGBM, a baseline and three custom models mine1..3."""
    config = RunConfig.from_dict({
        "dataset": "toy", "models": ["lightgbm-lambdarank", "random", *HOSTILE], "seeds": [0],
        "params": PARAMS, "crosscheck": False,
        "custom_models": {m: {"factory": FACTORY} for m in HOSTILE}})
    return pipeline.run_benchmark(config, out_dir=tmp_path_factory.mktemp("res"), progress=False,
                                  splits=splits)


# --- editing a run's files ----------------------------------------------------------------------


def _rename_json(node: object, old: str, new: str | None) -> object:
    def key(k: str) -> str | None:
        if k == old:
            return new
        if k.startswith(f"{old}-seed"):
            return None if new is None else new + k[len(old):]
        return k

    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            nk = key(str(k))
            if nk is not None:
                out[nk] = _rename_json(v, old, new)
        return out
    if isinstance(node, list):
        return [_rename_json(v, old, new) for v in node if not (v == old and new is None)]
    return new if node == old else node


def edit_model(run: Path, old: str, new: str | None) -> None:
    """Rename model ``old`` to ``new`` in every file of ``run`` (``new`` None: drop it)."""
    for name in CSV_TABLES + PARQUET_TABLES:
        p = run / name
        frame = (pd.read_csv(p, dtype=str, keep_default_na=False) if p.suffix == ".csv"
                 else pd.read_parquet(p))
        hit = frame["model"].astype(str) == old
        frame = frame[~hit] if new is None else frame.assign(
            model=np.where(hit, new, frame["model"].astype(str)))
        if p.suffix == ".csv":
            frame.to_csv(p, index=False)
        else:
            frame.to_parquet(p, index=False)
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    (run / "manifest.json").write_text(json.dumps(_rename_json(manifest, old, new)),
                                       encoding="utf-8")
    text = (run / "config.toml").read_text(encoding="utf-8")
    if new is None:
        text = text.replace(f'    "{old}",\n', "")
    else:
        text = text.replace(f'"{old}"', f'"{new}"').replace(
            f"[custom_models.{old}]", f"[custom_models.{new}]").replace(
            f"[custom_models.{old}.", f"[custom_models.{new}.")
    (run / "config.toml").write_text(text, encoding="utf-8")
    for status in (run / "status").glob(f"{old}-seed*.json"):
        if new is None:
            status.unlink()
        else:
            status.rename(status.with_name(new + status.name[len(old):]))


def _copy(run: Path, dest: Path) -> Path:
    out = dest / "runs" / run.name
    shutil.copytree(run, out)
    return out


@pytest.fixture
def hostile_run(base_run: Path, tmp_path: Path) -> Path:
    """The base run with its custom models named like the libraries' models."""
    run = _copy(base_run, tmp_path)
    for old, new in HOSTILE.items():
        edit_model(run, old, new)
    return run


def _csv(run: Path, name: str, fn: Callable[[pd.DataFrame], pd.DataFrame]) -> None:
    frame = pd.read_csv(run / name, dtype=str, keep_default_na=False)
    fn(frame).to_csv(run / name, index=False)


def _manifest(run: Path, fn: Callable[[dict], None]) -> None:
    doc = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    fn(doc)
    (run / "manifest.json").write_text(json.dumps(doc), encoding="utf-8")


def _set_library(frame: pd.DataFrame, model: str, value: str, first_only: bool = False
                 ) -> pd.DataFrame:
    hit = (frame["model"] == model).to_numpy()
    if first_only:
        hit = hit & (np.arange(len(hit)) == int(hit.argmax()))
    return frame.assign(library=np.where(hit, value, frame["library"]))


def _report(run: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    out = run.parent.parent / "report"
    status = cli.main(["report", *FAST, "--runs", str(run), "--out", str(out)])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return status, err


def _leaderboard_libraries(run: Path) -> dict[str, str]:
    doc = json.loads((run.parent.parent / "report" / "leaderboard.json").read_text())
    (table,) = doc["tables"]
    return {r["model"]: r["library"] for r in table["rows"]}


def _checked_models(result: object) -> set[str]:
    doc = json.loads(result.to_json())  # type: ignore[attr-defined]
    return {c["model"] for c in doc["cases"]} | {c["model"] for c in doc["checks"]}


# --- the hostile names, read from a run's records -----------------------------------------------


def test_each_model_has_the_library_its_run_records(hostile_run: Path) -> None:
    assert model_libraries(RunDir(hostile_run)) == {
        "lightgbm-lambdarank": "lightgbm", "random": "baseline",
        "lightgbm-foo": "custom", "xgboost-ndcg2": "custom", "catboost-x": "custom"}


def test_crosscheck_checks_only_the_library_models_not_custom_ones_named_like_them(
        hostile_run: Path) -> None:
    result = crosscheck_run(hostile_run)
    assert result.ok, result.errors
    assert _checked_models(result) == {"lightgbm-lambdarank"}


def test_crosscheck_of_a_library_selects_its_models_by_record_not_by_name(
        hostile_run: Path) -> None:
    for library in ("lightgbm", "xgboost", "catboost"):
        result = crosscheck_run(hostile_run, models=[library])
        checked = _checked_models(result)
        assert not checked & set(HOSTILE.values()), (library, checked)
    assert _checked_models(crosscheck_run(hostile_run, models=["lightgbm"])) == {
        "lightgbm-lambdarank"}


def test_crosscheck_of_a_custom_model_says_it_is_custom(hostile_run: Path) -> None:
    result = crosscheck_run(hostile_run, models=["lightgbm-foo"])
    assert not result.ok
    assert _checked_models(result) == set()
    assert any("'lightgbm-foo'" in e and "custom" in e for e in result.errors), result.errors


def test_crosscheck_command_on_the_run_leaves_the_custom_models_out(
        hostile_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["crosscheck", "--run", str(hostile_run), "--out", str(tmp_path / "cc"),
                     "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    doc = json.loads(out)
    assert {c["model"] for c in doc["cases"]} == {"lightgbm-lambdarank"}
    assert {c["library"] for c in doc["cases"]} == {"lightgbm"}


def test_the_leaderboard_reports_the_recorded_library(
        hostile_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, err = _report(hostile_run, capsys)
    assert status == 0, err
    libraries = _leaderboard_libraries(hostile_run)
    assert {libraries[m] for m in HOSTILE.values()} == {"custom"}
    assert libraries["lightgbm-lambdarank"] == "lightgbm"


def test_without_the_library_column_the_leaderboard_takes_the_manifest_not_the_name(
        hostile_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("metrics.csv", "timings.csv"):
        _csv(hostile_run, name, lambda f: f.drop(columns=["library"]))
    status, err = _report(hostile_run, capsys)
    assert status == 0, err
    assert {_leaderboard_libraries(hostile_run)[m] for m in HOSTILE.values()} == {"custom"}
    assert _checked_models(crosscheck_run(hostile_run)) == {"lightgbm-lambdarank"}


def test_the_run_search_does_not_take_a_custom_model_for_a_library_model(
        hostile_run: Path) -> None:
    root = hostile_run.parent
    assert find_matching_run(root, "toy", ("lightgbm-lambdarank",)) is not None
    edit_model(hostile_run, "lightgbm-lambdarank", None)
    # left: a baseline and three custom models whose names look like LightGBM/XGBoost/CatBoost
    assert find_matching_run(root, "toy", None) is None
    assert find_matching_run(root, "toy", ("lightgbm-lambdarank",)) is None


def test_a_manifest_listing_models_without_libraries_leaves_the_tables_to_say(
        hostile_run: Path) -> None:
    _manifest(hostile_run, lambda d: d.update(models=list(d["models"])))  # a list of names
    assert {model_libraries(RunDir(hostile_run))[m] for m in HOSTILE.values()} == {"custom"}
    assert _checked_models(crosscheck_run(hostile_run)) == {"lightgbm-lambdarank"}


# --- old run folders: the name's prefix, as before ---------------------------------------------


def test_a_run_folder_without_any_library_record_falls_back_to_the_name(
        base_run: Path, tmp_path: Path) -> None:
    run = _copy(base_run, tmp_path)
    for old in HOSTILE:
        edit_model(run, old, None)
    for name in ("metrics.csv", "timings.csv"):
        _csv(run, name, lambda f: f.drop(columns=["library"]))
    _manifest(run, lambda d: d.pop("models"))
    libraries = model_libraries(RunDir(run), ["lightgbm-lambdarank", "random"])
    # as every reader did before the records were read: the prefix ("random" has none)
    assert {m: libraries[m] for m in ("lightgbm-lambdarank", "random")} == {
        "lightgbm-lambdarank": "lightgbm", "random": "random"}
    assert _checked_models(crosscheck_run(run)) == {"lightgbm-lambdarank"}


@pytest.mark.parametrize("run_id", sorted(p.name for p in (REPO / "results" / "runs").iterdir()))
def test_committed_runs_read_the_same_libraries_as_their_names_say(run_id: str) -> None:
    run = RunDir(REPO / "results" / "runs" / run_id)
    libraries = model_libraries(run)
    metrics = run.table("metrics.csv")
    for model in pd.unique(metrics["model"].astype(str)):
        expected = "baseline" if "-" not in model else model.split("-", 1)[0]
        assert libraries[model] == expected


# --- damaged records: a clear error naming the file ----------------------------------------------


DAMAGES: dict[str, tuple[Callable[[Path], None], str, str]] = {
    "a library cell emptied": (
        lambda r: _csv(r, "metrics.csv", lambda f: _set_library(f, "lightgbm-foo", "", True)),
        "metrics.csv", "the library of model 'lightgbm-foo' is empty"),
    "the whole library column emptied": (
        lambda r: _csv(r, "metrics.csv", lambda f: f.assign(library="")),
        "metrics.csv", "is empty"),
    "metrics.csv says lightgbm where the manifest says custom": (
        lambda r: _csv(r, "metrics.csv", lambda f: _set_library(f, "lightgbm-foo", "lightgbm")),
        "metrics.csv", "disagree on the library of model 'lightgbm-foo'"),
    "one row of a model says another library": (
        lambda r: _csv(r, "metrics.csv",
                       lambda f: _set_library(f, "lightgbm-lambdarank", "xgboost", True)),
        "metrics.csv", "disagree on the library of model 'lightgbm-lambdarank'"),
    "timings.csv contradicts metrics.csv": (
        lambda r: _csv(r, "timings.csv", lambda f: _set_library(f, "xgboost-ndcg2", "xgboost")),
        "timings.csv", "disagree on the library of model 'xgboost-ndcg2'"),
    "the manifest says lightgbm where the tables say custom": (
        lambda r: _manifest(r, lambda d: d["models"]["lightgbm-foo"].update(library="lightgbm")),
        "manifest.json", "disagree on the library of model 'lightgbm-foo'"),
    "the manifest's library is not text": (
        lambda r: _manifest(r, lambda d: d["models"]["catboost-x"].update(library=7)),
        "manifest.json", "models.catboost-x.library is 7"),
    "the manifest's library is empty": (
        lambda r: _manifest(r, lambda d: d["models"]["catboost-x"].update(library="")),
        "manifest.json", "models.catboost-x.library is ''"),
    "the config calls a library model custom": (
        lambda r: (r / "config.toml").write_text(
            (r / "config.toml").read_text() + '\n[custom_models.lightgbm-lambdarank]\n'
            f'factory = "{FACTORY}"\n'),
        "config.toml", "disagree on the library of model 'lightgbm-lambdarank'"),
}


def _damaged(hostile_run: Path, damage: str) -> Path:
    apply, _, _ = DAMAGES[damage]
    apply(hostile_run)
    return hostile_run


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_damaged_library_records_stop_the_cross_check(hostile_run: Path, damage: str) -> None:
    run = _damaged(hostile_run, damage)
    _, where, what = DAMAGES[damage]
    with pytest.raises(DataError) as err:
        crosscheck_run(run)
    assert what in str(err.value)
    assert where in str(err.value)


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_damaged_library_records_stop_the_report(
        hostile_run: Path, damage: str, capsys: pytest.CaptureFixture[str]) -> None:
    run = _damaged(hostile_run, damage)
    _, where, what = DAMAGES[damage]
    status, err = _report(run, capsys)
    assert status == 2, f"{damage}: accepted\n{err}"
    line = next(ln for ln in err.splitlines() if ln.startswith("error: "))
    assert what in line
    assert where in line
    assert str(run) in line


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_damaged_library_records_stop_the_run_search(hostile_run: Path, damage: str) -> None:
    run = _damaged(hostile_run, damage)
    _, where, what = DAMAGES[damage]
    with pytest.raises(DataError) as err:
        find_matching_run(run.parent, "toy", ("lightgbm-lambdarank",))
    assert what in str(err.value)
    assert where in str(err.value)


def test_scores_of_a_model_no_record_names_are_refused(hostile_run: Path) -> None:
    p = hostile_run / "scores.parquet"
    scores = pd.read_parquet(p)
    extra = scores[scores["model"] == "lightgbm-lambdarank"].assign(model="lightgbm-ghost")
    pd.concat([scores, extra], ignore_index=True).to_parquet(p, index=False)
    with pytest.raises(DataError, match="'lightgbm-ghost'"):
        crosscheck_run(hostile_run)


# --- the same names through ltrbench run, report and crosscheck --run ---------------------------


def test_custom_models_named_like_library_models_run_report_and_crosscheck_as_custom(
        splits: LetorSplits, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "toyletor"
    for name, data in splits.splits().items():
        write_svmlight(data, folder / f"{name}.txt")
    names = (*HOSTILE.values(), *MORE_HOSTILE)
    tables = "".join(f'\n[custom_models.{m}]\nfactory = "{FACTORY}"\n' for m in names)
    config = tmp_path / "hostile.toml"
    config.write_text(
        f'dataset = "{folder}"\nmodels = {json.dumps(["lightgbm-lambdarank", *names])}'
        f'\nseeds = [0]\n\n[params]\n' + "".join(f"{k} = {v}\n" for k, v in PARAMS.items())
        + tables, encoding="utf-8")
    out = tmp_path / "results"
    code = cli.main(["run", "--config", str(config), "--out", str(out), "--format", "json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    run_dir = Path(json.loads(captured.out)["run_dir"])
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert {manifest["models"][m]["library"] for m in names} == {"custom"}
    assert manifest["crosscheck"]["ok"] is True
    assert set(manifest["crosscheck"]["not_applicable"]) == set(names)
    assert {c["model"] for c in json.loads(
        Path(manifest["crosscheck"]["files"]["json"]).read_text())["cases"]} == {
        "lightgbm-lambdarank"}
    metrics = pd.read_csv(run_dir / "metrics.csv")
    assert set(metrics[metrics["model"].isin(names)]["library"]) == {"custom"}

    status, err = _report(run_dir, capsys)
    assert status == 0, err
    libraries = _leaderboard_libraries(run_dir)
    assert {libraries[m] for m in names} == {"custom"}
    assert libraries["lightgbm-lambdarank"] == "lightgbm"

    code = cli.main(["crosscheck", "--run", str(run_dir), "--out", str(tmp_path / "cc"),
                     "--format", "json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert {c["model"] for c in json.loads(captured.out)["cases"]} == {"lightgbm-lambdarank"}
