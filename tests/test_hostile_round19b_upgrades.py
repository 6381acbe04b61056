"""Round 19b, a library-upgrade auditor: do ltrbench's numbers stay comparable across releases?

The auditor's team bumps LightGBM / XGBoost / CatBoost / scikit-learn / pandas and must know
whether an old number and a new one mean the same thing. The surfaces: the release-qualified
profiles (README "What changed between library releases": ``xgboost@1.7``, ``xgboost@1.7-``,
``allrank@1.4.0``), a profile named with a release that no profile carries, in Python, in a
metric's own qualifier, in a TOML config and on the command line; the package versions a run's
manifest records and what ``reproduce`` says when they differ or are missing;
``crosscheck --versions``' release list. Oracles: hand arithmetic of README's four 1.7
differences, README's release table and the committed ``results/definitions/versions.json``
(measured by installing each release).

Classes: traceback / silently wrong number / input destroyed / silent accept / unclear error.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bench import __version__
from bench.benchmark.config import RunConfig
from bench.benchmark.reproduce_steps import environment_tolerance
from bench.crosscheck.versions import parse_version_specs
from bench.errors import ConfigError, LtrbenchError
from bench.metrics import evaluate
from bench.metrics.profiles import get_profile
from bench.runs.manifest import environment, version_changes
from bench.runs.manifest_check import check_manifest
from tests.hostile_kit import ROOT, cli, refused

VERSIONS_JSON = ROOT / "results" / "definitions" / "versions.json"
MEASURED = ("1.7.6", "2.1.4", "3.2.0", "3.3.5", "4.7.0")  # README: the releases measured


def _error(name: str) -> str:
    with pytest.raises(LtrbenchError) as info:
        get_profile(name)
    return str(info.value)


def _suggests(msg: str, profile: str) -> bool:
    """The message points at ``profile`` (quoted) as the one to use."""
    return f"'{profile}'" in msg


# ------------------------------------------------------------ release-qualified names: refused
# A release that a profile name does not carry: the hint must be the profile README's release
# table gives for it (class: unclear error -- a wrong hint leads to a wrong number).
@pytest.mark.parametrize(("name", "want"), [
    ("xgboost@3.2.0", "xgboost"),  # 2.x/3.x: `xgboost` (README); edit distance said xgboost@1.7
    ("xgboost@2.1.4", "xgboost"),
    ("xgboost@2.1", "xgboost"),
    ("xgboost@2", "xgboost"),
    ("xgboost@3", "xgboost"),
    ("xgboost@1.7.6", "xgboost@1.7"),
    ("lightgbm@4", "lightgbm"),  # README: `lightgbm` for any LightGBM from 3.3 on
    ("lightgbm@3.3.5", "lightgbm"),
    ("lightgbm@4.7.0", "lightgbm"),
    ("xgboost-@1.7", "xgboost@1.7-"),  # the `-` variant of 1.7 is `xgboost@1.7-`
    ("xgboost@1.7.6-", "xgboost@1.7-"),
    ("xgboost-@3.2.0", "xgboost-"),
    ("allrank@1.4.1", "allrank"),  # 1.4.1 fixed what `allrank@1.4.0` keeps
    ("xgboost@1.6", "xgboost@1.7"),  # README: `xgboost@1.7` for XGBoost 1.x
    ("xgboost@1.7.7", "xgboost@1.7"),
    ("lightgbm@5", "lightgbm"),  # README: any LightGBM from 3.3 on
])
def test_release_in_a_profile_name_points_at_the_profile_readme_lists_for_it(
        name: str, want: str) -> None:
    msg = _error(name)
    assert _suggests(msg, want), msg
    wrong = {"xgboost", "xgboost@1.7", "xgboost-", "xgboost@1.7-", "allrank", "allrank@1.4.0",
             "lightgbm"} - {want}
    said = [w for w in wrong if f"did you mean '{w}'" in msg]
    assert not said, f"{name}: hints {said}, README says {want!r}: {msg[:200]}"


@pytest.mark.parametrize("name", ["xgboost@99", "xgboost@4", "xgboost@latest", "xgboost@",
                                  "lightgbm@2.3", "lightgbm@3"])
def test_a_release_nobody_measured_is_refused_naming_the_measured_ones(name: str) -> None:
    """(unclear error) 99 or LightGBM 2.3 is no release README's table covers (1.x, 2.x, 3.x;
    LightGBM from 3.3): say which were measured and how to measure another
    (``crosscheck --versions``), not 'did you mean xgboost@1.7'."""
    msg = _error(name)
    missing = [v for v in MEASURED if v not in msg]
    assert not missing, f"{name}: {msg[:160]} lacks the measured releases {missing}"
    assert "crosscheck --versions" in msg, msg[:200]
    assert "did you mean 'xgboost@1.7'" not in msg, msg[:200]


def test_catboost_release_says_catboost_releases_were_not_compared() -> None:
    """(unclear error) ``catboost@1.2``: no CatBoost release was compared; the profile
    ``catboost`` is the one there is."""
    msg = _error("catboost@1.2")
    assert _suggests(msg, "catboost"), msg[:200]
    assert all(["CatBoost" in msg, "not" in msg]), msg[:200]


def test_leading_zero_release_is_not_silently_read_as_1_7() -> None:
    """(silent accept) ``xgboost@01.7`` is not the name ``xgboost@1.7``."""
    msg = _error("xgboost@01.7")
    assert _suggests(msg, "xgboost@1.7"), msg[:200]


@pytest.mark.parametrize("name", ["XGBoost@1.7", "xgboost@1.7 ", " xgboost@1.7", "XGBOOST@1.7"])
def test_case_and_outer_spaces_of_a_release_profile_are_forgiven_as_for_plain_names(
        name: str) -> None:
    """get_profile strips and lowercases (its doctest: ' LightGBM '); the release form too."""
    assert get_profile(name).name == "xgboost@1.7"


def test_space_around_the_at_sign_is_refused_with_the_spelling() -> None:
    """(silent accept) ``xgboost @ 1.7`` is refused, naming ``xgboost@1.7``."""
    assert _suggests(_error("xgboost @ 1.7"), "xgboost@1.7")


# ------------------------------------------------------ the 1.7 profile's numbers, by hand
def _whole_list() -> tuple[np.ndarray, np.ndarray]:
    labels = np.zeros(40)
    labels[34] = 1  # the only relevant document, ranked 35th
    return labels, np.arange(40, 0, -1, dtype=float)


def test_bare_ndcg_under_1_7_covers_the_whole_list() -> None:
    """README difference 1: 1.7's bare ``ndcg`` = 1/log2(36) = 0.19343; 2.x stops at 32: 0."""
    labels, scores = _whole_list()
    old = evaluate(labels, scores, group=[40], metrics="ndcg", profile="xgboost@1.7")
    new = evaluate(labels, scores, group=[40], metrics="ndcg", profile="xgboost")
    assert math.isclose(old.metrics["ndcg"], 1 / math.log2(36), rel_tol=1e-12)
    assert new.metrics["ndcg"] == 0.0


