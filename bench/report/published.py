"""Published numbers to show beside ours, as data, with how each was selected and computed.

The two GBDT tables people quote were *not* selected the way ltrbench selects: LightGBM's
``docs/Experiments.rst`` reports, for every metric separately, the maximum over all 500 logged
test iterations (``GetResultFromLogs.py`` in guolinke/boosting_tree_benchmarks takes ``max``
over every ``ndcg@k`` line of the test log), so each number is a best-of-500 on the test set.
ltrbench runs the same settings, picks the iteration on the validation split and evaluates
the test split once; the report prints both with this difference named.

Each entry: ``source``, ``url``, ``version`` (which revision of the page), ``selection``,
``evaluator`` (whose metric code computed it), ``split``, ``folds`` (``{dataset: the fold its
test split is, None for a dataset without folds, or POOLED}``: :func:`published_fold`), ``variants``
(``{dataset: the card variant the rows were computed on}``, e.g. Yahoo's set1), ``settings``, and ``results``
``{dataset: {row name: {metric: value}}}``; a row's ``model`` says which ltrbench model is its
counterpart (``None`` when there is none).
"""

from __future__ import annotations

from typing import Any

from bench.data.jsonio import json_number
from bench.datasets.folds import fold_suffix
from bench.errors import ConfigError

_LGB_SETTINGS = (
    "learning_rate=0.1, num_leaves=255, num_trees=500, num_threads=16, min_data_in_leaf=0, "
    "min_sum_hessian_in_leaf=100, max_bin=255 (other parameters default)"
)
_XGB_HIST_SETTINGS = (
    "eta=0.1, num_round=500, nthread=16, min_child_weight=100, tree_method=hist, "
    "grow_policy=lossguide, max_depth=0, max_leaves=255 (the page); the linked scripts also pass "
    "gamma=1.0"
)
_XGB_EXACT_SETTINGS = "eta=0.1, max_depth=8, num_round=500, nthread=16, tree_method=exact, min_child_weight=100"

#: A table computed over the five folds' test queries together: beside no single-fold run.
POOLED = "Fold1-5 pooled"

