"""User code isolated: what a custom ranker is given is read-only, a change to it is detected and
named, and what its ``predict`` returns is checked before it becomes a score.

A custom ranker runs inside the ltrbench process, on the arrays every later model of the run trains
on. So, for the whole of a custom model's build, fit and predict (:func:`guarded_splits`):

* every array of the three splits (``X``, ``y``, ``qid``, group offsets, user, item) is made
  read-only (``flags.writeable = False``) and the ranker gets read-only *views* of them (NumPy
  refuses ``view.flags.writeable = True`` while the array under the view is read-only). A write
  raises NumPy's ``ValueError: assignment destination is read-only``; ltrbench reports it as a
  :class:`CustomModelFailure` that names the model and says to copy the array first. The other
  models of the run go on, on unchanged data.
* the arrays' SHA-1 digests (integrity, not security) are taken before and compared after fit and
  after predict. A ranker that gets round the flag (``X.base.flags.writeable = True``, ctypes)
  and changes the data is a :class:`CustomModelTampered` naming the model, the split, the array
  and the step; it ends the run, because every later model would train on the changed data.
* the flags are restored afterwards.

Arrays the ranker gets that the run does not keep (group sizes, per-row query numbers) are fresh
copies, made read-only as well, so one rule holds for every array: read-only.

A write that comes *after* the custom model is done (a thread it started, a ``__del__`` that
makes a kept view writeable again once the flags are restored) is caught before the next model
trains: :func:`verify_unchanged` compares the digests taken when the custom model finished
(:func:`bench.runners.dispatch.run_model` calls it first) and raises
:class:`CustomModelTampered` naming the model.

**The process**: whatever the ranker changes in ltrbench's process is put back after each of
its calls and named (:func:`bench.runners.custom_process.isolated_process`).

:func:`checked_scores` turns ``predict``'s return value into float64 scores or refuses it with
the model's name: ``None``, scalars, strings, dicts, generators and iterators; anything not 1-D
(an ``(n, 1)`` column or a ``(1, n)`` row: ``.ravel()`` it); a length other than the rows'; a pandas Series whose index
is not ``0..n-1`` in order (ltrbench reads scores by position, and a sorted Series would be read
in the wrong order); a masked array with masked values; a null of a pyarrow array or of a
pandas nullable one (``Float64``, ``Int64``, Arrow-backed), named missing, not NaN; bool,
complex, string, bytes, object (a ``None``, a ``Decimal`` or text in it named with its row),
date and time dtypes; integers above 2^53 in magnitude (float64 holds integers exactly only up
to 2^53, IEEE 754 binary64's 53-bit significand: larger ones would collapse into ties); a wider
float (``longdouble``) whose values would tie in float64; NaN and infinities. The scores are
always copied, so a ranker that reuses one output buffer for every call cannot turn the
validation scores into the test scores. Scores that tie within every query of a split (a
constant, or a query-level value) are accepted but warned and noted (:func:`tied_scores`): the
metrics of that split are then those of the evaluator's tie order, not of the ranker; so are
scores that are each query's rank positions (:func:`position_scores`: 1 = best is ranked last).
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import math
import weakref
from collections.abc import Callable, Iterator
from typing import Any, NoReturn

import numpy as np
from numpy.typing import NDArray

from bench.data.big_ints import int_text
from bench.data.letor import LetorSplits
from bench.errors import ConfigError, LtrbenchError
from bench.runners.custom_process import (
    ProcessExit,
    RankerTimeout,
    isolated_process,
    time_limit,
)
from bench.runners.custom_streams import one_line

#: float64 holds every integer of magnitude up to 2^53 exactly (IEEE 754 binary64).
EXACT_INTEGER_LIMIT = 2**53
#: The per-split arrays ltrbench keeps for the models after a custom one.
_ARRAYS = ("X", "y", "qid", "offsets", "user", "item")
_COPY_HINT = "copy an array before changing it (X = np.array(X))"


class CustomModelFailure(LtrbenchError):
    """A custom model's ``fit`` or ``predict`` raised, or its scores are unusable.

    ``run_dir`` is set by the benchmark when the failure ends a run whose other pairs finished.
    """

    run_dir: Any = None


class CustomModelTampered(LtrbenchError):
    """A custom model changed the run's data although it was given read-only arrays: the run stops
    (not a :class:`CustomModelFailure`, after which the other models would go on)."""


def read_only(array: NDArray[Any]) -> NDArray[Any]:
    """A read-only view of ``array`` (a fresh array the caller owns: made read-only in place)."""
    view: NDArray[Any] = array.view()
    view.flags.writeable = False
    return view


@contextlib.contextmanager
def guarded_splits(splits: LetorSplits, where: str) -> Iterator[Any]:
    """Make the arrays of ``splits`` read-only for the block; yields ``check(step)``, which raises
    :class:`CustomModelTampered` (naming ``where``, the array and ``step``) when any array's
    content changed since the block began. Flags are restored on the way out."""
    arrays = [(f"{name} {attr}", a) for name, data in splits.splits().items() for attr in _ARRAYS
              if isinstance(a := getattr(data, attr, None), np.ndarray)]
    before = [_digest(a) for _, a in arrays]
    bound = _bindings(splits)
    flags = [a.flags.writeable for _, a in arrays]
    for _, a in arrays:
        a.flags.writeable = False

    def check(step: str) -> None:
        changed = [label for (label, a), d in zip(arrays, before, strict=True) if _digest(a) != d]
        changed += _rebound(splits, bound)
        if changed:
            raise CustomModelTampered(
                f"{where}: {step} modified the run's data in place ({', '.join(changed)}) although "
                "it was given read-only arrays; the run stops, because every later model would "
                f"train or be evaluated on the changed data; {_COPY_HINT}")

    try:
        yield check
        _WATCHED.setdefault(splits, _Watch([], arrays, before, bound)).models.append(where)
    finally:
        for (_, a), flag in zip(arrays, flags, strict=True):
            if flag:
                with contextlib.suppress(ValueError):  # a base made read-only meanwhile
                    a.flags.writeable = True
            else:
                a.flags.writeable = False


class _Watch:
    """The digests of a run's arrays when its custom models finished (see :func:`verify_unchanged`)."""

    def __init__(self, models: list[str], arrays: list[tuple[str, NDArray[Any]]],
                 digests: list[bytes], bound: dict[str, int]) -> None:
        self.models, self.arrays, self.digests, self.bound = models, arrays, digests, bound


