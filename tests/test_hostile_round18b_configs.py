"""Hostile configs, round 18b (issue 19, config files), played as a platform team that renders
ltrbench run configs (TOML) from templates and CI matrices, for many datasets and all three
libraries, and passes some values on the command line on top.

What such a team writes, and what each case expects (the oracle in brackets):

- **each library's own spelling in a shared table:** a template written from LightGBM's,
  XGBoost's or CatBoost's docs puts ``eta``, ``num_iterations``, ``bagging_fraction``,
  ``max_leaves``, ``iterations``, ``depth``, ``border_count``, ``l2_leaf_reg`` or
  ``extra_trees`` straight into ``[params]`` or ``[model_params.<model>]``. Refused already, but
  as "unknown parameter ...; did you mean 'learning_rate_min'?" (``bagging_fraction``) or "did
  you mean 'n_trees'?" (``extra_trees``): a hint that points at the wrong parameter. [refused,
  naming the file, the key as spelled, the library whose name it is and ltrbench's field
  (``subsample``), or, for a library-only parameter, the raw table it belongs in
  (``[model_params.lightgbm-lambdarank.lightgbm]``); never the misleading guess]
- **both spellings, raw and shared:** ``learning_rate`` beside a raw ``eta`` / ``shrinkage_rate``,
  two aliases of one LightGBM parameter, ``rsm`` beside ``colsample_bylevel`` [refused, one rule:
  the shared name is the one to write] (guards).
- **template values:** ``"None"``, ``""``, numbers as strings, TOML dates, times, inline tables
  and arrays of tables where a number or a table is expected [refused naming the key] (guards).
- **the file itself:** a BOM and CRLF line ends [the same config and hash as the plain file];
  NUL bytes, a key or table given twice, an ``include`` of itself; a directory, a FIFO,
  ``/dev/stdin`` or ``/dev/null`` as ``--config`` [refused, naming the path] (guards).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hostile_kit import cli, refused

from bench.benchmark.config import RunConfig
from bench.errors import ConfigError


def _error(tmp_path: Path, text: str | bytes, name: str = "matrix.toml") -> str:
    """The error ``RunConfig.load`` gives for ``text`` written to ``name``, the folder cut off;
    '' when it loads."""
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    try:
        RunConfig.load(path)
    except ConfigError as exc:
        return str(exc).replace(str(tmp_path), "<tmp>")
    return ""


def _judge(msg: str, words: tuple[str, ...], never: tuple[str, ...] = ()) -> None:
    assert msg, f"accepted, expected an error naming {words}"
    assert "<tmp>/matrix.toml" in msg, msg
    missing = [w for w in words if w not in msg]
    assert not missing, f"{msg!r} lacks {missing}"
    wrong = [w for w in never if w in msg]
    assert not wrong, f"{msg!r} says {wrong}"


# ------------------------------------------- a library's own name in a shared table (the fix)
LGB = "[model_params.lightgbm-lambdarank]\n"
XGB = "[model_params.xgboost-ndcg]\n"
CB = "[model_params.catboost-yetirank]\n"


@pytest.mark.parametrize(("text", "words", "never"), [
    (LGB + "bagging_fraction = 0.7\n",
     ("[model_params.lightgbm-lambdarank] bagging_fraction", "LightGBM", "subsample"),
     ("did you mean 'learning_rate_min'",)),
    (LGB + "eta = 0.2\n", ("[model_params.lightgbm-lambdarank] eta", "LightGBM",
                           "learning_rate"), ()),
    (LGB + "num_iterations = 7\n", ("num_iterations", "LightGBM", "n_trees"), ()),
    (LGB + "feature_fraction = 0.5\n", ("feature_fraction", "LightGBM", "colsample"), ()),
    (LGB + "lambda_l2 = 1.0\n", ("lambda_l2", "LightGBM", "l2"), ()),
    (XGB + "eta = 0.2\n", ("[model_params.xgboost-ndcg] eta", "XGBoost", "learning_rate"), ()),
    (XGB + "max_leaves = 9\n", ("[model_params.xgboost-ndcg] max_leaves", "XGBoost",
                                "num_leaves"), ()),
    (XGB + "reg_lambda = 2.0\n", ("reg_lambda", "XGBoost", "l2"), ()),
    (XGB + "colsample_bytree = 0.5\n", ("colsample_bytree", "XGBoost", "colsample"), ()),
    (CB + "iterations = 9\n", ("[model_params.catboost-yetirank] iterations", "CatBoost",
                               "n_trees"), ()),
    (CB + "depth = 4\n", ("[model_params.catboost-yetirank] depth", "CatBoost", "max_depth"), ()),
    (CB + "border_count = 32\n", ("border_count", "CatBoost", "max_bin"), ()),
    (CB + "l2_leaf_reg = 3.0\n", ("l2_leaf_reg", "CatBoost", "l2"), ()),
    ("[params]\neta = 0.1\n", ("[params] eta", "learning_rate"), ()),
    ("[params]\nnum_boost_round = 50\n", ("[params] num_boost_round", "n_trees"), ()),
    # a parameter valid in another library, under this model: its library named
    (XGB + "bagging_fraction = 0.5\n", ("[model_params.xgboost-ndcg] bagging_fraction",
                                        "LightGBM", "subsample"), ("did you mean 'learning_rate_min'",)),
    (CB + "min_sum_hessian_in_leaf = 1.0\n", ("min_sum_hessian_in_leaf", "LightGBM",
                                              "min_child_weight"), ()),
], ids=["lgb-bagging_fraction", "lgb-eta", "lgb-num_iterations", "lgb-feature_fraction",
        "lgb-lambda_l2", "xgb-eta", "xgb-max_leaves", "xgb-reg_lambda", "xgb-colsample_bytree",
        "cb-iterations", "cb-depth", "cb-border_count", "cb-l2_leaf_reg", "params-eta",
        "params-num_boost_round", "xgb-model-lgb-bagging_fraction",
        "cb-model-lgb-min_sum_hessian"])
def test_a_library_spelling_in_a_shared_table_names_ltrbench_field(
        tmp_path: Path, text: str, words: tuple[str, ...], never: tuple[str, ...]) -> None:
    _judge(_error(tmp_path, text), (*words, "name for ltrbench's"), never)


@pytest.mark.parametrize(("text", "words"), [
    (LGB + "extra_trees = true\n", ("[model_params.lightgbm-lambdarank] extra_trees",
                                    "[model_params.lightgbm-lambdarank.lightgbm]")),
    ("[params]\nmin_data_per_group = 50\n", ("[params] min_data_per_group", "[params.lightgbm]")),
], ids=["model-table", "params"])
def test_a_lightgbm_only_parameter_in_a_shared_table_names_its_raw_table(
        tmp_path: Path, text: str, words: tuple[str, ...]) -> None:
    """``extra_trees`` was "did you mean 'n_trees'?": the raw table is where it goes."""
    _judge(_error(tmp_path, text), words, ("did you mean 'n_trees'",))


def test_a_typo_of_ltrbench_own_name_keeps_its_closest_name(tmp_path: Path) -> None:
    """The hint above is for a library's name only: ``num_leavs`` still gets 'num_leaves'."""
    _judge(_error(tmp_path, LGB + "num_leavs = 7\n"), ("num_leavs", "did you mean 'num_leaves'"),
           ("name for ltrbench's",))


