"""The models a run can name, and what each one is.

Names are fixed by the run-directory contract (``status/<model>-seed<k>.json``, the ``model``
column of every table): ``lightgbm-*``, ``xgboost-*`` and ``catboost-*`` are gradient-boosted
trees trained by :mod:`bench.runners.lightgbm` / :mod:`bench.runners.xgboost` /
:mod:`bench.runners.catboost`; ``popularity``, ``random`` and ``als`` are the baselines of
:mod:`bench.runners.baselines`. A run may also name its own models (``[custom_models.<name>]``,
:mod:`bench.runners.custom`): their library is ``custom`` and their names may not collide with
these.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from bench.errors import ConfigError, did_you_mean

#: Libraries whose models are gradient-boosted trees with a built-in ranking metric.
GBDT_LIBRARIES: tuple[str, ...] = ("lightgbm", "xgboost", "catboost")
#: The library of a user's model (:mod:`bench.runners.custom`): no built-in metric ltrbench knows.
CUSTOM_LIBRARY = "custom"
#: A custom model's name: a file-name-safe word (it names ``status/<model>-seed<k>.json``).
_CUSTOM_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass(frozen=True)
class ModelSpec:
    """What a model name means: library, objective, and a one-line description."""

    name: str
    library: str  # "lightgbm", "xgboost", "catboost", "baseline"
    objective: str  # ltrbench objective name (see bench.runners.params), or the baseline's name
    description: str

    @property
    def is_gbdt(self) -> bool:
        return self.library in GBDT_LIBRARIES


MODELS: dict[str, ModelSpec] = {
    m.name: m
    for m in (
        ModelSpec("lightgbm-lambdarank", "lightgbm", "lambdarank",
                  "LightGBM LambdaMART (objective=lambdarank)"),
        ModelSpec("lightgbm-xendcg", "lightgbm", "xendcg",
                  "LightGBM XE-NDCG-MART (objective=rank_xendcg)"),
        ModelSpec("lightgbm-regression", "lightgbm", "regression",
                  "LightGBM pointwise L2 regression on the labels"),
        ModelSpec("xgboost-ndcg", "xgboost", "ndcg", "XGBoost LambdaMART (objective=rank:ndcg)"),
        ModelSpec("xgboost-pairwise", "xgboost", "pairwise",
                  "XGBoost RankNet-style pairwise (objective=rank:pairwise)"),
        ModelSpec("xgboost-map", "xgboost", "map",
                  "XGBoost LambdaMART for MAP (objective=rank:map; trained on label >= 1)"),
        ModelSpec("xgboost-regression", "xgboost", "regression",
                  "XGBoost pointwise L2 regression (objective=reg:squarederror)"),
        ModelSpec("catboost-yetirank", "catboost", "yetirank",
                  "CatBoost YetiRank (loss_function=YetiRank, Gulin, Kuralenok & Pavlov 2011)"),
        ModelSpec("catboost-pairlogit", "catboost", "pairlogit",
                  "CatBoost pairwise logistic loss (loss_function=PairLogit)"),
        ModelSpec("catboost-queryrmse", "catboost", "queryrmse",
                  "CatBoost per-query-centred RMSE (loss_function=QueryRMSE)"),
        ModelSpec("catboost-lambdamart", "catboost", "lambdamart",
                  "CatBoost LambdaMART (loss_function=LambdaMart:metric=NDCG)"),
        ModelSpec("popularity", "baseline", "popularity",
                  "item popularity among relevant train rows (recommender data only)"),
        ModelSpec("random", "baseline", "random", "uniform random scores (seeded)"),
        ModelSpec("als", "baseline", "als",
                  "implicit-feedback ALS, Hu, Koren & Volinsky 2008 (recommender data only)"),
    )
}

#: The LambdaMART model of each GBDT library: what is compared head to head and cross-checked,
#: and the GBDTs of the default run. CatBoost's is its ``LambdaMart`` loss (the matched objective;
#: on the default synthetic data it also fits faster than YetiRank, 3.8 s against 5.9 s a seed).
LAMBDAMART: tuple[str, ...] = ("lightgbm-lambdarank", "xgboost-ndcg", "catboost-lambdamart")
#: The baselines, in the order runs list them.
BASELINES: tuple[str, ...] = ("popularity", "random", "als")

#: Short aliases accepted by ``--models``: a library name expands to its LambdaMART model
#: (CatBoost's to YetiRank, its own ranking loss and the one its ranking benchmark leads with).
ALIASES: dict[str, tuple[str, ...]] = {
    "lightgbm": ("lightgbm-lambdarank",),
    "xgboost": ("xgboost-ndcg",),
    "catboost": ("catboost-yetirank",),
    "baselines": BASELINES,
    "gbdt": tuple(n for n, m in MODELS.items() if m.is_gbdt),
    "all": tuple(MODELS),
}


def get_model(name: str, custom: Mapping[str, str] | None = None) -> ModelSpec:
    """The :class:`ModelSpec` of ``name``; a ConfigError lists the valid names.

    ``custom`` maps the run's custom model names to their factory references
    (:mod:`bench.runners.custom`); such a model's library is :data:`CUSTOM_LIBRARY`.
    """
    if custom and name in custom:
        return ModelSpec(name, CUSTOM_LIBRARY, CUSTOM_LIBRARY, f"user model {custom[name]}")
    try:
        return MODELS[name]
    except KeyError:
        mine = f"; custom: {', '.join(custom)}" if custom else ""
        raise ConfigError(
            f"unknown model {name!r}; {did_you_mean(name, [*MODELS, *ALIASES, *(custom or ())])}"
            f"valid: {', '.join(MODELS)} "
            f"(aliases: {', '.join(ALIASES)}){mine}"
        ) from None


def check_custom_name(name: str) -> None:
    """Refuse a custom model name that collides with a built-in model or alias, that a run reader
    would take for a library's model (``lightgbm-...``: the library is the prefix before the
    first '-'), or that is not safe in a file name."""
    if not isinstance(name, str) or not _CUSTOM_NAME.match(name):
        raise ConfigError(f"custom model name {name!r}: use letters, digits, '.', '_' and '-', "
                          "starting with a letter or digit")
    if name in MODELS or name in ALIASES:
        raise ConfigError(f"custom model name {name!r} is a built-in model or alias; choose "
                          "another name")
    prefix = name.split("-", 1)[0]
    if "-" in name and prefix in (*GBDT_LIBRARIES, CUSTOM_LIBRARY, "baseline"):
        raise ConfigError(f"custom model name {name!r}: a name starting with {prefix + '-'!r} "
                          f"would be read as a {prefix} model; choose another name")


def expand_models(names: list[str] | tuple[str, ...] | str,
                  custom: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Model names from a list or comma-separated string, aliases expanded, order kept, no repeats.

    Names of ``custom`` (the run's custom models, see :func:`get_model`) are accepted as they are.
    """
    items = names.split(",") if isinstance(names, str) else list(names)
    out: list[str] = []
    for raw in items:
        name = raw.strip()
        if not name:
            continue
        for expanded in ALIASES.get(name, (name,)):
            get_model(expanded, custom)
            if expanded not in out:
                out.append(expanded)
    if not out:
        raise ConfigError(f"no models given; valid: {', '.join(MODELS)}")
    return tuple(out)
