"""Any ranker as a row: a user's model, built by a factory and trained through one calling convention.

A custom model is a name, a factory (``"package.module:attribute"``, or a module-level class or
function given from Python) and parameters. For each seed ltrbench does exactly this:

1. **Build**: ``ranker = factory(**params, seed=<seed>)`` when the factory's signature names a
   ``seed`` parameter, ``random_state=<seed>`` when it names ``random_state`` (both when it names
   both). Otherwise, when the returned object follows scikit-learn's ``get_params`` /
   ``set_params`` and has a ``random_state`` parameter (``XGBRanker``, whose ``__init__`` takes
   ``**kwargs``), ``ranker.set_params(random_state=<seed>)``. Otherwise the ranker gets no seed
   (the status file's notes say so). ``params`` may not set the seed itself. A factory that
   names ``allow_writing_files`` (``CatBoostRanker``) gets ``allow_writing_files=False`` unless
   ``params`` set it or ``train_dir`` (:func:`writer_off`). The run's thread
   count, quick mode and ``[params]`` do not apply: a custom model's parameters are its own.
2. **Fit** (timed: the run's ``fit_s``, the ``fit`` call alone: not the building of its
   arguments nor ltrbench's isolation around it): the scikit-learn learning-to-rank convention of
   ``LGBMRanker`` and ``XGBRanker``::

       ranker.fit(X, y, group=sizes, eval_set=[(X_vali, y_vali)], eval_group=[sizes_vali])

   ``X`` is the training split's feature matrix as ltrbench holds it (a dense C-ordered float32
   NumPy array, rows in file order), ``y`` its float64 labels, ``sizes`` the number of rows of
   each query in row order (int64; a query's rows are contiguous). ``eval_set`` / ``eval_group``
   are the **validation** split (for the ranker's own early stopping or logging), never the test
   split; each is passed only when ``fit`` names it (or takes ``**kwargs``). A ``fit`` that names
   ``eval_X`` and ``eval_y`` (LightGBM >= 4.6, which deprecates ``eval_set``) gets
   ``eval_X=(X_vali,), eval_y=(y_vali,)`` instead of ``eval_set``. Two other spellings
   of the groups are recognised from ``fit``'s signature when it has no ``group`` parameter:
   ``qid`` (per-row query number 0, 0, 1, ...; with ``eval_qid``) and CatBoost's ``group_id``
   (per-row query number; ``eval_set`` is then a ``catboost.Pool`` of the validation split with
   its ``group_id``), so ``CatBoostRanker`` works as it is.
3. **Predict** (timed: ``predict_s``, the two ``predict`` calls alone): ``ranker.predict(X_vali)``, then ``ranker.predict(X_test)``;
   one finite score per row, higher is better (a 1-D array, list or row-ordered Series of ints up
   to 2^53 or floats; anything else is refused with the model's name:
   :func:`bench.runners.custom_checks.checked_scores`).

**Isolation** (:mod:`bench.runners.custom_checks`): every array the ranker gets is a read-only
view, so it cannot change the data of the models after it; copy before changing
(``X = np.array(X)``). A write is a :class:`CustomModelFailure` naming the model (the other models
go on); a change that gets round the flag is caught by a digest of the data and ends the run
(:class:`CustomModelTampered`). The factory gets a deep copy of ``params`` for each seed. What
``fit`` returns is ignored (``predict`` is called on the ranker itself; a return value other than
``None`` or the ranker is noted in the status file).

The scores are evaluated by the reference evaluator like every other model's; the library of a
custom model is ``"custom"`` and it has no built-in metric ltrbench knows, so the cross-check
does not apply to it. A factory that cannot be imported, is not callable, or builds something
without ``fit``/``predict`` (or a class instead of an instance) is a
:class:`~bench.errors.ConfigError` naming the model and the factory; a ``fit`` or ``predict`` that
raises or calls ``sys.exit`` is a :class:`CustomModelFailure`, and so is a ``fit`` that is a
generator or coroutine function (calling it runs none of its body). Every such error names the
config file the model came from (:attr:`CustomModel.source`, set by
:meth:`RunConfig.load <bench.benchmark.config.RunConfig.load>`), the table key as the file spells
it (``[custom_models.mine] factory``) and what was expected. A custom model name is at most
:data:`MAX_NAME` characters (it is part of file names: ``status/<name>-seed<k>.json``).

Whatever the ranker changes in ltrbench's process (working directory, environment, global random
state, ``sys.stdout``, signal handlers, the umask, library functions it replaced, ...) is put
back after each of its calls, the import of its module included, and noted in the status file
(:func:`bench.runners.custom_process.isolated_process`); what it prints goes to standard error.
A ``KeyboardInterrupt`` it raises stops the run as Ctrl-C does; ``os._exit`` is its failure, not
the end of ltrbench; a process it forks is ended when it returns into ltrbench. Each call (the
factory, ``fit``, each ``predict``) has a time limit, ``timeout = SECONDS`` in its table (default
:data:`~bench.runners.custom_process.DEFAULT_TIMEOUT_S`, one hour): a call past it is stopped and
is a :class:`CustomModelFailure` naming the model and the key
(:func:`bench.runners.custom_checks.limited`). A ``fit`` or
``predict`` attribute whose lookup raises (a property, ``__getattr__``) is a ConfigError naming
the model.
"""