def _bindings(splits: LetorSplits) -> dict[str, int]:
    """Which object each split and each of its arrays is (``id``): a ranker that never writes
    into an array but rebinds one (``object.__setattr__(data, "X", other)``, reaching the
    run's :class:`~bench.data.letor.LetorData` through the garbage collector or the call stack)
    would otherwise hand every later model other data while the digests of the arrays it was
    given stay the same."""
    bound = {}
    for name, data in splits.splits().items():
        bound[name] = id(data)
        for attr in _ARRAYS:
            bound[f"{name} {attr}"] = id(getattr(data, attr, None))
    return bound


def _rebound(splits: LetorSplits, bound: dict[str, int]) -> list[str]:
    """The labels of :func:`_bindings` whose object changed (``'train y' (rebound)``)."""
    now = _bindings(splits)
    return [f"{label} (rebound to another object)" for label, ident in bound.items()
            if now.get(label) != ident]


#: Splits a custom model was given -> the digests its data must keep (weak: gone with the splits).
_WATCHED: weakref.WeakKeyDictionary[LetorSplits, _Watch] = weakref.WeakKeyDictionary()


def verify_unchanged(splits: LetorSplits) -> None:
    """Raise :class:`CustomModelTampered` when the arrays of ``splits`` changed since a custom
    model that was given them finished (a thread or finaliser it left behind wrote into them);
    nothing to do for splits no custom model saw."""
    watch = _WATCHED.get(splits)
    if watch is None:
        return
    changed = [label for (label, a), d in zip(watch.arrays, watch.digests, strict=True)
               if _digest(a) != d]
    changed += _rebound(splits, watch.bound)
    if changed:
        raise CustomModelTampered(
            f"{'; '.join(dict.fromkeys(watch.models))}: the run's data changed after the custom "
            f"model returned ({', '.join(changed)}): a thread or finaliser it left behind wrote "
            "into the arrays it was given; the run stops before another model trains on the "
            f"changed data (modified in place); {_COPY_HINT}, and finish all work before fit "
            "and predict return")


