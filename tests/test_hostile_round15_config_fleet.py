"""Hostile configs, round 15 (issue 19, item 5), played as a platform engineer who generates
ltrbench's TOML run configs for a fleet of experiments from templates (Jinja, Helm/Go templates,
envsubst, YAML/JSON converted by a script) and runs ``run --config`` / ``tune --config`` from CI.

What such a fleet produces, and what each case expects (the oracle in brackets):

- **a template left unrendered:** ``name = "{{ name }}"`` ran and named the run's folders and
  tables ``{{ name }}``; ``description``, a custom model's own ``params`` and Go's ``<no value>``
  (what a Helm template renders for a missing key) were kept the same way; ``dataset =
  "${DATASET}"`` said ``unknown dataset '${dataset}'`` (lower-cased, not the text written);
  ``n_trees = "{{ n_trees }}"`` said only "expected an integer"; ``data_dir = "$HOME/ltr"`` was
  taken as a folder literally named ``$HOME``. [refused, naming the file, the key path as the
  file spells it and the placeholder; text with plain braces or a dollar amount is accepted]
- **a template tag or an unquoted placeholder** (``{% if %}``, ``n_trees = {{ n }}``) is a TOML
  syntax error: the message now says what the line is. [the line and "template"]
- **look-alike keys:** ``"quіck" = true`` (a Cyrillic ``і``) said ``unknown config key quіck;
  did you mean 'quick'?``, which reads as nonsense; the bare-key spelling gave a parser message
  at a column that shows nothing wrong. [the code point named, U+0456]
- **a TOML file meant for another tool:** a ``pyproject.toml`` (``[tool.ltrbench]``), a
  LightGBM config written as TOML, a dataset card: "unknown config key project / task / title"
  with no word of what the file is. [the kind of file named]
- **the command line:** ``run --config ""`` (a CI variable left empty) is refused; a config
  that is a symbolic link looping on itself was "no config file" [the link named]; ``--config
  Synthetic`` listed the names without the closest one; a file ``ohsumed`` in the working
  folder silently replaced the shipped config ``ohsumed`` [said; ``./ohsumed`` without a word].
- **what a converter leaves:** a YAML file given as the config [its first line called YAML];
  an empty ``[model_params.popularity]`` (one table per model) was refused though an empty
  GBDT table sets nothing [the same config and hash as without it]; 10,000 seeds in an array
  [taken], 10,001 [refused by count]; a ``tune --space`` choice ``"{{ method }}"`` [refused
  before any trial].
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hostile_kit import api_refused, call, cli, own_error, refused

from bench.benchmark.config import RunConfig
from bench.errors import ConfigError


def _load(tmp_path: Path, text: str, name: str = "fleet.toml") -> Any:
    """``RunConfig.load`` of ``text`` written to ``name``; its error text without the folder
    (pytest names the folder after the test, whose words would match any oracle)."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")

    def load() -> RunConfig:
        try:
            return RunConfig.load(path)
        except ConfigError as exc:
            raise ConfigError(str(exc).replace(str(tmp_path), "<tmp>")) from None
    return load


# ------------------------------------------------------------------ a template left unrendered
@pytest.mark.parametrize(("text", "words"), [
    ('name = "{{ name }}"\n', ("name", "{{ name }}", "template")),
    ('description = "nightly run of {{ model }}"\n', ("description", "{{ model }}", "template")),
    ('name = "<no value>"\n', ("name", "<no value>", "template")),
    ('dataset = "${DATASET}"\n', ("dataset", "${DATASET}", "template")),
    ('dataset = "{% if big %}mslr-web30k{% else %}synthetic{% endif %}"\n',
     ("dataset", "{% if big %}", "template")),
    ('[params]\nn_trees = "{{ n_trees }}"\n', ("[params] n_trees", "{{ n_trees }}", "template")),
    ('models = ["lightgbm-lambdarank"]\n[model_params.lightgbm-lambdarank]\n'
     'learning_rate = "${LR}"\n',
     ("[model_params.lightgbm-lambdarank] learning_rate", "${LR}", "template")),
    ('seeds = "{{ seeds }}"\n', ("seeds", "{{ seeds }}", "template")),
    ('models = ["random", "{{ extra }}"]\n', ("models", "{{ extra }}", "template")),
    ('metrics = ["ndcg@10", "${METRIC}"]\n', ("metrics", "${METRIC}", "template")),
    ('profile = "{{ profile }}"\n', ("profile", "{{ profile }}", "template")),
    ('models = ["mine"]\n[custom_models.mine]\nfactory = "bench.runners.baselines:RandomRanker"\n'
     'params = { alpha = "{{ alpha }}" }\n',
     ("custom_models.mine", "alpha", "{{ alpha }}", "template")),
    ('[als]\nfactors = "{{ factors }}"\n', ("[als] factors", "{{ factors }}", "template")),
])
def test_an_unrendered_template_placeholder_is_refused_naming_the_key(
        tmp_path: Path, text: str, words: tuple[str, ...]) -> None:
    bad = own_error(_load(tmp_path, text), "fleet.toml", *words)
    assert bad is None, bad


