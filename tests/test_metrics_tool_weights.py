"""Query weights under a profile whose tool takes none (trec_eval, ranx, RecBole ...): the
weighted mean is still computed (ltrbench's), but a ``ToolWeightsWarning`` says that the tool
itself cannot print it. Golden values by hand arithmetic."""

from __future__ import annotations

import math
import warnings

import pytest

from bench.metrics import evaluate
from bench.metrics.diagnostics import ToolWeightsWarning
from bench.metrics.profiles import PROFILES

LABELS, SCORES, GROUP = [1, 0, 0, 1], [2, 1, 2, 1], [2, 2]
# query 1: the relevant document first, ndcg 1; query 2: second of two, ndcg 1/log2(3)
WEIGHTED = (3 * 1.0 + 1 * (1 / math.log2(3))) / 4

WITHOUT_WEIGHTS = ("trec_eval", "trec_eval-c", "ranx", "letor4", "gdeval", "recbole",
                   "recommenders", "msmarco", "torchmetrics", "allrank", "catalyst", "cornac",
                   "pytorchltr", "ignite")


@pytest.mark.parametrize("profile", ["trec_eval", "ranx"])
def test_weights_under_a_tool_without_weights_give_the_weighted_mean_and_say_so(
        profile: str) -> None:
    with pytest.warns(ToolWeightsWarning, match=rf"profile '{profile}': its tool takes no query "
                                                 "weights") as caught:
        r = evaluate(LABELS, SCORES, group=GROUP, metrics="ndcg", profile=profile,
                     weights=[3, 1])
    assert r.metrics["ndcg"] == pytest.approx(WEIGHTED, abs=1e-12)
    assert caught[0].filename == __file__  # pointed at the caller, not at ltrbench's code


@pytest.mark.parametrize("profile", ["ltrbench", "sklearn", "tf-ranking", "trec_eval"])
def test_no_warning_where_the_tool_takes_weights_or_none_are_given(profile: str) -> None:
    weights = None if profile == "trec_eval" else [3, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ToolWeightsWarning)
        evaluate(LABELS, SCORES, group=GROUP, metrics="ndcg", profile=profile, weights=weights)


def test_every_tool_without_weights_is_marked_and_the_libraries_are_not() -> None:
    marked = {n for n, p in PROFILES.items() if p.query_weights == "not_in_tool"}
    assert set(WITHOUT_WEIGHTS) <= marked
    assert not marked & {"ltrbench", "lightgbm", "xgboost", "catboost", "sklearn", "tf-ranking"}


def test_a_peer_name_without_a_profile_says_its_tools_weights_too() -> None:
    # `ndcg_cut_2` keeps trec_eval's profile when the call names none: the same warning, and
    # the same weighted mean (both queries hold 2 documents, so ndcg_cut_2 is the whole ndcg)
    with pytest.warns(ToolWeightsWarning, match="profile 'trec_eval'"):
        r = evaluate(LABELS, SCORES, group=GROUP, metrics="ndcg_cut_2", weights=[3, 1])
    assert r.metrics["ndcg_cut_2"] == pytest.approx(WEIGHTED, abs=1e-12)


def test_row_weights_under_a_tool_without_weights_are_said_too() -> None:
    # one weight per row: a query's weight is the mean of its rows' (3, 3 and 1, 1)
    with pytest.warns(ToolWeightsWarning):
        r = evaluate(LABELS, SCORES, group=GROUP, metrics="ndcg", profile="recbole",
                     weights=[3, 3, 1, 1])
    assert r.metrics["ndcg"] == pytest.approx(WEIGHTED, abs=1e-12)