def test_bare_map_under_1_7_covers_the_whole_list() -> None:
    """Bare ``map`` = whole list under 1.7: AP = (1/35)/1."""
    labels, scores = _whole_list()
    got = evaluate(labels, scores, group=[40], metrics="map", profile="xgboost@1.7")
    assert math.isclose(got.metrics["map"], 1 / 35, rel_tol=1e-12)


def test_map_at_10_under_1_7_divides_by_all_relevant_documents() -> None:
    """README difference 2: 12 relevant, top 10 all hits: 10/12 under 1.7, 10/10 under 2.x."""
    labels, scores = np.ones(12), np.arange(12, 0, -1, dtype=float)
    old = evaluate(labels, scores, group=[12], metrics="map@10", profile="xgboost@1.7")
    new = evaluate(labels, scores, group=[12], metrics="map@10", profile="xgboost")
    assert math.isclose(old.metrics["map@10"], 10 / 12, rel_tol=1e-12)
    assert math.isclose(new.metrics["map@10"], 1.0, rel_tol=1e-12)


def test_query_weights_are_ignored_under_1_7_and_used_under_2x() -> None:
    """README difference 3: q1 perfect (1), q2 = 1/log2(3); weights 1 and 3."""
    labels, scores = np.array([1, 0, 0, 1]), np.array([2.0, 1.0, 2.0, 1.0])
    v = 1 / math.log2(3)
    old = evaluate(labels, scores, group=[2, 2], metrics="ndcg@10", profile="xgboost@1.7",
                   weights=[1.0, 3.0])
    new = evaluate(labels, scores, group=[2, 2], metrics="ndcg@10", profile="xgboost",
                   weights=[1.0, 3.0])
    assert math.isclose(old.metrics["ndcg@10"], (1 + v) / 2, rel_tol=1e-12)
    assert math.isclose(new.metrics["ndcg@10"], (1 + 3 * v) / 4, rel_tol=1e-12)


