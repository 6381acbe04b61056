"""alpha-nDCG and alpha-DCG (bench.metrics.diversity): golden values from the paper's arithmetic,
from pyndeval (ndeval, the TREC Web track's evaluator, as ir_measures runs it) and from the slow
oracle of tests/diversity_oracle.py; properties with hypothesis."""

from __future__ import annotations

import math
import random
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.errors import ConfigError
from bench.metrics import evaluate
from bench.metrics.trec import evaluate_trec
from tests.diversity_oracle import alpha_ndcg as oracle_alpha_ndcg

Qrel = tuple[str, str, str, int]
ScoredDoc = tuple[str, str, float]


def _files(tmp: Path, qrels: list[Qrel], run: list[ScoredDoc]) -> tuple[str, str]:
    q, r = tmp / "qrels.txt", tmp / "run.txt"
    q.write_text("".join(f"{a} {b} {c} {e}\n" for a, b, c, e in qrels))
    r.write_text("".join(f"{a} Q0 {b} {i + 1} {s!r} tag\n" for i, (a, b, s) in enumerate(run)))
    return str(q), str(r)


def _per_query(qrels: str, run: str, metrics: str, **kw: object) -> dict[str, dict[str, float]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # qrels queries without a run line: said, not tested here
        res = evaluate_trec(qrels, run, metrics=metrics, per_query=True, **kw)  # type: ignore[arg-type]
    assert res.per_query is not None
    table = res.per_query.set_index("qid")
    return {str(q): {c: float(v) for c, v in row.items()} for q, row in table.iterrows()}


def test_hand_worked_example_follows_the_papers_definition(tmp_path: Path) -> None:
    """Clarke et al. (SIGIR 2008), section 4: gain (1 - alpha)^c per covered subtopic, c the
    documents above covering it, discount 1/log2(i + 2) (i 0-based), alpha = 0.5.

    run d1 {1, 2}, d2 {1}, d3 {3}:
      i=0 d1: 0.5^0 + 0.5^0 = 2          * 1           = 2
      i=1 d2: 0.5^1 (subtopic 1 seen)    * 1/log2(3)   = 0.5 / 1.5849625 = 0.3154649
      i=2 d3: 0.5^0                      * 1/log2(4)   = 0.5
      alpha-DCG@3 = 2.8154649
    greedy ideal: d1 (2), then d3 (1 > d2's 0.5), then d2 (0.5):
      2 + 1/log2(3) + 0.5 * 0.5 = 2 + 0.6309298 + 0.25 = 2.8809298
    alpha-nDCG@3 = 2.8154649 / 2.8809298 = 0.9772765
    """
    qrels = [("1", "1", "d1", 1), ("1", "2", "d1", 1), ("1", "1", "d2", 1), ("1", "3", "d3", 1)]
    run = [("1", "d1", 3.0), ("1", "d2", 2.0), ("1", "d3", 1.0)]
    q, r = _files(tmp_path, qrels, run)
    got = _per_query(q, r, "alpha_dcg@3,alpha_ndcg@3,alpha_ndcg@1")["1"]
    dcg = 2 + 0.5 / math.log2(3) + 1 / math.log2(4)
    ideal = 2 + 1 / math.log2(3) + 0.5 / math.log2(4)
    assert got["alpha_dcg@3"] == pytest.approx(2.8154649, abs=1e-7)
    assert got["alpha_dcg@3"] == pytest.approx(dcg, rel=1e-15)
    assert got["alpha_ndcg@3"] == pytest.approx(dcg / ideal, rel=1e-15)
    assert got["alpha_ndcg@3"] == pytest.approx(0.9772765, abs=1e-7)
    assert got["alpha_ndcg@1"] == 1.0  # d1 is the greedy ideal's first document


pyndeval = pytest.importorskip("pyndeval", reason="pyndeval (ndeval) is the golden tool")


def _pyndeval(qrels: list[Qrel], run: list[ScoredDoc], ks: list[int], alpha: float = 0.5,
              measure: str = "alpha-nDCG") -> dict[str, dict[str, float]]:
    run_sorted = sorted(run, key=lambda x: x[0])  # pyndeval reads one query's lines together
    out = pyndeval.ndeval(qrels, run_sorted, [f"{measure}@{k}" for k in ks], alpha=alpha)
    return {q: {f"@{k}": v[f"{measure}@{k}"] for k in ks} for q, v in out.items()}


def test_greedy_ideal_gives_ties_to_the_largest_document_id_and_can_be_beaten(
        tmp_path: Path) -> None:
    """ndeval's ideal is greedy (idealResult): a, b, c all gain 2 at rank 1 and the tie goes to
    the largest id, c {2, 3}; then a and b gain 1.5. The run a, b gains 2 + 2/log2(3): above its
    "ideal", alpha-nDCG@2 = (2 + 2/log2 3) / (2 + 1.5/log2 3) = 1.107068 > 1 in ndeval too."""
    qrels = [("1", "1", "a", 1), ("1", "2", "a", 1), ("1", "3", "b", 1), ("1", "4", "b", 1),
             ("1", "2", "c", 1), ("1", "3", "c", 1)]
    run = [("1", "a", 2.0), ("1", "b", 1.0)]
    q, r = _files(tmp_path, qrels, run)
    got = _per_query(q, r, "alpha_nDCG@2")["1"]["alpha_nDCG@2"]
    want = (2 + 2 / math.log2(3)) / (2 + 1.5 / math.log2(3))
    assert got == pytest.approx(want, rel=1e-14)
    assert got == pytest.approx(_pyndeval(qrels, run, [2])["1"]["@2"], rel=1e-14)
    assert got > 1.0


def test_equals_pyndeval_per_query_with_ties_unjudged_and_queries_without_a_run(
        tmp_path: Path) -> None:
    """Hand-made: tied scores (ir_measures' alpha_nDCG orders them by document id ascending,
    pyndeval's sort), an unjudged document, a graded judgment (2 counts as relevant), a query
    whose judgments are all 0 (ndeval scores it 0), a qrels query without a run line (0 in
    ir_measures) and a run query without qrels (ignored)."""
    qrels = [("1", "1", "a", 1), ("1", "2", "a", 2), ("1", "2", "b", 1), ("1", "3", "c", 1),
             ("1", "1", "d", 0), ("2", "1", "x", 1), ("2", "2", "y", 1), ("3", "1", "z", 0),
             ("5", "1", "m", 1)]
    run = [("1", "b", 3.0), ("1", "a", 2.0), ("1", "c", 2.0), ("1", "u", 2.0), ("1", "d", 1.0),
           ("2", "y", 1.0), ("2", "q", 0.5), ("3", "z", 1.0), ("4", "y", 1.0)]
    q, r = _files(tmp_path, qrels, run)
    ks = [1, 2, 3, 4, 5, 10, 20]
    got = _per_query(q, r, ",".join(f"alpha_nDCG@{k}" for k in ks))
    want = _pyndeval(qrels, run, ks)
    assert set(got) == {"1", "2", "3", "5"}
    for qid, values in want.items():
        for k in ks:
            assert got[qid][f"alpha_nDCG@{k}"] == pytest.approx(values[f"@{k}"], abs=1e-15)
    assert all(v == 0.0 for v in got["5"].values())  # no run line: 0 (ir_measures)
    assert all(v == 0.0 for v in got["3"].values())  # no subtopic: 0 (ndeval)


def _random_case(seed: int) -> tuple[list[Qrel], list[ScoredDoc], float]:
    rng = random.Random(seed)
    alpha = rng.choice([0.0, 0.25, 0.5, 0.7, 1.0])
    qrels: list[Qrel] = []
    run: list[ScoredDoc] = []
    for qn in range(1, rng.randint(1, 4) + 1):
        for d in sorted({f"d{rng.randint(0, 12):02d}" for _ in range(rng.randint(1, 10))}):
            for s in range(1, rng.randint(1, 4) + 1):
                if rng.random() < 0.6:
                    qrels.append((str(qn), str(s), d, rng.choice([0, 1, 1, 2])))
        if rng.random() < 0.85:
            for d in sorted({f"d{rng.randint(0, 14):02d}" for _ in range(rng.randint(1, 10))}):
                run.append((str(qn), d, float(rng.randint(0, 3))))
    if not any(s != "0" for _, s, _, _ in qrels) or not {q for q, _, _ in run} & {
            q for q, _, _, _ in qrels}:
        return _random_case(seed + 10_000)
    return qrels, run, alpha


@pytest.mark.parametrize("seed", range(25))
def test_equals_pyndeval_on_random_cases(tmp_path: Path, seed: int) -> None:
    """alpha-nDCG at random alphas; nERR-IA (ir_measures' nERR_IA, pyndeval at alpha 0.5, and
    ltrbench's nerr_ia at the case's alpha under the same order) against pyndeval."""
    qrels, run, alpha = _random_case(seed)
    q, r = _files(tmp_path, qrels, run)
    ks = [1, 2, 3, 5, 10, 20]
    names = [f"alpha_nDCG(alpha={alpha})@{k}" for k in ks] + [f"nERR_IA@{k}" for k in ks] + [
        f"trec_eval-c:nerr_ia({alpha})@{k}" for k in ks]
    got = _per_query(q, r, ",".join(names))
    want = _pyndeval(qrels, run, ks, alpha)
    err = _pyndeval(qrels, run, ks, 0.5, "nERR-IA")
    err_alpha = _pyndeval(qrels, run, ks, alpha, "nERR-IA")
    for qid, values in want.items():
        for k in ks:
            key = f"alpha_nDCG(alpha={alpha})@{k}"
            assert got[qid][key] == pytest.approx(values[f"@{k}"], abs=1e-15), (qid, k)
            assert got[qid][f"nERR_IA@{k}"] == pytest.approx(err[qid][f"@{k}"], abs=1e-15)
            if not any(s1 == s2 and d1 != d2 and qq1 == qq2 == qid for qq1, d1, s1 in run
                       for qq2, d2, s2 in run):  # trec_eval-c: ties by id descending
                assert got[qid][f"trec_eval-c:nerr_ia({alpha})@{k}"] == pytest.approx(
                    err_alpha[qid][f"@{k}"], abs=1e-15)


@pytest.mark.parametrize("seed", range(15))
def test_equals_the_oracle_with_trec_eval_ties_and_cutoffs_beyond_ndevals_20(
        tmp_path: Path, seed: int) -> None:
    """Under the trec_eval profile ties go by document id descending (ndeval -traditional);
    cutoffs past 20 and the whole list are the same definition carried on."""
    qrels, run, alpha = _random_case(seed)
    run = [(q, d, s + 0.5) for q, d, s in run]  # exact in float32 (trec_eval's scores)
    q, r = _files(tmp_path, qrels, run)
    a = "" if alpha == 0.5 else f"({alpha!r})"
    names = [f"alpha_ndcg{a}@1", f"alpha_ndcg{a}@3", f"alpha_ndcg{a}@30", f"alpha_ndcg{a}"]
    got = _per_query(q, r, ",".join([*names, f"nerr_ia{a}@30"]))
    for qid, row in got.items():
        judged = {}
        for qq, s, d, j in qrels:
            if qq == qid and j >= 1:
                judged.setdefault(d, set()).add(int(s))
        scored = {d: s for qq, d, s in run if qq == qid}
        for name, k in zip(names, [1, 3, 30, None], strict=True):
            assert row[name] == pytest.approx(oracle_alpha_ndcg(scored, judged, alpha, k),
                                              abs=1e-15)
        assert row[f"nerr_ia{a}@30"] == pytest.approx(
            oracle_alpha_ndcg(scored, judged, alpha, 30, reciprocal=True), abs=1e-15)


def test_many_queries_at_once_equal_the_oracle_query_by_query(tmp_path: Path) -> None:
    """The greedy ideal advances every query in one step per rank: queries of very different
    sizes (1 to 40 candidates, 1 to 8 subtopics) must not disturb each other."""
    rng = random.Random(7)
    qrels: list[Qrel] = []
    run: list[ScoredDoc] = []
    for qn in range(30):
        docs = [f"d{i:03d}" for i in range(rng.randint(1, 40))]
        for d in docs:
            for s in range(1, rng.randint(1, 8) + 1):
                if rng.random() < 0.4:
                    qrels.append((f"q{qn}", str(s), d, 1))
        for d in rng.sample(docs, rng.randint(1, len(docs))):
            run.append((f"q{qn}", d, float(rng.randint(0, 5)) + 0.5))
    q, r = _files(tmp_path, qrels, run)
    got = _per_query(q, r, "alpha_ndcg@5,alpha_ndcg@20,alpha_ndcg,nerr_ia@10")
    for qid, row in got.items():
        judged: dict[str, set[int]] = {}
        for qq, s, d, _ in qrels:
            if qq == qid:
                judged.setdefault(d, set()).add(int(s))
        scored = {d: sc for qq, d, sc in run if qq == qid}
        for name, k in (("alpha_ndcg@5", 5), ("alpha_ndcg@20", 20), ("alpha_ndcg", None)):
            assert row[name] == pytest.approx(oracle_alpha_ndcg(scored, judged, 0.5, k),
                                              abs=1e-15), (qid, name)
        assert row["nerr_ia@10"] == pytest.approx(
            oracle_alpha_ndcg(scored, judged, 0.5, 10, reciprocal=True), abs=1e-15)


def test_ir_measures_alpha_ndcg_is_what_ir_measures_computes(tmp_path: Path) -> None:
    """ir_measures runs pyndeval with the qrels' iteration column as the subtopic and scores a
    qrels query without a run line 0."""
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run, _ = _random_case(3)
    qrels.append(("9", "1", "zz", 1))  # a query without a run line
    q, r = _files(tmp_path, qrels, run)
    want = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(
        [ir_measures.parse_measure(m) for m in ("alpha_nDCG@5", "alpha_nDCG@10", "nERR_IA@5")],
        [ir_measures.Qrel(a, d, j, s) for a, s, d, j in qrels],
        [ir_measures.ScoredDoc(a, d, s) for a, d, s in run])}
    got = _per_query(q, r, "alpha_nDCG@5,alpha_nDCG@10,nERR_IA@5")
    assert {qid for qid, _ in want} == set(got)
    for (qid, measure), value in want.items():
        assert got[qid][measure] == pytest.approx(value, abs=1e-15)