def user_attribute(obj: Any, name: str, where: str) -> Any:
    """``getattr(obj, name)``, which runs the user's code when ``obj`` is theirs (a property, a
    ``__getattr__``, a module's ``__getattr__``): an ``AttributeError`` passes (no such
    attribute); anything else it raises is a :class:`~bench.errors.ConfigError` naming ``where``."""
    try:
        with isolated_process(where):
            return getattr(obj, name)
    except (KeyboardInterrupt, AttributeError):
        raise
    except BaseException as exc:
        raise ConfigError(f"{where}: looking up {name!r} on {type(obj).__name__} "
                          f"{describe_failure('', exc).strip()}; expected a plain "
                          "attribute") from None


def user_methods(obj: Any, names: tuple[str, ...], where: str) -> dict[str, Any]:
    """``{name: getattr(obj, name, None)}`` for each of ``names``, looked up as
    :func:`user_attribute` does (anything but an ``AttributeError`` is a
    :class:`~bench.errors.ConfigError` naming ``where`` and the name), all in one isolated block:
    the process state is taken and put back once, not once per name."""
    found: dict[str, Any] = {}
    name = names[0]
    try:
        with isolated_process(where):
            for name in names:
                try:
                    found[name] = getattr(obj, name)
                except AttributeError:
                    found[name] = None
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        raise ConfigError(f"{where}: looking up {name!r} on {type(obj).__name__} "
                          f"{describe_failure('', exc).strip()}; expected a plain "
                          "attribute") from None
    return found


def seed_by_set_params(ranker: Any, seed: int, where: str) -> bool:
    """``ranker.set_params(random_state=seed)`` when ``ranker`` follows scikit-learn's
    ``get_params`` / ``set_params`` with a ``random_state`` parameter (``XGBRanker``); whether
    it did. Whatever ``get_params`` raises (``SystemExit`` included) means no; a ``set_params``
    that raises is a :class:`~bench.errors.ConfigError` naming ``where``."""
    try:
        with isolated_process(where):
            takes = callable(getattr(ranker, "set_params", None)) \
                and "random_state" in ranker.get_params()
    except KeyboardInterrupt:
        raise
    except BaseException:
        return False
    if not takes:
        return False
    try:
        with isolated_process(where):
            ranker.set_params(random_state=seed)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        raise ConfigError(f"{where}: set_params(random_state={seed}) "
                          f"{describe_failure('', exc).strip()}") from None
    return True


def describe_failure(step: str, exc: BaseException) -> str:
    """``"fit raised ValueError: ..."`` (on one line), with a hint when the ranker wrote into a
    read-only input."""
    if isinstance(exc, ProcessExit):
        return (f"{step} called os._exit({exc.code!r}), which would have ended ltrbench with no "
                "word of the unfinished run; a ranker must return or raise")
    if isinstance(exc, SystemExit):
        return f"{step} called sys.exit({exc.code!r}) (SystemExit); a ranker must return or raise"
    shown = one_line(exc)  # never raises, even when the exception's __str__ does
    text = f"{step} raised {type(exc).__name__}: {shown}"
    if isinstance(exc, ValueError) and ("read-only" in shown or "WRITEABLE" in shown):
        text += (f" (the arrays ltrbench passes are read-only, so that a ranker cannot change the "
                 f"data of the models after it: {_COPY_HINT})")
    return text