def test_graded_labels_in_map_under_1_7_count_as_relevant() -> None:
    """README difference 4: labels 2,0,1 by score: hits at ranks 1 and 3: (1 + 2/3)/2."""
    got = evaluate([2, 0, 1], [3.0, 2.0, 1.0], group=[3], metrics="map", profile="xgboost@1.7")
    assert math.isclose(got.metrics["map"], (1 + 2 / 3) / 2, rel_tol=1e-12)


def test_graded_labels_in_map_are_refused_under_the_2x_profile() -> None:
    """(silent accept) 2.x refuses labels other than 0/1 for ``map``, and so does ``xgboost``."""
    with pytest.raises(LtrbenchError):
        evaluate([2, 0, 1], [3.0, 2.0, 1.0], group=[3], metrics="map", profile="xgboost")


def test_1_7_compares_scores_as_float32_and_keeps_row_order_of_the_tie() -> None:
    """1.0 and 1.0 + 1e-9 are one float32: row order puts label 0 first: 1/log2(3)."""
    got = evaluate([0, 1], [1.0, 1.0 + 1e-9], group=[2], metrics="ndcg@10",
                   profile="xgboost@1.7")
    assert math.isclose(got.metrics["ndcg@10"], 1 / math.log2(3), rel_tol=1e-12)


@pytest.mark.parametrize(("profile", "want"), [("xgboost@1.7", 1.0), ("xgboost@1.7-", 0.5)])
def test_blank_query_scores_1_under_1_7_and_0_under_its_minus_variant(profile: str,
                                                                      want: float) -> None:
    got = evaluate([1, 0, 0, 0], [2.0, 1.0, 2.0, 1.0], group=[2, 2], metrics="ndcg@10",
                   profile=profile)
    assert math.isclose(got.metrics["ndcg@10"], want, rel_tol=1e-12)


def test_a_spelled_release_profile_is_labelled_by_its_registered_name() -> None:
    """(silently wrong label) a result computed under 'XGBoost@1.7 ' names 'xgboost@1.7'."""
    got = evaluate([1, 0], [2.0, 1.0], group=[2], metrics="map", profile="XGBoost@1.7 ")
    assert got.profile.name == "xgboost@1.7"


def test_release_profile_as_a_qualifier_with_case_and_spaces() -> None:
    """``XGBoost@1.7 : map@10`` is the 1.7 number (10/12), not the 2.x one (1.0)."""
    labels, scores = np.ones(12), np.arange(12, 0, -1, dtype=float)
    got = evaluate(labels, scores, group=[12], metrics="XGBoost@1.7 : map@10")
    assert len(got.metrics) == 1
    assert math.isclose(next(iter(got.metrics.values())), 10 / 12, rel_tol=1e-12)


@pytest.mark.parametrize(("metric", "want"), [("xgboost@2.1.4:ndcg@10", "xgboost"),
                                              ("xgboost@1.7.6:ndcg@5", "xgboost@1.7")])
def test_release_in_a_metric_qualifier_points_at_the_right_profile(metric: str,
                                                                   want: str) -> None:
    with pytest.raises(LtrbenchError) as info:
        evaluate([1, 0], [2.0, 1.0], group=[2], metrics=metric)
    msg = str(info.value)
    assert _suggests(msg, want), msg[:240]
    assert want == "xgboost@1.7" or "did you mean 'xgboost@1.7'" not in msg, msg[:240]


