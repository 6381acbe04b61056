"""Query folds, the ``--grid`` space and tune's output folder check (``ltrbench tune``; the
engine is :mod:`bench.benchmark.study`, the plan :mod:`bench.benchmark.tune_run`).

Folds (``--cv K``) are made of whole queries: every query of the tuning data is held out in
exactly one fold and is never split between a fold's training and held-out parts (LightGBM
#1137, #5660; XGBoost #4844 show what happens otherwise). Only the training split is used by
default (``use="train+vali"`` adds the validation split's queries); the test split is never an
input.

``--grid "num_leaves=15,31;learning_rate=0.05,0.1"`` (:func:`parse_space`) gives Optuna's grid
sampler its values: a name given twice, an empty value and two equal values (``1`` and
``1.0``) are refused, and every value is checked as a config's ``[params]`` are
(:data:`bench.runners.params.PARAM_SPECS`: its type, never coerced, and its range). The device,
seed and thread count are not tuning parameters: they are set once for the run (``--device``,
``--seed``, ``--threads``), and a GPU value in a grid would only fail after the first fits.

:func:`check_tune_out` refuses, before any data are read, an ``out`` that is or lies over the
dataset folder, and an ``out/tune`` that is a file, a FIFO or a device.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bench.benchmark.search_space import MAX_CHOICES, NOT_TUNED, TUNABLE
from bench.data.inputs import is_option_float
from bench.data.letor import LetorData
from bench.data.outputs import Inputs, check_output_dir
from bench.data.toml import show, unknown_key
from bench.errors import ConfigError, refuse_empty_items, refuse_foreign_space
from bench.runners.libraries import LIBRARIES, gbdt_libraries
from bench.runners.params import param_spec
from bench.runners.raw_keys import raw_library_of, shared_name_of
from bench.runs.layout import RUN_SEALED


def query_folds(n_queries: int, n_folds: int, seed: int = 0) -> list[tuple[NDArray[np.int64], NDArray[np.int64]]]:
    """``(training groups, held-out groups)`` per fold; queries are dealt round-robin after a seeded
    shuffle, so fold sizes differ by at most one query and each query is held out exactly once."""
    if n_folds < 2:
        raise ConfigError("cross-validation needs at least 2 folds")
    if n_queries < n_folds:
        raise ConfigError(f"{n_queries} queries cannot make {n_folds} folds")
    order = np.random.default_rng(seed).permutation(n_queries)
    fold_of = np.empty(n_queries, dtype=np.int64)
    fold_of[order] = np.arange(n_queries) % n_folds
    groups = np.arange(n_queries, dtype=np.int64)
    return [(groups[fold_of != f], groups[fold_of == f]) for f in range(n_folds)]


def parse_space(text: str) -> dict[str, list[Any]]:
    """``"num_leaves=15,31;learning_rate=0.05,0.1"`` → ``{"num_leaves": [15, 31], ...}``.

    A name given twice (``num_leaves=3;num_leaves=7``) and an empty value (``3,,7``, ``3,7,``)
    are refused, not merged or skipped: either would try another grid than the one written.
    """
    space: dict[str, list[Any]] = {}
    refuse_foreign_space(text, "--grid", "name=v1,v2;... ")  # '31\u00a0': 31 to Python's strip()
    for part in text.split(";"):
        part = part.strip()
        if not part:
            continue
        name, sep, values = part.partition("=")
        name = name.strip()
        if not sep or not values.strip():
            raise ConfigError(f"--grid entry {part!r}: expected name=v1,v2,... (entries "
                              "separated by ';')")
        if name in space:
            raise ConfigError(f"--grid {name}: given twice ({part!r} after "
                              f"{name}={','.join(map(str, space[name]))}); list every value once: "
                              f"{name}=v1,v2,...")
        refuse_empty_items(values.split(","), values.strip(), "value", f"--grid {name}",
                           blank_ok=False)
        space[name] = [_value(v.strip(), name) for v in values.split(",")]
    return check_space(space)


def check_space(space: Mapping[str, Sequence[Any]]) -> dict[str, list[Any]]:
    """Validate names against :data:`TUNABLE` (the closest one for a typo), that every list is
    non-empty without repeats, and every value against its
    :func:`~bench.runners.params.param_spec` (type and range; errors name ``--grid <name>``)."""
    from bench.benchmark.config_schema import python_value

    if not isinstance(space, Mapping):
        raise ConfigError(f"--grid: expected a mapping of parameter -> values; got {show(space)}")
    if not space:
        raise ConfigError("--grid: empty search space")
    out = {}
    for name, given in space.items():
        if not isinstance(name, str) or not name:
            raise ConfigError(f"--grid: the parameter name {show(name)} is not a name; expected "
                              f"one of {', '.join(TUNABLE)}")
        values = python_value(given)  # numpy values as Python's, as run(...) takes them
        if name in NOT_TUNED:
            raise ConfigError(f"--grid {name}: cannot tune {name!r}: it is set once for the run, "
                              f"with {NOT_TUNED[name]}")
        library = name.partition(".")[0]
        if name not in TUNABLE and "." in name and library in gbdt_libraries():
            raise ConfigError(f"--grid {name}: a raw {library} parameter; --grid takes "
                              f"ltrbench's parameters ({', '.join(TUNABLE)}); search raw ones "
                              f"with --space FILE: [{library}] \"{name}\" = {{choices = [..]}}")
        if name not in TUNABLE and name in _config_keys() and raw_library_of(name) is None:
            raise ConfigError(f"--grid {name}: cannot tune {name!r}: a config key, not a "
                              f"parameter; it is set once for the run ({name} = ... at the top "
                              "of the config, or its option)")
        if name not in TUNABLE:
            said = shared_name_of(name, None, "--grid ", TUNABLE)
            lib = None if said else raw_library_of(name)
            if lib is not None:  # 'extra_trees' was "did you mean 'n_trees'?"
                raise ConfigError(f"--grid {name}: a raw {LIBRARIES[lib].title} parameter; --grid "
                                  f"takes ltrbench's parameters ({', '.join(TUNABLE)}); search "
                                  f"raw ones with --space FILE: [{lib}] \"{lib}.{name}\" = "
                                  "{choices = [..]}")
            err = said or unknown_key("--grid ", name, TUNABLE, noun="parameter")
            raise ConfigError(f"cannot tune {name!r}: {err}")
        if isinstance(values, str | bytes) or not isinstance(values, Sequence):
            raise ConfigError(f"--grid {name}: expected a list of values; got {values!r}")
        if len(values) > MAX_CHOICES:  # the repeat check below was quadratic: 131,071
            raise ConfigError(f"--grid {name}: {len(values):,} values; at most {MAX_CHOICES:,} "
                              "(a range in --space FILE, {low = .., high = ..}, samples between "
                              "two bounds)")  # num_leaves values took over an hour to refuse
        vals = [param_spec(name).check(v, f"--grid {name}") for v in values]
        if not vals:
            raise ConfigError(f"--grid {name}: no values")
        seen: set[tuple[Any, Any]] = set()
        for v in vals:  # 1 and 1.0 are one learning rate: the same candidate twice
            key = (bool, v) if isinstance(v, bool) else (float, v) \
                if isinstance(v, int | float) else (type(v), v)
            if key in seen:
                shown = ", ".join(map(repr, vals))
                raise ConfigError(f"--grid {name}: a value repeats: "
                                  f"{shown if len(shown) <= 200 else shown[:197] + '...'} "
                                  f"({v!r} is given twice)")
            seen.add(key)
        out[name] = vals
    return out


def _config_keys() -> set[str]:
    """The keys at the top of a run config (``seeds``, ``quick``, ``profile`` ...) that are no
    parameter (``--grid seeds=1,2`` was "unknown parameter")."""
    from dataclasses import fields

    from bench.benchmark.config import RunConfig

    return {f.name for f in fields(RunConfig)} - {"params", "model_params", "custom_models",
                                                   "als"} - {n for n in TUNABLE}


def _value(text: str, name: str) -> Any:
    """A grid value as the command line reads one: ``true``/``false``; an integer or a float
    written in ASCII as ``--n-trees`` and ``--learning-rate`` take them (``0x10``, ``1_5`` and
    ``１５`` stay strings, which the parameter's type then refuses: TOML's own reading made
    ``num_leaves=0x10`` the grid point 16, where ``--seeds 0x1`` is refused); a quoted TOML
    string; else the text itself (``nan``/``inf`` are floats, refused by the parameter's range)."""
    from bench.data.inputs import is_plain_int
    from bench.data.toml import TOMLDecodeError, loads

    if text in ("true", "false"):
        return text == "true"
    _refuse_number_spelling(text, name)
    if is_plain_int(text):
        return int(text)
    if is_option_float(text):
        return float(text)
    if text[:1] in ("'", '"'):
        try:
            return loads(f"v = {text}")["v"]
        except TOMLDecodeError:
            return text
    return text


def _refuse_number_spelling(text: str, name: str) -> None:
    """The grid's one number grammar, the metric cutoffs' (``ndcg@+10`` is refused) and TOML's
    (``015`` is refused): no ``+`` sign, no leading zero (``015`` is 13 to C's octal reading,
    15 here: which was meant cannot be told), and an integer parameter's value written as an
    integer (``1e1`` named as written, not as the float 10.0 it reads as)."""
    import re

    if not is_option_float(text) or text.lower().lstrip("+-") in ("nan", "inf", "infinity"):
        return
    body = text.lstrip("-")
    if text.startswith("+"):
        raise ConfigError(f"--grid {name}: {text!r} has a '+' sign; write the number without "
                          f"it ({text[1:]}), as a metric cutoff is written (ndcg@10, not ndcg@+10)")
    if re.match(r"0\d", body):
        plain = body.lstrip("0")
        plain = "0" + plain if plain[:1] in ("", ".") else plain
        raise ConfigError(f"--grid {name}: {text!r} has a leading zero; write "
                          f"{text[:len(text) - len(body)]}{plain} (a leading "
                          "zero is an octal number to C and refused by TOML)")
    spec = param_spec(name) if name in TUNABLE else None
    if spec is not None and spec.kind is int and not re.fullmatch(r"-?\d+", text):
        raise ConfigError(f"--grid {name}: {text!r} is not written as an integer; expected "
                          f"{spec.expected()} in decimal digits (1000, not 1e3 or 1000.0)")


def check_tune_out(out: str | os.PathLike[str], inputs: Inputs) -> Path:
    """``out`` once tune may write ``out/tune/<name>/`` there, checked before any data are read:
    never into or over the dataset folder (as ``ltrbench run --out``), and ``out/tune`` must be
    a folder (or absent), so that nothing fails after the fits are done."""
    from bench.datasets.sealed import SEALED_DATASETS, dataset_folders

    inputs = list(inputs)
    data_dir = next((p for name, p in inputs if name == "--data-dir"), None)
    inputs += dataset_folders(data_dir, around=out, into=("tune",))  # another run's input
    check_output_dir(out, option="--out", inputs=inputs, into=("tune",),
                     sealed=(*RUN_SEALED, *SEALED_DATASETS))
    check_output_dir(Path(out) / "tune", option="--out", inputs=inputs)
    return Path(out)


def check_tune_storage(storage: str, inputs: Inputs) -> None:
    """Refuse, before Optuna creates or opens it, a ``sqlite:///PATH`` ``--storage`` that is an
    input (the ``--config`` or ``--space`` file, a hard or symbolic link of one: an empty config
    was replaced by a SQLite database) or that lies inside the dataset folder (a ``study.db``
    written among the splits' files), as ``--out`` is refused (:func:`check_tune_out`); the
    file's own checks first (:func:`bench.benchmark.study.check_sqlite_url`: a folder, a
    device, a file that is not SQLite), then an empty file (SQLite would adopt it). Other
    database URLs are not files of this machine."""
    from bench.benchmark.study import check_sqlite_url
    from bench.data.outputs import same_file
    from bench.datasets.sealed import SEALED_DATASETS

    if storage.split(":", 1)[0].split("+", 1)[0].lower() != "sqlite":
        return
    inputs = list(inputs)
    as_output = _storage_name(storage, inputs)
    path = check_sqlite_url(storage)
    if as_output is not None:
        inputs += _storage_as_output(as_output, inputs)
    if path.is_file() and path.stat().st_size == 0:  # SQLite would make any empty file its own
        raise ConfigError(f"--storage {storage!r}: {path} is an empty file (0 bytes), not a study "
                          "database: SQLite would turn it into one; give a new file or an "
                          "Optuna study database")
    real = Path(os.path.realpath(path))
    for name, given in inputs:
        if given is None or not os.path.lexists(given):
            continue
        if not os.path.isdir(given) and same_file(path, given):
            raise ConfigError(f"--storage {storage!r}: {path} is the input {name} {given!r}: "
                              "Optuna would write its database over it; choose another file")
        folder = Path(os.path.realpath(given))
        if name in (*RUN_SEALED, *SEALED_DATASETS) and folder.is_dir() and folder in real.parents:
            raise ConfigError(f"--storage {storage!r}: {path} lies inside the input folder "
                              f"{name} {given!r}: tune would write its database among the "
                              "dataset's files; keep it elsewhere (the default is study.db "
                              "in the tune folder)")


def _storage_name(storage: str, inputs: Inputs) -> str | None:
    """The file of a ``sqlite:///PATH`` storage (``~`` expanded), its name refused as every new
    output's is before SQLite sees it (:func:`bench.data.output_names.check_name`, option
    ``--storage``: a line end, a name over ``NAME_MAX``, which SQLite met as ``File name too
    long`` naming no option) and a trailing separator (``new.db/`` names a folder: SQLite made
    the file ``new.db``); ``None`` for an in-memory or unparsable URL, which
    :func:`bench.benchmark.study.check_sqlite_url` refuses."""
    from sqlalchemy.engine import make_url

    from bench.data.output_names import check_name

    try:
        database = make_url(storage).database
    except Exception:  # check_sqlite_url says what is wrong with the URL
        return None
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    text = os.path.expanduser(database) if database.startswith("~") else database
    check_name("--storage", text, "file")
    if text.endswith(os.sep) or text.endswith(os.sep + "."):
        raise ConfigError(f"--storage {storage!r} ends with a path separator, which names a "
                          "folder: expected a database file name (drop the trailing separator)")
    return text


def _storage_as_output(text: str, inputs: Inputs) -> list[tuple[str, Path]]:
    """The storage file ``text`` checked as every output file is
    (:func:`bench.data.outputs.check_output_file`, option ``--storage``: a folder its owner
    made read-only, also for root, where SQLite made the file all the same; a new file in an
    input folder), unless it is a link to an existing study; returns the dataset folders
    around it (the catalogue's, and a folder that reads as a dataset:
    :func:`bench.datasets.sealed.dataset_folders`), inputs sealed like the dataset given."""
    from bench.data.outputs import check_output_file
    from bench.datasets.sealed import dataset_folders

    inputs = list(inputs)
    data_dir = next((p for name, p in inputs if name == "--data-dir"), None)
    around = dataset_folders(data_dir, around=os.path.dirname(text) or ".")
    if not (os.path.islink(text) and os.path.isfile(text)):
        check_output_file(text, option="--storage", inputs=[
            (n, p) for n, p in (*inputs, *around) if n != "--data-dir"])
    return around


def tuning_data(train: LetorData, vali: LetorData, use: str) -> LetorData:
    """The data ``--cv`` folds are made from: the training split, or with ``use="train+vali"``
    the training and validation splits' queries together."""
    if use == "train":
        return train
    if use == "train+vali":
        return _concat(train, vali)
    raise ConfigError(f"tuning data {use!r} not allowed; valid: train, train+vali (never test)")


def _concat(a: LetorData, b: LetorData) -> LetorData:
    # Query ids of b are shifted so that no query of b merges with a query of a.
    shift = int(a.qid.max()) + 1 - int(b.qid.min()) if a.n_rows and b.n_rows else 0
    ids = {}
    if a.user is not None and b.user is not None:
        ids["user"] = np.concatenate([a.user, b.user])
    if a.item is not None and b.item is not None:
        ids["item"] = np.concatenate([a.item, b.item])
    return LetorData.build(
        np.concatenate([a.X, b.X]), np.concatenate([a.y, b.y]),
        qid=np.concatenate([a.qid, b.qid + shift]), feature_names=a.feature_names,
        source=f"{a.source} + {b.source}", **ids,
    )