@pytest.mark.parametrize(("text", "words"), [
    ('data_dir = "$HOME/ltr"\n', ("data_dir", "$HOME", "environment variable")),
    ('data_dir = "/srv/ltr:$LTR_CACHE"\n', ("data_dir", "$LTR_CACHE", "environment variable")),
    ('dataset = "$DATA_ROOT/mslr"\n', ("dataset", "$DATA_ROOT", "environment variable")),
])
def test_an_environment_variable_in_a_path_is_refused_not_a_folder_named_so(
        tmp_path: Path, text: str, words: tuple[str, ...]) -> None:
    bad = own_error(_load(tmp_path, text), "fleet.toml", *words)
    assert bad is None, bad


def test_the_python_api_refuses_a_placeholder_as_the_file_does() -> None:
    bad = own_error(lambda: RunConfig.from_dict({"name": "{{ name }}", "models": ["random"]}),
                    "name", "{{ name }}", "template")
    assert bad is None, bad


@pytest.mark.parametrize("text", [
    'description = "costs $5 a run; uses {curly} braces and a $ sign"\n',
    'name = "MSLR {30K}"\n',
    'description = "a Go-style {x} and a lone } and {"\n',
])
def test_text_with_plain_braces_or_a_dollar_amount_is_kept(tmp_path: Path, text: str) -> None:
    config = _load(tmp_path, text)()
    assert text.split('"')[1] in (config.name, config.description)


@pytest.mark.parametrize(("text", "line"), [
    ("{% if quick %}\nquick = true\n{% endif %}\n", "line 1"),
    ("models = [\"random\"]\n[params]\nn_trees = {{ n_trees }}\n", "line 3"),
    ("quick = ${QUICK}\n", "line 1"),
])
def test_a_template_tag_or_an_unquoted_placeholder_is_named_as_one(
        tmp_path: Path, text: str, line: str) -> None:
    bad = own_error(_load(tmp_path, text), "fleet.toml", "not valid TOML", line, "template")
    assert bad is None, bad


def test_a_rendered_template_runs_and_records_the_rendered_name(tmp_path: Path) -> None:
    config = _load(tmp_path, 'name = "fleet-7"\nmodels = ["random"]\nseeds = [0]\n')()
    assert config.name == "fleet-7"
    assert config.to_dict()["name"] == "fleet-7"


# ------------------------------------------------------------------------- look-alike keys
def test_a_quoted_key_with_a_cyrillic_look_alike_names_the_code_point(tmp_path: Path) -> None:
    bad = own_error(_load(tmp_path, '"qu\u0456ck" = true\n'), "fleet.toml", "U+0456",
                    "'quick'")
    assert bad is None, bad


def test_a_bare_key_with_a_cyrillic_look_alike_names_the_code_point(tmp_path: Path) -> None:
    bad = own_error(_load(tmp_path, 'models = ["random"]\nqu\u0456ck = true\n'), "fleet.toml",
                    "line 2", "U+0456")
    assert bad is None, bad


def test_a_parameter_key_with_a_greek_look_alike_names_the_code_point(tmp_path: Path) -> None:
    bad = own_error(_load(tmp_path, '[params]\n"n_tr\u03b5es" = 5\n'), "fleet.toml",
                    "[params]", "U+03B5", "'n_trees'")
    assert bad is None, bad


def test_a_key_with_a_zero_width_space_is_shown_escaped(tmp_path: Path) -> None:
    bad = own_error(_load(tmp_path, '"seeds\\u200b" = [1]\n'), "fleet.toml", "\\u200b",
                    "'seeds'")
    assert bad is None, bad


