"""A metric family is one record (:mod:`bench.metrics.families`): components, blank rule, formula,
printed names. These tests hold the records to what the evaluator did before they were records,
and show that a new record is all a metric built from existing components needs."""

from __future__ import annotations

import numpy as np
import pytest

import bench.metrics.aggregate as aggregate
import bench.metrics.families as families
from bench.errors import ConfigError
from bench.metrics import PROFILES, get_profile
from bench.metrics.components import build_request
from bench.metrics.families import ALIASES, FAMILIES, Family, precision_denominator
from bench.metrics.kernels.components import COMPONENTS, Components
from bench.metrics.more_families import more_families
from bench.metrics.names import MetricSpec


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_every_ranking_family_is_finished_from_components_the_kernels_compute(profile: str) -> None:
    prof = get_profile(profile)
    for fam in FAMILIES.values():
        if fam.pointwise:
            assert fam.finish is None, fam.name
            assert not fam.components_for(prof), fam.name
        else:
            assert fam.finish is not None, fam.name
            assert fam.components_for(prof) or fam.mean == "sum", fam.name  # counts: n, R
            if not fam.subtopics:  # alpha-nDCG's sums come from bench.metrics.diversity
                assert set(fam.components_for(prof)) <= set(COMPONENTS), fam.name


def test_the_records_keep_the_former_aliases_blank_rules_and_scored_one_families() -> None:
    # the tables that lived in families.ALIASES, aggregate.SCORED_ONE_FAMILIES and the
    # if-chain of aggregate.per_query_values before the families were records (issue 23's
    # families, bench.metrics.more_families, are checked in tests/test_metrics_more_families.py)
    new = set(more_families())
    FAMILIES = {n: f for n, f in families.FAMILIES.items() if n not in new}
    assert {a: c for a, c in ALIASES.items() if c not in new} == {"precision": "p", "pre": "p", "prec": "p", "ap": "map",
                       "mean_average_precision": "map", "rr": "mrr", "recip_rank": "mrr",
                       "hit_rate": "hits", "hr": "hits", "r": "recall",
                       "hit": "hits"}  # hit: RecBole Hit@k (round 8)
    assert {f.name for f in FAMILIES.values() if f.blank_scores_one} == {
        "ndcg", "map", "recall", "mrr", "hits"}
    assert {f.name for f in FAMILIES.values() if f.blank_when == "no_gain"} == {"ndcg", "dcg", "err"}
    assert {f.name: f.components for f in FAMILIES.values() if f.ranking} == {
        "dcg": ("dcg",), "ndcg": ("dcg", "idcg"), "map": ("ap",), "mrr": ("rr",), "p": ("hits",),
        "recall": ("hits",), "err": ("err",), "hits": ("any",), "rprec": ("rprec",),
        "bpref": ("bpref",), "set_p": ("hits",), "set_recall": ("hits",), "set_f": ("hits",),
        "num_q": ()}
    assert FAMILIES["map"].components_for(get_profile("torchmetrics")) == ("ap", "hits")


#: The on-paper addition of ARCHITECTURE.md: F1 of the top k, from the existing ``hits``.
F_MEASURE = Family(
    "f_measure", "F", "F1 of the top k: harmonic mean of P@k and R@k", ("hits",),
    lambda q: q.ratio(2.0 * q.comp["hits"], precision_denominator(q) + q.r),
    normalised=True, blank_scores_one=True, aliases=("f",),
)


def test_a_new_record_is_a_new_metric_without_touching_the_evaluator(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(families.FAMILIES, "f_measure", F_MEASURE)
    prof = get_profile("ltrbench")
    spec = MetricSpec("f_measure", 5, "f_measure@5")
    assert build_request([spec], prof).ks == {"hits": (5,)}
    # three queries: 2 of 3 relevant in the top 5 of 8 documents; 1 of 4 relevant, 3
    # documents; no relevant document (blank)
    comps = Components(n=np.array([8, 3, 4]), r_list=np.array([3.0, 4.0, 0.0]),
                       r_basis=np.array([3.0, 4.0, 0.0]), has_gain=np.array([True, True, False]),
                       ties=np.zeros(3, dtype=bool))
    comps.values[("hits", 5)] = np.array([2.0, 1.0, 0.0])
    values, blank = aggregate.per_query_values(spec, comps, prof)
    # P@5 = 2/5, R@5 = 2/3: F1 = 2 (2/5)(2/3) / (2/5 + 2/3) = 1/2; P@5 = 1/5 (ltrbench divides
    # by k), R = 1/4: F1 = 2 (1/20) / (9/20) = 2/9; the blank query is left out (empty=None)
    assert values[0] == pytest.approx(0.5, abs=1e-15)
    assert values[1] == pytest.approx(2 / 9, abs=1e-15)
    assert np.isnan(values[2])
    assert blank.tolist() == [False, False, True]


def test_a_record_that_names_a_component_no_kernel_computes_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(families.FAMILIES, "ndcg", Family("ndcg", "NDCG", "x", ("dcg", "nope"),
                                                          lambda q: q.value("dcg")))
    with pytest.raises(ConfigError, match="'ndcg' needs component 'nope'"):
        build_request([MetricSpec("ndcg", 10, "ndcg@10")], get_profile("ltrbench"))
