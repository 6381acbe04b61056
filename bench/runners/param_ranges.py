"""The range table of the shared GBDT parameters (:data:`PARAM_SPECS`): one typed record per
field of :class:`bench.runners.params.Params`, checked when a ``Params`` is built, so before any
data are loaded. A library whose own range is narrower declares a
:class:`~bench.runners.libraries.Limit` in its record (CatBoost ``max_bin``, ``num_leaves``,
``learning_rate``, ``max_depth``; XGBoost ``colsample``).

Each range was checked against the libraries' own checks (LightGBM 4.7 ``include/LightGBM/config.h``
at bae0b7ba, its ``// check =`` lines; XGBoost 3.2 ``src/tree/param.h`` at 379b29f0; CatBoost 1.2.10
by its errors, which name its source line) and probed at both ends with
``lightgbm.train`` / ``xgboost.train`` / ``catboost.CatBoost.fit`` on 200 rows:

- ``n_trees`` 1 .. 2^31-1: LightGBM ``num_iterations`` ``check = >=0`` (config.h:201), an ``int``;
  2^31-1 rounds with early stopping stop as 100 do (memory flat in all three).
- ``learning_rate`` (0, FLT_MAX]: config.h:207 ``>0.0``; XGBoost ``set_lower_bound(0.0f)``
  (param.h:82), a float; CatBoost above FLT_EPSILON (its Limit). LightGBM keeps it as a
  ``double`` and multiplies every leaf by it (``Tree::Shrinkage``): a subnormal rate
  (``5e-324``) leaves leaf values of one significant bit, ties where the trees differ, so a rate
  (and a schedule's floor ``learning_rate_min``) is at least the smallest normal float64,
  2.2250738585072014e-308 (``Spec.normal``; XGBoost's and CatBoost's floors are higher).
- ``num_leaves`` 2 .. 131072: config.h:214-215 ``>1``, ``<=131072``; XGBoost ``max_leaves``
  ``set_lower_bound(0)`` (param.h:93); CatBoost at most 65536 (its Limit).
- ``max_depth`` -1 .. 2^31-1 (-1 or 0: no limit): LightGBM has no check (config.h:306, ``<= 0``
  no limit); XGBoost ``set_lower_bound(0)`` (param.h:90) and refuses a depth over 30 only when
  ``max_leaves`` is 0 (``MaxNodes``, param.h:190-207), which ltrbench never passes (``num_leaves``
  >= 2 bounds the tree: 2^31-1 under lossguide and depthwise fits in the same memory as 6);
  CatBoost ``Maximum tree depth is 16`` (``oblivious_tree_options.cpp:128``, for SymmetricTree
  and Depthwise, which a raw ``grow_policy`` selects; its documentation: up to 16 on the CPU):
  its Limit is 16, and 0 is no limit as -1 is (CatBoost's depth 0 is a tree of one leaf, a
  constant model).
- ``max_bin`` 2 .. 2^31-1: config.h:676 ``>1``; XGBoost ``set_lower_bound(2)`` (param.h:97);
  CatBoost ``border_count = max_bin - 1`` <= 65535 (its Limit: max_bin <= 65536); bins never outnumber a feature's values.
- ``min_child_weight`` [0, FLT_MAX]: config.h:315 ``>=0.0``; param.h:117 ``set_lower_bound(0.0f)``.
- ``min_data_in_leaf`` 0 .. 2^31-1: config.h:309 ``>=0``; CatBoost accepts 2^31-1 (probed).
- ``min_split_gain`` [0, FLT_MAX]: config.h:431 ``>=0.0``; param.h:86 ``min_split_loss >= 0``.
- ``subsample`` [2^-31, 1]: config.h:320-321 ``>0.0``, ``<=1.0``; param.h:133 ``set_range(0, 1)``;
  LightGBM bags ``int(subsample * rows)`` rows (at most 2^31-1) and fails on none.
- ``colsample`` [FLT_MIN, 1]: config.h:367-368; param.h:153 ``set_range(0, 1)``.
- ``l1``, ``l2`` [0, FLT_MAX]: config.h:417, 422 ``>=0.0``; param.h:121, 125.
- ``truncation_level`` 1 .. 2^31-1: config.h:979 ``>0``; XGBoost
  ``lambdarank_num_pair_per_sample`` 2^31-1 accepted (probed).
- ``early_stopping_rounds`` 1 .. 2^31-1: a count of rounds (config.h:400, an ``int``).
- ``n_threads`` 0 .. 1024 (0: every core): the libraries accept any ``int`` and then start that
  many OpenMP threads: LightGBM ``num_threads = 2147483647`` ends the process ("libgomp: Out of
  memory allocating 481036338272 bytes"), 65535 segfaults; CatBoost ``thread_count = 100000``
  dies of SIGFPE; 1024 threads of 8 MiB stacks already reserve 8 GiB of address space.
- ``seed`` 0 .. 2^31-1: LightGBM's ``seed`` is an ``int`` (config.h:262), CatBoost's
  ``random_seed`` unsigned.
"""

