"""Evaluations of specs that carry their own profile: resolved, split into groups, merged.

**Resolution** (:func:`resolve`, issue 19: a name and a profile that disagree are never resolved
silently). When the call names its profile explicitly (``profile=`` / ``--profile``):

* an ltrbench name is computed under the call's profile;
* a peer name (trec_eval or ir_measures spelling, no ``PROFILE:``) whose tool family is the
  call's (:data:`FAMILY_PROFILES`: a trec_eval name under ``trec_eval`` or ``trec_eval-c``, an
  ir_measures name under ``trec_eval-c``) is computed under the call's profile, so
  ``--profile trec_eval-c --metrics P_5,ndcg_cut_10`` is ``trec_eval -c``'s P_5 and ndcg_cut_10
  (a name its tool computes under another profile keeps the fields in which that profile differs:
  ir_measures' ``NumQ`` and ``NumRel`` under ``trec_eval-c`` keep ``missing="drop"``,
  :func:`_tool_fields`);
* a name spelled as the call's profile's own tool spells its metric (:data:`OWN_SPELLINGS`:
  ``Recall@10``, ``Precision@10`` under ``recbole`` and ``recommenders``) is that tool's metric,
  computed under the call's profile;
* any other peer name is refused with a ConfigError naming the ``PROFILE:NAME`` that asks for
  its own tool's value and the ltrbench name that asks for the call's;
* ``PROFILE:NAME`` is computed under the named profile.

Without an explicit profile every peer name keeps its own tool's profile (trec_eval: no ``-c``;
ir_measures: ``trec_eval-c``, it scores a qrels query without a run line 0,
``providers/base.py:18-27``) and every result names each metric's profile
(:attr:`EvaluationResult.metric_profiles`).

A :class:`~bench.metrics.names.MetricSpec` of a trec_eval or ir_measures name (or
``profile:name``) is computed under its own profile with its overrides
(``dataclasses.replace(get_profile(spec.profile), **dict(spec.overrides))``); an ltrbench name
under the call's. :func:`groups` splits a spec list by that effective profile (a group per
distinct profile, the call's first, then in the order asked); the caller evaluates each group on
the same prepared queries; :func:`merge` puts the results back into one
:class:`EvaluationResult`:

* ``metrics`` and the per-query table's columns: every spec's name, in the order asked; the
  table's rows are joined on the query id (a group that scores other queries, ``missing="zero"``,
  leaves NaN where it has no value);
* ``profile``: the call's profile (a lone group of another profile: that profile);
* diagnostics: the counts that depend on the profile (blank queries, ties, ``ties_k``) are those
  of the call's group (else the first group); the per-metric blank-policy means of every group;
  ``blank_policy`` and ``backend`` name each group's when they differ.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from bench.errors import ConfigError
from bench.metrics.families import FAMILIES, check_profile_families
from bench.metrics.names import MetricSpec
from bench.metrics.peer_names import IR_MEASURES_PROFILE, QRELS_ONLY, TREC_EVAL_PROFILE
from bench.metrics.profiles import Profile, get_profile
from bench.metrics.result import EvaluationResult
from bench.metrics.score_rules import UNFILTERED
from bench.metrics.validate import check_threshold

_V = TypeVar("_V")

#: The call profiles under which a peer grammar's names take the call's profile (its tool's family).
FAMILY_PROFILES: dict[str, tuple[str, ...]] = {
    "trec_eval": (TREC_EVAL_PROFILE, "trec_eval-c"),
    "ir_measures": (IR_MEASURES_PROFILE,),
}


def _base_name(profile: Profile) -> str:
    """A profile's name without overrides (``+...``)."""
    return profile.name.partition("+")[0]


def _same_convention(call: Profile, spec: MetricSpec) -> bool:
    """Whether the call's profile is, field for field (name and description aside), the profile
    a peer spec carries with its overrides: ``--profile msmarco --metrics RR@10`` asks for the
    very convention ir_measures' MS MARCO provider computes RR@10 with (``trec_eval-c`` with
    float64 scores and ascending document-id ties), so refusing it would refuse the tool's own
    profile."""
    assert spec.profile is not None
    changes: dict[str, Any] = dict(spec.overrides)
    own = replace(get_profile(spec.profile), **changes)
    return all(getattr(own, f) == getattr(call, f) for f in own.__dataclass_fields__
               if f not in ("name", "description"))


