"""Round 23b, persona G: the typo-prone user who spells every choice a little differently.

One rule for a choice on every door (a TOML config, ``RunConfig.from_dict`` / the Python API,
a command-line option): a fixed choice written in another letter case or with ASCII spaces
around it (``engine = "Dask"``, ``--format JSON``, ``profile = "LightGBM "``) is read as its one
spelling and said once (``ChoiceSpellingWarning``, a ``warning:`` line on the command line), as
profiles and model names were already; anything else (a typo, a look-alike letter, a no-break
space) is refused, naming the closest valid spelling or the character. A run name follows one
rule on every door (``name = ""`` as ``--name ""``). A custom ranker's params hold no NaN (it
equals nothing, so a config would differ from itself when read again).

Class of each case in its id: traceback / silently wrong number / silent accept / unclear error.
Golden values are hand arithmetic on the tiny qrels of ``hostile_kit``.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import QRELS, RUN, cli, ok, own_error, refused, write

from bench.benchmark.config import RunConfig
from bench.errors import ConfigError

BASE = {"dataset": "synthetic"}
CUSTOM = 'dataset = "synthetic"\nmodels = ["mine"]\n[custom_models.mine]\n' \
         'factory = "sklearn.linear_model:Ridge"\n'


def _said(caught: list[warnings.WarningMessage], *words: str) -> list[str]:
    """The messages of the caught ChoiceSpellingWarnings holding every word."""
    return [str(w.message) for w in caught if w.category.__name__ == "ChoiceSpellingWarning"
            and all(x in str(w.message) for x in words)]


def _config(**kw: Any) -> tuple[Any, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cfg = RunConfig.from_dict({**BASE, **kw})
    return cfg, caught


# ---- one rule for a case/space variant of a choice: read as its spelling, said once ----------
@pytest.mark.parametrize(("key", "given", "want"), [
    ("engine", "Dask", "dask"),          # silent accept elsewhere / refused here: two rules
    ("engine", "local ", "local"),
    ("timing", "Isolated", "isolated"),
    ("device", "CPU", "cpu"),
])
def test_silent_accept_a_config_choice_in_another_case_is_read_as_its_spelling_and_said(
        key: str, given: str, want: str) -> None:
    cfg, caught = _config(**{key: given})
    assert getattr(cfg, key) == want
    assert len(_said(caught, key, repr(given), repr(want))) == 1, [str(w.message) for w in caught]


def test_silent_accept_a_profile_in_another_case_is_said_once_not_silently_changed() -> None:
    cfg, caught = _config(profile="LightGBM ")
    assert cfg.profile == "lightgbm"
    assert len(_said(caught, "'LightGBM '", "'lightgbm'")) == 1, [str(w.message) for w in caught]


def test_silent_accept_a_model_name_with_a_space_is_said_once() -> None:
    cfg, caught = _config(models=[" xgboost-ndcg"])
    assert cfg.models == ("xgboost-ndcg",)
    assert len(_said(caught, "' xgboost-ndcg'", "'xgboost-ndcg'")) == 1


def test_unclear_error_a_model_name_in_capitals_is_the_model_not_unknown() -> None:
    cfg, caught = _config(models=["LightGBM-LambdaRank"])  # was: unknown model
    assert cfg.models == ("lightgbm-lambdarank",)
    assert _said(caught, "'LightGBM-LambdaRank'")


def test_unclear_error_select_metric_in_capitals_is_read_as_the_metric_list_reads_it(
        tmp_path: Path) -> None:
    """``metrics = ["NDCG@10"]`` was read as ndcg@10, ``select_metric = "NDCG@10"`` refused."""
    f = tmp_path / "c.toml"
    f.write_text('dataset = "synthetic"\nselect_metric = "NDCG@5"\nearly_stopping_split = "Vali"\n')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cfg = RunConfig.load(f)
    assert (cfg.select_metric, cfg.early_stopping_split) == ("ndcg@5", "vali")
    assert len(_said(caught, "'NDCG@5'")) == 1, [str(w.message) for w in caught]
    assert len(_said(caught, "'Vali'")) == 1, [str(w.message) for w in caught]
    assert 'select_metric = "ndcg@5"' in cfg.to_toml()


def test_unclear_error_select_metric_of_another_family_is_still_refused() -> None:
    ok(own_error(lambda: RunConfig.from_dict({**BASE, "select_metric": "MAP@10"}),
                 "select_metric", "'ndcg@k'"))


def test_silent_accept_a_dataset_name_in_capitals_is_said_once() -> None:
    cfg, caught = _config(dataset="Synthetic")
    assert cfg.dataset == "synthetic"
    assert len(_said(caught, "'Synthetic'", "'synthetic'")) == 1, [str(w.message) for w in caught]


def test_silent_accept_a_dataset_name_with_a_no_break_space_is_refused_naming_it() -> None:
    ok(own_error(lambda: RunConfig.from_dict({"dataset": "synthetic\u00a0"}), "dataset",
                 "U+00A0"))


def test_silently_wrong_a_hand_built_params_label_gain_in_capitals_trains_linear() -> None:
    """``Params(label_gain="Linear")`` passed its check but kept 'Linear', which the trainers
    compare with 'linear': it must be 'linear' (the gains 0, 1, 2 of linear, not 0, 1, 3)."""
    from bench.runners.params import Params

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        p = Params(label_gain="Linear", device="CPU")
    assert (p.label_gain, p.device) == ("linear", "cpu")
    assert _said(caught, "'Linear'", "'linear'")


def test_silently_wrong_a_tune_grid_of_linear_and_linear_in_capitals_repeats_one_value() -> None:
    """Two trials of one setting would be two grid points (a grid of 2 that searches 1)."""
    from bench.benchmark.search_space import parse_dimension
    from bench.benchmark.tune import check_space

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ok(own_error(lambda: check_space({"label_gain": ["linear", "Linear"]}), "label_gain",
                     "repeats"))
        ok(own_error(lambda: parse_dimension("label_gain", {"choices": ["linear", "Linear"]},
                                             "lightgbm"), "label_gain", "repeats"))
        dim = parse_dimension("label_gain", {"choices": ["Exp2", "linear"]}, "lightgbm")
    assert dim.choices == ("exp2", "linear")


def test_silent_accept_the_python_api_profile_in_capitals_is_said_once() -> None:
    from bench.metrics import evaluate

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = evaluate([1, 0, 2], [0.4, 0.9, 0.1], group=[3], metrics="map", profile="TREC_EVAL")
    assert got.profile.name == "trec_eval"
    # map by hand: relevant a (rank 2), c (rank 3): (1/2 + 2/3) / 2
    assert abs(got.metrics["map"] - (0.5 + 2 / 3) / 2) < 1e-12
    assert len(_said(caught, "'TREC_EVAL'", "'trec_eval'")) == 1


def test_unclear_error_the_python_api_backend_in_capitals_is_read_as_its_spelling() -> None:
    from bench.metrics import evaluate

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = evaluate([1, 0], [2.0, 1.0], group=[2], metrics="map", backend="NumPy")
    assert got.metrics["map"] == 1.0
    assert _said(caught, "'NumPy'", "'numpy'")


def test_unclear_error_a_misspelt_backend_names_the_closest() -> None:
    from bench.metrics import evaluate

    ok(own_error(lambda: evaluate([1, 0], [2.0, 1.0], group=[2], metrics="map",
                                  backend="nunpy"), "'nunpy'", "did you mean 'numpy'"))


def test_silently_wrong_a_hand_built_profile_field_in_capitals_is_the_registered_profile() -> None:
    """``replace(trec_eval, missing="Zero")`` is trec_eval -c (was: refused, while the profile's
    own name in capitals was accepted)."""
    import dataclasses

    from bench.metrics.profiles import get_profile, given_profile

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prof = dataclasses.replace(get_profile("trec_eval"), missing="Zero")
    assert prof.missing == "zero"
    assert given_profile(prof).name == "trec_eval-c"
    assert _said(caught, "missing", "'Zero'", "'zero'")


def test_unclear_error_a_misspelt_profile_field_names_the_closest() -> None:
    import dataclasses

    from bench.metrics.profiles import get_profile

    ok(own_error(lambda: dataclasses.replace(get_profile("ltrbench"), ties="stabel"), "ties",
                 "did you mean 'stable'"))


def test_silent_accept_tune_sampler_from_python_in_capitals_is_read_as_tpe() -> None:
    from bench.benchmark.study import StudyOptions

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        opts = StudyOptions(sampler="TPE", pruner="Median ")
    assert (opts.sampler, opts.pruner) == ("tpe", "median")
    assert len(_said(caught)) == 2, [str(w.message) for w in caught]


def test_unclear_error_a_misspelt_tune_pruner_from_python_names_the_closest() -> None:
    from bench.benchmark.study import StudyOptions

    ok(own_error(lambda: StudyOptions(pruner="medain"), "--pruner", "did you mean 'median'"))


@pytest.mark.parametrize("given", ["Native ", "PINNED"])
def test_silent_accept_the_blas_variable_in_capitals_is_read_as_spelled_and_said(
        given: str) -> None:
    """An environment variable's choice follows the one rule: read as spelled, said once."""
    from bench.machine import pin_blas_kernels

    flags = "flags\t: avx2 fma\n"
    got = pin_blas_kernels({"LTRBENCH_BLAS": given}, cpuinfo=flags, loaded=())
    plain = pin_blas_kernels({"LTRBENCH_BLAS": given.strip().lower()}, cpuinfo=flags, loaded=())
    assert got.startswith("warning:"), got
    assert repr(given) in got, got
    assert got.endswith(plain), (got, plain)