def test_labelled_rows_have_no_subtopics_and_are_refused() -> None:
    with pytest.raises(ConfigError, match="subtopic qrels"):
        evaluate(np.array([1.0, 0.0]), np.array([0.5, 0.2]), qid=np.array([1, 1]),
                 metrics="alpha_ndcg@10")


# -- properties ------------------------------------------------------------------------------

_DOCS = st.sampled_from([f"d{i}" for i in range(8)])
_JUDGED = st.lists(st.tuples(st.sampled_from(["1", "2"]), st.integers(1, 4), _DOCS,
                             st.integers(0, 2)), min_size=1, max_size=25,
                   unique_by=lambda t: (t[0], t[1], t[2]))
_RUN = st.lists(st.tuples(st.sampled_from(["1", "2"]), _DOCS, st.integers(0, 3)),
                min_size=1, max_size=16, unique_by=lambda t: (t[0], t[1]))


def _case(tmp: Path, judged: list[tuple[str, int, str, int]], scored: list[tuple[str, str, int]]
          ) -> tuple[str, str]:
    qrels = [(q, str(s), d, j) for q, s, d, j in judged]
    if all(s == "0" for _, s, _, _ in qrels):
        qrels.append(("1", "1", "d0", 1))
    qids = {q for q, _, _, _ in qrels}
    run = [(q, d, float(s)) for q, d, s in scored]
    if not {q for q, _, _ in run} & qids:
        run.append((sorted(qids)[0], "d0", 1.0))
    return _files(tmp, qrels, run)


