"""``ltrbench crosscheck --versions``: the probe, the environments, the matching, the CLI.

No network: the releases are the ones installed here (``LIBRARY==installed`` runs the probe in
this interpreter); the failed install points pip at no index. The independent check is the
libraries' own built-in metrics, read by the standalone probe.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from bench.cli import main as cli_main
from bench.crosscheck import version_env
from bench.crosscheck.version_cases import build_cases, cases_arrays
from bench.crosscheck.version_env import ensure_env, requirements, run_probe
from bench.crosscheck.version_render import render_versions
from bench.crosscheck.versions import (
    LIBRARIES,
    VersionsResult,
    candidates,
    parse_version_specs,
    run_versions,
)
from bench.errors import ConfigError
from bench.metrics.profiles import PROFILES, get_profile

pytest.importorskip("lightgbm")
pytest.importorskip("xgboost")

COMMITTED = Path(__file__).resolve().parents[1] / "results" / "definitions" / "versions.json"


@pytest.fixture(scope="module")
def installed() -> VersionsResult:
    return run_versions([("lightgbm", ["installed"]), ("xgboost", ["installed"])])


def _rows(result: VersionsResult, library: str) -> dict[str, list[str]]:
    report = next(r for r in result.reports if r.library == library)
    assert report.error is None, report.error
    return {row.metric: row.matches for row in report.rows}


def test_installed_lightgbm_metrics_are_reproduced_by_the_lightgbm_profile(
        installed: VersionsResult) -> None:
    import lightgbm

    report = next(r for r in installed.reports if r.library == "lightgbm")
    assert report.version == lightgbm.__version__
    rows = _rows(installed, "lightgbm")
    assert set(rows) == {"ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10", "map@1", "map@3", "map@5",
                         "map@10", "ndcg@10 [linear gain]"}
    for metric, matches in rows.items():
        expected = "lightgbm gain=linear" if "linear" in metric else "lightgbm"
        assert expected in matches, (metric, matches)
    # the cases separate the tools: float32 ties and blank queries rule these out
    assert "xgboost" not in rows["ndcg@10"]
    assert "ltrbench" not in rows["ndcg@10"]


def test_installed_xgboost_metrics_are_reproduced_by_the_xgboost_profiles(
        installed: VersionsResult) -> None:
    import xgboost

    report = next(r for r in installed.reports if r.library == "xgboost")
    assert report.version == xgboost.__version__
    rows = _rows(installed, "xgboost")
    for metric, matches in rows.items():
        base = "xgboost-" if metric.endswith("-") else "xgboost"
        expected = f"{base} gain=linear" if "linear" in metric else base
        assert expected in matches, (metric, matches)
    # the long lists separate the cut at 32 (>= 2.0) from the whole list (1.7)
    assert "xgboost@1.7" not in rows["ndcg"]
    assert "xgboost@1.7" not in rows["map"]
    assert "lightgbm" not in rows["ndcg@10"]


def test_probe_reads_the_float32_tie_as_each_library_stores_scores() -> None:
    # float32_ties, query 1: labels [0, 1, 0], scores [0.3, 0.3 + 1e-9, 0.1]. In double the
    # relevant document ranks first (NDCG@1 = 1); in float32 the two tie and row order puts the
    # irrelevant one first (NDCG@1 = 0).
    arrays = {k: v for k, v in cases_arrays(build_cases()).items() if k.startswith("float32_ties")}
    lgb = run_probe(sys.executable, "lightgbm", "installed", ["ndcg@1"], [], arrays)
    xgb = run_probe(sys.executable, "xgboost", "installed", ["ndcg@1"], [], arrays)
    assert lgb["cases"]["float32_ties"]["per_query"]["ndcg@1"] == [1.0, 1.0, 1.0]
    assert xgb["cases"]["float32_ties"]["per_query"]["ndcg@1"] == [0.0, 0.0, 0.0]


def test_probe_reports_a_refusal_as_an_error_without_losing_other_metrics() -> None:
    arrays = {k: v for k, v in cases_arrays(build_cases()).items() if k.startswith("graded")}
    out = run_probe(sys.executable, "xgboost", "installed", ["ndcg@3", "map@3"], [], arrays)
    mean = out["cases"]["graded"]["mean"]
    assert isinstance(mean["ndcg@3"], float)
    assert str(mean["map@3"]).startswith("error:")  # XGBoost >= 2.0 refuses graded MAP


@pytest.mark.parametrize(("tokens", "message"), [
    (["lightgbm"], "expected LIBRARY==V1,V2"),
    (["catboost==1.2"], "unknown library 'catboost'"),
    (["xgboost=="], "bad version ''"),
    (["xgboost==1.7.6,,2.0"], "bad version ''"),
    (["xgboost==latest"], "bad version 'latest'"),
    (["xgboost==1.7.6", "xgboost==2.1.4"], "xgboost named twice"),
    ([], "at least one"),
])
def test_bad_version_tokens_are_config_errors(tokens: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_version_specs(tokens)


def test_version_tokens_parse_into_libraries_and_releases() -> None:
    assert parse_version_specs(["LightGBM==3.3.5,4.7.0,3.3.5", "xgboost==installed"]) == [
        ("lightgbm", ["3.3.5", "4.7.0"]), ("xgboost", ["installed"])]


def test_cli_bad_token_exits_2_with_a_message(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    assert cli_main(["crosscheck", "--versions", "sklearn==1.0", "--out", str(tmp_path)]) == 2
    assert "unknown library 'sklearn'" in capsys.readouterr().err
    assert not (tmp_path / "definitions").exists()


def test_old_releases_get_numpy_1() -> None:
    assert requirements("xgboost", "1.7.6") == ["xgboost==1.7.6", "numpy<2"]
    assert requirements("lightgbm", "3.3.5") == ["lightgbm==3.3.5", "numpy<2"]
    assert requirements("xgboost", "3.2.0") == ["xgboost==3.2.0", "numpy"]


def test_a_ready_environment_is_reused_without_installing(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    env = version_env.env_dir(tmp_path, "xgboost", "9.9.9")
    (env / "bin").mkdir(parents=True)
    (env / "bin" / "python").symlink_to(sys.executable)
    (env / "ltrbench-ready.json").write_text("{}", encoding="utf-8")

    def no_run(*args: object, **kwargs: object) -> None:
        raise AssertionError("nothing should be installed")

    monkeypatch.setattr(version_env, "_run", no_run)
    said: list[str] = []
    assert ensure_env("xgboost", "9.9.9", tmp_path, said.append) == env / "bin" / "python"
    assert said == [f"xgboost==9.9.9: reusing {env}"]


def test_failed_install_names_the_release_quotes_pip_and_the_others_still_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIP_NO_INDEX", "1")  # no network: pip looks at no index at all
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
    result = run_versions([("lightgbm", ["0.0.1"]), ("xgboost", ["installed"])],
                          cache_dir=tmp_path)
    failed, ran = result.reports
    assert failed.error is not None
    assert failed.rows == []
    assert failed.error.startswith("lightgbm==0.0.1: pip install lightgbm==0.0.1")
    assert "No matching distribution found for lightgbm==0.0.1" in failed.error
    assert not version_env.env_dir(tmp_path, "lightgbm", "0.0.1").exists()  # no half-made env
    assert ran.error is None
    assert ran.rows
    assert not result.ok
    assert "install or probe failed" in render_versions(result)


def test_cli_writes_versions_files_and_prints_json(capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    rc = cli_main(["crosscheck", "--versions", "lightgbm==installed", "--out", str(tmp_path),
                   "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert json.loads((tmp_path / "definitions" / "versions.json").read_text()) == doc
    assert "lightgbm" in (tmp_path / "definitions" / "versions.md").read_text()
    assert [r["requested"] for r in doc["results"]] == ["installed"]
    assert doc["python"]
    assert doc["date"]
    assert len(doc["cases"]) == len(build_cases())


def test_version_qualified_profiles_are_registered() -> None:
    assert get_profile("xgboost@1.7").map_denominator == "r"
    assert get_profile("XGBoost@1.7-").empty == 0.0
    assert get_profile("xgboost@1.7").default_k is None


def test_committed_table_names_only_registered_profiles_and_still_holds(
        installed: VersionsResult) -> None:
    doc = json.loads(COMMITTED.read_text(encoding="utf-8"))
    labels = {c.label for c in candidates()}
    for label, spec in doc["candidates"].items():
        assert spec["profile"] in PROFILES, label
        assert label in labels, label
    versions = {lib: __import__(lib).__version__ for lib in LIBRARIES}
    checked = 0
    for entry in doc["results"]:
        assert entry["error"] is None, entry
        for row in entry["metrics"]:
            assert row["matches"] or row["closest"] in doc["candidates"]
            assert set(row["matches"]) <= set(doc["candidates"])
        if entry["version"] == versions[entry["library"]]:
            now = _rows(installed, entry["library"])
            for row in entry["metrics"]:
                assert set(row["matches"]) <= set(now[row["metric"]]), row["metric"]
                checked += 1
    assert checked > 0  # the committed table holds the installed releases


def test_cases_are_deterministic_arrays() -> None:
    a, b = cases_arrays(build_cases()), cases_arrays(build_cases())
    assert a.keys() == b.keys()
    assert all(np.array_equal(a[k], b[k]) for k in a)
    long = next(c for c in build_cases() if c.name == "long_lists")
    assert long.group.tolist() == [40, 45, 50]
    assert long.labels[:40].sum() == 1
    assert long.labels[40:85].sum() == 5


def test_without_a_matching_profile_the_closest_and_its_first_difference_are_reported(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.crosscheck import versions

    monkeypatch.setattr(versions, "PROFILES", {"ltrbench": PROFILES["ltrbench"]})
    result = run_versions([("lightgbm", ["installed"])])
    row = next(r for r in result.reports[0].rows if r.metric == "ndcg@1")
    assert row.matches == []
    assert not result.ok
    assert row.closest == "ltrbench"
    # case ties, query 1: labels [0, 0, 1, 1], all four scores equal. LightGBM keeps row order
    # (an irrelevant document first: 0); averaged ties give the mean gain at rank 1: 2/4 = 0.5.
    assert row.first_difference == {"case": "ties", "query": 1, "library": 0.0,
                                    "profile": 0.5, "difference": -0.5}
    assert "`ltrbench`: `ties` query 1: library 0.000000, profile 0.500000" in \
        render_versions(result)