def _tool_fields(spec: MetricSpec, call: Profile) -> dict[str, Any]:
    """The fields in which a peer name's own profile differs from its tool's family profile,
    where the call's profile is that family profile: ir_measures' ``NumQ`` and ``NumRel``
    count the queries the run answers (``trec_eval``, no ``-c``), so under ``trec_eval-c``,
    ir_measures' profile, they keep ``missing="drop"`` and stay ir_measures' numbers."""
    family = FAMILY_PROFILES[spec.grammar]
    if spec.profile is None or spec.profile in family or _base_name(call) not in family:
        return {}
    own, tool = get_profile(spec.profile), get_profile(family[0])
    fields = [f for f in vars(own) if f not in ("name", "description")]
    return {f: getattr(own, f) for f in fields
            if getattr(own, f) != getattr(tool, f) and getattr(call, f) != getattr(own, f)}


def _with(spec: MetricSpec) -> str:
    """`` with ties='docno_asc'``: the overrides a peer name adds to its tool's profile."""
    return "".join(f"{' with ' if i == 0 else ', '}{k}={v!r}"
                   for i, (k, v) in enumerate(spec.overrides))


def resolve(specs: Sequence[MetricSpec], call: Profile, *, explicit: bool) -> list[MetricSpec]:
    """``specs`` with the call's profile applied (see the module docstring).

    A peer spec moved to the call's profile keeps its overrides (``P(rel=2)@5`` under
    ``trec_eval-c``) and gets a name unique to that profile (``{call}:{name}``), so it never
    shares a key with the same spelling computed under its own profile.

    Raises:
        ConfigError: ``explicit`` and a peer name of another tool family than the call's profile.
    """
    specs = [_with_options(_stated(spec, call, explicit), call) for spec in specs]
    if not explicit:
        return specs
    out: list[MetricSpec] = []
    for spec in specs:
        _refuse_other_ranx(spec, call)
        if spec.explicit or spec.grammar not in FAMILY_PROFILES or spec.profile is None:
            out.append(spec)
            continue
        if _base_name(call) in (*FAMILY_PROFILES[spec.grammar], spec.profile):  # NumQ: trec_eval
            # an override the call's profile already has is no override (no +judged_only twice)
            own = tuple(o for o in spec.overrides if getattr(call, o[0]) != o[1])
            own = tuple(sorted({**dict(own), **_tool_fields(spec, call)}.items()))
            out.append(replace(spec, profile=None, name=f"{call.name}:{spec.name}", overrides=own))
            continue
        if _same_convention(call, spec):  # RR@10 under msmarco: the call's profile is the tool's
            out.append(replace(spec, profile=None, overrides=()))
            continue
        plain = spec.family if spec.k is None else f"{spec.family}@{spec.k}"
        if not spec.overrides and _own_spelling(spec, call):  # Recall@10 under recbole
            out.append(replace(spec, profile=None, name=plain, overrides=()))
            continue
        if spec.overrides or spec.family not in FAMILIES:
            # P(rel=2)@5: a plain p@5 would drop rel=2; Judged@10 has no ltrbench spelling
            # (judged@10 is ir_measures' again): the qualifier keeps the name as it is
            plain = f"{_base_name(call)}:{spec.key}"
        raise ConfigError(
            f"{spec.key} is {_article(spec.grammar)} {spec.grammar} name: {spec.grammar} computes it as profile "
            f"{spec.profile!r}{_with(spec)} does, not as the profile {call.name!r} given for this call; write "
            f"{spec.profile}:{spec.key} for {spec.grammar}'s value beside the others, or "
            f"{plain} for its value under {call.name!r}")
    return out


def _refuse_other_ranx(spec: MetricSpec, call: Profile) -> None:
    """A ConfigError for a ranx spelling that carries its own profile (``ndcg_burges@10``:
    ``ranx-burges``) under an explicit profile of another tool: it was computed under
    ``ranx-burges`` beside the call's ``lightgbm`` (README: a name of another tool under
    another profile is refused with the ``PROFILE:NAME`` that asks for it)."""
    if spec.grammar != "ranx" or spec.profile is None or spec.explicit or \
            _base_name(call) in ("ranx", "ranx-burges"):
        return
    plain = spec.family if spec.k is None else f"{spec.family}@{spec.k}"
    raise ConfigError(
        f"{spec.key} is a ranx name: ranx computes it as profile {spec.profile!r} does, not as "
        f"the profile {call.name!r} given for this call; write ranx:{spec.key} for ranx's "
        f"value beside the others, or {plain} for its value under {call.name!r}")