from __future__ import annotations

import inspect
import json
import re
import time
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bench.data.letor import LetorData, LetorSplits
from bench.data.toml import show, unknown_key
from bench.errors import ConfigError
from bench.runners.custom_calls import check_calls, fit_arguments, fit_style, parameters
from bench.runners.custom_checks import CustomModelFailure as CustomModelFailure
from bench.runners.custom_checks import CustomModelTampered as CustomModelTampered
from bench.runners.custom_checks import TiedScoresWarning as TiedScoresWarning
from bench.runners.custom_checks import (
    check_timeout,
    checked_scores,
    describe_failure,
    guarded_splits,
    limited,
    position_scores,
    read_only,
    refuse_refitted,
    seed_by_set_params,
    tied_scores,
    user_attribute,
    user_methods,
)
from bench.runners.custom_checks import verify_unchanged as verify_unchanged
from bench.runners.custom_process import (
    DEFAULT_TIMEOUT_S,
    isolated_process,
    watch_finaliser,
)
from bench.runners.custom_spec import (
    check_params,
    frozen_params,
    plain_params,
    reference_hint,
    refuse_standard_library,
)
from bench.runners.custom_streams import one_line
from bench.runners.registry import ALIASES, CUSTOM_LIBRARY, MODELS, check_custom_name
from bench.runners.resources import Measurement, measure
from bench.runners.result import FitResult, check_splits_distinct, score_eval_splits
from bench.runners.user_import import close_name, import_user_module, shadow_hint

#: ``package.module:attribute[.attribute]``.
_REFERENCE = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
#: Keys of a ``[custom_models.<name>]`` table.
_TABLE_KEYS = ("factory", "params", "timeout")
#: The longest custom model name: ``status/<name>-seed<k>.json`` must stay under the 255 bytes
#: of a file name on common file systems (ext4, APFS, NTFS).
MAX_NAME = 128
#: A TOML bare key (``[custom_models.<key>]`` needs no quotes).
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


@dataclass(frozen=True)
class CustomModel:
    """A user's model: its run name, its factory reference and the parameters the factory gets.

    ``target`` is the resolved factory (not compared, not written: ``factory`` names it);
    ``source`` the config file that defined it (``""`` from Python), named in every error.
    """

    name: str
    factory: str
    params: Mapping[str, Any]
    target: Callable[..., Any] = field(compare=False, repr=False)
    source: str = field(default="", compare=False)
    #: Seconds one call (factory, ``fit``, each ``predict``) may run: ``timeout`` in the table.
    timeout_s: float = DEFAULT_TIMEOUT_S

    def __post_init__(self) -> None:
        """``params`` copied read-only at every depth (:mod:`bench.runners.custom_spec`): the
        caller's lists and tables stay the caller's; each seed's factory gets a plain copy."""
        object.__setattr__(self, "params", frozen_params(self.name, self.params))

    @property
    def where(self) -> str:
        """``c.toml: custom model 'mine' ([custom_models.mine] factory 'pkg.mod:make')``: how
        every error about this model begins."""
        return _where(self.name, self.factory, self.source)

    def source_digest(self) -> str | None:
        """SHA-256 of the source file that defines the factory (:func:`inspect.getsourcefile`),
        or ``None`` when it has none (a factory typed into an interactive session): the run's
        manifest records it, so that ``--resume`` refuses to mix results of two versions of the
        user's code (the config hash names the factory, not its code)."""
        from bench.data.hashing import sha256_file

        try:
            source = inspect.getsourcefile(inspect.unwrap(self.target))
        except (TypeError, OSError):  # a builtin or a C extension; a class typed into a
            return None  # notebook (Python 3.10+: OSError "source code not available")
        return sha256_file(Path(source)) if source and Path(source).is_file() else None

    def to_dict(self) -> dict[str, Any]:
        """The ``[custom_models.<name>]`` table: ``factory``, ``params`` and a ``timeout`` other
        than the default (part of the config hash)."""
        limit = {} if self.timeout_s == DEFAULT_TIMEOUT_S else {"timeout": self.timeout_s}
        return {"factory": self.factory, "params": plain_params(self.params), **limit}