_SETTINGS = settings(max_examples=30, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture])


@_SETTINGS
@given(judged=_JUDGED, scored=_RUN, alpha=st.sampled_from([0.0, 0.3, 0.5, 1.0]))
def test_alpha_ndcg_is_nonnegative_at_most_one_at_rank_one_and_dcg_grows_with_k(
        tmp_path: Path, judged: list[tuple[str, int, str, int]],
        scored: list[tuple[str, str, int]], alpha: float) -> None:
    """Not bounded by 1 beyond rank 1 (the ideal is greedy: see the test above); at rank 1
    the greedy choice is optimal, so alpha-nDCG@1 <= 1; alpha-DCG never decreases with k."""
    q, r = _case(tmp_path, judged, scored)
    a = f"({alpha!r})"
    got = _per_query(q, r, f"alpha_ndcg{a}@1,alpha_ndcg{a}@5,alpha_dcg{a}@2,alpha_dcg{a}@5,"
                           f"alpha_dcg{a},nerr_ia{a}@1")
    for row in got.values():
        assert 0.0 <= row[f"alpha_ndcg{a}@1"] <= 1.0
        assert row[f"nerr_ia{a}@1"] == row[f"alpha_ndcg{a}@1"]  # 1/1 = log(2)/log(2) at rank 1
        assert row[f"alpha_ndcg{a}@5"] >= 0.0
        assert row[f"alpha_dcg{a}@2"] <= row[f"alpha_dcg{a}@5"] <= row[f"alpha_dcg{a}"]


