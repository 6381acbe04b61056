"""The schema of a run config: one typed, range-checked value per key, the same for a TOML file,
the Python API (:func:`bench.benchmark.api.run`, :class:`~bench.benchmark.config.RunConfig`) and
the command line (``ltrbench run`` / ``tune`` options map into the same checks).

Nothing is coerced (:class:`bench.data.toml.Spec`): ``quick = "false"`` is not false,
``seeds = [1.5]`` or ``[true]`` are not seeds, ``eval_at = [1.5]`` is not ``[1]``. Library
parameters are checked against the ranges the libraries accept
(:data:`bench.runners.params.PARAM_SPECS`) when the config is built, before any data are
loaded. An error names the key as the config file spells it (``seeds``,
``[params] n_trees``, ``[model_params.lightgbm-lambdarank] learning_rate``), what was given and
what was expected; :meth:`RunConfig.load <bench.benchmark.config.RunConfig.load>` puts the
file's path in front, the command line the option's name (``--seeds``).
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from bench.benchmark.config_text import check_rendered
from bench.data.folder_names import refuse_windows_dirs
from bench.data.inputs import is_plain_int
from bench.data.python_args import plain_scalar
from bench.data.toml import INT32_MAX, Spec, show
from bench.engines import engine_names
from bench.errors import (
    ASCII_SPACE,
    ConfigError,
    home_expanded,
    non_ascii,
    refuse_empty_items,
    refuse_foreign_space,
    spelled_choice,
)
from bench.runners.baselines import ALS_SPECS
from bench.runners.params import DEVICES, RAW_TABLES, Params

#: How fits are timed: in the benchmark's process, or each (model, seed) in a fresh subprocess.
TIMING_MODES: tuple[str, ...] = ("inprocess", "isolated")
#: Where the GBDTs are trained: the names of :data:`bench.engines.table.ENGINES` (this process,
#: or isolated children; a Dask cluster).
ENGINES: tuple[str, ...] = engine_names()
#: At most this many seeds in one run (``"0-999999999"`` would otherwise build a billion).
MAX_SEEDS = 10_000
#: At most this many ``eval_at`` cutoffs (each is computed on every validation round).
MAX_CUTOFFS = 1_000
#: A seed: LightGBM's ``seed`` is a C ``int`` (``include/LightGBM/config.h``), CatBoost's
#: ``random_seed`` unsigned (``-1`` is refused), NumPy's ``default_rng`` takes no negative seed.
SEED = Spec("seeds", int, 0, INT32_MAX, source="LightGBM's seed is a C int; CatBoost's is unsigned")
#: A cutoff of ``eval_at`` (LightGBM ``eval_at`` is a list of C ``int`` > 0).
CUTOFF = Spec("eval_at", int, 1, INT32_MAX, source="LightGBM's eval_at is a list of C int > 0")

#: The longest text a one-line key or a list item may hold (a path: Linux's PATH_MAX is 4096
#: bytes): a longer one is a mistake, refused without being echoed (200,000 characters of
#: ``profile`` came back as a 200,412-character error line).
MAX_TEXT = 4096

#: A ``seeds`` text (``"0-4"``) and a model or metric name of a list: no longer than a path.
SEEDS_TEXT = Spec("seeds", str, max_length=MAX_TEXT)
NAME = Spec("name", str, nonempty=True, max_length=MAX_TEXT)

#: The scalar keys of a run config (the lists and tables are parsed by the functions below).
TOP_SPECS: dict[str, Spec] = {s.name: s for s in (
    Spec("dataset", str, nonempty=True, one_line=True, max_length=MAX_TEXT),
    Spec("profile", str, nonempty=True, one_line=True, max_length=MAX_TEXT),
    Spec("quick", bool),
    Spec("select_metric", str, nonempty=True, one_line=True, max_length=MAX_TEXT),
    Spec("early_stopping_split", str, nonempty=True, one_line=True, max_length=MAX_TEXT),
    Spec("log_train", bool),
    Spec("name", str, max_length=MAX_TEXT),
    Spec("description", str),
    Spec("published", str, max_length=MAX_TEXT),
    Spec("data_dir", str, nonempty=True, one_line=True, max_length=MAX_TEXT),
    Spec("crosscheck", bool),
    Spec("permute_check", bool),
    Spec("permute_retrain", bool),
    Spec("strict", bool),
    Spec("timing", str, choices=TIMING_MODES, max_length=MAX_TEXT),
    Spec("timing_repeats", int, 1, 1000),
    Spec("cache", bool),
    Spec("engine", str, choices=ENGINES, max_length=MAX_TEXT),
    Spec("scheduler", str, nonempty=True, one_line=True, max_length=MAX_TEXT),
    Spec("workers", int, 1, 1024),
    Spec("device", str, choices=DEVICES, max_length=MAX_TEXT),
)}
#: Keys whose value may be ``None`` in Python (left out of a TOML file).
OPTIONAL = ("data_dir", "scheduler")


def parse_seeds(value: Any, where: str = "seeds") -> tuple[int, ...]:
    """Seeds from ``[0, 1, 2]``, ``"0,1,2"`` or ``"0-4"`` (a range), each an integer from 0 to
    2147483647 (:data:`SEED`), none repeated, at most :data:`MAX_SEEDS`. A single integer is one
    seed (Python). ``where`` names the key or the option in errors."""
    shape = 'a list of integers like [0, 1, 2], or a string "0,1,2" or "0-4"'
    SEEDS_TEXT.check_length(value, where)
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    if isinstance(value, str):
        value = _seed_text(value, where, shape)
    return _distinct_ints(value, SEED, where, shape, shape, "seeds repeat", most=MAX_SEEDS,
                          noun="seeds")


def _distinct_ints(value: Any, spec: Spec, where: str, shape: str, empty_shape: str,
                   repeat: str, *, most: int | None = None, noun: str = "items") -> tuple[int, ...]:
    """``value`` as a tuple when it is a non-empty list of integers ``spec`` accepts, at most
    ``most`` of them, none repeated; else a ConfigError naming ``where`` and the first problem."""
    if not isinstance(value, list | tuple):
        raise ConfigError(f"{where}: expected {shape}; got {show(value)}")
    if not value:
        raise ConfigError(f"{where}: must not be empty; expected {empty_shape}")
    for i, item in enumerate(value, start=1):
        if not spec.accepts(item):
            raise ConfigError(f"{where}: item {i}: expected {spec.expected()}; got {show(item)}")
    if most is not None and len(value) > most:
        raise ConfigError(f"{where}: {len(value)} {noun}; expected at most {most}")
    if len(set(value)) != len(value):
        raise ConfigError(f"{where}: {repeat}: {list(value)}")
    return tuple(value)


def _seed_text(text: str, where: str, shape: str) -> list[int]:
    refuse_foreign_space(text, where, shape)  # "1,\u00a02": Python's strip() would read 1,2
    try:  # "1,,2" is not "1,2": a seed may have been left out
        refuse_empty_items(text.split(","), text, "seed")
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    items: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        lo, sep, hi = part.partition("-")
        ends = (lo.strip(), hi.strip()) if sep and lo.strip() else (part,)
        if not all(e.isascii() and e.isdigit() for e in ends):
            odd = f"; it holds {non_ascii(part)}, not ASCII digits" if non_ascii(part) else ""
            raise ConfigError(f"{where}: expected {shape}; got {text!r} ({part!r} is not an "
                              f"integer from 0 to {INT32_MAX} or a range a-b{odd})")
        nums = [int(e) for e in ends]
        for n in nums:
            if not SEED.accepts(n):
                raise ConfigError(f"{where}: expected {SEED.expected()}; got {n} in {text!r}")
        if len(nums) == 2 and nums[1] < nums[0]:
            raise ConfigError(f"{where}: {part!r} in {text!r} is a reversed range (no seed); "
                              f"expected a range a-b with a <= b")
        if len(nums) == 2 and nums[1] - nums[0] + 1 + len(items) > MAX_SEEDS:
            raise ConfigError(f"{where}: {part!r} names {nums[1] - nums[0] + 1} seeds; expected at "
                              f"most {MAX_SEEDS}")
        items.extend(range(nums[0], nums[1] + 1) if len(nums) == 2 else nums)
    return items


def parse_eval_at(value: Any, where: str = "eval_at") -> tuple[int, ...]:
    """The cutoffs of the libraries' NDCG: a non-empty list of integers from 1 to 2147483647,
    at most :data:`MAX_CUTOFFS` (100,000 cutoffs kept a 5-row run busy for 285 s, silently);
    sorted, their one form (the libraries log them sorted:
    :func:`bench.runners.result.library_eval_at`), so ``[10, 1]`` and ``[1, 10]`` hash equal."""
    return tuple(sorted(_distinct_ints(value, CUTOFF, where, "a list of integers like [1, 3, 5, "
                                       "10]", "a list like [1, 3, 5, 10]", "a cutoff repeats",
                                       most=MAX_CUTOFFS, noun="cutoffs")))


def name_list(value: Any, where: str) -> str | list[str]:
    """``models`` / ``metrics``: a comma-separated string or a non-empty list of strings."""
    NAME.check_length(value, where)
    if isinstance(value, str):
        if not value.strip(" ,"):
            raise ConfigError(f"{where}: must not be empty")
        return value
    if not isinstance(value, list | tuple):
        raise ConfigError(f"{where}: expected a list of names or a comma-separated string; "
                          f"got {show(value)}")
    if not value:
        raise ConfigError(f"{where}: must not be empty")
    for i, item in enumerate(value, start=1):
        NAME.check_length(item, f"{where}: item {i}")
        if not isinstance(item, str) or not item.strip():
            raise ConfigError(f"{where}: item {i}: expected a name (a non-empty string); "
                              f"got {show(item)}")
    return list(value)


def check_scalars(values: Mapping[str, Any]) -> dict[str, Any]:
    """Each scalar key of :data:`TOP_SPECS` in ``values`` (``None`` allowed for :data:`OPTIONAL`);
    a ``name`` other than ``""`` (no name) by :func:`check_name`; a template's placeholder
    left in a text (``RunConfig(name="{{ name }}")``, ``--name``) refused as in a file. The
    choices as spelled (``engine="Dask"`` is ``"dask"``, said once), for the caller to keep."""
    spelled: dict[str, Any] = {}
    for key, spec in TOP_SPECS.items():
        if key in values and not (key in OPTIONAL and values[key] is None):
            value = spec.check(values[key], key)  # a text's length too (the spec's max_length)
            if spec.choices and value != values[key]:
                spelled[key] = value
    if values.get("name"):
        check_name(values["name"], "name")
        check_name_fold(values["name"], values.get("dataset"))
    check_rendered({k: v for k, v in values.items() if k in TOP_SPECS and isinstance(v, str)},
                   file=False)  # an option's '$HOME' was the shell's to expand (quoted)
    return spelled


def unknown_top_key(key: str, valid: list[str]) -> ConfigError:
    """An unknown key at the top of a config; a parameter's name (``n_trees``) says the table it
    belongs in, an ALS key its ``[als]`` table (``seed``: the closest key, ``seeds``)."""
    from bench.data.toml import unknown_key
    from bench.runners.params import PARAM_SPECS

    if key in RAW_TABLES:
        return ConfigError(f"{key}: a library's raw table, not a config key: write it as "
                           f"[params.{key}] (every {key} model) or [model_params.<model>.{key}]")
    if key != "seed" and key in {s.name for s in PARAM_SPECS}:  # seed: the closest is seeds
        return ConfigError(f"{key}: a parameter, not a config key: put it in the [params] table "
                           "(every model) or [model_params.<model>] (one model)")
    if key in ALS_SPECS:
        return ConfigError(f"{key}: a parameter of the ALS baseline: put it in the [als] table")
    if key.lower() in TUNE_KEYS:  # 'space' was "did you mean 'cache'?"
        return ConfigError(f"{key}: a setting of ltrbench tune, not a run config key: a search "
                           "space goes in its own file (tune --space FILE.toml, tables per "
                           "library or model) or --grid, the budget in --budget-trials / "
                           "--budget-cpu-s, the sampler in --sampler")
    if key in OPTION_KEYS:  # a command-line option's spelling ('threads' had no closest key)
        return ConfigError(f"{key}: not a config key: {OPTION_KEYS[key]}")
    from bench.runners.libraries import LIBRARIES
    from bench.runners.raw_keys import library_spelling, shadowed_field

    field = next((f for lib in LIBRARIES if (f := shadowed_field(lib, key)) is not None), None)
    if field is not None:  # eta, num_iterations: a library's name of a shared parameter
        return ConfigError(f"{key}: a library's name of ltrbench's parameter {field}: write "
                           f"{field} in the [params] table (every model) or "
                           "[model_params.<model>] (one model)")
    if difflib.get_close_matches(key, valid, n=1, cutoff=0.7):  # seed, data: seeds, dataset
        return unknown_key("", key, valid, noun="config key")
    said = library_spelling(key, "")  # n_jobs, extra_trees: set by ltrbench, or a raw one
    if said is not None:
        return ConfigError(f"{said} (a parameter, at the top of the config: parameters go in "
                           "the [params] table or [model_params.<model>])")
    return unknown_key("", key, valid, noun="config key")


def refuse_misplaced(values: Any, where: str, top_keys: Iterable[str]) -> None:
    """A ConfigError for a key of a parameter table (``where``: ``[params] ``,
    ``[model_params.<model>] ``) that belongs elsewhere: a config key (``quick``, ``seeds``,
    ``profile``: at the top of the config) or an ``[als]`` key; the parameter check said only
    "unknown parameter" (``seeds``: "did you mean 'seed'?", the library seed)."""
    import json

    from bench.runners.params import PARAM_SPECS
    from bench.runners.raw_keys import raw_library_of, shared_name_of

    if not isinstance(values, Mapping):
        return
    params = {s.name for s in PARAM_SPECS}
    for key, value in values.items():
        if key in params or not isinstance(key, str) or (key not in top_keys and key not in
                                                         ALS_SPECS):
            continue
        if raw_library_of(key) is not None or shared_name_of(key, None, where, ()) is not None:
            continue  # a library's own name (eval_at, iterations): its own message says it
        try:
            shown = json.dumps(value)
        except (TypeError, ValueError):
            shown = "..."
        if key in top_keys and key not in ("params", "model_params", "custom_models", "als"):
            raise ConfigError(f"{where}{key}: a config key, not a parameter: put it at the top "
                              f"of the config, before any [table] ({key} = {shown[:60]})")
        if key in ALS_SPECS:
            raise ConfigError(f"{where}{key}: a parameter of the ALS baseline: put it in the "
                              f"[als] table ([als] {key} = {shown[:60]})")


#: Command-line options (and ``bench.benchmark.run`` arguments) a config or ``run(**options)``
#: may spell as keys: what each is called there.
OPTION_KEYS = {
    "threads": "--threads sets [params] n_threads (the threads of every library)",
    "out": "the output folder is the command's --out (out_dir= from Python)",
    "out_dir": "the output folder is the command's --out (out_dir= from Python)",
    "folds": "folds are the command's --folds (all or 1,3,5) or a dataset PATH:Fold3",
    "resume": "resuming is the command's --resume",
    "format": "the output format is the command's --format",
    "config": "a config file is read by the command's --config FILE.toml (from Python: "
              "RunConfig.load(FILE) gives its values)",
}

#: Keys a template may put in a run config that are ``ltrbench tune``'s options.
TUNE_KEYS = frozenset({"space", "search_space", "grid", "tune", "sampler", "pruner",
                       "budget_trials", "budget_cpu_s", "budget", "trials", "n_trials"})


def check_selection_split(name: Any) -> str:
    """The validation split, the only one early stopping and model selection use (``"Vali"``
    is ``"vali"``, said once: :func:`bench.errors.spelled_choice`); any other refused."""
    from bench.runners.result import SELECTION_SPLIT

    name = spelled_choice(name, (SELECTION_SPLIT,), "early_stopping_split")
    if name != SELECTION_SPLIT:
        raise ConfigError(f"early stopping and model selection use the validation split only; "
                          f"got {name!r} (valid: {SELECTION_SPLIT!r}). The test split is "
                          "evaluated once, after training, and never chooses anything.")
    return SELECTION_SPLIT


def selection_metric(name: Any) -> tuple[Any, int]:
    """``select_metric`` as spelled and its cutoff: ``"NDCG@10"`` is ``"ndcg@10"``, said once,
    as the metric list reads it; anything but the library NDCG at a cutoff refused
    (:func:`bench.metrics.families.selection_cutoff`)."""
    from bench.metrics.families import selection_cutoff

    if isinstance(name, str) and re.fullmatch(r"ndcg@[1-9][0-9]*",
                                              low := name.strip(ASCII_SPACE).lower()):
        name = spelled_choice(name, (low,), "select_metric")
    return name, selection_cutoff(name)


def check_name(text: str, where: str) -> str:
    """A dataset display name (``name =``, ``--name``) as given, refused when empty, with control
    characters (a line end or tab would break the tables it heads), a path separator (the
    folders it names take the text after the last one) or over 100 characters."""
    if not text.strip():
        raise ConfigError(f"{where}: an empty name; give the dataset a name, or leave it out")
    if any((ch.isspace() and ch != " ") or not ch.isprintable() for ch in text):
        raise ConfigError(f"{where}: {text!r} holds a control character or a space other "
                          "than ' ' (a line end, a tab, a no-break space); a name is one line of "
                          "printable text")
    from bench.data.look_alike import draws_nothing

    if draws_nothing(text):  # a Hangul filler U+3164, a blank Braille pattern: a blank heading
        raise ConfigError(f"{where}: {text!a} draws nothing (invisible characters and "
                          "blanks only); a name is one line of visible text")
    if len(text) > 100:
        raise ConfigError(f"{where}: {len(text)} characters; a name has at most 100")
    if "/" in text or "\\" in text:  # folders are named by the last part of a path: a/b, c/b
        raise ConfigError(f"{where}: {text!r} holds a '/' or '\\'; a name is not a path (its "
                          "tables and folders are named after the text after the last one, so "
                          "'a/b' and 'c/b' would share them): write it without")
    if text != text.strip():  # ' x' and 'x' print alike in every table, two datasets apart
        raise ConfigError(f"{where}: {text!r} begins or ends with a space; write {text.strip()!r}")
    return text


def check_name_fold(name: str, dataset: Any) -> None:
    """A name that ends as ltrbench names a fold's run (``NAME:Fold3``, what ``run --folds``
    gives each fold) names a run of that fold: on a dataset of no fold, or of another, the run
    would be tabulated and reported as a fold it is not (``--name`` refuses it on the command
    line; a config file and ``RunConfig`` alike)."""
    from bench.datasets.folds import fold_suffix  # lazy: it loads NumPy

    fold = fold_suffix(name)[1]
    if fold is None:
        return
    own = fold_suffix(str(dataset or ""))[1]
    if own is None or int(own[4:]) != int(fold[4:]):
        what = "names no fold" if own is None else f"is {own}"
        raise ConfigError(f"name: {name!r} ends as ltrbench names a dataset's fold "
                          f"(NAME:Fold<k>, what --folds names each fold's run), but the dataset "
                          f"{dataset!r} {what}; name the dataset without ':{fold}'")


def check_als(values: Mapping[str, Any]) -> dict[str, Any]:
    """The ``[als]`` table: known keys (closest name for an unknown one), typed, in range."""
    from bench.data.toml import unknown_key

    out = {}
    for key, value in values.items():
        if key not in ALS_SPECS:
            raise unknown_key("[als] ", key, ALS_SPECS)
        out[key] = ALS_SPECS[key].check(value, f"[als] {key}")
    return out


def cli_int(text: str | None, spec: Spec, option: str) -> int | None:
    """An integer option of the command line through ``spec`` (``--n-trees 1.5`` is refused as
    ``n_trees = 1.5`` is in a file); ``None`` when not given."""
    if text is None:
        return None
    raw = text.strip(ASCII_SPACE)  # "\u00a010": 10 to Python's strip(), 0 to C's atoi
    if not is_plain_int(raw):
        raise ConfigError(f"{option}: expected {spec.expected()}; got {text!r}")
    value = int(raw)
    if not spec.accepts(value):
        raise ConfigError(f"{option}: expected {spec.expected()}; got {value}")
    return value


def check_data_dir(value: str | None, where: str = "data_dir") -> None:
    """``data_dir`` (``--data-dir``): folders separated by ``os.pathsep`` (as
    ``$LTRBENCH_DATA_DIR``, :func:`bench.datasets.fetch.data_dirs`), each relative to the
    current directory, as a dataset path is (not to the config file's folder). A folder that does
    not exist yet is fine (fetched and generated datasets create it); an entry that exists and is
    not a folder (a file, a device) is refused: no dataset could be found or written there."""
    if value is None:
        return
    refuse_windows_dirs(str(value), where)  # 'D:\\datasets': no folders 'D' and '\\datasets'
    for entry in str(value).split(os.pathsep):
        p = Path(home_expanded(entry, f"{where}:"))  # '~nosuchuser/x', or no HOME: named
        if entry and p.exists() and not p.is_dir():
            raise ConfigError(f"{where}: {entry!r} is not a folder (it is a file or device); "
                              f"expected the folder where datasets live, or folders separated "
                              f"by {os.pathsep!r}")


def check_published(name: str | None) -> None:
    """``published``: the name of a published table ``report`` sets beside the run
    (:data:`bench.report.published.PUBLISHED`), or ``None``; an unknown name is refused when
    the config is read, not when ``report`` reads the run."""
    if not name:
        return
    from bench.errors import did_you_mean
    from bench.report.published import PUBLISHED

    if name not in PUBLISHED:
        raise ConfigError(f"published: unknown published table {name!r}; "
                          f"{did_you_mean(name, PUBLISHED)}valid: "
                          f"{', '.join(sorted(PUBLISHED))} (or leave it out)")


def python_value(value: Any, where: str = "") -> Any:
    """A Python argument as the value it stands for, so that it meets the config's schema as the
    same value from a TOML file would: a NumPy integer, float or bool scalar as ``int``,
    ``float``, ``bool`` (``np.int64(3)`` is the seed 3; ``np.float64(1.0)`` stays a float, not a
    seed); a subclass of ``str``, ``int`` or ``float`` (a ``StrEnum`` or ``IntEnum`` member, a
    ``numpy.str_``) as the plain value it holds (its own ``repr`` was written into
    ``config.toml``: ``n_trees = <custom repr>`` made a file no reader takes); a 1-D NumPy array,
    pandas Series, Index or array (``pd.array``, ``Categorical``), a pyarrow
    array, or a ``range`` as a list of such values; a ``Path`` as its string; lists, tuples and dicts
    item by item. A dict key that is not a string (``params={1: 3}``) is a
    :class:`~bench.errors.ConfigError` naming ``where`` and the key (a TOML key is always a
    string). Anything else is left for the schema to judge (a set, a generator, bytes are
    refused there). Lists and tables nested too deep or holding themselves are a ConfigError
    naming ``where`` (:func:`~bench.data.frozen.check_nesting`), not a RecursionError."""
    from bench.data.frozen import check_nesting

    check_nesting(value, where or "config")
    return _python_value(value, where)


def _python_value(value: Any, where: str) -> Any:
    import numpy as np
    import pandas as pd

    if isinstance(value, np.generic | bool | int | float | str):
        return plain_scalar(value)  # a subclass: the value it holds (a str Enum's str is 'E.A')
    if isinstance(value, np.ndarray):
        return [_python_value(v, where) for v in value.tolist()] if value.ndim == 1 else value
    if isinstance(value, pd.Series | pd.Index | pd.api.extensions.ExtensionArray) \
            and value.ndim == 1:  # as a 1-D array is (pd.array, Categorical: their repr
        return [_python_value(v, where) for v in value.tolist()]  # spans five lines)
    if type(value).__module__.split(".")[0] == "pyarrow" and type(value).__name__.endswith(
            ("Array", "ChunkedArray")) and callable(getattr(value, "to_pylist", None)):
        return [_python_value(v, where) for v in value.to_pylist()]
    if isinstance(value, range):
        return list(value)
    if isinstance(value, os.PathLike) and not isinstance(value, str | bytes):
        try:  # the user's own __fspath__: a failure is named, not re-raised from inside
            path = os.fspath(value)
        except Exception as exc:
            raise ConfigError(f"{where or 'path'}: {type(value).__name__}.__fspath__() raised "
                              f"{type(exc).__name__}: {exc}; expected a path") from None
        return path if isinstance(path, str) else value
    if isinstance(value, tuple):  # a named tuple too: its items, as a plain tuple
        return tuple(_python_value(v, where) for v in value)
    if isinstance(value, list):
        return [_python_value(v, where) for v in value]
    if isinstance(value, dict):
        return {_key(k, where): _python_value(v, f"{where}.{k}" if where else str(k))
                for k, v in value.items()}
    return value


def _key(key: Any, where: str) -> str:
    """A dict key of a Python argument as a plain string, else a ConfigError naming it."""
    if not isinstance(key, str):
        raise ConfigError(f"{where or 'config'}: the key {show(key)} is not a string; keys are "
                          "names, as in a TOML table (\"n_trees\", \"lightgbm-lambdarank\")")
    return str.__str__(key)


def named(key: str, parse: Any, *args: Any) -> Any:
    """``parse(*args)`` with the config key in front of its error (``profile: unknown ...``)."""
    try:
        return parse(*args)
    except ConfigError as exc:
        msg = str(exc)
        raise ConfigError(msg if msg.startswith(key) else f"{key}: {msg}") from None


def plain_params(p: Params) -> dict[str, Any]:
    """``p`` as a ``[params]`` table: the device left out (``RunConfig.device`` owns it), an
    empty raw table left out (the hash of earlier runs stays as it was)."""
    d = p.to_dict()
    d.pop("device", None)  # owned by RunConfig.device
    for lib in RAW_TABLES:  # an empty table leaves the hash of earlier runs as it was
        if not d[lib]:
            d.pop(lib)
    return d