#: A profile's own tool's spellings of its metrics that are also ir_measures' (``profile ->
#: {stem: family}``): under that profile the user means the tool's metric, computed under the
#: call's profile. RecBole's metric classes ``Recall`` and ``Precision``
#: (``recbole/evaluator/metrics.py``: ``class Recall(TopkMetric)``, ``topk_result('recall',
#: ...)``; ``class Precision(TopkMetric)``; ``metrics: ['Recall', 'Precision']`` with ``topk``
#: in its config, printed ``recall@10``); MS Recommenders prints ``Precision@K`` and ``Recall@K`` for
#: ``precision_at_k`` / ``recall_at_k`` (``examples/00_quick_start`` notebooks); Cornac
#: names its measures ``Precision@k`` and ``Recall@k`` (``cornac/metrics/ranking.py``:
#: ``MeasureAtK`` names ``"{}@{}".format(name, k)``) and prints them so. ir_measures'
#: other spellings (``nDCG@10``, ``AP``, ``RR``) are not these tools' and stay refused under
#: them (:func:`resolve`'s message says how to ask for each reading).
OWN_SPELLINGS: dict[str, dict[str, str]] = {
    "recbole": {"Recall": "recall", "Precision": "p"},
    "recommenders": {"Recall": "recall", "Precision": "p"},
    "cornac": {"Recall": "recall", "Precision": "p"},
}


def _own_spelling(spec: MetricSpec, call: Profile) -> bool:
    """Whether ``spec`` is spelled as the call's profile's own tool spells that metric
    (:data:`OWN_SPELLINGS`): ``Recall@10`` under ``recbole``."""
    own = OWN_SPELLINGS.get(_base_name(call), {})
    stem = re.sub(r"@[0-9]+$", "", spec.key)
    return own.get(stem) == spec.family


#: The profile fields the call's options set (``--relevance-level``, ``--judged-only``,
#: ``--run-depth``; the same fields of a Python profile built with ``replace``).
OPTION_FIELDS = ("relevance_threshold", "judged_only", "run_depth")


def _with_options(spec: MetricSpec, call: Profile) -> MetricSpec:
    """A spec whose *spelling* implies its profile (ranx's ``ndcg_burges@10``: ``ranx-burges``,
    grammar ``"ranx"``, no ``PROFILE:`` typed) with the call's options applied as overrides:
    ``--profile ranx --relevance-level 2 --metrics ndcg_burges@10`` is ranx's
    ``ndcg_burges@10-l2``, never its level-1 value under a name the user gave the option for.
    A typed ``PROFILE:`` keeps its profile whatever the options (:func:`_stated`)."""
    if spec.grammar != "ranx" or spec.profile is None or spec.explicit:
        return spec
    try:
        named = get_profile(_base_name(call))
    except ConfigError:  # a profile object of the caller's own name: nothing to compare with
        return spec
    own = get_profile(spec.profile)
    changes = {f: getattr(call, f) for f in OPTION_FIELDS
               if getattr(call, f) != getattr(named, f) and getattr(call, f) != getattr(own, f)}
    if not changes:
        return spec
    return replace(spec, overrides=tuple(sorted({**dict(spec.overrides), **changes}.items())))


#: How an ir_measures name spells the profile fields it can state.
_PARAM_OF = {"relevance_threshold": "rel", "judged_only": "judged_only"}


def _stated(spec: MetricSpec, call: Profile, explicit: bool) -> MetricSpec:
    """``spec`` checked against the fields the call's options set (``--relevance-level``,
    ``--judged-only``: fields of ``call`` that differ from its named profile's): an ir_measures
    name that states another value (``P(rel=1)@5`` beside ``--relevance-level 2``,
    ``nDCG(judged_only=False)`` beside ``--judged-only``) contradicts them (ConfigError), where
    it would otherwise be silently computed with the option's value under its own key."""
    if not explicit or not spec.stated or spec.explicit:  # trec_eval-c:P(rel=1)@5: its own
        return spec
    try:
        named = get_profile(_base_name(call))
    except ConfigError:  # a profile object of the caller's own: every field is its choice
        named = None
    for field, value in spec.stated:
        mine = getattr(call, field)
        if named is not None and mine == getattr(named, field):
            continue  # the profile's own value: the name's override applies
        if mine != value:
            shown = int(value) if isinstance(value, float) and value.is_integer() else value
            raise ConfigError(
                f"{spec.key} says {_PARAM_OF.get(field, field)}={shown!r} but the call's profile "
                f"{call.name!r} sets {field}={mine!r} (--relevance-level / --judged-only): drop "
                "one of the two")
    return spec