def custom_model(name: str, spec: Any) -> CustomModel:
    """A :class:`CustomModel` from a config table ``{"factory": "pkg.mod:attr", "params": {...}}``,
    a reference string, a module-level class or function, or a :class:`CustomModel`.

    The factory is imported here, so a bad reference is a ConfigError before any data is read.
    Errors name the table key (``[custom_models.mine] factory``); ``source``, the config file,
    goes in front of every later error of the model (:attr:`CustomModel.where`).
    """
    table = table_key(name)
    _check_name(name, table)
    if isinstance(spec, CustomModel):
        spec = spec.to_dict()
    params: Any = {}
    limit = DEFAULT_TIMEOUT_S
    if isinstance(spec, Mapping):
        for key in spec:
            if key not in _TABLE_KEYS:
                raise unknown_key(f"{table} ", str(key), _TABLE_KEYS)
        if "factory" not in spec:
            raise ConfigError(f"{table}: no factory; expected factory = "
                              "\"package.module:attribute\"")
        params = spec.get("params", {})
        limit = check_timeout(spec.get("timeout", DEFAULT_TIMEOUT_S), f"{table} timeout")
        spec = spec["factory"]
        if not isinstance(spec, str) and not callable(spec):
            raise ConfigError(f"{table} factory: expected \"package.module:attribute\", e.g. "
                              f"\"lightgbm:LGBMRanker\"; got {show(spec)}")
    check_params(table, params)
    if isinstance(spec, str):
        return CustomModel(name, spec, dict(params), resolve_factory(name, spec),
                           timeout_s=limit)
    if callable(spec):
        reference = f"{getattr(spec, '__module__', '?')}:{getattr(spec, '__qualname__', '?')}"
        refuse_standard_library(spec, "", reference, _where(name, reference))  # print, os.remove
        try:
            same = _same_factory(resolve_factory(name, reference), spec)
        except ConfigError:
            same = False
        if not same:  # a lambda, a partial, a nested function, an instance with __call__
            raise ConfigError(
                f"custom model {name!r}: {spec!r:.80} cannot be named as \"module:attribute\" "
                f"(tried {reference!r}); define the class or factory at the top level of a "
                "module so that the run's config.toml can name it, or give that name as a "
                "string (\"package.module:attribute\"; an object with __call__ works so)"
            )
        return CustomModel(name, reference, dict(params), spec, timeout_s=limit)
    raise ConfigError(f"[custom_models] {_toml_key(name)}: expected a table with factory = "
                      "\"package.module:attribute\" (and params), a reference string, or in "
                      f"Python a class or function; got {show(spec)}")


def _same_factory(named: Any, given: Any) -> bool:
    """``named`` (what the reference resolves to) is ``given``: the same object, or the same
    function bound to the same object (a classmethod of a module-level class is a new bound
    method at each lookup, so ``is`` alone refused ``Ranker.create`` though its name works)."""
    if named is given:
        return True
    return inspect.ismethod(named) and inspect.ismethod(given) \
        and named.__func__ is given.__func__ and named.__self__ is given.__self__


def table_key(name: str) -> str:
    """``[custom_models.<name>]`` as a TOML file spells the table (a name that is not a bare key
    quoted: ``[custom_models."a/b"]``)."""
    return f"[custom_models.{_toml_key(name)}]"