@pytest.fixture
def trec(tmp_path: Path) -> Path:
    write(tmp_path, {"q.txt": QRELS, "r.txt": RUN})
    return tmp_path


EVAL = ("evaluate", "--qrels", "q.txt", "--run", "r.txt")


def test_silent_accept_cli_format_in_capitals_prints_json_and_says_so(trec: Path) -> None:
    res = cli(trec, *EVAL, "--metrics", "map", "--format", "JSON")
    assert res.status == 0, res.err
    got = json.loads(res.out)
    # map by hand: q1 ranks b(0), a(1), c(2) -> (1/2 + 2/3)/2; q2 ranks e(0), d(1) -> 1/2
    want = ((0.5 + 2 / 3) / 2 + 0.5) / 2
    assert abs(got["metrics"]["map"] - want) < 1e-12, got
    assert "'JSON'" in res.err, res.err
    assert "'json'" in res.err, res.err


def test_silent_accept_cli_engine_in_capitals_is_read_as_local(trec: Path) -> None:
    res = cli(trec, *EVAL, "--metrics", "P@2", "--engine", "Local", "--format", "json")
    assert res.status == 0, res.err
    # P@2 by hand: q1 top two b(0), a(1) -> 1/2; q2 e(0), d(1) -> 1/2
    assert json.loads(res.out)["metrics"]["P@2"] == 0.5, res.out
    assert "'Local'" in res.err, res.err
    assert "'local'" in res.err, res.err