#: Spellings that a profile's own tool uses for another metric than ltrbench's: ``(profiles,
#: spelling) -> why``. ranx's ``hits@k`` is the *number* of relevant documents in the top k
#: (``ranx/metrics/hits.py:11-34``, ``_hits``: ``hits += 1.0`` per relevant document), while
#: ltrbench's ``hits@k`` is the hit rate (ranx's ``hit_rate@k``): under a ranx profile the
#: spelling would silently give another number than ranx prints.
HOMONYMS: dict[tuple[tuple[str, ...], str], str] = {
    (("ranx", "ranx-burges"), "hits"): (
        "ranx's hits@k is the number of relevant documents in the top k "
        "(ranx/metrics/hits.py), ltrbench's hits@k the hit rate (ranx's hit_rate@k); write "
        "hit_rate@k for the hit rate, or p@k times k for ranx's count"),
    (("recbole",), "auc"): (
        "RecBole's AUC is one AUC over every (user, item) pair of all users together "
        "(recbole/evaluator/metrics.py class AUC: 'does not calculate group-based AUC ... "
        "regardless the users'), ltrbench's auc the mean of each query's AUC; write gauc for "
        "RecBole's GAUC (each user's AUC weighted by its positive items), or "
        "sklearn.metrics.roc_auc_score over every row for RecBole's AUC"),
    (("lightgbm",), "auc"): (
        "LightGBM's auc is one ROC AUC over every row of the data, query groups ignored "
        "(src/metric/binary_metric.hpp AUCMetric), ltrbench's auc the mean of each query's AUC; "
        "write gauc for the per-query AUC weighted by documents, or "
        "sklearn.metrics.roc_auc_score over every row for LightGBM's auc"),
    (("xgboost", "xgboost-", "xgboost@1.7", "xgboost@1.7-"), "auc"): (
        "XGBoost's auc under a ranking objective counts the correctly ordered pairs of each "
        "group and averages the groups its own way (src/metric/auc.cc RankingAUC; its docs: "
        "'the AUC is computed by comparing pairs of documents'), which is not ltrbench's "
        "mean of each query's AUC; write gauc for the per-query AUC weighted by documents"),
    (("catboost",), "err"): (
        "CatBoost's ERR takes each label as the probability that the document is relevant "
        "(CatBoost's ERR:top=k reads labels in [0, 1] as such), ltrbench's err@k "
        "(2^l - 1) / 2^g_max (Chapelle et al. 2009): the same name, another number; "
        "evaluate err@k under another profile (ltrbench, gdeval) for Chapelle's ERR"),
}
#: The homonyms whose tool is fed labelled rows as well (RecBole scores its own interactions,
#: the GBDT libraries their data): refused by ``evaluate`` too, where ranx's (fed qrels and
#: runs) are not.
ROW_HOMONYMS = frozenset({"auc", "err"})