def _toml_key(name: Any) -> str:
    text = str(name)
    return text if _BARE_KEY.fullmatch(text) else json.dumps(text, ensure_ascii=False)


def _where(name: str, factory: str, source: str = "") -> str:
    head = f"{source}: " if source else ""
    return f"{head}custom model {name!r} ({table_key(name)} factory {factory!r})"


def _check_name(name: Any, table: str) -> None:
    if isinstance(name, str) and len(name) > MAX_NAME:
        raise ConfigError(f"{table[:40]}...]: a custom model name of {len(name)} characters; "
                          f"expected at most {MAX_NAME} characters (it is part of file names)")
    try:
        check_custom_name(name)
    except ConfigError as exc:
        raise ConfigError(f"{table}: {exc}") from None
    same = [m for m in (*MODELS, *ALIASES) if m.lower() == name.lower()]
    if same:
        raise ConfigError(f"{table}: custom model name {name!r} differs from the built-in "
                          f"{same[0]!r} only in case; their files would collide where file names "
                          "ignore case (macOS, Windows): choose another name")
    alike = [m for m in (*MODELS, *ALIASES) if look_alike(m) == look_alike(name)]
    if alike:
        raise ConfigError(f"{table}: custom model name {name!r} differs from the built-in "
                          f"{alike[0]!r} only in '-' and '_'; the tables would show two rows a "
                          "reader cannot tell apart: choose another name")


def look_alike(name: str) -> str:
    """``name`` with case and the ``-`` / ``_`` spelling ignored: two model names with the same
    look-alike cannot be told apart in a table (``lightgbm_lambdarank``, ``LightGBM-LambdaRank``)."""
    return name.lower().replace("_", "-")


def check_distinct_names(names: Iterable[str]) -> None:
    """Refuse two custom models whose names differ only in case (their status files would be
    one file where file names ignore case: macOS, Windows) or in ``-`` / ``_`` (:func:`look_alike`)."""
    seen: dict[str, str] = {}
    for name in names:
        other = seen.setdefault(look_alike(name), name)
        if other != name and other.lower() == name.lower():
            raise ConfigError(f"{table_key(other)} and {table_key(name)}: custom model names "
                              "that differ only in case; their files would collide where file "
                              "names ignore case (macOS, Windows): choose another name")
        if other != name:  # a-b and a_b: two rows a reader cannot tell apart
            raise ConfigError(f"{table_key(other)} and {table_key(name)}: custom model names "
                              "that differ only in '-' and '_'; the tables would show two rows "
                              "a reader cannot tell apart: choose another name")


def resolve_factory(name: str, reference: str) -> Callable[..., Any]:
    """Import ``"package.module:attribute"`` and return the attribute, which must be callable."""
    where = _where(name, reference)
    if not isinstance(reference, str) or not _REFERENCE.fullmatch(reference):
        raise ConfigError(f"{where}: expected \"package.module:attribute\", e.g. "
                          "\"lightgbm:LGBMRanker\" or \"mypackage.rankers:make_ranker\""
                          f"{reference_hint(reference) if isinstance(reference, str) else ''}")
    module_name, _, attributes = reference.partition(":")
    try:  # the user's module runs here: what it prints goes to stderr, what it changes is put back
        with isolated_process(where):
            obj: Any = import_user_module(module_name)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # an import error, or the user's module failed or exited
        what = (describe_failure("the module", exc).removeprefix("the module ")
                if isinstance(exc, SystemExit) else f"{type(exc).__name__}: {one_line(exc)}")
        raise ConfigError(f"{where}: cannot import module {module_name!r} ({what} while "
                          f"imported){reference_hint(reference)}") from None
    for attribute in attributes.split("."):
        try:
            found, obj = True, user_attribute(obj, attribute, where)
        except AttributeError:
            found = False
        if not found:
            raise ConfigError(f"{where}: {getattr(obj, '__name__', obj)!s} has no attribute "
                              f"{attribute!r}{close_name(obj, attribute)}{shadow_hint(obj)}"
                              f"{reference_hint(reference)}")
    if not callable(obj):
        raise ConfigError(f"{where}: {reference} is a {type(obj).__name__}, not a class or function")
    refuse_standard_library(obj, module_name, reference, where)
    return obj  # type: ignore[no-any-return]