def checked_scores(raw: Any, n_rows: int, where: str) -> NDArray[np.float64]:
    """``predict``'s return value as a fresh float64 array of ``n_rows`` finite scores, or a
    :class:`CustomModelFailure` naming ``where`` and what was wrong (see the module docstring)."""
    array = _as_array(raw, n_rows, where)
    if array.ndim != 1:
        hint = {(n_rows, 1): " (a column: return scores.ravel())",
                (1, n_rows): " (a row: return scores.ravel())"}.get(array.shape, "")
        _fail(where, f"an array of shape {array.shape}{hint}; expected a 1-D array of "
                     f"{n_rows} scores, one per row")
    if array.shape[0] != n_rows:
        _fail(where, f"{array.shape[0]} scores for {n_rows} rows; expected one score per row")
    if array.dtype.kind in "US" and isinstance(raw, list | tuple):  # NumPy made [0.5, "1"] text
        array = np.array(raw, dtype=object)
    if array.dtype.kind == "O":  # df["score"].to_numpy() of an object column, a list with None
        _object_scores(array, where)
    kind = array.dtype.kind
    if kind not in "iuf":
        _fail(where, f"scores of dtype {_dtype_name(array)}; expected numbers (int or float)")
    if kind in "iu":
        too_big = array > EXACT_INTEGER_LIMIT  # exact integer comparisons (no float rounding)
        if kind == "i":
            too_big |= array < -EXACT_INTEGER_LIMIT
        if too_big.any():
            row = int(np.flatnonzero(too_big)[0])
            _fail(where, f"the integer score {array[row]} for row {row + 1}; integers above 2^53 "
                         "in magnitude are not exact in float64 and would collapse into ties "
                         "(scale them, or return floats)")
    scores = np.array(array, dtype=np.float64, copy=True)
    if kind == "f" and array.dtype.itemsize > 8:
        wide = np.isfinite(array)
        if np.unique(array[wide]).size != np.unique(scores[wide]).size:
            _fail(where, f"{array.dtype} scores that tie when held as float64 (ltrbench's score "
                         "type); return float64 scores")
    if not np.isfinite(scores).all():
        row = int(np.flatnonzero(~np.isfinite(scores))[0])
        _fail(where, f"{scores[row]} for row {row + 1}; scores must be finite")
    return scores


class TiedScoresWarning(UserWarning):
    """A custom model's scores tie within every query of a split (see :func:`tied_scores`), or
    are every query's rank positions (:func:`position_scores`)."""


def tied_scores(scores: NDArray[np.float64], offsets: NDArray[np.int64], split: str,
                where: str) -> str | None:
    """A warning's text when every query of ``split`` that has two rows or more got one score
    for all its rows (a constant ranker, one that scores the query not the document, a model
    that collapsed): its metrics are then the tie order's, which the leaderboard would show
    as the ranker's without a word. ``None`` when some query is ordered by the scores."""
    sizes = np.diff(offsets)
    filled = sizes > 0  # reduceat reads an empty query as its next row
    multi = sizes[filled] >= 2
    if not multi.any():
        return None
    starts = offsets[:-1][filled]
    low, high = np.minimum.reduceat(scores, starts), np.maximum.reduceat(scores, starts)
    if (low[multi] != high[multi]).any():
        return None
    n_queries = int(multi.sum())
    same = f" ({scores[0]:g} for every row)" if np.all(scores == scores[0]) else ""
    return (f"{where}: predict gave every row of a query the same score, in all "
            f"{n_queries} queries of the {split} split{same}: its {split} metrics are those of "
            "the evaluator's tie order, not of the ranker (did the model collapse, or score "
            "the query instead of the document?)")


def position_scores(scores: NDArray[np.float64], offsets: NDArray[np.int64], split: str,
                    where: str) -> str | None:
    """A warning's text when the scores of every query of ``split`` are its rows' positions
    (a permutation of 1..n in each query, or of 0..n-1 in each): rank positions, where 1 is the
    best, would be ranked backwards (ltrbench ranks the highest score first). ``None`` otherwise
    or when no query has two rows."""
    sizes = np.diff(offsets)
    if scores.size == 0 or not (sizes >= 2).any() or not np.array_equal(scores, np.floor(scores)):
        return None
    query = np.repeat(np.arange(sizes.size), sizes)
    ordered = scores[np.lexsort((scores, query))]
    within = np.arange(scores.size) - offsets[:-1][query]  # 0..n-1 in each query
    base = next((b for b in (0, 1) if np.array_equal(ordered, within + b)), None)
    if base is None:
        return None
    top = "n" if base else "n-1"
    return (f"{where}: predict returned the positions {base}..{top} of the rows of each query (a "
            f"permutation of them in all {int((sizes > 0).sum())} queries of the {split} split): "
            f"ltrbench ranks the highest score first, so if {base} means the best document it "
            "is ranked last; return scores (higher is better), e.g. -position")