@_SETTINGS
@given(judged=_JUDGED, scored=_RUN)
def test_alpha_zero_is_ndcg_with_the_subtopic_count_as_gain(
        tmp_path: Path, judged: list[tuple[str, int, str, int]],
        scored: list[tuple[str, str, int]]) -> None:
    """With alpha = 0 no gain decays: a document gains the number of subtopics it is relevant
    to, and the greedy ideal sorts by that count, the true ideal. So alpha-nDCG(0)@k is
    trec_eval's ndcg_cut_k of qrels whose relevance is that count (same ties, same queries)."""
    q, r = _case(tmp_path, judged, scored)
    counts: dict[tuple[str, str], int] = {}
    for line in Path(q).read_text().splitlines():
        qid, _, d, j = line.split()
        counts[(qid, d)] = counts.get((qid, d), 0) + (int(j) >= 1)
    plain = tmp_path / "plain.txt"
    plain.write_text("".join(f"{qid} 0 {d} {c}\n" for (qid, d), c in counts.items()))
    got = _per_query(q, r, "alpha_ndcg(0.0)@3,alpha_ndcg(0.0)@10")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = evaluate_trec(str(plain), r, metrics="ndcg_cut_3,ndcg_cut_10", per_query=True)
    assert ref.per_query is not None
    table = ref.per_query.set_index("qid")
    for qid, row in got.items():
        assert row["alpha_ndcg(0.0)@3"] == pytest.approx(table.loc[qid, "ndcg_cut_3"], abs=1e-12)
        assert row["alpha_ndcg(0.0)@10"] == pytest.approx(table.loc[qid, "ndcg_cut_10"],
                                                          abs=1e-12)


@_SETTINGS
@given(judged=_JUDGED, scored=_RUN, seed=st.integers(0, 1000))
def test_line_order_of_either_file_changes_nothing(
        tmp_path: Path, judged: list[tuple[str, int, str, int]],
        scored: list[tuple[str, str, int]], seed: int) -> None:
    q, r = _case(tmp_path, judged, scored)
    names = "alpha_ndcg@3,alpha_ndcg@10,alpha_nDCG@5,alpha_dcg@4"
    def seen() -> dict[str, dict[str, str]]:  # NaN (a query left out) equal to itself
        return {qid: {m: repr(v) for m, v in row.items()}
                for qid, row in _per_query(q, r, names).items()}

    first = seen()
    rng = random.Random(seed)
    for path in (q, r):
        lines = Path(path).read_text().splitlines(keepends=True)
        rng.shuffle(lines)
        Path(path).write_text("".join(lines))
    assert seen() == first