def build_ranker(model: CustomModel, seed: int) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """Call the factory for ``seed`` (see the module docstring); returns the ranker, how the
    seed was given (``{"seed": 3}``, ``{"random_state": 3}``, or ``{}``) and its ``fit`` and
    ``predict`` methods (looked up once, in one isolated block)."""
    where = model.where
    names, _ = parameters(model.target)
    given: dict[str, Any] = {k: seed for k in ("seed", "random_state") if k in names}
    params = plain_params(model.params)  # the factory may change its own copy, not the run's
    try:
        with isolated_process(where):
            ranker = limited(lambda: model.target(**params, **given, **writer_off(model)),
                             model.timeout_s, where,
                             "the factory")
    except (KeyboardInterrupt, CustomModelFailure):
        raise
    except BaseException as exc:
        raise ConfigError(f"{where}: calling the factory with {dict(model.params)!r} and "
                          f"{given or 'no seed'} {describe_failure('', exc).strip()}") from None
    if isinstance(ranker, type):
        raise ConfigError(f"{where}: the factory returned the class {ranker.__name__}, not a "
                          f"ranker; name the class itself as the factory, or return "
                          f"{ranker.__name__}(...)")
    methods = user_methods(ranker, ("fit", "predict"), where)
    missing = [m for m, method in methods.items() if not callable(method)]
    if missing:
        raise ConfigError(f"{where}: the factory returned {type(ranker).__name__!s}, which has no "
                          f"{' and no '.join(missing)} method; a ranker needs fit(X, y, group=...) "
                          "and predict(X)")
    watch_finaliser(ranker, where)
    if not given and seed_by_set_params(ranker, seed, where):
        given = {"random_state": seed}
    return ranker, given, methods


def writer_off(model: CustomModel) -> dict[str, Any]:
    """``{"allow_writing_files": False}`` when the factory names that parameter and ``params``
    set neither it nor ``train_dir``: ``CatBoostRanker`` writes ``catboost_info/`` into the
    working folder otherwise (the user's folder, not the run's); else ``{}``."""
    names, _ = parameters(model.target)
    if "allow_writing_files" in names and not {"allow_writing_files", "train_dir"} & set(model.params):
        return {"allow_writing_files": False}
    return {}


def check_custom_model(model: CustomModel, seed: int) -> bool:
    """Build the ranker once and check its ``fit`` takes the groups: a ConfigError before any data.
    Whether the ranker takes the seed (``seed``, ``random_state`` or ``set_params``)."""
    ranker, seeded, methods = build_ranker(model, seed)
    fit = methods["fit"]
    check_calls(model.where, ranker, methods, fit_style(model.where, ranker, parameters(fit)))
    return bool(seeded)