def test_an_owned_library_key_in_a_shared_table_says_ltrbench_sets_it(tmp_path: Path) -> None:
    """``objective`` in a model's table: ltrbench sets it from the model name."""
    _judge(_error(tmp_path, XGB + 'objective = "rank:pairwise"\n'),
           ("[model_params.xgboost-ndcg] objective", "model name"))


# ---------------------------------------------- both spellings, raw beside shared (guards)
@pytest.mark.parametrize(("text", "words"), [
    (LGB + "learning_rate = 0.1\n[model_params.lightgbm-lambdarank.lightgbm]\n"
     "shrinkage_rate = 0.3\n", ("lightgbm shrinkage_rate", "learning_rate")),
    ("[params]\nn_trees = 5\n[params.lightgbm]\nnum_iterations = 9\n",
     ("[params] lightgbm num_iterations", "n_trees")),
    ("[params.lightgbm]\nextra_tree = true\nextra_trees = false\n",
     ("extra_tree and extra_trees", "two names")),
    ("[params.catboost]\nrsm = 0.5\ncolsample_bylevel = 0.7\n", ("catboost", "colsample")),
    (XGB + "learning_rate = 0.3\n[model_params.xgboost-ndcg.xgboost]\neta = 0.1\n",
     ("[model_params.xgboost-ndcg] xgboost eta", "learning_rate")),
    ("[params.xgboost]\nn_jobs = 2\n", ("xgboost n_jobs", "n_threads")),
    ("[params.catboost]\nrandom_state = 3\n", ("catboost random_state", "seeds")),
], ids=["lgb-shrinkage-beside-lr", "lgb-num_iterations-beside-n_trees", "lgb-two-aliases",
        "cb-rsm-and-colsample_bylevel", "xgb-eta-beside-lr", "xgb-n_jobs", "cb-random_state"])
