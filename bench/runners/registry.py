"""The models a run can name, and what each one is.

Names are fixed by the run-directory contract (``status/<model>-seed<k>.json``, the ``model``
column of every table): ``lightgbm-*``, ``xgboost-*`` and ``catboost-*`` are gradient-boosted
trees trained by :mod:`bench.runners.lightgbm` / :mod:`bench.runners.xgboost` /
:mod:`bench.runners.catboost`; ``popularity``, ``random`` and ``als`` are the baselines of
:mod:`bench.runners.baselines`.
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.errors import ConfigError

#: Libraries whose models are gradient-boosted trees with a built-in ranking metric.
GBDT_LIBRARIES: tuple[str, ...] = ("lightgbm", "xgboost", "catboost")


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


def get_model(name: str) -> ModelSpec:
    """The :class:`ModelSpec` of ``name``; a ConfigError lists the valid names."""
    try:
        return MODELS[name]
    except KeyError:
        raise ConfigError(
            f"unknown model {name!r}; valid: {', '.join(MODELS)} "
            f"(aliases: {', '.join(ALIASES)})"
        ) from None


def expand_models(names: list[str] | tuple[str, ...] | str) -> tuple[str, ...]:
    """Model names from a list or comma-separated string, aliases expanded, order kept, no repeats."""
    items = names.split(",") if isinstance(names, str) else list(names)
    out: list[str] = []
    for raw in items:
        name = raw.strip()
        if not name:
            continue
        for expanded in ALIASES.get(name, (name,)):
            get_model(expanded)
            if expanded not in out:
                out.append(expanded)
    if not out:
        raise ConfigError(f"no models given; valid: {', '.join(MODELS)}")
    return tuple(out)