def test_silent_accept_cli_profile_in_capitals_is_said_once(trec: Path) -> None:
    res = cli(trec, *EVAL, "--metrics", "map", "--profile", "TREC_EVAL", "--format", "json")
    assert res.status == 0, res.err
    assert json.loads(res.out)["profile"] == "trec_eval"
    assert res.err.count("'TREC_EVAL'") == 1, res.err


def test_silently_wrong_compare_runs_missing_in_capitals_scores_a_missing_query_zero(
        trec: Path) -> None:
    from bench.report.compare_runs import compare_runs

    (trec / "b.txt").write_bytes(b"".join(ln + b"\n" for ln in RUN.splitlines()[:3]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = compare_runs(trec / "q.txt", {"A": trec / "r.txt", "B": trec / "b.txt"},
                           metrics="map", missing="Zero")
    # B by hand: q1's map (1/2 + 2/3)/2, q2 (no run line) scored 0 under 'zero'
    assert abs(got.mean["map"][1] - (0.5 + 2 / 3) / 2 / 2) < 1e-12, got.mean
    assert _said(caught, "'Zero'", "'zero'")


# ---- anything else is refused, naming the closest spelling or the odd character -------------
def test_unclear_error_a_misspelt_config_choice_names_the_closest() -> None:
    ok(own_error(lambda: RunConfig.from_dict({**BASE, "engine": "dsak"}), "engine",
                 "did you mean 'dask'"))


def test_unclear_error_a_config_choice_with_a_no_break_space_names_it() -> None:
    ok(own_error(lambda: RunConfig.from_dict({**BASE, "timing": "isolated\u00a0"}), "timing",
                 "U+00A0"))


def test_unclear_error_a_config_choice_with_a_cyrillic_letter_names_it() -> None:
    ok(own_error(lambda: RunConfig.from_dict({**BASE, "engine": "d\u0430sk"}), "engine",
                 "U+0430"))


def test_unclear_error_cli_format_with_a_look_alike_names_the_character(trec: Path) -> None:
    ok(refused(cli(trec, *EVAL, "--format", "j\u0455on"), "--format", "U+0455"))


def test_unclear_error_cli_choice_with_a_no_break_space_names_it(trec: Path) -> None:
    ok(refused(cli(trec, *EVAL, "--missing", "zero\u00a0"), "--missing", "U+00A0"))


def test_unclear_error_cli_sampler_in_capitals_with_a_typo_names_the_closest(trec: Path) -> None:
    ok(refused(cli(trec, "tune", "--sampler", "TPF"), "--sampler", "did you mean 'tpe'"))


def test_silent_accept_a_choice_said_in_two_cases_is_not_two_choices() -> None:
    a, _ = _config(engine="local")
    b, _ = _config(engine="LOCAL")
    assert a == b
    assert a.engine == b.engine == "local"


# ---- one rule for a run name on every door -------------------------------------------------
def test_silent_accept_an_empty_name_in_a_config_file_is_no_name_as_config_toml_records_it(
        tmp_path: Path) -> None:
    """(defensible, pinned) every run's config.toml records ``name = ""`` for no name, so a
    file's ``name = ""`` is no name (the run is named after its dataset) and reads back equal;
    ``--name ""`` is an empty option value, refused as every one is (README)."""
    f = tmp_path / "c.toml"
    f.write_text('dataset = "synthetic"\nname = ""\n')
    cfg = RunConfig.load(f)
    assert cfg.name == ""
    assert RunConfig.load(f) == RunConfig.from_dict(BASE)
    ok(refused(cli(tmp_path, "run", "--name", "", "--dataset", "synthetic"), "--name", "empty"))


def test_silent_accept_a_name_of_spaces_only_is_refused_on_both_doors(tmp_path: Path) -> None:
    ok(own_error(lambda: RunConfig.from_dict({**BASE, "name": "   "}), "name", "empty"))
    ok(refused(cli(tmp_path, "run", "--name", "   ", "--dataset", "synthetic"), "--name",
               "empty"))


def test_input_destroyed_a_name_of_dots_only_names_no_folder_outside_the_runs() -> None:
    """(defensible, pinned) '..' is a display name; its folder is a plain name with a digest."""
    from bench.runs.naming import dataset_slug

    assert RunConfig.from_dict({**BASE, "name": ".."}).name == ".."
    slug = dataset_slug("..")
    assert slug not in ("", ".", ".."), slug
    assert "/" not in slug, slug
    assert not slug.startswith("."), slug


# ---- a custom ranker's params: NaN equals nothing ------------------------------------------
def test_silently_wrong_a_nan_custom_param_in_a_config_file_is_refused_naming_the_key(
        tmp_path: Path) -> None:
    f = tmp_path / "c.toml"
    f.write_text(CUSTOM + "params = {alpha = nan}\n")
    ok(own_error(lambda: RunConfig.load(f), "alpha", "nan"))


def test_silently_wrong_a_nan_nested_in_a_list_param_is_refused_naming_the_key(
        tmp_path: Path) -> None:
    f = tmp_path / "c.toml"
    f.write_text(CUSTOM + "params = {weights = [1.0, -nan]}\n")
    ok(own_error(lambda: RunConfig.load(f), "weights", "nan"))


def test_silently_wrong_a_nan_custom_param_from_python_is_refused_as_in_a_file() -> None:
    ok(own_error(lambda: RunConfig.from_dict({**BASE, "models": ["mine"], "custom_models": {
        "mine": {"factory": "sklearn.linear_model:Ridge", "params": {"alpha": float("nan")}}}}),
        "alpha", "nan"))


def test_silently_wrong_an_inf_custom_param_reads_back_as_the_same_config(tmp_path: Path) -> None:
    f = tmp_path / "c.toml"
    f.write_text(CUSTOM + "params = {alpha = inf}\n")
    a, b = RunConfig.load(f), RunConfig.load(f)
    assert a == b
    assert hash(a) == hash(b)
    assert a.to_toml() == b.to_toml()


# ---- siblings: booleans and separators -----------------------------------------------------
def test_unclear_error_a_toml_boolean_written_yes_says_true_or_false(tmp_path: Path) -> None:
    f = tmp_path / "c.toml"
    f.write_text('dataset = "synthetic"\nquick = yes\n')
    ok(own_error(lambda: RunConfig.load(f), "c.toml", "line 2", "true"))


def test_silent_accept_a_quoted_true_is_not_a_boolean() -> None:
    ok(own_error(lambda: RunConfig.from_dict({**BASE, "quick": "True"}), "quick",
                 "true or false"))


def test_silently_wrong_metrics_separated_by_a_tab_are_the_two_metrics(trec: Path) -> None:
    res = cli(trec, *EVAL, "--metrics", "map\tP@1", "--format", "json")
    assert res.status == 0, res.err
    got = json.loads(res.out)["metrics"]
    # P@1 by hand: q1's top b is 0, q2's top e is 0
    assert set(got) == {"map", "P@1"}, got
    assert got["P@1"] == 0.0, got


def test_unclear_error_a_seeds_option_with_a_full_width_digit_names_it(tmp_path: Path) -> None:
    ok(own_error(lambda: RunConfig.from_dict({**BASE, "seeds": "0,\uff11"}), "seeds", "U+FF11"))


def test_unclear_error_a_config_error_is_a_config_error() -> None:
    with pytest.raises(ConfigError):
        RunConfig.from_dict({**BASE, "engine": "dsak"})