def train_custom(model: CustomModel, splits: LetorSplits, *, seed: int) -> FitResult:
    """Fit ``model`` for ``seed`` on the training split (validation as ``eval_set``), timed as the
    built-in models are, and score the validation and test splits with its ``predict``.

    The ranker gets read-only views of the run's arrays and its scores are checked
    (:mod:`bench.runners.custom_checks`): a write into an input is a :class:`CustomModelFailure`
    naming the model, a change that got round the read-only flag a :class:`CustomModelTampered`.
    """
    check_splits_distinct(splits)
    verify_unchanged(splits)
    ranker, seeded, methods = build_ranker(model, seed)
    signature = parameters(methods["fit"])
    style = fit_style(model.where, ranker, signature)
    check_calls(model.where, ranker, methods, style)
    where = f"{model.where}, seed {seed}"
    refuse_refitted(ranker, where)  # a module-level ranker: seed 0's state would carry over
    restored: list[str] = []
    timed: list[Measurement] = []  # the ranker's own calls: not ltrbench's guards around them
    with guarded_splits(splits, where) as check:
        args, kwargs = fit_arguments(style, signature, splits.train, splits.vali)
        try:
            with isolated_process(where, restored):
                returned = limited(lambda: _fit(ranker, args, kwargs, where, timed),
                                   model.timeout_s, where, "fit", restored)
        except (KeyboardInterrupt, CustomModelFailure):
            raise
        except BaseException as exc:
            check("fit")
            raise CustomModelFailure(f"{where}: {describe_failure('fit', exc)}") from exc
        check("fit")
        m = timed.pop()
        passed = ", ".join(["X", "y", *kwargs])
        notes = {"fit": f"fit({passed}) with the validation split as eval set",
                 "seed": seeded or "not passed (the factory takes no seed or random_state)"}
        if returned is not None and returned is not ranker:
            notes["fit_returned"] = (f"a {type(returned).__name__}, not the ranker: ignored "
                                     "(predict is called on the ranker the factory built)")
        result = FitResult(
            model="", library=CUSTOM_LIBRARY, seed=seed, scores={}, fit_s=m.seconds,
            peak_rss_mb=m.peak_rss_mb, fit=m,
            library_params={"factory": model.factory, "params": plain_params(model.params),
                            **seeded, **writer_off(model)},
            notes=notes,
        )
        try:
            predicted: list[float] = []  # seconds of each predict call alone
            handed: list[Any] = []  # each split's X, alive to the end: a ranker that caches
            # by id(X) never sees the test split under the validation split's freed id
            scored = score_eval_splits(result, splits, model=model.name, booster=ranker,
                                       predict=lambda data: _predict(ranker, data, where,
                                                                     restored, model.timeout_s,
                                                                     (predicted, handed)))
            scored.predict_s = sum(predicted)
            for split, values in scored.scores.items():
                offsets = getattr(splits, split).offsets
                tied = tied_scores(values, offsets, split, where) \
                    or position_scores(values, offsets, split, where)
                if tied is not None:
                    warnings.warn(tied, TiedScoresWarning, stacklevel=2)
                    notes[f"{split}_scores"] = tied
            return scored
        finally:
            if restored:
                notes["process"] = ("put back after the ranker changed it: "
                                    + "; ".join(dict.fromkeys(restored)))
            check("predict")


def _fit(ranker: Any, args: tuple[Any, ...], kwargs: dict[str, Any], where: str,
         timed: list[Measurement]) -> Any:
    """``ranker.fit(*args, **kwargs)``, timed alone into ``timed`` (``fit_s`` is the ranker's
    time, not that of ltrbench's guards); a generator or coroutine back means its body never ran."""
    with measure() as m:
        returned = ranker.fit(*args, **kwargs)
    timed.append(m)
    if inspect.isgenerator(returned) or inspect.iscoroutine(returned) \
            or inspect.isasyncgen(returned):
        kind = "coroutine" if inspect.iscoroutine(returned) else "generator"
        if not inspect.isasyncgen(returned):
            returned.close()  # no "coroutine was never awaited" warning
        raise CustomModelFailure(
            f"{where}: fit returned a {kind} (fit is a{'n async' if kind == 'coroutine' else ''} "
            f"{'function' if kind == 'coroutine' else 'generator function'}), so its body never "
            "ran; ltrbench calls fit(X, y, group=...) and expects it to train before it returns")
    return returned


def _predict(ranker: Any, data: LetorData, where: str, restored: list[str], limit_s: float,
             kept: tuple[list[float], list[Any]]) -> NDArray[np.float64]:
    """``ranker.predict`` of ``data``'s rows, its time alone appended to ``kept[0]`` (a clock,
    not a :func:`measure`: ``score_eval_splits`` measures both predicts already, and a
    measurement inside it would reset the peak-memory counter it reads); the array it got
    appended to ``kept[1]``, which the caller holds until the ranker is done (no two splits
    share an ``id``)."""
    timed, handed = kept

    def call() -> Any:
        X = read_only(data.X)
        handed.append(X)
        start = time.perf_counter()
        raw = ranker.predict(X)
        timed.append(time.perf_counter() - start)
        return raw

    try:
        with isolated_process(where, restored):
            raw = limited(call, limit_s, where, "predict", restored)
            if inspect.iscoroutine(raw):
                raw.close()
                raise CustomModelFailure(f"{where}: predict returned a coroutine (an async "
                                         "predict); expected one score per row")
    except (KeyboardInterrupt, CustomModelFailure):
        raise
    except BaseException as exc:
        raise CustomModelFailure(f"{where}: {describe_failure('predict', exc)}") from exc
    return checked_scores(raw, data.n_rows, where)