def _as_array(raw: Any, n_rows: int, where: str) -> NDArray[Any]:
    """``raw`` as a NumPy array, refusing what has no rows to read by position."""
    if raw is None:
        _fail(where, "None; expected one score per row (did predict forget to return?)")
    if isinstance(raw, (str, bytes, bytearray, dict, set, frozenset, int, float, complex)) or (
            inspect.isgenerator(raw) or isinstance(raw, Iterator)):
        _fail(where, f"a {type(raw).__name__}; expected an array of {n_rows} scores, one per row")
    module = type(raw).__module__.split(".")[0]
    if (row := _first_null(raw)) is not None:
        _fail(where, f"a missing value (a null, <NA>) for row {row + 1}; scores must be finite "
                     "numbers, one for every row")
    if module == "pandas":
        import pandas as pd

        if isinstance(raw, pd.DataFrame):
            _fail(where, f"a pandas DataFrame of shape {raw.shape}; expected a 1-D array or Series "
                         f"of {n_rows} scores (take the column: frame['score'])")
        if isinstance(raw, pd.Series):
            if not raw.index.equals(pd.RangeIndex(len(raw))):
                _fail(where, "a pandas Series whose index is not 0..n-1 in order; ltrbench reads "
                             "scores by position (row i of the input is score i): return "
                             "series.sort_index().to_numpy() or the values in row order")
            raw = raw.to_numpy()
    if isinstance(raw, np.ma.MaskedArray):
        if np.ma.is_masked(raw):
            _fail(where, f"a masked array with {int(np.count_nonzero(np.ma.getmaskarray(raw)))} masked values; "
                         "expected a score for every row")
        raw = raw.data
    try:
        array = np.asarray(raw)
    except Exception as exc:
        _fail(where, f"a {type(raw).__name__} that is not an array of numbers "
                     f"({type(exc).__name__}: {exc})")
    if array.ndim == 0 and array.dtype.kind == "O" and not isinstance(raw, np.ndarray):
        # NumPy wraps what it cannot read as an array (a SciPy sparse matrix, any object) as
        # one object: said as what it is, not as "an array of shape ()"
        shape = getattr(raw, "shape", None)
        dense = " (dense it: scores.toarray().ravel())" if hasattr(raw, "toarray") else ""
        _fail(where, f"a {type(raw).__name__}" + (f" of shape {tuple(shape)}" if isinstance(
            shape, tuple) else "") + f" that NumPy does not read as an array{dense}; expected "
              f"a 1-D array of {n_rows} scores, one per row")
    return array


def _first_null(raw: Any) -> int | None:
    """The first null of a pyarrow array or a pandas nullable array (``Float64``, ``Int64``,
    Arrow-backed): NumPy reads it as NaN, which would be named as a score that is not finite
    rather than as the missing value the ranker returned."""
    module = type(raw).__module__.split(".")[0]
    if module == "pyarrow" and callable(getattr(raw, "is_null", None)) \
            and int(getattr(raw, "null_count", 0) or 0) > 0:
        nulls = np.asarray(raw.is_null())
    elif module == "pandas" and not isinstance(getattr(raw, "dtype", None), np.dtype) \
            and hasattr(raw, "isna"):
        nulls = np.asarray(raw.isna(), dtype=bool)
    else:
        return None
    return int(np.flatnonzero(nulls)[0]) if nulls.ndim == 1 and nulls.any() else None


def _object_scores(array: NDArray[Any], where: str) -> NoReturn:
    """An object array is refused (a ranker that returns one has lost its dtype on the way);
    the message names its first element that is missing or no plain number (a ``Decimal``,
    text) with its row, or says how to return the plain numbers it holds as floats."""
    for i, v in enumerate(array.tolist()):
        if v is None or type(v).__name__ in ("NAType", "NaTType"):
            _fail(where, f"scores of dtype object with a missing value ({v!r}) for row {i + 1}; "
                         "expected numbers, one for every row")
        if isinstance(v, bool | np.bool_) or not isinstance(
                v, int | float | np.integer | np.floating):
            _fail(where, f"scores of dtype object with {v!r} (a {type(v).__name__}) for row "
                         f"{i + 1}; expected numbers (int or float: convert a Decimal or "
                         "Fraction with float() first)")
    items = array.tolist()
    big = next((i for i, v in enumerate(items) if isinstance(v, int | np.integer)
                and abs(int(v)) > EXACT_INTEGER_LIMIT), None)
    if big is not None:  # as float64 they would tie: the cast below is no way out for them
        _fail(where, f"the integer score {int_text(int(items[big]))} for row {big + 1}; integers "
                     "above 2^53 in magnitude are not exact in float64 and would collapse into "
                     "ties (scale them, or return floats)")
    _fail(where, "scores of dtype object (object); expected numbers (int or float): they are "
                 "all numbers, so return them as a float array (np.asarray(scores, "
                 "dtype=np.float64))")