def refuse_homonyms(specs: Sequence[MetricSpec], call: Profile, *, rows: bool = False,
                    queries: int = 2) -> None:
    """A ConfigError for a spec spelled as its profile's tool spells *another* metric
    (:data:`HOMONYMS`): ``--profile ranx --metrics hits@10`` (or ``ranx:hits@10``) would print
    the hit rate under a column that ranx fills with a count. At ``@1`` both are the same
    number (0 or 1) and the name is kept. :func:`bench.metrics.evaluate_trec` calls it: TREC
    qrels and runs (files, dicts, ranx objects) are how ranx is fed; an evaluation of labelled
    rows keeps ltrbench's meaning of every ltrbench name under every profile, but for
    :data:`ROW_HOMONYMS` (``rows``: :func:`bench.metrics.evaluate.evaluate`'s call and a run's
    config) over more than one query (``queries``: RecBole's AUC of one user is that user's)."""
    for spec in specs:
        if spec.k == 1 and spec.family == "hits":  # ranx's count at 1 is the hit rate
            continue
        if rows and queries < 2 and spec.family == "auc":  # one user's AUC is that user's
            continue
        profile = _base_name(get_profile(spec.profile)) if spec.profile else _base_name(call)
        body = spec.key.split(":", 1)[-1] if spec.explicit else spec.key
        word = re.match(r"[A-Za-z_]*", body)
        stem = word.group(0).lower() if word else ""
        for (profiles, spelling), why in HOMONYMS.items():
            if profile in profiles and stem == spelling and (not rows or stem in ROW_HOMONYMS):
                raise ConfigError(f"{spec.key} under profile {profile!r}: {why}")
        if not rows and profile in FAMILY_PROFILES["trec_eval"] and \
                re.fullmatch(r"RBP(@[0-9]+)?", body.strip()):
            cut = body.strip()[3:]
            raise ConfigError(
                f"{spec.key} under profile {profile!r}: ir_measures spells its graded RBP so (no "
                "rel=: its trectools provider, binary_topical_relevance=False), which ltrbench "
                f"does not compute, and trec_eval has no RBP; write RBP(rel=1){cut} for "
                f"ir_measures' binary RBP, or rbp{cut} for ltrbench's under the call's profile")


def spec_profile(spec: MetricSpec, call: Profile) -> Profile:
    """The profile ``spec`` is computed under: its own (with its overrides) or ``call``."""
    base = call if spec.profile is None else get_profile(spec.profile)
    if not spec.overrides:
        return base
    changes: dict[str, Any] = dict(spec.overrides)
    return replace(base, name=f"{base.name}+{_overrides_text(spec)}", **changes)


def groups(specs: Sequence[MetricSpec], call: Profile) -> list[tuple[Profile, list[MetricSpec]]]:
    """``specs`` split by effective profile: ``[(profile, specs)]``, the call's group first.

    Raises:
        ConfigError: a spec of a family computed from TREC qrels only (Judged@k), here where
            every scored row counts as judged; a group's relevance level that is not a finite
            number above 0 (:func:`bench.metrics.validate.check_threshold`); a family name in
            its ``binary_label_families`` that is none (:func:`check_profile_families`).
    """
    for spec in specs:
        if spec.family not in FAMILIES:
            raise ConfigError(f"{spec.name}: {QRELS_ONLY.get(spec.family, spec.family)} needs "
                              "TREC qrels (which documents are judged): evaluate it with "
                              "evaluate_trec or ltrbench evaluate --qrels/--run")
    out: dict[tuple[str | None, object, bool], tuple[Profile, list[MetricSpec]]] = {}
    for spec in specs:
        own = spec.profile is not None and spec.profile != call.name
        prof = spec_profile(spec, call) if own or spec.overrides else call
        # torchmetrics' hit rate ignores its own score rule (score_rules.UNFILTERED)
        plain = prof.nonpositive_scores == "not_relevant" and spec.family in UNFILTERED
        key = (spec.profile if own else None, spec.overrides, plain)
        if key not in out:
            out[key] = (replace(prof, nonpositive_scores="rank") if plain else prof, [])
        out[key][1].append(spec)
    ordered = sorted(out.items(), key=lambda kv: kv[0] != (None, (), False))
    for prof, _ in out.values():  # every evaluation path groups: the one door of the level
        check_threshold(prof)  # (the diversity paths read it without check_labels)
        check_profile_families(prof)
    return [group for _, group in ordered]


def require_call_profile(specs: Sequence[MetricSpec], call: Profile,
                         where: str) -> list[MetricSpec]:
    """``specs`` resolved against ``call`` (:func:`resolve`, the call's profile is explicit), for
    evaluations of one profile only (``where``: the Dask engine); a ConfigError naming the specs
    that still need another profile (``PROFILE:NAME``, ir_measures parameters) or that ltrbench
    does not compute."""
    groups(specs, call)  # the not-computed families
    resolved = resolve(specs, call, explicit=True)
    other = [s.key for s in resolved if s.overrides or s.profile not in (None, call.name)]
    if other:
        raise ConfigError(f"{where} evaluates one profile ({call.name!r}); {', '.join(other)} "
                          "need another: evaluate them with the local engine, or pick the "
                          "profile with --profile and ltrbench names")
    return resolved


