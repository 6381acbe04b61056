"""pytorchltr (rjagerman/pytorchltr) tests/evaluation/test_dcg.py and test_arp.py, read at HEAD
625416e. Batches of ``scores`` / ``ys`` with list sizes ``n`` (``n = [5, 4]``: the second row's
fifth column is padding, re-expressed by leaving it out); ``exp=True`` (the default) is gain
``2^y - 1`` (profile ``pytorchltr``), ``exp=False`` gain ``y`` (``pytorchltr-linear``); ARP
(``evaluation/arp.py``) under ``pytorchltr``, one value per list.
"""

from __future__ import annotations

import math

from peer_harvest import Case, lists

REPO = "rjagerman/pytorchltr"
DCG = "tests/evaluation/test_dcg.py"
ARP = "tests/evaluation/test_arp.py"

SCORES = lists((10.0, 5.0, 2.0, 3.0, 4.0), (5.0, 6.0, 4.0, 2.0))
YS = lists((0, 1, 1, 0, 1), (3, 1, 0, 1))
ALL = lists((1, 1, 1, 1, 1), (1, 1, 1, 1))
NONE = lists((0, 0, 0, 0, 0), (0, 0, 0, 0))


def _case(test: str, metric: str, profile: str, labels: tuple[tuple[float, ...], ...],
          values: tuple[float, ...]) -> Case:
    return Case("pytorchltr", REPO, DCG, test, metric, profile, labels=labels, scores=SCORES,
                per_query=values, tol=1e-5)


_ALL_DCG = sum(1.0 / math.log2(2.0 + i) for i in range(5))
_ALL_DCG4 = sum(1.0 / math.log2(2.0 + i) for i in range(4))
#: test_arp.py's second row (n = 4: its fifth column, label 0, is padding, left out).
ARP_YS = lists((0, 1, 1, 0, 1), (1, 1, 0, 0))


def _arp(test: str, labels: tuple[tuple[float, ...], ...], values: tuple[float, ...]) -> Case:
    return Case("pytorchltr", REPO, ARP, test, "arp", "pytorchltr", labels=labels, scores=SCORES,
                per_query=values, tol=1e-6,
                note="pytorchltr/evaluation/arp.py at 625416e masks the padded documents' "
                "relevance to 0 (line 38), so the padding column is left out here")


CASES: list[Case] = [
    _case("test_dcg3", "dcg@3", "pytorchltr", YS, (1.1309297535714575, 5.4165082750002025)),
    _case("test_ndcg3", "ndcg@3", "pytorchltr", YS,
          (1.1309297535714575 / 2.1309297535714578, 5.4165082750002025 / 8.130929753571458)),
    _case("test_dcg5_exp", "dcg@5", "pytorchltr", YS, (1.5177825608059992, 5.847184833073595)),
    _case("test_ndcg5_exp", "ndcg@5", "pytorchltr", YS,
          (1.5177825608059992 / 2.1309297535714578, 5.847184833073595 / 8.130929753571458)),
    _case("test_dcg5_nonexp", "dcg@5", "pytorchltr-linear", YS,
          (1.5177825608059992, 3.3234658187877653)),
    _case("test_ndcg5_nonexp", "ndcg@5", "pytorchltr-linear", YS,
          (1.5177825608059992 / 2.1309297535714578, 3.3234658187877653 / 4.130929753571458)),
    _case("test_dcg_all_relevant", "dcg@5", "pytorchltr-linear", ALL, (_ALL_DCG, _ALL_DCG4)),
    _case("test_ndcg_all_relevant", "ndcg@5", "pytorchltr-linear", ALL, (1.0, 1.0)),
    _case("test_dcg_no_relevant", "dcg@5", "pytorchltr-linear", NONE, (0.0, 0.0)),
    _case("test_ndcg_no_relevant", "ndcg@5", "pytorchltr-linear", NONE, (0.0, 0.0)),
    _arp("test_arp", ARP_YS, (3.333333333, 1.5)),
    _arp("test_arp_all_relevant", ALL, (3.0, 2.5)),
    _arp("test_arp_no_relevant", NONE, (0.0, 0.0)),
]
