"""Python arguments of the public API that are no array or no path, refused naming the argument.

A notebook user passes what Python lets them pass; each is a clear error naming the argument and
what was expected, never a NumPy shape message or a traceback from inside a library:

* :func:`refuse_non_arrays`: a per-row argument (``labels``, ``scores``, ``qid``, ``group``,
  ``weights``, ``docno``; ``X``, ``y``, ``user``, ``item`` of :meth:`bench.data.LetorData.build`) that is a set or dict (no row order), a one-pass iterator or generator
  (NumPy makes a 0-d object array of it: ``qid has shape ()``), a SciPy sparse matrix (one
  row of ``n`` columns: ``np.asarray`` does not densify it) or a masked array with masked
  values (:func:`bench.metrics.number_checks.no_mask`, here for ``group`` too);
* :func:`user_path`: a path argument (``qrels``, ``run``, ``out_dir``, ``run_dir``, a save
  folder) as a :class:`~pathlib.Path`. ``~`` and ``~user`` are expanded, as the dataset and
  ``data_dir`` paths are (:mod:`bench.datasets.resolve`) and as pandas does, so that
  ``save("~/results")`` never creates a folder named ``~`` in the working directory; an
  ``os.PathLike`` whose ``__fspath__`` raises or returns no text, bytes, a path over the
  system's ``PATH_MAX`` (its start shown, not all of it), and (for a folder the call creates,
  or a run directory) a control character such as a trailing newline are refused naming the
  argument; :func:`type_name`: a value's type as a user looks it up (``polars.DataFrame``);
* :func:`same_index`: pandas Series among the per-row arguments whose indexes disagree (NumPy
  would pair them by position), for ``evaluate`` and ``LetorData.build``;
* :func:`plain_scalar`: a NumPy scalar or a subclass of ``str``/``int``/``float`` (an Enum
  member) as the plain Python value it holds, for the typed values users build by hand
  (``RunConfig``, ``Params``, ``ALSParams``, ``Profile``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import ItemsView, Iterator, KeysView, Mapping, ValuesView
from pathlib import Path
from typing import Any

import numpy as np

from bench.errors import ConfigError, DataError, home_expanded


def refuse_non_arrays(**named: Any) -> None:
    """Each non-``None`` value of ``named`` (argument name -> value) is array-like with an
    order; else a :class:`DataError` naming the argument and what to pass instead."""
    for name, value in named.items():
        if value is None:
            continue
        what = _container(value)
        if what is not None:
            expected = (f"a two-dimensional NumPy array or DataFrame ({_TABLES[name]})"
                        if name in _TABLES else
                        "one value per row in row order (a list, a NumPy array or a pandas Series)")
            raise DataError(f"{name} is {what}: expected {expected}{_advice(value, name)}")
        if isinstance(value, np.ma.MaskedArray) and np.ma.getmaskarray(value).any():
            mask = np.ma.getmaskarray(value)
            raise DataError(f"{name} is a masked array with {int(mask.sum())} masked value(s): "
                            "masked values are not data; fill them (a.filled(value)) or drop "
                            "their rows from every array", row=int(np.argwhere(mask)[0][0]) + 1)


#: The arguments that are tables, rows x columns (the others hold one value per row).
_TABLES = {"X": "rows x features", "subtopics": "rows x subtopics"}


def _container(value: Any) -> str | None:
    """What ``value`` is when it is no ordered array of rows, in words; ``None`` otherwise."""
    if isinstance(value, set | frozenset | KeysView | ItemsView):
        return f"a {type(value).__name__}, which has no row order"
    if isinstance(value, Mapping):
        return f"a {type(value).__name__} (a mapping, not one value per row)"
    if isinstance(value, ValuesView):
        return f"a {type(value).__name__} (a view of a mapping, not an array)"
    if isinstance(value, Iterator):
        return f"a {type(value).__name__} (a one-pass iterator)"
    if type(value).__module__.startswith("scipy.sparse"):
        return f"a SciPy sparse {type(value).__name__} of shape {getattr(value, 'shape', '?')}"
    return None


def _advice(value: Any, name: str) -> str:
    if type(value).__module__.startswith("scipy.sparse"):
        return f": densify it first ({name}.toarray(){'' if name in _TABLES else '.ravel()'})"
    if isinstance(value, Iterator | ValuesView):
        return ": make it a list first (list(...))"
    return ""


def _path_max() -> int:
    try:
        return int(os.pathconf("/", "PC_PATH_MAX"))
    except (OSError, ValueError, AttributeError):  # no pathconf (Windows): Linux's PATH_MAX
        return 4096


#: The longest path the system takes (``PATH_MAX``: 4096 bytes on Linux, 1024 on macOS).
_PATH_MAX = _path_max()


def user_path(value: Any, option: str, *, strict: bool = False) -> Path:
    """``value`` (a ``str`` or ``os.PathLike``) as a :class:`Path`, ``~`` expanded; see the
    module doc. ``strict`` (a folder the call creates or a run directory): a control character
    (a newline pasted with the path) is refused rather than written into a folder's name."""
    if isinstance(value, bytes) or not isinstance(value, str | os.PathLike):
        raise ConfigError(f"{option}: expected a path (a str or pathlib.Path); got "
                          f"{type(value).__name__} {value!r:.60}"
                          + (" (decode it first: os.fsdecode(path))"
                             if isinstance(value, bytes) else ""))
    try:
        text = os.fspath(value)
    except Exception as exc:  # the user's __fspath__: its failure is named, not re-raised
        raise ConfigError(f"{option}: {type(value).__name__}.__fspath__() raised "
                          f"{type(exc).__name__}: {exc}; expected a path") from None
    if not isinstance(text, str):
        raise ConfigError(f"{option}: {type(value).__name__}.__fspath__() returned "
                          f"{type(text).__name__} {text!r:.60}; expected a path as text (str)")
    if not text:  # Path("") is ".", the working directory: say what was given
        raise ConfigError(f"{option}: an empty path; expected a path")
    if len(text) > _PATH_MAX:  # no system call takes it; every error line repeated all of it
        raise ConfigError(f"{option}: a path of {len(text):,} characters ({text[:40]!r}...), "
                          f"over the system's limit of {_PATH_MAX:,} bytes; expected a path")
    bad = next((c for c in text if ord(c) < 32 or ord(c) == 127), None)
    if strict and bad is not None:
        raise ConfigError(f"{option} {text!r}: the path holds a control character "
                          f"(U+{ord(bad):04X}: a line end or tab pasted with it?); expected a "
                          "folder path without one")
    return Path(home_expanded(text, option))