def test_two_spellings_of_one_parameter_are_refused(tmp_path: Path, text: str,
                                                    words: tuple[str, ...]) -> None:
    _judge(_error(tmp_path, text), words)


# ------------------------------------------------------------ template values (guards)
@pytest.mark.parametrize(("text", "words"), [
    ('profile = "None"\n', ("profile", "'None'")),
    ('seeds = "None"\n', ("seeds",)),
    ('seeds = ""\n', ("seeds",)),
    ('[params]\nn_trees = "10"\n', ("[params] n_trees", "integer")),
    ("[params]\nn_trees = 2024-01-01\n", ("[params] n_trees", "date")),
    ("[params]\nlearning_rate = 07:32:00\n", ("[params] learning_rate",)),
    ("[params]\nlearning_rate = {value = 0.1}\n", ("[params] learning_rate",)),
    ("[[model_params.xgboost-ndcg]]\nlearning_rate = 0.1\n",
     ("[model_params.xgboost-ndcg]", "expected a table")),
    ("quick = {value = true}\n", ("quick",)),
    ("name = 2024-01-01T00:00:00Z\n", ("name",)),
    ('[params.lightgbm]\nlambda_l1 = ""\n', ("lightgbm lambda_l1",)),
    ('[model_params."lightgbm-lambdarank "]\nlearning_rate = 0.1\n', ("lightgbm-lambdarank",)),
    ('"seeds " = [1]\n', ("'seeds '",)),
    ("Seeds = [1]\n", ("Seeds", "seeds")),
    ("seeds = [0, 2147483648]\n", ("seeds", "2147483647")),
    ('seeds = "0-10000"\n', ("seeds", "10001")),
    ('seeds = "3,3"\n', ("seeds", "repeat")),
    ("eval_at = [10, 10]\n", ("eval_at", "repeats")),
    ('models = ["random", "random "]\n', ("models", "twice")),
    ('include = "matrix.toml"\n', ("include",)),
], ids=["profile-None", "seeds-None", "seeds-empty", "n_trees-text", "n_trees-date",
        "lr-time", "lr-inline-table", "model-table-array-of-tables", "quick-inline-table",
        "name-datetime", "raw-empty-text", "model-name-trailing-space", "key-trailing-space",
        "key-case", "seed-over-int32", "seeds-10001", "seeds-duplicate", "eval_at-duplicate",
        "models-duplicate-space", "include-itself"])
def test_a_template_value_is_refused_naming_its_key(tmp_path: Path, text: str,
                                                    words: tuple[str, ...]) -> None:
    _judge(_error(tmp_path, text), words)