def _dtype_name(array: NDArray[Any]) -> str:
    names = {"b": "bool", "c": "complex", "U": "str", "S": "bytes", "O": "object",
             "M": "datetime", "m": "timedelta", "V": "void"}
    return f"{names.get(array.dtype.kind, array.dtype.kind)} ({array.dtype})"


def _fail(where: str, what: str) -> NoReturn:
    raise CustomModelFailure(f"{where}: predict returned {what}")


def _digest(array: NDArray[Any]) -> bytes:
    """SHA-1 of the array's bytes (about 1.7 GB/s here: 0.7 s for MSLR-WEB30K's training X)."""
    if array.size == 0:
        return b""
    data = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
    return hashlib.sha1(data.data, usedforsecurity=False).digest()


def limited(call: Callable[[], Any], limit_s: float, where: str, step: str,
            changed: list[str] | None = None) -> Any:
    """``call()`` (a user's ranker's code) stopped after ``limit_s`` seconds
    (:func:`~bench.runners.custom_process.time_limit`): a :class:`CustomModelFailure` naming the
    model, the step and the table key that raises the limit."""
    with time_limit(limit_s, changed) as expired:
        try:
            value = call()
        except RankerTimeout:
            expired.set()
        except BaseException:
            if not expired.is_set():
                raise
    if expired.is_set():
        raise CustomModelFailure(
            f"{where}: {step} ran past its time limit of {limit_s:g} s and was stopped; give it "
            "more with timeout = SECONDS in its [custom_models.<name>] table (from Python: "
            "{'factory': ..., 'timeout': SECONDS})")
    return value


#: The longest time limit of one call of a user's ranker: a week.
MAX_TIMEOUT_S = 7 * 24 * 3600.0


def check_timeout(value: Any, key: str) -> float:
    """A ranker's ``timeout`` (``key``: ``[custom_models.mine] timeout``): a number of seconds,
    more than 0 and at most :data:`MAX_TIMEOUT_S`; a bool, a string, NaN or infinity is a
    :class:`ConfigError` naming the key."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ConfigError(f"{key}: expected a number of seconds (e.g. 600); got {value!r}")
    seconds = float(value)
    if not math.isfinite(seconds) or not 0 < seconds <= MAX_TIMEOUT_S:
        raise ConfigError(f"{key}: expected a number of seconds > 0 and <= {MAX_TIMEOUT_S:g} "
                          f"(a week); got {value!r}")
    return seconds


#: Rankers fitted in this process: ``id -> (weak reference, where it was fitted)``.
_FITTED: dict[int, tuple[weakref.ref[Any], str]] = {}


def refuse_refitted(ranker: Any, where: str) -> None:
    """A :class:`CustomModelFailure` when the factory handed back a ranker it built (and ltrbench
    fitted) for an earlier seed or model, still alive: a module-level instance whose state carries
    over from fit to fit (seed 1 scored as a second fit of seed 0's model; the spread over seeds
    measured nothing). Else the ranker is remembered by a weak reference (one that takes none,
    ``__slots__`` without ``__weakref__``, is not tracked)."""
    seen = _FITTED.get(id(ranker))
    if seen is not None and seen[0]() is ranker:
        raise CustomModelFailure(
            f"{where}: the factory returned the same ranker object it returned for {seen[1]}, "
            "which was fitted there: its state would carry over and the seeds would not be "
            "independent runs; return a new ranker from each factory call (or name the class "
            "itself as the factory)")
    key = id(ranker)
    try:
        ref = weakref.ref(ranker, lambda _: _FITTED.pop(key, None))
    except TypeError:
        return
    _FITTED[key] = (ref, where)