# --------------------------------------------------------- a TOML file meant for another tool
def test_a_pyproject_toml_is_named_as_one(tmp_path: Path) -> None:
    text = ('[project]\nname = "fleet"\nversion = "0.1"\n\n[tool.ltrbench]\nquick = true\n'
            'models = ["random"]\n')
    bad = own_error(_load(tmp_path, text, "pyproject.toml"), "pyproject.toml", "pyproject",
                    "[tool.ltrbench]")
    assert bad is None, bad


def test_a_build_system_table_alone_is_named_as_a_pyproject(tmp_path: Path) -> None:
    bad = own_error(_load(tmp_path, '[build-system]\nrequires = ["setuptools"]\n'),
                    "fleet.toml", "pyproject")
    assert bad is None, bad


def test_a_lightgbm_config_written_as_toml_is_named_as_one(tmp_path: Path) -> None:
    text = ('task = "train"\nobjective = "lambdarank"\ndata = "train.txt"\n'
            'valid_data = "vali.txt"\nnum_trees = 100\n')
    bad = own_error(_load(tmp_path, text, "train.conf"), "train.conf", "LightGBM",
                    "[params.lightgbm]")
    assert bad is None, bad


def test_a_dataset_card_is_named_as_one(tmp_path: Path) -> None:
    text = ('name = "mine"\ntitle = "My LETOR"\nkind = "letor"\nloader = "letor"\n'
            'n_features = 5\nmax_label = 2\n')
    bad = own_error(_load(tmp_path, text, "mine.toml"), "mine.toml", "dataset card")
    assert bad is None, bad


def test_a_run_config_with_one_card_like_key_is_not_called_a_card(tmp_path: Path) -> None:
    _, exc = call(_load(tmp_path, 'models = ["random"]\ntitle = "x"\n'))
    bad = api_refused(exc, "fleet.toml", "unknown config key", "title")
    assert bad is None, bad
    assert "dataset card" not in str(exc)


# -------------------------------------------------------------------------- the command line
def test_an_empty_config_option_is_refused_not_the_defaults(tmp_path: Path) -> None:
    res = cli(tmp_path, "run", "--config", "", "--models", "random", "--seeds", "0", "--quick",
              "--out", "o", "--no-progress")
    bad = refused(res, "--config", "empty")
    assert bad is None, bad
    assert not (tmp_path / "o").exists()


def test_a_config_link_looping_on_itself_is_refused_as_a_loop(tmp_path: Path) -> None:
    (tmp_path / "c.toml").symlink_to("c.toml")
    res = cli(tmp_path, "tune", "--config", "c.toml", "--out", "o")
    bad = refused(res, "c.toml", "link")
    assert bad is None, bad
    assert not (tmp_path / "o").exists()


def test_the_dataclass_refuses_a_placeholder_as_the_file_does() -> None:
    bad = own_error(lambda: RunConfig(name="{{ name }}", models=("random",)), "name",
                    "{{ name }}", "template")
    assert bad is None, bad


def test_a_placeholder_given_as_an_option_over_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "c.toml").write_text('models = ["random"]\nseeds = [0]\nquick = true\n')
    res = cli(tmp_path, "run", "--config", "c.toml", "--name", "{{ name }}", "--out", "o",
              "--no-progress")
    bad = refused(res, "name", "{{ name }}", "template")
    assert bad is None, bad
    assert not (tmp_path / "o").exists()


def test_tune_refuses_a_placeholder_before_any_trial(tmp_path: Path) -> None:
    (tmp_path / "c.toml").write_text('models = ["lightgbm-lambdarank"]\nquick = true\n'
                                     '[params]\nlearning_rate = "{{ lr }}"\n')
    res = cli(tmp_path, "tune", "--config", "c.toml", "--budget-trials", "1", "--out", "o")
    bad = refused(res, "c.toml", "[params] learning_rate", "{{ lr }}", "template")
    assert bad is None, bad
    assert not (tmp_path / "o").exists()


# ------------------------------------------------------------- what a converter leaves behind
def test_a_yaml_file_given_as_the_config_says_it_is_yaml(tmp_path: Path) -> None:
    text = "dataset: synthetic\nmodels:\n  - random\nquick: true\n"
    bad = own_error(_load(tmp_path, text, "fleet.yaml"), "fleet.yaml", "line 1", "YAML")
    assert bad is None, bad


def test_a_key_whose_yaml_list_follows_on_the_next_lines_names_the_key_line(
        tmp_path: Path) -> None:
    text = 'dataset = "synthetic"\nmodels =\n  - random\n'
    bad = own_error(_load(tmp_path, text), "fleet.toml", "not valid TOML", "line 2",
                    "'models ='")
    assert bad is None, bad