# --------------------------------------------------------------------- config and command line
def _config(tmp: Path, profile: str) -> Path:
    path = tmp / "c.toml"
    path.write_text(f'dataset = "synthetic"\nmodels = ["lightgbm"]\nprofile = "{profile}"\n')
    return path


def test_config_profile_with_a_2x_release_is_refused_naming_file_key_and_profile(
        tmp_path: Path) -> None:
    path = _config(tmp_path, "xgboost@3.2.0")
    with pytest.raises(LtrbenchError) as info:
        RunConfig.load(path).resolved()
    msg = str(info.value)
    assert all(["c.toml" in msg, "profile" in msg, _suggests(msg, "xgboost")]), msg[:240]
    assert "did you mean 'xgboost@1.7'" not in msg, msg[:240]


def test_config_profile_spelled_with_case_resolves_to_the_1_7_profile(tmp_path: Path) -> None:
    cfg = RunConfig.load(_config(tmp_path, "XGBoost@1.7"))
    assert get_profile(cfg.profile).name == "xgboost@1.7"


def test_evaluate_cli_profile_with_a_release_is_one_error_line(tmp_path: Path) -> None:
    (tmp_path / "d.svm").write_bytes(b"1 qid:1 1:0.5\n0 qid:1 1:0.1\n")
    (tmp_path / "s.txt").write_bytes(b"0.9\n0.1\n")
    res = cli(tmp_path, "evaluate", "--data", "d.svm", "--scores", "s.txt",
              "--profile", "xgboost@2.1.4")
    problem = refused(res, "xgboost@2.1.4", "'xgboost'")
    assert problem is None, problem
    assert "did you mean 'xgboost@1.7'" not in res.err, res.err


# ------------------------------------------------------- manifests: versions recorded or not
def _manifest() -> dict[str, Any]:
    """This process's environment as a run would record it (taken now: the BLAS libraries
    loaded so far are part of it)."""
    return {"ltrbench_version": __version__, "environment": copy.deepcopy(environment()),
            "threads": 1}


def test_same_recorded_versions_expect_bit_identical_numbers() -> None:
    assert environment_tolerance(_manifest(), 1) == (0.0, "same environment: bit-identical "
                                                          "expected")


def test_one_blas_kernel_loaded_once_or_twice_is_the_same_environment() -> None:
    """(silently wrong tolerance) threadpoolctl lists each loaded copy of OpenBLAS (numpy's,
    scipy's): a manifest written before scipy was loaded lists one 'openblas Haswell', a
    reproduce after it two (0.3.31 and 0.3.30); the kernel family is the same, so bit-identity is still expected."""
    m = _manifest()
    blas = m["environment"].get("blas") or []
    m["environment"]["blas"] = blas * 2 if len(blas) == 1 else blas[:1]
    if not blas or len({(b["internal_api"], b["architecture"]) for b in blas}) > 1:
        pytest.skip("needs one BLAS kernel family loaded")
    assert environment_tolerance(m, 1)[0] == 0.0, environment_tolerance(m, 1)[1]


def test_a_manifest_edited_to_claim_xgboost_1_7_is_noticed_with_both_versions() -> None:
    """(silently wrong number) an edited manifest: reproduce must not expect bit-identity."""
    m = _manifest()
    m["environment"]["packages"]["xgboost"] = "1.7.6"
    tol, why = environment_tolerance(m, 1)
    now = environment()["packages"]["xgboost"]
    assert all([tol > 0, f"xgboost 1.7.6 -> {now}" in why]), why


@pytest.mark.parametrize("pkg", ["pandas", "scikit-learn", "lightgbm", "catboost"])
def test_an_upgraded_numeric_package_is_named_by_reproduce_and_resume(pkg: str) -> None:
    m = _manifest()
    m["environment"]["packages"][pkg] = "0.0.1"
    tol, why = environment_tolerance(m, 1)
    assert all([tol > 0, f"{pkg} 0.0.1 ->" in why]), why
    assert any(c.startswith(f"{pkg} 0.0.1 there") for c in version_changes(m))


