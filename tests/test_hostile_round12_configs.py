"""Hostile configs, round 12 (issue 19, item 5: one schema for a file, the command line and the
Python API), played as a platform team that writes ltrbench TOML configs from templates for
dozens of datasets and hands the same files to ``run --config``, ``tune --config`` and
``RunConfig.load`` / ``bench.benchmark.run``.

What a template produces, and what each case expects (the oracle in brackets):

- **TOML spellings of one value:** ``1_000``, ``0x10``, ``0o17``, ``+5``, an inline table, a
  dotted key, a BOM with CRLF line ends are the same config as the plain spelling [equal
  ``config_hash`` and values, by hand]; a key in another case (``N_Trees``), the same table
  twice, an array of tables, a date or time where a number or text belongs, ``nan``, ``1e400``
  (inf), an empty or multi-line string where one line of text belongs, a trailing NUL are
  refused naming the file, the key path and what was expected.
- **the file itself:** a link to a config reads the target; a dangling link, a folder or a FIFO
  as ``--config`` is refused before any work; a config whose ``dataset`` names the config file
  itself was read as a ratings table ("cannot tell the user and item columns from the header
  ['dataset', 'c.toml']"): now "a TOML file ..., a config goes to --config"; one that names the
  output folder is refused as an output over an input.
- **model tables:** a model name in another case; a ``[model_params.X]`` table of a model the
  run does not train (said, not dropped); another library's raw table inside a model's own table
  (``[model_params.lightgbm-lambdarank.xgboost] eta = 0.2``) trained LightGBM as without it,
  exit 0, and recorded the XGBoost value: refused; library aliases given under two names
  (LightGBM ``num_leaf``, XGBoost ``eta``/``learning_rate``, CatBoost ``depth``); a parameter
  the installed library removed (XGBoost ``n_gpus``, LightGBM ``max_position``).
- **leftover 1, quick mode and a decaying rate:** ``quick = true`` trains at most 20 rounds,
  but the schedule check used the uncapped ``n_trees``: ``n_trees = 300`` with
  ``learning_rate_decay = 0.001`` was refused (the rate reaches 0 at round 100) though quick
  mode's 20 rounds keep it at 0.081 or more; the message named no table. Now the schedule is
  checked for the rounds that train, naming ``[params]`` (or the model's table).
- **leftover 2, ``[params] seed``:** kept a warning, not an error, because every config ltrbench
  writes (a run's ``config.toml``, tune's ``best.toml``) holds ``[params] seed = 0``: refusing
  the key would make every recorded run fail to reproduce. ``tune`` said nothing of it (every
  trial trains with ``--seed``): now it says so as ``run`` does.
- **options over the file:** ``run --config c.toml --seeds 3 --models random --n-trees 7``
  trained with the options' values (the rule of ``run --help``) and recorded only the result:
  the manifest now holds ``config_file`` (the path and, per key, the option, the file's value
  and the value used).
- **one schema, one text:** the same bad document through ``RunConfig.load`` (file),
  ``RunConfig.from_dict`` and ``bench.benchmark.run(...)`` gives the same message (the file's
  path in front only for the file).
- **search spaces:** reversed bounds, a log range from 0, a raw alias of a shared parameter.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_cases_tune import tune
from hostile_kit import cli, letor_folder, refused, toy_splits

from bench.benchmark.config import RunConfig
from bench.errors import ConfigError, DataError, LtrbenchError

LGB = 'models = ["lightgbm-lambdarank"]\n'
XGB = 'models = ["xgboost-ndcg"]\n'
CAT = 'models = ["catboost-yetirank"]\n'


def load(tmp: Path, text: str | bytes, name: str = "c.toml") -> tuple[RunConfig | None,
                                                                       Exception | None, list[str]]:
    """``RunConfig.load`` of ``text`` written to ``tmp/name``: the config (or the error) and
    the warnings it gave."""
    path = tmp / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            return RunConfig.load(path), None, [str(w.message) for w in caught]
        except Exception as exc:  # judged by the caller: ltrbench's own error, or a traceback
            return None, exc, [str(w.message) for w in caught]


def refused_load(tmp: Path, text: str | bytes, *words: str) -> None:
    config, exc, _ = load(tmp, text)
    assert exc is not None, f"accepted: {config}"
    assert isinstance(exc, LtrbenchError), f"traceback: {type(exc).__name__}: {exc}"
    assert str(exc).startswith(str(tmp / "c.toml")), str(exc)  # the file first
    missing = [w for w in words if w not in str(exc)]
    assert not missing, f"{exc} lacks {missing}"


def same_config(tmp: Path, text: str, plain: str) -> RunConfig:
    a, exc, _ = load(tmp, text, "a.toml")
    assert exc is None, exc
    b, exc, _ = load(tmp, plain, "b.toml")
    assert exc is None, exc
    assert a is not None
    assert b is not None
    assert a.config_hash() == b.config_hash(), (a.to_dict(), b.to_dict())
    return a


# ---------------------------------------------------------------- TOML spellings of one value
@pytest.mark.parametrize(("spelled", "value"), [("1_000", 1000), ("0x10", 16), ("0o17", 15),
                                                ("+5", 5), ("0b101", 5)])
def test_an_integer_in_any_toml_spelling_is_that_integer(tmp_path: Path, spelled: str,
                                                         value: int) -> None:
    config = same_config(tmp_path, f"[params]\nn_trees = {spelled}\n",
                         f"[params]\nn_trees = {value}\n")
    assert config.params.n_trees == value


def test_an_inline_params_table_is_the_same_config_as_a_table(tmp_path: Path) -> None:
    config = same_config(tmp_path, LGB + "params = {n_trees = 40, learning_rate = 0.05}\n",
                         LGB + "[params]\nn_trees = 40\nlearning_rate = 0.05\n")
    assert (config.params.n_trees, config.params.learning_rate) == (40, 0.05)


def test_dotted_keys_are_the_same_config_as_the_table(tmp_path: Path) -> None:
    same_config(tmp_path, LGB + "model_params.lightgbm-lambdarank.num_leaves = 7\n",
                LGB + "[model_params.lightgbm-lambdarank]\nnum_leaves = 7\n")


def test_a_bom_and_crlf_line_ends_are_the_same_config(tmp_path: Path) -> None:
    plain = LGB + 'seeds = [4, 5]\n[params]\nn_trees = 9\n'
    (tmp_path / "crlf.toml").write_bytes(b"\xef\xbb\xbf" + plain.replace("\n", "\r\n").encode())
    a, b = RunConfig.load(tmp_path / "crlf.toml"), same_config(tmp_path, plain, plain)
    assert a.config_hash() == b.config_hash()
    assert a.seeds == (4, 5)


def test_unicode_escapes_in_a_dataset_path_name_the_same_folder(tmp_path: Path) -> None:
    letor_folder(tmp_path / "létor")
    config = same_config(tmp_path, f'dataset = "{tmp_path}/l\\u00e9tor"\n',
                         f'dataset = "{tmp_path}/létor"\n')
    assert Path(config.dataset).is_dir()


def test_a_key_in_another_case_is_refused_with_the_closest_name(tmp_path: Path) -> None:
    refused_load(tmp_path, "[params]\nN_Trees = 10\n", "[params] N_Trees", "'n_trees'")


def test_a_top_key_in_another_case_is_refused_with_the_closest_name(tmp_path: Path) -> None:
    refused_load(tmp_path, "Seeds = [1, 2]\n", "Seeds", "'seeds'")


def test_a_dotted_key_and_a_table_for_the_same_table_are_refused(tmp_path: Path) -> None:
    refused_load(tmp_path, "params.n_trees = 10\n[params]\nlearning_rate = 0.1\n",
                 "line 2", "[params]", "twice")


def test_the_same_model_table_twice_is_refused(tmp_path: Path) -> None:
    refused_load(tmp_path, LGB + "[model_params.lightgbm-lambdarank]\nnum_leaves = 7\n"
                 "[model_params.lightgbm-lambdarank]\nn_trees = 9\n", "line 4", "twice")


def test_an_array_of_model_tables_is_refused(tmp_path: Path) -> None:
    refused_load(tmp_path, LGB + "[[model_params.lightgbm-lambdarank]]\nnum_leaves = 7\n",
                 "[model_params.lightgbm-lambdarank]", "expected a table", "an array")


@pytest.mark.parametrize(("line", "words"), [
    ("[params]\nlearning_rate = 2024-01-01\n", ("[params] learning_rate", "a date")),
    ("[params]\nsubsample = 08:00:00\n", ("[params] subsample", "a time")),
    ('profile = 2024-01-01T00:00:00\n', ("profile", "a datetime")),
    ("[als]\nfactors = 2024-01-01\n", ("[als] factors", "a date")),
])
def test_a_toml_date_or_time_is_no_number_or_text(tmp_path: Path, line: str,
                                                  words: tuple[str, ...]) -> None:
    refused_load(tmp_path, line, *words)


@pytest.mark.parametrize(("line", "words"), [
    ("[params]\nmin_split_gain = nan\n", ("[params] min_split_gain", "nan")),
    ("[params]\ncolsample = 1e400\n", ("[params] colsample", "inf")),
    ("[params]\nlearning_rate = -inf\n", ("[params] learning_rate", "-inf")),
    ("[als]\nalpha = nan\n", ("[als] alpha", "nan")),
])
def test_a_float_that_is_not_finite_is_refused(tmp_path: Path, line: str,
                                                words: tuple[str, ...]) -> None:
    refused_load(tmp_path, line, *words)


@pytest.mark.parametrize(("line", "key"), [('profile = ""\n', "profile"),
                                           ('select_metric = ""\n', "select_metric"),
                                           ('data_dir = ""\n', "data_dir"),
                                           ('dataset = ""\n', "dataset")])
def test_an_empty_string_is_refused_never_read_as_left_out(tmp_path: Path, line: str,
                                                           key: str) -> None:
    refused_load(tmp_path, line, key, "non-empty")


def test_a_multi_line_string_where_one_line_belongs_is_refused(tmp_path: Path) -> None:
    refused_load(tmp_path, 'profile = """\nltr\nbench"""\n', "profile", "one line")


def test_a_trailing_nul_byte_is_refused_naming_its_line(tmp_path: Path) -> None:
    refused_load(tmp_path, b'seeds = [0]\n\x00', "not valid TOML", "line 2")


# ---------------------------------------------------------------------------- the file itself
def test_a_config_that_is_a_link_reads_its_target(tmp_path: Path) -> None:
    (tmp_path / "real.toml").write_text(LGB + "seeds = [7]\n")
    (tmp_path / "c.toml").symlink_to("real.toml")
    assert RunConfig.load(tmp_path / "c.toml").seeds == (7,)


def test_a_dangling_link_as_the_config_is_refused(tmp_path: Path) -> None:
    (tmp_path / "c.toml").symlink_to("gone.toml")
    bad = refused(cli(tmp_path, "run", "--config", "c.toml", "--out", "o"), "c.toml")
    assert bad is None, bad
    assert not (tmp_path / "o").exists()


def test_a_fifo_as_the_config_is_refused_without_opening_it(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "c.toml")  # opening it for reading would block forever
    bad = refused(cli(tmp_path, "tune", "--config", "c.toml", "--out", "o"), "c.toml",
                  "not a regular file")
    assert bad is None, bad


def test_a_folder_as_the_config_is_refused(tmp_path: Path) -> None:
    (tmp_path / "c.toml").mkdir()
    bad = refused(cli(tmp_path, "run", "--config", "c.toml", "--out", "o"), "c.toml",
                  "directory")
    assert bad is None, bad


def test_a_config_naming_itself_as_its_dataset_is_refused_as_a_toml_file(tmp_path: Path) -> None:
    (tmp_path / "c.toml").write_text('dataset = "c.toml"\nmodels = ["random"]\nseeds = [0]\n')
    bad = refused(cli(tmp_path, "run", "--config", "c.toml", "--out", "o"), "c.toml", "TOML",
                  "--config")
    assert bad is None, bad
    assert not (tmp_path / "o").exists()


def test_the_python_api_given_a_config_file_as_dataset_names_it(tmp_path: Path) -> None:
    import bench.benchmark

    (tmp_path / "c.toml").write_text('dataset = "synthetic"\n')
    with pytest.raises(DataError, match=r"c\.toml.*a TOML file"):
        bench.benchmark.run(str(tmp_path / "c.toml"), models=["random"], seeds=[0],
                            out_dir=tmp_path / "o")


def test_a_config_naming_the_output_folder_as_its_dataset_is_refused(tmp_path: Path) -> None:
    letor_folder(tmp_path / "o")
    before = {p.name: p.read_bytes() for p in (tmp_path / "o").iterdir()}
    (tmp_path / "c.toml").write_text('dataset = "./o"\nmodels = ["random"]\nseeds = [0]\n')
    bad = refused(cli(tmp_path, "run", "--config", "c.toml", "--out", "o"), "--out", "input")
    assert bad is None, bad
    assert {p.name: p.read_bytes() for p in (tmp_path / "o").iterdir()} == before


# ------------------------------------------------------------------------------ model tables
def test_a_model_name_in_another_case_is_read_as_its_spelling_and_said(tmp_path: Path) -> None:
    """Round 23b: one rule for a choice on every door (a profile, an engine, a model): a case
    variant is read as its one spelling and said once (it was refused here, accepted there)."""
    config, exc, said = load(tmp_path, 'models = ["XGBoost-NDCG"]\n')
    assert exc is None
    assert config is not None
    assert config.models == ("xgboost-ndcg",)
    assert [w for w in said if "'XGBoost-NDCG' read as 'xgboost-ndcg'" in w], said


def test_a_table_of_a_model_the_run_does_not_train_is_said(tmp_path: Path) -> None:
    config, exc, _ = load(tmp_path, XGB + "[model_params.lightgbm-lambdarank]\nnum_leaves = 7\n")
    assert exc is None
    assert config is not None
    assert any("[model_params.lightgbm-lambdarank]" in u and "not used" in u
               for u in config.unused()), config.unused()


@pytest.mark.parametrize(("model", "other", "line"), [
    ("lightgbm-lambdarank", "xgboost", "eta = 0.2"),
    ("xgboost-ndcg", "catboost", "random_strength = 2.0"),
    ("catboost-yetirank", "lightgbm", "min_data_in_bin = 7"),
])
def test_another_librarys_raw_table_inside_a_models_table_is_refused(
        tmp_path: Path, model: str, other: str, line: str) -> None:
    refused_load(tmp_path, f'models = ["{model}"]\n[model_params.{model}.{other}]\n{line}\n',
                 f"[model_params.{model}] {other}", f"[params.{other}]")


def test_another_librarys_raw_table_is_refused_on_the_command_line_too(tmp_path: Path) -> None:
    letor_folder(tmp_path / "letor")
    (tmp_path / "c.toml").write_text('dataset = "./letor"\n' + LGB + "seeds = [0]\n"
                                     "[model_params.lightgbm-lambdarank.xgboost]\neta = 0.2\n")
    bad = refused(cli(tmp_path, "run", "--config", "c.toml", "--quick", "--out", "o"),
                  "c.toml", "[model_params.lightgbm-lambdarank] xgboost")
    assert bad is None, bad
    assert not (tmp_path / "o").exists()


def test_the_own_librarys_raw_table_in_a_models_table_is_used(tmp_path: Path) -> None:
    config, exc, _ = load(tmp_path, LGB + "[model_params.lightgbm-lambdarank.lightgbm]\n"
                          "min_data_in_bin = 7\n")
    assert exc is None, exc
    assert config is not None
    assert config.params_for("lightgbm-lambdarank", 0).raw_params("lightgbm") == {
        "min_data_in_bin": 7}


@pytest.mark.parametrize(("models", "table", "words"), [
    (LGB, "[params.lightgbm]\nnum_leaf = 7\n", ("num_leaf", "num_leaves")),
    (XGB, "[params.xgboost]\neta = 0.2\nlearning_rate = 0.3\n", ("eta", "learning_rate")),
    (CAT, "[params.catboost]\ndepth = 4\n", ("depth", "max_depth")),
    (CAT, "[model_params.catboost-yetirank.catboost]\nmax_depth = 4\n", ("max_depth",)),
])
def test_a_library_alias_of_a_shared_parameter_is_refused(tmp_path: Path, models: str, table: str,
                                                          words: tuple[str, ...]) -> None:
    refused_load(tmp_path, models + table, *words)


@pytest.mark.parametrize(("models", "table", "words"), [
    (XGB, "[params.xgboost]\nn_gpus = 1\n", ("[params] xgboost", "n_gpus")),
    (LGB, "[params.lightgbm]\nmax_position = 20\n", ("[params] lightgbm", "max_position")),
])
def test_a_parameter_the_installed_library_removed_is_refused(tmp_path: Path, models: str,
                                                              table: str,
                                                              words: tuple[str, ...]) -> None:
    refused_load(tmp_path, models + table, *words)


@pytest.mark.parametrize(("line", "words"), [
    ("seeds = [3, 3]\n", ("seeds", "repeat")),
    ("seeds = [0, -1]\n", ("seeds", "item 2", "-1")),
    ("seeds = [4294967296]\n", ("seeds", "2147483647")),
    ('seeds = "0-3,2"\n', ("seeds", "repeat")),
    ("eval_at = [0, 5]\n", ("eval_at", "item 1", "from 1")),
    ("eval_at = [5, 10, 5]\n", ("eval_at", "repeats")),
])
def test_seeds_and_cutoffs_a_template_got_wrong(tmp_path: Path, line: str,
                                                words: tuple[str, ...]) -> None:
    refused_load(tmp_path, line, *words)


# ------------------------------------------------------- leftover 1: quick mode and a decay
DECAY = "[params]\nn_trees = 300\nlearning_rate = 0.1\nlearning_rate_decay = 0.001\n"


def test_quick_mode_checks_the_decay_over_the_rounds_it_trains(tmp_path: Path) -> None:
    config, exc, _ = load(tmp_path, "quick = true\n" + LGB + DECAY)
    assert exc is None, exc
    assert config is not None
    p = config.params_for("lightgbm-lambdarank", 0)
    assert p.n_trees == 20
    assert p.learning_rate_at(19) == pytest.approx(0.1 - 0.001 * 19)  # 0.081 > 0


def test_the_same_decay_without_quick_mode_is_refused_naming_the_table(tmp_path: Path) -> None:
    refused_load(tmp_path, LGB + DECAY, "[params] learning_rate_min", "round 300")


def test_a_decay_that_ends_within_quick_modes_rounds_is_refused(tmp_path: Path) -> None:
    refused_load(tmp_path, "quick = true\n" + LGB + DECAY.replace("0.001", "0.01"),
                 "[params] learning_rate_min", "round 20")


def test_a_models_own_decay_is_checked_over_quick_modes_rounds(tmp_path: Path) -> None:
    table = ("[model_params.lightgbm-lambdarank]\nn_trees = 300\nlearning_rate_decay = 0.001\n")
    _config, exc, _ = load(tmp_path, "quick = true\n" + LGB + table)
    assert exc is None, exc
    refused_load(tmp_path, LGB + table, "[model_params.lightgbm-lambdarank] learning_rate_min")


def test_quick_on_the_command_line_lets_the_decaying_config_run(tmp_path: Path) -> None:
    letor_folder(tmp_path / "letor")
    (tmp_path / "c.toml").write_text('dataset = "./letor"\nseeds = [0]\n' + LGB + DECAY)
    assert refused(cli(tmp_path, "run", "--config", "c.toml", "--out", "o"),
                   "[params] learning_rate_min") is None
    res = cli(tmp_path, "run", "--config", "c.toml", "--quick", "--out", "o")
    assert res.status == 0, res.err[-2000:]
    m = _manifest(tmp_path)
    assert m["config_file"]["options_over_file"]["quick"] == {"option": "--quick",
                                                               "file": False, "used": True}


def test_the_trainers_door_checks_the_decay_of_a_params_value() -> None:
    from bench.runners.gbdt import train_gbdt
    from bench.runners.params import Params

    p = Params(n_trees=300, learning_rate_decay=0.001)  # a value: the rounds are not known yet
    with pytest.raises(ConfigError, match=r"learning_rate_min: expected a number > 0.*round 300"):
        train_gbdt("lightgbm", toy_splits(), p, model="lightgbm-lambdarank",
                   objective="lambdarank")


# ---------------------------------------------------- leftover 2: a seed in [params] (kept)
def test_a_recorded_config_with_its_params_seed_reloads_without_a_word(tmp_path: Path) -> None:
    """Every config ltrbench writes holds ``[params] seed = 0``: refusing the key would break
    reproducing every recorded run, so it stays accepted (and the default is not warned)."""
    written = RunConfig.from_dict({"models": ["lightgbm-lambdarank"], "seeds": [1, 2]}).to_toml()
    assert "\nseed = 0\n" in written
    config, exc, caught = load(tmp_path, written)
    assert exc is None, exc
    assert config is not None
    assert config.unused() == []
    assert caught == []


def test_a_params_seed_other_than_zero_is_said_naming_seeds(tmp_path: Path) -> None:
    config, exc, _ = load(tmp_path, LGB + "seeds = [1, 2]\n[params]\nseed = 9\n")
    assert exc is None
    assert config is not None
    said = [u for u in config.unused() if "[params] seed = 9" in u]
    assert said, config.unused()
    assert "seeds = [1, 2]" in said[0], said


@pytest.mark.parametrize("table", ["[params]\nseed = 5\n",
                                   "[model_params.lightgbm-lambdarank]\nseed = 5\n"])
def test_tune_says_a_seed_in_the_config_is_not_used(tmp_path: Path, table: str) -> None:
    letor_folder(tmp_path / "letor")
    (tmp_path / "c.toml").write_text('dataset = "./letor"\n' + LGB + table)
    res = tune(tmp_path, "--config", "c.toml", "--grid", "num_leaves=3", "--budget-trials", "1",
               fit=True)
    assert res.status == 0, res.err[-2000:]
    assert "seed = 5: not used" in res.err, res.err[-2000:]
    assert "--seed 0" in res.err, res.err[-2000:]


# ----------------------------------------------------------------- options over the file
def _manifest(tmp: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(next((tmp / "o" / "runs").glob("*/manifest.json")).read_text())
    return doc


def test_options_over_the_config_file_are_recorded_in_the_manifest(tmp_path: Path) -> None:
    letor_folder(tmp_path / "letor")
    (tmp_path / "c.toml").write_text('dataset = "./letor"\nmodels = ["random", "popularity"]\n'
                                     'seeds = [0, 1]\n[params]\nn_trees = 50\n')
    res = cli(tmp_path, "run", "--config", "c.toml", "--out", "o", "--seeds", "3",
              "--models", "random", "--n-trees", "7")
    assert res.status == 0, res.err[-2000:]
    m = _manifest(tmp_path)
    over = m["config_file"]["options_over_file"]
    assert m["config_file"]["path"] == "c.toml"
    assert over["seeds"] == {"option": "--seeds", "file": [0, 1], "used": [3]}
    assert over["models"] == {"option": "--models", "file": ["random", "popularity"],
                              "used": ["random"]}
    assert over["params.n_trees"] == {"option": "--n-trees", "file": 50, "used": 7}
    assert m["seeds"] == [3]  # the option won, and trained


def test_a_config_file_without_options_over_it_records_none(tmp_path: Path) -> None:
    letor_folder(tmp_path / "letor")
    (tmp_path / "c.toml").write_text('dataset = "./letor"\nmodels = ["random"]\nseeds = [2]\n')
    res = cli(tmp_path, "run", "--config", "c.toml", "--out", "o", "--seeds", "2")
    assert res.status == 0, res.err[-2000:]
    assert _manifest(tmp_path)["config_file"] == {"path": "c.toml", "options_over_file": {}}


def test_a_run_without_a_config_file_records_no_config_file(tmp_path: Path) -> None:
    letor_folder(tmp_path / "letor")
    res = cli(tmp_path, "run", "--dataset", "./letor", "--models", "random", "--seeds", "0",
              "--out", "o")
    assert res.status == 0, res.err[-2000:]
    assert "config_file" not in _manifest(tmp_path)


# -------------------------------------------------------------- one schema, one error text
BAD_DOCS: list[tuple[str, dict[str, Any], str]] = [
    ('quick = "false"\n', {"quick": "false"}, "quick: expected true or false"),
    ("seeds = [1.5]\n", {"seeds": [1.5]}, "seeds: item 1"),
    ("[params]\nn_trees = true\n", {"params": {"n_trees": True}}, "[params] n_trees"),
    (LGB + "[model_params.lightgbm-lambdarank.xgboost]\neta = 0.2\n",
     {"models": ["lightgbm-lambdarank"],
      "model_params": {"lightgbm-lambdarank": {"xgboost": {"eta": 0.2}}}},
     "[model_params.lightgbm-lambdarank] xgboost"),
    (LGB + DECAY, {"models": ["lightgbm-lambdarank"],
                   "params": {"n_trees": 300, "learning_rate": 0.1, "learning_rate_decay": 0.001}},
     "[params] learning_rate_min"),
]


@pytest.mark.parametrize(("text", "doc", "words"), BAD_DOCS, ids=[d[2] for d in BAD_DOCS])
def test_a_file_a_dict_and_the_python_api_give_one_error_text(tmp_path: Path, text: str,
                                                              doc: dict[str, Any],
                                                              words: str) -> None:
    import bench.benchmark

    _, from_file, _ = load(tmp_path, text)
    with pytest.raises(ConfigError) as from_dict:
        RunConfig.from_dict(doc)
    with pytest.raises(ConfigError) as from_api:
        bench.benchmark.run("synthetic", out_dir=tmp_path / "o", **doc)
    assert isinstance(from_file, ConfigError), from_file
    assert str(from_file) == f"{tmp_path / 'c.toml'}: {from_dict.value}"
    assert str(from_api.value) == str(from_dict.value)
    assert words in str(from_dict.value)


# ------------------------------------------------------------------------- search spaces
@pytest.mark.parametrize(("space", "words"), [
    ("[lightgbm]\nnum_leaves = {low = 63, high = 7}\n", ("num_leaves", "empty range", "63")),
    ("[lightgbm]\nl2 = {low = 0.0, high = 1.0, log = true}\n", ("l2", "log range", "low > 0")),
    ('[lightgbm]\n"lightgbm.max_leaves" = {low = 7, high = 31}\n', ("max_leaves", "num_leaves")),
    ("[lightgbm]\nlearning_rate = {low = 0.01, high = 0.3, log = 1}\n", ("log", "true or false")),
])
def test_a_search_space_a_template_got_wrong_is_refused_before_any_fit(
        tmp_path: Path, space: str, words: tuple[str, ...]) -> None:
    (tmp_path / "s.toml").write_text(space)
    bad = refused(tune(tmp_path, "--models", "lightgbm", "--space", "s.toml",
                       "--budget-trials", "2"), *words)
    assert bad is None, bad


@pytest.mark.parametrize("table", ["[space.lightgbm]\nnum_leaves = {low = 7, high = 31}\n",
                                   "[search_space]\nnum_leaves = {low = 7, high = 31}\n",
                                   'grid = "num_leaves=7,15"\n', "budget_trials = 20\n"])
def test_a_search_space_in_a_run_config_points_to_tunes_options(tmp_path: Path,
                                                                table: str) -> None:
    """``space`` was "unknown config key space; did you mean 'cache'?"."""
    refused_load(tmp_path, LGB + table, "ltrbench tune", "--space")


# -------------------------------------------------------------- names a template mangled
def test_a_baselines_model_table_says_where_its_parameters_go(tmp_path: Path) -> None:
    """``[model_params.als] factors = 3`` was "unknown parameter [model_params.als] factors;
    valid: catboost, colsample, ..." (the GBDT keys), not where ALS's parameters go."""
    refused_load(tmp_path, 'models = ["als"]\n[model_params.als]\nfactors = 3\n',
                 "[model_params.als]", "not a LightGBM, XGBoost or CatBoost model", "[als]")


