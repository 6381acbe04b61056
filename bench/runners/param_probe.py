"""Raw library parameters checked by the library itself, before any data is loaded.

``[params.<library>]`` tables pass parameters straight to a library (an escape hatch:
:attr:`bench.runners.params.Params.raw`), so ltrbench cannot
range-check them from its own table. Instead, :func:`probe_library_params` trains one tree of the
library on eight rows of made-up data with the exact keyword dictionary the run would use, and
turns what the library refuses into a :class:`~bench.errors.ConfigError` naming the table:
``num_leaves = -5`` (LightGBM ``Check failed: (num_leaves) > (1)``), ``max_depth = "deep"``
(XGBoost ``Invalid Parameter format``), an unknown key (CatBoost ``Unknown option``; XGBoost's
"Parameters: { ... } are not used" warning), all refused in milliseconds instead of as a
traceback after the data is read.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from bench.errors import ConfigError, did_you_mean
from bench.runners.libraries import LIBRARIES, load

#: Eight rows in two queries of four, labels 0..3: enough for every ranking objective.
_X = np.arange(16, dtype=np.float64).reshape(8, 2) % 5
_Y = np.array([0, 1, 2, 3, 3, 2, 1, 0], dtype=np.float64)
_QID = np.array([0, 0, 0, 0, 1, 1, 1, 1])


def lightgbm_names() -> dict[str, str]:
    """Every parameter name LightGBM knows, aliases included, to its main name: its own list,
    dumped by the C API ``LGBM_DumpParamAliases`` (``src/io/config_auto.cpp``, read through
    ``lightgbm.basic._ConfigAliases``); empty when this LightGBM has no such list."""
    from lightgbm.basic import _ConfigAliases

    try:
        table = _ConfigAliases._get_all_param_aliases()
    except Exception:  # an older or newer LightGBM without the private helper: no list
        return {}
    return {a: main for main, aliases in table.items() for a in (main, *aliases)}


def probe_lightgbm(params: dict[str, Any]) -> None:
    """One LightGBM tree on the toy data with ``params``. A key that is not in LightGBM's own
    parameter list (:func:`lightgbm_names`) is refused first with the closest name: LightGBM
    itself only logs ``Unknown parameter: num_leafs``, a line ``verbosity = -1`` hides. The
    user's ``verbosity`` is kept (LightGBM refuses ``1.5`` when it trains), the output silenced
    by the caller."""
    import lightgbm as lgb

    names = lightgbm_names()
    unknown = [k for k in params if names and k not in names]
    if unknown:
        hint = did_you_mean(unknown[0], names)
        close = hint.split("'")[1] if hint else ""
        raise ValueError(f"{unknown[0]!r} is not a LightGBM parameter (LightGBM's own list, "
                         "with aliases)" + (f"; did you mean {names[close]!r}?" if close else ""))
    quiet = {} if {"verbosity", "verbose"} & set(params) else {"verbosity": -1}
    p = {"min_data_in_leaf": 1, "min_data_in_bin": 1, **quiet, **params,  # 8 rows: small leaves
         "num_iterations": 1, "num_threads": 1}
    for key in ("early_stopping_round", "early_stopping_rounds"):  # no validation set here
        p.pop(key, None)
    booster = lgb.train(p, lgb.Dataset(_X, label=_Y, group=[4, 4]))
    _read_back_lightgbm(booster.model_to_string(), params, names)


#: A C ``int``'s range: LightGBM parses an integer parameter into one without a range check.
_INT32 = (-(2**31), 2**31 - 1)


def _read_back_lightgbm(model: str, params: dict[str, Any], names: dict[str, str]) -> None:
    """An integer outside a C ``int`` that LightGBM read as another number is refused:
    LightGBM parses integer parameters without a range check (``min_data_in_bin =
    4294967299`` trained with 3, ``2**63 + 5`` with 5), so the value is compared with the
    ``parameters:`` block of the model it trained (a double parameter keeps a large integer,
    to the six digits that block shows)."""
    used = {}
    for line in model.splitlines():
        if line.startswith("[") and ": " in line and line.endswith("]"):
            key, _, value = line[1:-1].partition(": ")
            used[key] = value
    for key, value in params.items():
        if not isinstance(value, int) or isinstance(value, bool) or _INT32[0] <= value <= _INT32[1]:
            continue
        text = used.get(names.get(key, key))
        try:
            read = float(text) if text is not None else None
        except ValueError:
            read = None
        if read is None or abs(read - value) > 1e-5 * abs(value):
            raise ValueError(f"{key} = {value}: LightGBM read it as {text} (an integer parameter is "
                             f"a C int, {_INT32[0]} to {_INT32[1]}, parsed without a range check)")


def probe_xgboost(params: dict[str, Any]) -> None:
    """One XGBoost tree on the toy data, in the matrix the run trains on (a
    ``QuantileDMatrix``, :func:`bench.runners.xgboost.quantile_dmatrix`: a ``DMatrix`` here let
    ``tree_method = "approx"`` through, which XGBoost refuses on a ``QuantileDMatrix`` once the
    run's data are read); a "Parameters: { ... } are not used" warning raises."""
    import xgboost as xgb

    p = {**params, "nthread": 1, "verbosity": 1}  # 1: warnings, where unused keys are said
    said = io.StringIO()  # XGBoost's logger prints through Python: "Parameters: {...} are not used"
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(said):
        warnings.simplefilter("always")
        matrix = xgb.QuantileDMatrix(_X, label=_Y, qid=_QID, max_bin=p.get("max_bin", 256))
        xgb.train(p, matrix, num_boost_round=1)
    lines = [*(str(w.message) for w in caught), *said.getvalue().splitlines()]
    unused = [" ".join(t.split()) for t in lines if "are not used" in t]
    if unused:  # without XGBoost's "[17:01:02] WARNING: /workspace/src/learner.cc:782: "
        raise ValueError("XGBoost: " + _XGB_LOG_PREFIX.sub("", unused[0]) + " (not an XGBoost "
                         "training parameter, or not one of this objective)")


#: The clock time and source line XGBoost's logger puts before a warning.
_XGB_LOG_PREFIX = re.compile(r"^\[[0-9:]+\] WARNING: \S+: ")


def probe_catboost(params: dict[str, Any]) -> None:
    """One CatBoost tree on the toy data with ``params``."""
    from catboost import CatBoost, Pool

    p = {**params, "iterations": 1, "thread_count": 1, "verbose": False,
         "allow_writing_files": False}
    p.pop("early_stopping_rounds", None)
    CatBoost(p).fit(Pool(_X, label=_Y, group_id=_QID))


@contextlib.contextmanager
def _silenced() -> Iterator[None]:
    """Nothing the probe prints reaches the terminal: Python's streams and the file descriptors
    1 and 2 that the libraries' C++ loggers write to (LightGBM's ``[Fatal]`` line)."""
    saved = [os.dup(1), os.dup(2)]
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(null, 1)
        os.dup2(null, 2)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, null):
            os.close(fd)