from __future__ import annotations

from bench.data.toml import FLOAT32_MAX, FLOAT32_TINY, Spec

#: Largest label the exponential gain table covers: LightGBM's default ``label_gain`` has 31
#: entries (``src/metric/dcg_calculator.cpp``), XGBoost checks labels ≤ 31 with exp gain.
MAX_LABEL = 30
LABEL_GAINS = ("exp2", "linear")
#: Where a GBDT trains: the CPU, or an NVIDIA GPU through each library's CUDA support.
DEVICES = ("cpu", "cuda")
#: The most threads a fit may start (see the module docstring: more crash the libraries).
MAX_THREADS = 1024

_LGB = "LightGBM config.h"
_F32 = "XGBoost and CatBoost keep it as a float32"
#: One record per :class:`~bench.runners.params.Params` field: its type and the range every
#: library it is passed to accepts (the sources: the module docstring).
PARAM_SPECS: tuple[Spec, ...] = (
    Spec("n_trees", int, 1, source="the rounds of lgb.train / xgb.train, CatBoost iterations: a C int"),
    Spec("learning_rate", float, 0, FLOAT32_MAX, lo_open=True, normal=True,
         source=f"{_LGB}: learning_rate > 0; {_F32}"),
    Spec("learning_rate_decay", float, 0, FLOAT32_MAX, source=_F32),
    Spec("learning_rate_min", float, 0, FLOAT32_MAX, normal=True, source=_F32),
    Spec("num_leaves", int, 2, 131072, source=f"{_LGB}: 1 < num_leaves <= 131072"),
    Spec("max_depth", int, -1, source="-1 or 0: no limit (LightGBM <= 0; XGBoost 0 under lossguide)"),
    Spec("max_bin", int, 2, source=f"{_LGB}: max_bin > 1"),
    Spec("min_child_weight", float, 0, FLOAT32_MAX, source=f"{_LGB}: min_sum_hessian_in_leaf >= 0; {_F32}"),
    Spec("min_data_in_leaf", int, 0, source=f"{_LGB}: min_data_in_leaf >= 0, a C int"),
    Spec("min_split_gain", float, 0, FLOAT32_MAX, source=f"{_LGB}: min_gain_to_split >= 0; {_F32}"),
    Spec("subsample", float, 2.0**-31, 1, source="LightGBM bags int(subsample x rows) rows of at "
         "most 2^31 - 1, and fails on none; (0, 1] in XGBoost and CatBoost"),
    Spec("colsample", float, FLOAT32_TINY, 1, source=f"{_LGB}: 0 < feature_fraction <= 1; {_F32}"),
    Spec("l1", float, 0, FLOAT32_MAX, source=f"{_LGB}: lambda_l1 >= 0; {_F32}"),
    Spec("l2", float, 0, FLOAT32_MAX, source=f"{_LGB}: lambda_l2 >= 0; {_F32}"),
    Spec("truncation_level", int, 1, source=f"{_LGB}: lambdarank_truncation_level > 0"),
    Spec("label_gain", str, choices=LABEL_GAINS),
    Spec("lambdarank_norm", bool),
    Spec("early_stopping_rounds", int, 1),
    Spec("n_threads", int, 0, MAX_THREADS, source="0 = every core; more than 1024 OpenMP threads "
         "crash LightGBM and CatBoost (libgomp out of memory, SIGSEGV, SIGFPE)"),
    Spec("seed", int, 0, source="LightGBM's seed is a C int, CatBoost's random_seed unsigned"),
    Spec("device", str, choices=DEVICES),
)
#: The specs by field name (``params.py`` reads it for its membership test).
SPECS_BY_NAME: dict[str, Spec] = {s.name: s for s in PARAM_SPECS}


def param_spec(name: str) -> Spec:
    """The :class:`~bench.data.toml.Spec` of the Params field ``name``."""
    return SPECS_BY_NAME[name]