# ------------------------------------------------------------------- the file (guards)
def test_a_bom_and_crlf_load_as_the_plain_file(tmp_path: Path) -> None:
    body = 'models = ["random"]\nseeds = [4, 5]\n[params]\nn_trees = 7\n'
    plain = tmp_path / "plain.toml"
    plain.write_text(body, encoding="utf-8")
    odd = tmp_path / "odd.toml"
    odd.write_bytes(b"\xef\xbb\xbf" + body.replace("\n", "\r\n").encode())
    a, b = RunConfig.load(plain), RunConfig.load(odd)
    assert (b.models, b.seeds, b.params.n_trees) == (("random",), (4, 5), 7)
    assert a.config_hash() == b.config_hash()


@pytest.mark.parametrize(("text", "words"), [
    (b"seeds = [1]\x00\n", ("line 1",)),
    (b"seeds = [1]\nseeds = [2]\n", ("line 2", "twice")),
    (b"[params]\nn_trees = 5\n[params]\nlearning_rate = 0.1\n", ("line 3", "twice")),
], ids=["nul", "key-twice", "table-twice"])
def test_a_broken_file_names_its_line(tmp_path: Path, text: bytes, words: tuple[str, ...]) -> None:
    _judge(_error(tmp_path, text), words)


@pytest.mark.parametrize("kind", ["directory", "fifo", "stdin", "null"])
def test_a_config_path_that_is_no_file_is_refused(tmp_path: Path, kind: str) -> None:
    path = {"stdin": "/dev/stdin", "null": "/dev/null"}.get(kind, "c.toml")
    if kind == "directory":
        (tmp_path / path).mkdir()
    elif kind == "fifo":
        os.mkfifo(tmp_path / path)
    res = cli(tmp_path, "run", "--config", path, "--dataset", "synthetic")
    assert refused(res, "--config", path, "TOML file") is None, res.err


def test_model_params_for_a_model_not_run_is_said(tmp_path: Path) -> None:
    """A CI matrix that renders every model's table and runs one: said, not silently unused."""
    path = tmp_path / "matrix.toml"
    path.write_text('models = ["random"]\n' + XGB + "num_leaves = 3\n", encoding="utf-8")
    said = RunConfig.load(path).unused()
    assert any("[model_params.xgboost-ndcg]" in u and "not among the models" in u
               for u in said), said


# ------------------------------------------- the same spellings in tune's --grid and --space
@pytest.mark.parametrize(("argv", "space", "words", "never"), [
    (("--grid", "bagging_fraction=0.5,0.7"), None,
     ("--grid bagging_fraction", "did you mean 'subsample'", "LightGBM's"),
     ("did you mean 'learning_rate_min'",)),
    (("--grid", "iterations=50,100"), None, ("--grid iterations", "'n_trees'", "CatBoost's"), ()),
    (("--grid", "extra_trees=true,false"), None,
     ("--grid extra_trees", "raw LightGBM parameter", '"lightgbm.extra_trees"'),
     ("did you mean 'n_trees'",)),
    (("--space", "space.toml"), "[lightgbm-lambdarank]\nfeature_fraction = {low = 0.5, high = 1.0}\n",
     ("space.toml", "[lightgbm-lambdarank] feature_fraction", "did you mean 'colsample'"), ()),
    (("--space", "space.toml"), "[lightgbm-lambdarank]\nextra_trees = [true, false]\n",
     ("space.toml", "[lightgbm-lambdarank] extra_trees", '"lightgbm.extra_trees"'),
     ("did you mean 'n_trees'",)),
], ids=["grid-bagging_fraction", "grid-iterations", "grid-extra_trees", "space-feature_fraction",
        "space-extra_trees"])
def test_tune_names_a_library_spelling_as_the_config_does(
        tmp_path: Path, argv: tuple[str, ...], space: str | None, words: tuple[str, ...],
        never: tuple[str, ...]) -> None:
    if space is not None:
        (tmp_path / "space.toml").write_text(space, encoding="utf-8")
    res = cli(tmp_path, "tune", "--dataset", "synthetic", "--models", "lightgbm-lambdarank",
              "--budget-trials", "1", *argv)
    assert refused(res, *words) is None, refused(res, *words)
    assert not [w for w in never if w in res.err], res.err