def probe_library_params(library: str, params: dict[str, Any], *, where: str,
                         keys: tuple[str, ...] = ()) -> None:
    """Train one tree of ``library`` on toy data with ``params``; what it refuses is a
    :class:`ConfigError` that names ``where`` (e.g. ``[params.lightgbm]``) and ``keys`` (the raw
    keys given: CatBoost's "Internal CatBoost Error" of ``monotone_constraints`` names no key)
    and quotes the library.

    The probe is the library's :attr:`~bench.runners.libraries.Library.probe`; libraries that
    are not GBDT libraries of ltrbench are not probed.
    """
    lib = LIBRARIES.get(library)
    if lib is None:
        return
    _refuse_shared_names(library, keys, where)
    probe: Callable[[dict[str, Any]], None] = load(lib.probe)
    try:
        with _silenced():
            probe(params)
    except ConfigError:
        raise
    except Exception as exc:  # the library's own error type, whatever it is
        text = " ".join(str(exc).split())
        text = text.split(" at /")[0]  # LightGBM appends its source path
        text = text.split(" Stack trace:")[0]  # XGBoost its native frames
        given = f" (the raw keys given: {', '.join(keys)})" if keys else ""  # its text may name none
        raise ConfigError(f"{where}: {library} refuses these parameters: {text[:300]}{given}") from None


def _refuse_shared_names(library: str, keys: tuple[str, ...], where: str) -> None:
    """A ConfigError for one of ltrbench's own parameters (``n_trees``, ``colsample``) in a raw
    table, which the library does not read: LightGBM's "did you mean 'num_iterations'?" sent
    the user to a name the config refuses beside ``n_trees``."""
    from bench.runners.param_ranges import PARAM_SPECS
    from bench.runners.raw_keys import raw_library_of

    shared = {s.name for s in PARAM_SPECS}
    for key in keys:
        if key in shared and raw_library_of(key, library) != library:
            raise ConfigError(f"{where} {key}: ltrbench's own parameter, not one of "
                              f"{LIBRARIES[library].title}'s: write it in [params] or "
                              f"[model_params.<model>] itself, outside the raw {library} table")