def merge(results: Sequence[EvaluationResult], specs: Sequence[MetricSpec],
          call: Profile) -> EvaluationResult:
    """One result of the groups' results (see the module docstring); ``specs`` gives the order.

    Keys become the users' spellings (:attr:`MetricSpec.key`); every metric names its profile
    (:attr:`EvaluationResult.metric_profiles`) and, with per-query tables, its queries."""
    base = next((r for r in results if r.profile is call), results[0])
    order = [s.name for s in specs]
    keys = [s.key for s in specs]
    metrics = {k: v for r in results for k, v in r.metrics.items()}
    profile_of = {k: r.profile.name for r in results for k in r.metrics}
    count_of = {k: r.metric_n_queries.get(k, r.n_queries) for r in results for k in r.metrics}
    diag = base.diagnostics
    policies = {r.diagnostics.blank_policy for r in results}
    backends = {r.diagnostics.backend for r in results}
    merged = replace(
        diag,
        blank_policy=diag.blank_policy if len(policies) == 1 else "; ".join(
            f"{r.profile.name}: {r.diagnostics.blank_policy}" for r in results),
        backend="+".join(sorted(backends)),
        mean_blank_excluded=_ordered(specs, (r.diagnostics.mean_blank_excluded for r in results)),
        mean_blank_as_0=_ordered(specs, (r.diagnostics.mean_blank_as_0 for r in results)),
        mean_blank_as_1=_ordered(specs, (r.diagnostics.mean_blank_as_1 for r in results)),
        blank_by_metric=_ordered(specs, (r.diagnostics.blank_by_metric for r in results)),
    )
    table = None
    queries = None
    weights: dict[str, NDArray[np.float64]] = {}
    if base.per_query is not None:
        import pandas as pd

        # Groups may score different queries (``missing="zero"`` adds the qrels queries without a
        # run line): rows are joined on the query id, in the order of the union's sorted ids when
        # they differ, and a metric is blank (NaN) on a query its group does not score.
        frames = [r.per_query.set_index("qid") for r in results if r.per_query is not None]
        same = all(f.index.equals(frames[0].index) for f in frames)
        # unique ids: Index.union keeps an id as often as the list repeats it (three groups
        # scoring query 3 made three rows of it in the per-query table)
        index = frames[0].index if same else pd.Index(pd.unique(np.concatenate(
            [f.index.to_numpy() for f in frames])), name="qid").sort_values()
        columns = {c: f[c].reindex(index) for f in frames for c in f.columns}
        # a group's own record first: a result merged already (two missing rules of one
        # profile, recommenders) has a union index, but each metric its own queries
        scored = {c: (r.metric_queries or {}).get(c, f.index.to_numpy())
                  for r, f in zip((r for r in results if r.per_query is not None), frames,
                                  strict=True) for c in f.columns}
        table = pd.DataFrame({"qid": index.to_numpy(),
                              **{k: columns[n].to_numpy() for k, n in zip(keys, order, strict=True)}})
        queries = {k: scored[n] for k, n in zip(keys, order, strict=True)}
        own = {n: pd.Series(w, index=f.index).reindex(index).to_numpy(dtype=np.float64)
               for r, f in zip((r for r in results if r.per_query is not None), frames,
                               strict=True) for n, w in r.metric_weights.items()}
        weights = {k: own[n] for k, n in zip(keys, order, strict=True) if n in own}
    return EvaluationResult(metrics={k: metrics[n] for k, n in zip(keys, order, strict=True)},
                            diagnostics=merged, per_query=table, profile=base.profile,
                            metric_profiles={k: profile_of[n] for k, n in zip(keys, order, strict=True)},
                            metric_queries=queries,
                            metric_n_queries={k: count_of[n] for k, n in zip(keys, order,
                                                                             strict=True)},
                            metric_weights=weights)


def _ordered(specs: Sequence[MetricSpec], dicts: Iterable[Mapping[str, _V]]) -> dict[str, _V]:
    found = {k: v for d in dicts for k, v in d.items()}
    return {s.key: found[s.name] for s in specs if s.name in found}


def _overrides_text(spec: MetricSpec) -> str:
    return ",".join(f"{f}={v!r}" if not isinstance(v, tuple) else f"{f}=table"
                    for f, v in spec.overrides)


__all__ = ["FAMILY_PROFILES", "HOMONYMS", "ROW_HOMONYMS", "groups", "merge", "refuse_homonyms",
           "require_call_profile", "resolve", "spec_profile"]


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"