# ------------------------------ a raw value as text that the libraries read as nan or inf
@pytest.mark.parametrize(("text", "words"), [
    ('[params.xgboost]\nmax_delta_step = "nan"\n', ("[params] xgboost max_delta_step", "'nan'")),
    ('[params.xgboost]\nmax_delta_step = "inf"\n', ("xgboost max_delta_step", "'inf'")),
    ('[params.lightgbm]\npath_smooth = "Infinity"\n', ("lightgbm path_smooth", "'Infinity'")),
    ('[params.lightgbm]\ncegb_tradeoff = "1e400"\n', ("lightgbm cegb_tradeoff", "'1e400'")),
    (LGB[:-1][:-1] + ".lightgbm]\npath_smooth = \" -inf\"\n",
     ("[model_params.lightgbm-lambdarank] lightgbm path_smooth", "-inf")),
], ids=["xgb-nan", "xgb-inf", "lgb-Infinity", "lgb-1e400", "model-table-minus-inf"])
def test_a_raw_text_read_as_a_non_finite_number_is_refused(tmp_path: Path, text: str,
                                                           words: tuple[str, ...]) -> None:
    """``max_delta_step = nan`` was refused, ``= "nan"`` trained: XGBoost and LightGBM read
    the text with strtod, as the number a TOML float would be."""
    _judge(_error(tmp_path, text), (*words, "finite"))


def test_a_raw_number_as_text_reaches_the_library_as_given(tmp_path: Path) -> None:
    """Text that reads as a finite number stays the library's to read (both libraries take
    "1.5"): the config keeps it as written."""
    path = tmp_path / "matrix.toml"
    path.write_text('[params.lightgbm]\npath_smooth = "1.5"\n', encoding="utf-8")
    assert RunConfig.load(path).params.raw_params("lightgbm") == {"path_smooth": "1.5"}


# --------------------------------------- a template's word for a missing value in a path key
@pytest.mark.parametrize(("text", "words"), [
    ('data_dir = "None"\n', ("data_dir", "'None'", "missing value", "./None")),
    ('data_dir = "null"\n', ("data_dir", "'null'", "missing value")),
    ('dataset = "undefined"\n', ("dataset", "'undefined'", "missing value")),
    ('name = "None"\n', ("name", "'None'", "missing value")),
    ('name = "<nil>"\n', ("name", "'<nil>'", "missing value")),
], ids=["data_dir-None", "data_dir-null", "dataset-undefined", "name-None", "name-go-nil"])
def test_a_template_missing_value_in_a_path_or_name_is_refused(tmp_path: Path, text: str,
                                                               words: tuple[str, ...]) -> None:
    """``data_dir = "None"`` (Jinja's None) ran a synthetic dataset with exit 0; ``name =
    "None"`` named every table None."""
    _judge(_error(tmp_path, text), words)


@pytest.mark.parametrize("text", ['data_dir = "./None"\n', 'name = "None of the above"\n',
                                  'description = "None"\n'])
def test_such_a_word_inside_a_value_or_written_as_a_folder_is_kept(tmp_path: Path,
                                                                    text: str) -> None:
    assert _error(tmp_path, text) == ""


@pytest.mark.parametrize(("dataset", "words"), [
    ("matrix.toml", ("matrix.toml", "not a dataset", "--config")),
    ("/dev/stdin", ("/dev/stdin", "not a regular file")),
    ("pipe", ("pipe", "not a regular file")),
], ids=["the-config-itself", "stdin", "fifo"])
def test_a_config_whose_dataset_is_itself_or_a_pipe_is_refused(tmp_path: Path, dataset: str,
                                                               words: tuple[str, ...]) -> None:
    """A template that filled ``dataset`` with the wrong variable: the config file's own path,
    or a pipe; refused before anything is read twice or written."""
    if dataset == "pipe":
        os.mkfifo(tmp_path / "pipe")
    (tmp_path / "matrix.toml").write_text(f'dataset = "{dataset}"\nmodels = ["random"]\n'
                                          "seeds = [0]\n", encoding="utf-8")
    res = cli(tmp_path, "run", "--config", "matrix.toml", "--out", "out")
    assert refused(res, *words) is None, res.err
    assert not (tmp_path / "out").exists()