def plain_scalar(value: Any) -> Any:
    """``value`` as the plain Python scalar it stands for: a 0-d NumPy value as its ``item()``
    (``np.int64(3)`` is ``3``, ``np.bool_(True)`` is ``True``, ``np.float64(1.0)`` stays a
    float), a subclass of ``str``, ``int`` or ``float`` (a ``StrEnum`` / ``IntEnum`` member,
    ``numpy.str_``) as the value it holds, not its own ``repr`` or ``str`` (a str Enum's
    ``str`` is ``'E.A'``). A bool stays a bool; anything else is returned as it is, for the
    caller's schema to judge."""
    if isinstance(value, np.generic) and value.shape == ():
        item = value.item()
        return item if isinstance(item, bool | int | float | str) else value
    if isinstance(value, bool) or type(value) in (str, int, float):
        return value
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    return value


#: How deep :func:`plain_deep` goes: below it a value is left as it is, for the caller's own
#: nesting check to refuse by name (a 2,000-deep list would end in a RecursionError here).
PLAIN_DEPTH = 200


def plain_deep(value: Any, _depth: int = 0) -> Any:
    """``value`` with :func:`plain_scalar` applied at every depth of its lists, tuples and dicts
    (a library's raw parameter table: ``{"min_data_in_bin": np.int64(5)}``), down to
    :data:`PLAIN_DEPTH` levels."""
    if _depth > PLAIN_DEPTH:
        return value
    if isinstance(value, list | tuple):
        return type(value)(plain_deep(v, _depth + 1) for v in value) \
            if type(value) in (list, tuple) else value
    if isinstance(value, dict):
        return {plain_scalar(k): plain_deep(v, _depth + 1) for k, v in value.items()}
    return plain_scalar(value)


def type_name(obj: object) -> str:
    """``obj``'s type as a user would look it up: ``polars.DataFrame``, ``pyarrow.Table``,
    ``list`` (a bare ``DataFrame`` could be pandas' or polars')."""
    t = type(obj)
    top = t.__module__.split(".")[0]
    return t.__qualname__ if top == "builtins" else f"{top}.{t.__qualname__}"


def same_index(values: dict[str, Any], frame_index: Any = None) -> None:
    """Refuse pandas Series that :func:`bench.metrics.evaluate` would pair by position although
    their indexes disagree (``evaluate(df.label[::-1], df.score, qid=df.qid)``): each Series
    among ``values`` (role -> argument) must have the index of the first one, or of
    ``frame_index`` (the DataFrame whose rows the arrays go with). pandas would align them by
    label; NumPy, which the evaluator uses, pairs them by position, so a shuffled index would
    give a silently wrong number. Arrays and lists are paired by position, as documented."""
    series = [(role, v) for role, v in values.items() if _is_series(v)]
    n = len(frame_index) if frame_index is not None else len(series[0][1]) if series else 0
    series = [(role, v) for role, v in series if len(v) == n]  # per-query weights: not rows
    if frame_index is None and len(series) < 2:
        return
    ref_role, ref = ("the DataFrame", frame_index) if frame_index is not None else \
        (series[0][0], series[0][1].index)
    for role, v in series:
        if not v.index.equals(ref):
            raise DataError(f"{role} is a pandas Series whose index differs from that of "
                            f"{ref_role}: rows are paired by position, not by index label; "
                            "align them first (.reindex(...)) or pass .to_numpy() to pair by "
                            "position")


def _is_series(value: object) -> bool:
    pd = sys.modules.get("pandas")  # not imported: no Series can have been made
    return pd is not None and isinstance(value, pd.Series)