def test_a_custom_model_name_ending_in_a_line_end_is_refused(tmp_path: Path) -> None:
    """A regular expression's ``$`` matches before a final line end: ``"mine\\n"`` passed the
    name rule (it goes into file names) and was kept, unused, with a warning."""
    refused_load(tmp_path, 'models = ["random"]\n[custom_models."mine\\n"]\n'
                 'factory = "lightgbm:LGBMRanker"\n', '[custom_models."mine\\n"]', "ASCII letters")


def test_a_factory_reference_ending_in_a_line_end_is_refused_as_a_reference(tmp_path: Path) -> None:
    refused_load(tmp_path, 'models = ["mine"]\n[custom_models.mine]\n'
                 'factory = "lightgbm:LGBMRanker\\n"\n', "[custom_models.mine] factory",
                 "package.module:attribute")


@pytest.mark.parametrize(("profile", "metric"), [("trec_eval", "ndcg_cut_10"),
                                                 ("ltrbench", "sklearn:ndcg@10"),
                                                 ("trec_eval-c", "P_5")])
def test_a_metric_name_of_another_tool_in_a_run_config_is_refused(tmp_path: Path, profile: str,
                                                                  metric: str) -> None:
    """A run's metrics are ltrbench names under the run's one profile, even where the name's
    own tool is the profile (trec_eval's ``ndcg_cut_10`` under ``profile = "trec_eval"``)."""
    refused_load(tmp_path, f'profile = "{profile}"\nmetrics = ["{metric}"]\n', "metrics",
                 metric, "ltrbench names")


def test_tune_quick_takes_the_decaying_config_quick_mode_makes_valid(tmp_path: Path) -> None:
    """``tune --quick`` (the helper's default) with ``n_trees = 300`` and a decay reaching 0 at
    round 100: quick mode trains 20 rounds (0.081 at the last), so the file is tuned."""
    letor_folder(tmp_path / "letor")
    (tmp_path / "c.toml").write_text('dataset = "./letor"\n' + LGB + DECAY)
    res = tune(tmp_path, "--config", "c.toml", "--grid", "num_leaves=3", "--budget-trials", "1",
               fit=True)
    assert res.status == 0, res.err[-2000:]