PUBLISHED: dict[str, dict[str, Any]] = {
    "lightgbm-experiments": {
        "source": "LightGBM docs/Experiments.rst, Comparison Experiment, Accuracy table",
        "url": "https://github.com/microsoft/LightGBM/blob/master/docs/Experiments.rst",
        "version": "update of 08 Mar 2020 (XGBoost 1b97eaf, LightGBM bcad692)",
        "selection": (
            "best test iteration: maximum over all 500 iterations of the test log, taken for each "
            "metric separately (GetResultFromLogs.py, guolinke/boosting_tree_benchmarks)"
        ),
        "evaluator": (
            "each library's built-in ndcg@k on the test file (LightGBM: blank query = 1, ties in "
            "row order; XGBoost: float32 scores, blank query = 1)"
        ),
        "split": {
            "mslr-web30k": "MSLR-WEB30K {S1,S2,S3} train, S5 test (= Fold1 train/test; S4 unused)",
            "yahoo-ltr": "Yahoo LTR set1.train train, set1.test test (set1.valid unused)",
        },
        "folds": {"mslr-web30k": "Fold1", "yahoo-ltr": None},
        "variants": {"yahoo-ltr": "set1"},
        "settings": {
            "lightgbm": _LGB_SETTINGS,
            "xgboost_hist": _XGB_HIST_SETTINGS,
            "xgboost": _XGB_EXACT_SETTINGS,
        },
        "results": {
            "mslr-web30k": {
                "LightGBM": {
                    "model": "lightgbm-lambdarank",
                    "ndcg@1": 0.517767,
                    "ndcg@3": 0.501063,
                    "ndcg@5": 0.504648,
                    "ndcg@10": 0.524252,
                },
                "xgboost_hist": {
                    "model": "xgboost-ndcg",
                    "ndcg@1": 0.485115,
                    "ndcg@3": 0.47313,
                    "ndcg@5": 0.476375,
                    "ndcg@10": 0.496553,
                },
                "xgboost (exact, max_depth=8)": {
                    "model": None,
                    "ndcg@1": 0.483956,
                    "ndcg@3": 0.467951,
                    "ndcg@5": 0.472476,
                    "ndcg@10": 0.492429,
                },
            },
            "yahoo-ltr": {
                "LightGBM": {
                    "model": "lightgbm-lambdarank",
                    "ndcg@1": 0.732981,
                    "ndcg@3": 0.735689,
                    "ndcg@5": 0.75352,
                    "ndcg@10": 0.793498,
                },
                "xgboost_hist": {
                    "model": "xgboost-ndcg",
                    "ndcg@1": 0.720049,
                    "ndcg@3": 0.722573,
                    "ndcg@5": 0.740899,
                    "ndcg@10": 0.782957,
                },
                "xgboost (exact, max_depth=8)": {
                    "model": None,
                    "ndcg@1": 0.719748,
                    "ndcg@3": 0.717813,
                    "ndcg@5": 0.737849,
                    "ndcg@10": 0.78089,
                },
            },
        },
        "previous_version": {
            "version": "first version, 27 Feb 2017",
            "results": {
                "mslr-web30k": {
                    "LightGBM": {"ndcg@1": 0.524255, "ndcg@3": 0.505327, "ndcg@5": 0.510007,
                                 "ndcg@10": 0.527371},
                    "xgboost_hist": {"ndcg@1": 0.488649, "ndcg@3": 0.473184, "ndcg@5": 0.477438,
                                     "ndcg@10": 0.496967},
                },
                "yahoo-ltr": {
                    "LightGBM": {"ndcg@1": 0.732466, "ndcg@3": 0.738048, "ndcg@5": 0.756548,
                                 "ndcg@10": 0.796818},
                    "xgboost_hist": {"ndcg@1": 0.720223, "ndcg@3": 0.721519, "ndcg@5": 0.739904,
                                     "ndcg@10": 0.783013},
                },
            },
        },
    },
    "ltr-baseline": {
        "source": "lgrz/ltr-baseline README (results tables) and mslr10k/lgbm.sh",
        "url": "https://github.com/lgrz/ltr-baseline",
        "version": "README as stored (undated)",
        "selection": (
            "validation: early_stopping_round equal to the tree count (1000), i.e. the best "
            "validation iteration of 1000; test evaluated once per fold"
        ),
        "evaluator": "gdeval.pl on the five test folds concatenated (exp gain, qrels-based IDCG)",
        "split": {"mslr-web10k": "MSLR-WEB10K Folds 1-5, each fold's train/vali/test"},
        "folds": {"mslr-web10k": POOLED, "mslr-web30k": POOLED},
        "settings": {
            "lightgbm (mslr10k/lgbm.sh)": "lambdarank, num_trees=1000, num_leaves=63, "
            "learning_rate=0.05, eval_at=1,5,10,20, early_stopping_round=1000",
        },
        "results": {
            "mslr-web10k": {
                "LambdaRank (LightGBM)": {"model": "lightgbm-lambdarank", "ndcg@5": 0.4724,
                                          "ndcg@10": 0.4913, "ndcg@20": 0.5225},
            },
            "mslr-web30k": {
                "LambdaRank (LightGBM)": {"model": "lightgbm-lambdarank", "ndcg@5": 0.4865,
                                          "ndcg@10": 0.5046, "ndcg@20": 0.5354},
            },
        },
    },
}


def published_for(dataset: str) -> list[dict[str, Any]]:
    """Every published row for ``dataset`` (a catalogue name: ``mslr-web30k``, ``yahoo-ltr``), flattened:
    ``{"source", "url", "version", "selection", "evaluator", "row", "model", "metrics"}``."""
    out = []
    for entry in PUBLISHED.values():
        for row, values in entry["results"].get(dataset, {}).items():
            out.append(
                {
                    "source": entry["source"],
                    "url": entry["url"],
                    "version": entry["version"],
                    "selection": entry["selection"],
                    "evaluator": entry["evaluator"],
                    "row": row,
                    "model": values.get("model"),
                    "metrics": {k: v for k, v in values.items() if k != "model"},
                }
            )
    return out


def published_fold(entry: str, dataset: str) -> str | None:
    """The fold whose test split ``entry``'s rows for ``dataset`` were computed on (``Fold1``),
    :data:`POOLED` for the five folds together, None for a dataset without folds: a run is shown
    beside them only on the same fold (a run on Fold2 beside Fold1's numbers compared other
    test queries)."""
    fold = PUBLISHED[entry].get("folds", {}).get(dataset)
    return fold if isinstance(fold, str) else None