def test_a_manifest_without_package_versions_says_they_were_not_recorded() -> None:
    """(unclear error) no ``environment.packages``: one note 'not recorded', not a list of
    'numpy None -> 2.4.6' (None reads as 'not installed there')."""
    m = _manifest()
    del m["environment"]["packages"]
    tol, why = environment_tolerance(m, 1)
    assert tol > 0, why
    assert all(["None" not in why, "not recorded" in why]), why


def test_a_manifest_without_one_package_key_says_it_was_not_recorded() -> None:
    m = _manifest()
    del m["environment"]["packages"]["xgboost"]
    tol, why = environment_tolerance(m, 1)
    assert tol > 0, why
    assert all(["None" not in why, "xgboost" in why, "not recorded" in why]), why


def test_a_manifest_without_ltrbench_version_is_not_taken_for_the_same_environment() -> None:
    """(silently wrong number) no ``ltrbench_version``: the reference evaluator that made the
    numbers is unknown, so bit-identity cannot be expected; say so."""
    m = _manifest()
    del m["ltrbench_version"]
    tol, why = environment_tolerance(m, 1)
    assert all([tol > 0, "ltrbench" in why, "not recorded" in why]), why


@pytest.mark.parametrize("value", [3.2, None, ["3.2.0"], ""])
def test_a_package_version_that_is_not_text_is_refused_naming_the_field(value: Any,
                                                                        tmp_path: Path) -> None:
    """(silent accept) ``"xgboost": 3.2`` (a hand edit) read as a version '3.2'."""
    m = _manifest()
    m["environment"]["packages"]["xgboost"] = value
    with pytest.raises(ConfigError) as info:
        check_manifest(m, tmp_path / "manifest.json")
    msg = str(info.value)
    assert all(["manifest.json" in msg, "environment.packages" in msg, "xgboost" in msg]), msg


def test_reading_an_edited_manifest_leaves_it_unchanged(tmp_path: Path) -> None:
    """(input destroyed) checking a manifest does not rewrite it."""
    m = _manifest()
    m["environment"]["packages"]["xgboost"] = "1.7.6"
    path = tmp_path / "manifest.json"
    text = json.dumps(m, indent=1)
    path.write_text(text)
    check_manifest(json.loads(text), path)
    environment_tolerance(json.loads(text), 1)
    assert path.read_text() == text


# ------------------------------------------------------------- crosscheck --versions' list
def test_versions_json_matches_the_profiles_readme_names_for_each_release() -> None:
    """README: 1.7.6 -> xgboost@1.7, 2.1.4/3.2.0 -> xgboost, 3.3.5/4.7.0 -> lightgbm; the
    committed measurement says the same for ndcg@10 and map@10, and each name resolves."""
    want = {"1.7.6": "xgboost@1.7", "2.1.4": "xgboost", "3.2.0": "xgboost",
            "3.3.5": "lightgbm", "4.7.0": "lightgbm"}
    doc = json.loads(VERSIONS_JSON.read_text())
    for r in doc["results"]:
        rows = {m["metric"]: m["matches"] for m in r["metrics"]}
        for metric in ("ndcg@10", "map@10"):
            assert want[r["version"]] in rows[metric], (r["library"], r["version"], metric)
        assert get_profile(want[r["version"]]).name == want[r["version"]]


def test_the_same_release_spelled_twice_is_installed_once() -> None:
    """(silent accept) ``1.7.6,01.7.6`` is one release to pip: one environment, one row."""
    try:
        specs = parse_version_specs(["xgboost==1.7.6,01.7.6"])
    except ConfigError:
        return  # refused: also fine
    assert len(specs[0][1]) == 1, specs


def test_a_version_spec_with_an_operator_inside_the_list_is_refused() -> None:
    """(silent accept) ``xgboost==1.7.6,>=2`` must not reach pip as a range."""
    with pytest.raises(ConfigError, match="bad version"):
        parse_version_specs(["xgboost==1.7.6,>=2"])