def test_ten_thousand_and_one_seeds_in_an_array_are_refused_by_count(tmp_path: Path) -> None:
    text = f"seeds = [{', '.join(map(str, range(10_001)))}]\n"
    bad = own_error(_load(tmp_path, text), "fleet.toml", "seeds", "10001", "10000")
    assert bad is None, bad


def test_ten_thousand_seeds_in_an_array_are_the_run_s_seeds(tmp_path: Path) -> None:
    text = f"models = [\"random\"]\nseeds = [{', '.join(map(str, range(10_000)))}]\n"
    assert _load(tmp_path, text)().seeds == tuple(range(10_000))


def test_a_shipped_config_name_in_another_case_gets_the_closest_name(tmp_path: Path) -> None:
    bad = refused(cli(tmp_path, "run", "--config", "Synthetic", "--out", "o"), "Synthetic",
                  "did you mean 'synthetic'")
    assert bad is None, bad


def test_a_local_file_shadowing_a_shipped_config_name_is_said(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.commands.run_options import resolve_config_path

    (tmp_path / "ohsumed").write_text('models = ["random"]\n')
    monkeypatch.chdir(tmp_path)
    with pytest.warns(UserWarning, match=r"ohsumed.*shipped config"):
        assert resolve_config_path("ohsumed") == Path("ohsumed")


def test_a_local_file_named_with_its_folder_is_read_without_a_word(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import warnings

    from bench.commands.run_options import resolve_config_path

    (tmp_path / "ohsumed").write_text('models = ["random"]\n')
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert resolve_config_path("./ohsumed") == Path("ohsumed")


def test_a_dataset_name_with_a_cyrillic_look_alike_names_the_code_point(tmp_path: Path) -> None:
    (tmp_path / "c.toml").write_text('dataset = "syntheti\u0441"\nmodels = ["random"]\n',
                                     encoding="utf-8")
    bad = refused(cli(tmp_path, "run", "--config", "c.toml", "--out", "o"), "c.toml",
                  "dataset", "U+0441", "'synthetic'")
    assert bad is None, bad


def test_a_run_config_with_two_lightgbm_words_keeps_the_closest_name(tmp_path: Path) -> None:
    _, exc = call(_load(tmp_path, 'dataset = "synthetic"\nmetric = "ndcg@10"\nnum_trees = 9\n'))
    bad = api_refused(exc, "fleet.toml", "metric", "did you mean 'metrics'")
    assert bad is None, bad
    assert "LightGBM config" not in str(exc)


def test_a_placeholder_among_a_search_space_s_choices_is_refused_before_any_trial(
        tmp_path: Path) -> None:
    (tmp_path / "c.toml").write_text('models = ["xgboost-ndcg"]\nquick = true\nseeds = [0]\n')
    (tmp_path / "s.toml").write_text('[xgboost]\n"xgboost.lambdarank_pair_method" = '
                                     '{choices = ["topk", "{{ method }}"]}\n')
    res = cli(tmp_path, "tune", "--config", "c.toml", "--space", "s.toml", "--budget-trials",
              "2", "--out", "o")
    bad = refused(res, "s.toml", '[xgboost."xgboost.lambdarank_pair_method"] choices',
                  "{{ method }}", "template")
    assert bad is None, bad
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("model", ["popularity", "als", "xgboost-ndcg"])
def test_an_empty_model_table_a_template_writes_for_each_model_sets_nothing(
        tmp_path: Path, model: str) -> None:
    config = _load(tmp_path, f'models = ["random", "{model}"]\n[model_params.{model}]\n')()
    plain = RunConfig.from_dict({"models": ["random", model]})
    assert config.model_params == {}
    assert config.config_hash() == plain.config_hash()


def test_a_baseline_table_that_sets_something_is_still_refused(tmp_path: Path) -> None:
    bad = own_error(_load(tmp_path, 'models = ["random"]\n[model_params.random]\nn_trees = 5\n'),
                    "fleet.toml", "[model_params.random]", "not a LightGBM, XGBoost or CatBoost")
    assert bad is None, bad


def test_a_quoted_dollar_on_the_command_line_is_not_called_a_config_files_variable(
        tmp_path: Path) -> None:
    """``--data-dir '$X'`` was quoted against the shell on purpose: no word of a config file."""
    from bench.benchmark.config_schema import check_scalars

    check_scalars({"data_dir": "$X/ltr", "dataset": "$X"})  # no error