def published_key(manifest: dict[str, Any]) -> str:
    """The catalogue dataset a run's published rows are looked up under: the card its data were
    read from (``mslr-web30k``), recorded in its manifest, with its recorded variant and fold
    (``yahoo-ltr:set2``, ``mslr-web30k:Fold2``); ``""`` (no rows) for data read from a
    path, a generated stand-in (``synthetic-mslr30k`` is no published dataset) or a run without
    that record. Never the run's display name: a config's ``name = "experiments-mslr30k"``
    found no rows for real MSLR-WEB30K, and a name is the user's to choose for any data."""
    dataset = manifest.get("dataset") if isinstance(manifest, dict) else None
    meta = dataset.get("meta") if isinstance(dataset, dict) else None
    card = meta.get("card") if isinstance(meta, dict) else None
    if not isinstance(card, str):
        return ""
    fold = meta.get("fold") if isinstance(meta, dict) else None  # with the fold: card:FoldK
    spec = dataset.get("spec") if isinstance(dataset, dict) else None
    if not isinstance(fold, str) and isinstance(spec, str):
        fold = fold_suffix(spec)[1]  # the datasets' one reader of NAME[:OPTION]:FoldK
    if isinstance(fold, str) and (number := fold_suffix(f"{card}:{fold}")[1]) is not None:
        fold = f"Fold{number[4:]}"  # 'fold3' as the catalogue writes it (digits as given)
    variant = meta.get("variant") if isinstance(meta, dict) else None  # yahoo-ltr:set2 is not the page's set1: card:variant[:FoldK]
    parts = [card, *([variant] if isinstance(variant, str) and variant else []),
             *([fold] if isinstance(fold, str) and fold else [])]
    return ":".join(parts)


def published_beside_ours(
    entry: str, dataset: str, rows: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Published rows of ``entry`` (a key of :data:`bench.report.published.PUBLISHED`) for
    ``dataset``, each with our counterpart model's mean over seeds for the same metrics.

    Published tables were selected differently (LightGBM's Experiments page: best of 500 *test*
    iterations per metric); ours are validation-selected with the test split evaluated once, so
    each row carries the source's ``selection`` text to print beside the numbers. Returns
    ``[{"source", "url", "selection", "evaluator", "row", "model", "metrics": {m: {"published",
    "ours"}}}]``; empty when the run names no entry or the entry has nothing for this dataset.
    """
    if not entry:
        return []
    if entry not in PUBLISHED:
        raise ConfigError(f"unknown published entry {entry!r}; known: {sorted(PUBLISHED)}")
    if not dataset:
        return []
    source = PUBLISHED[entry]
    card, *rest = dataset.split(":")
    fold = next((p for p in rest if p.lower().startswith("fold")), "")
    variant = next((p for p in rest if not p.lower().startswith("fold")), None)
    wanted = source.get("variants", {}).get(card)  # Yahoo set2 beside set1's rows: other data
    if variant is not None and wanted is not None and variant.lower() != wanted.lower():
        return []
    published = published_fold(entry, card)  # a run on Fold2 is not set beside Fold1's rows
    if published is not None and published.lower() != (fold or "Fold1").lower():
        return []
    results = source["results"].get(card, {})
    ours = {row["model"]: row["metrics"] for row in rows}
    out = []
    for name, values in results.items():
        model = values.get("model")
        mine = ours.get(model, {}) if model else {}
        out.append({
            "source": source["source"],
            "url": source["url"],
            "selection": source["selection"],
            "evaluator": source["evaluator"],
            "row": name,
            "model": model,
            "metrics": {
                m: {"published": v, "ours": json_number((mine.get(m) or {}).get("mean"))}
                for m, v in values.items() if m != "model"
            },
        })
    return out


def published_for_run(entry: str, dataset: str, rows: list[dict[str, Any]], *, quick: bool,
                      split: str) -> tuple[list[dict[str, Any]], list[str]]:
    """:func:`published_beside_ours` for a run's table, with the reason as a note where rows
    exist but are withheld: published numbers are full-size test-split numbers, so a quick run
    (trees and leaves capped, :mod:`bench.benchmark.quick`) or a table of another split is set
    beside none of them."""
    found = published_beside_ours(entry, dataset, rows)
    if not found:
        return [], ([f"published numbers ({entry}) not shown: {_none_because(entry, dataset)}"]
                    if entry else [])
    why = ("this run is in quick mode (n_trees, num_leaves and early stopping capped), not the "
           "published settings" if quick else
           f"they are test-split numbers and this table is split {split!r}" if split != "test"
           else "")
    if not why:
        return found, []
    return [], [f"published numbers ({entry}) not shown: {why}; rerun without --quick and "
                "report the test split to see them"]


def _none_because(entry: str, dataset: str) -> str:
    """Why ``entry`` has no rows beside a run of ``dataset`` (a :func:`published_key`)."""
    source = PUBLISHED[entry]
    have = []
    for d in source["results"]:
        where = [source.get("variants", {}).get(d), published_fold(entry, d)]
        have.append(" ".join([d, *(w for w in where if w)]))
    ran = dataset or "data that is no catalogue dataset (a path or a generated stand-in)"
    return f"they are for {', '.join(have)}; this run read {ran}"
