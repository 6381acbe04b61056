"""TREC qrels/run readers and ``evaluate_trec`` against pytrec_eval (trec_eval 9.0.8)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bench.data.trec import read_qrels, read_run
from bench.errors import DataError
from bench.metrics import evaluate_trec

PAIRS = {
    "ndcg": "ndcg", "ndcg_cut_1": "ndcg@1", "ndcg_cut_3": "ndcg@3", "ndcg_cut_10": "ndcg@10",
    "map": "map", "map_cut_3": "map@3", "map_cut_10": "map@10", "P_1": "p@1", "P_5": "p@5",
    "P_30": "p@30", "recall_5": "recall@5", "recall_30": "recall@30", "recip_rank": "mrr",
}


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_read_qrels_and_run(tmp_path: Path) -> None:
    q = read_qrels(_write(tmp_path / "q", "1 0 a 2\n\n1 0 b 0\n2 0 a -1\n"))
    assert q.qid.tolist() == ["1", "1", "2"]
    assert q.rel.tolist() == [2, 0, -1]
    assert len(q) == 3
    r = read_run(_write(tmp_path / "r", "1 Q0 a 1 3.5 x\r\n1 Q0 b 2 -1e3 x\n"))
    assert r.docno.tolist() == ["a", "b"]
    assert r.score.tolist() == [3.5, -1000.0]
    assert r.rank.tolist() == [1, 2]
    assert r.tag.tolist() == ["x", "x"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1 Q0 a 1 0.5 x\n1 Q0 b 2 0.4\n", r"r:2: expected 6 fields"),
        ("1 Q0 a 1 0.5 x\n1 Q0 b two 0.4 x\n", r"r:2, column 'rank': rank 'two' is not an integer"),
        ("1 Q0 a 1 high x\n", r"r:1, column 'score': score 'high' is not a plain decimal number"),
        ("1 Q0 a 1 nan x\n", r"r:1, column 'score': score 'nan' is not a plain decimal number"),
        ("1 Q0 a 1 0_4 x\n", r"r:1, column 'score': score '0_4' is not a plain decimal number"),
        ("1 Q0 a 1 0x1p-2 x\n", r"r:1, column 'score': score '0x1p-2' is not a plain decimal"),
        ("1 Q0 a 1 Infinity x\n", r"r:1, column 'score': score 'Infinity' is not a plain decimal"),
        ("1 Q0 a 1 1e400 x\n", r"r:1, column 'score': score '1e400' is beyond the range of a float64"),
        ("1 Q0 a 1_0 0.5 x\n", r"r:1, column 'rank': rank '1_0' is not an integer"),
        ("1 Q0 a 100000000000000000000 0.5 x\n",
         r"r:1, column 'rank': rank '100000000000000000000' is out of range"),
        ("1 Q0 a 1 0.5 x\n2 Q0 a 1 0.5 x\n\n1 Q0 a 3 0.1 x\n",
         r"r:4: duplicate document 'a' for query '1' \(first on line 1\)"),
        ("\n\n", r"r: empty run file"),
    ],
)
def test_malformed_run_lines_name_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(DataError, match=message):
        read_run(_write(tmp_path / "r", text))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1 0 a\n", r"q:1: expected 4 fields"),
        ("1 0 a 1.5\n", r"q:1, column 'rel': relevance '1.5' is not an integer"),
        ("1 0 a 1_0\n", r"q:1, column 'rel': relevance '1_0' is not an integer"),
        ("1 0 a 0x1\n", r"q:1, column 'rel': relevance '0x1' is not an integer"),
        ("1 0 a \u0661\n", r"q:1, column 'rel': relevance '\u0661' is not an integer"),
        ("1 0 a 100000000000000000000\n",
         r"q:1, column 'rel': relevance '100000000000000000000' is out of range"),
        ("1 0 a 1\n1 0 a 2\n", r"q:2: document 'a' is judged twice for query '1' \(first on line 1\)"),
        ("", r"q: empty qrels file"),
    ],
)
def test_malformed_qrels_lines_name_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(DataError, match=message):
        read_qrels(_write(tmp_path / "q", text))


def test_utf8_byte_order_mark_is_skipped_not_read_into_the_first_query_id(tmp_path: Path) -> None:
    bom = b"\xef\xbb\xbf"
    (tmp_path / "q").write_bytes(bom + b"1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_bytes(bom + b"1 Q0 a 1 0.5 x\n1 Q0 b 2 0.4 x\n")
    assert read_qrels(tmp_path / "q").qid.tolist() == ["1", "1"]
    assert read_run(tmp_path / "r").qid.tolist() == ["1", "1"]


def test_utf16_file_is_refused_with_the_conversion_to_use(tmp_path: Path) -> None:
    (tmp_path / "r").write_bytes("1 Q0 a 1 0.5 x\n".encode("utf-16"))
    with pytest.raises(DataError, match=r"r:1: the file is UTF-16 .*expected UTF-8.*iconv"):
        read_run(tmp_path / "r")


def test_invalid_utf8_names_its_line(tmp_path: Path) -> None:
    (tmp_path / "q").write_bytes(b"1 0 a 1\n1 0 \xff 0\n")
    with pytest.raises(DataError, match=r"q:2: not UTF-8 text \(byte 0xff at column 5\)"):
        read_qrels(tmp_path / "q")


def test_a_directory_is_not_a_run_file(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="is a directory: expected a TREC text file"):
        read_run(tmp_path)


def test_missing_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no such file"):
        read_run(tmp_path / "nope")


def _random_trec(tmp_path: Path, seed: int) -> tuple[Path, Path, dict, dict]:
    """Qrels with relevant documents the run misses, run documents without judgments, a run
    query without qrels, a qrels query without run, ties (also created by float32 rounding)."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    q_lines, r_lines = [], []
    for q in range(40):
        qid = f"Q{q:03d}"
        n_docs = int(rng.integers(1, 25))
        docs = [f"D{rng.integers(0, 10**5)}-{q}-{i}" for i in range(n_docs + 5)]
        judged = rng.random(len(docs)) < 0.75
        rels = rng.integers(0, 4, len(docs)) * (rng.random(len(docs)) < 0.6)
        if q % 7 == 0:
            rels[:] = 0  # nothing relevant
        if q != 39:  # Q039 has no qrels: trec_eval skips it
            for d, j, r in zip(docs, judged, rels, strict=True):
                if j:
                    qrels.setdefault(qid, {})[d] = int(r)
                    q_lines.append(f"{qid} 0 {d} {int(r)}\n")
        retrieved = docs[:n_docs]  # the last five documents are never retrieved
        scores = np.round(rng.normal(size=n_docs), 1) + rng.choice([0.0, 1e-9], n_docs)
        for rank, (d, s) in enumerate(zip(retrieved, scores, strict=True), start=1):
            run.setdefault(qid, {})[d] = float(s)
            r_lines.append(f"{qid} Q0 {d} {rank} {float(s)!r} tag\n")
    q_lines.append("Q999 0 lonely 1\n")  # judged query without a run: ignored
    qrels.setdefault("Q999", {})["lonely"] = 1
    rng.shuffle(r_lines)  # run files need not be grouped by query
    return _write(tmp_path / "qrels", "".join(q_lines)), _write(tmp_path / "run", "".join(r_lines)), qrels, run


@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_evaluate_trec_equals_pytrec_eval_per_query(tmp_path: Path, backend: str) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels_path, run_path, qrels, run = _random_trec(tmp_path, 21)
    measures = {"ndcg", "ndcg_cut.1,3,10", "map", "map_cut.3,10", "P.1,5,30", "recall.5,30", "recip_rank"}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    ours = evaluate_trec(qrels_path, run_path, metrics=list(PAIRS.values()), per_query=True,
                         backend=backend)
    assert ours.diagnostics.backend == backend
    table = ours.per_query
    assert table is not None
    assert table["qid"].tolist() == sorted(theirs)  # Q039 (no qrels) and Q999 (no run) are out
    for trec_name, name in PAIRS.items():
        per_q = np.array([theirs[q][trec_name] for q in table["qid"]])
        np.testing.assert_allclose(table[name].to_numpy(), per_q, rtol=0, atol=1e-9, err_msg=name)
        assert ours.metrics[name] == pytest.approx(per_q.mean(), abs=1e-9)
    assert ours.diagnostics.n_blank > 0
    assert ours.diagnostics.n_queries_with_ties_in_topk > 0


def test_list_basis_profiles_ignore_documents_the_run_did_not_retrieve(tmp_path: Path) -> None:
    """Under LightGBM's convention the ideal DCG uses the scored list only."""
    qrels = _write(tmp_path / "q", "1 0 a 1\n1 0 b 0\n1 0 c 3\n")
    run = _write(tmp_path / "r", "1 Q0 a 1 2.0 x\n1 Q0 b 2 1.0 x\n")
    trec = evaluate_trec(qrels, run, metrics="ndcg@2 recall@2").metrics
    lgb = evaluate_trec(qrels, run, metrics="ndcg@2 recall@2", profile="lightgbm").metrics
    assert lgb["ndcg@2"] == 1.0
    assert trec["ndcg@2"] == pytest.approx(1 / (3 + 1 / np.log2(3)))
    assert trec["recall@2"] == 0.5
    assert lgb["recall@2"] == 1.0


def test_a_run_without_judged_queries_is_an_error(tmp_path: Path) -> None:
    qrels = _write(tmp_path / "q", "1 0 a 1\n")
    run = _write(tmp_path / "r", "2 Q0 a 1 2.0 x\n")
    with pytest.raises(DataError, match="no query of the run has relevance judgments"):
        evaluate_trec(qrels, run, metrics="ndcg@10")


def test_negative_judgments_count_as_not_relevant_like_trec_eval(tmp_path: Path) -> None:
    """qrels a=-1 (unjudged), b=1, c=2 (not retrieved); run a, b, d. pytrec_eval gives
    ndcg = (1/log2(3)) / (2 + 1/log2(3)) = 0.23981, map = (1/2) / 2, P@2 = recall@2 = 0.5."""
    qrels = _write(tmp_path / "q", "1 0 a -1\n1 0 b 1\n1 0 c 2\n")
    run = _write(tmp_path / "r", "1 Q0 a 1 3.0 x\n1 Q0 b 2 2.0 x\n1 Q0 d 3 1.0 x\n")
    m = evaluate_trec(qrels, run, metrics="ndcg map p@2 recall@2").metrics
    d = 1 / np.log2(3)
    assert m["ndcg"] == pytest.approx(d / (2 + d), abs=1e-12)
    assert round(m["ndcg"], 5) == 0.23981
    assert (m["map"], m["p@2"], m["recall@2"]) == (0.25, 0.5, 0.5)


# What trec_eval accepts (usnistgov/trec_eval v10.0; see bench/data/trec.py for the lines):
# '#' comment lines in both files, blank run lines, and any text after a run line's sixth field.
COMMENTED_QRELS = (
    "# judged by assessor 3\n"     # first line (get_qrels.c:137-139 skips a '#' in column 0)
    "1 0 a -1\n"
    "# second block\n"
    "## a second comment line right after\n"
    "1 0 b 1\n"
    "   # an indented comment\n"
    "1 0 c 2\n"
    "# last line, no newline"
)
COMMENTED_RUN = (
    "#run produced by bm25 k1=0.9\n"
    "1 Q0 a 1 3.0 x  extra text that trec_eval ignores\n"  # get_trec_results.c:287-292
    "\n"
    "  # indented comment (get_trec_results.c:152-160 skips blanks, then '#')\n"
    "1 Q0 b 2 2.0 x\t# an inline note after the tag is a trailing field too\n"
    "1 Q0 d 3 1.0 x 7 8 9\n"
)


def test_comment_lines_and_trailing_run_fields_are_read_as_trec_eval_reads_them(
    tmp_path: Path,
) -> None:
    q = read_qrels(_write(tmp_path / "q", COMMENTED_QRELS))
    assert (q.qid.tolist(), q.docno.tolist(), q.rel.tolist()) == (["1"] * 3, ["a", "b", "c"],
                                                                  [-1, 1, 2])
    r = read_run(_write(tmp_path / "r", COMMENTED_RUN))
    assert r.docno.tolist() == ["a", "b", "d"]
    assert r.score.tolist() == [3.0, 2.0, 1.0]
    assert r.tag.tolist() == ["x", "x", "x"]


def test_commented_files_give_the_numbers_of_the_plain_files(tmp_path: Path) -> None:
    """The files of test_negative_judgments_count_as_not_relevant_like_trec_eval with comments
    and trailing fields: the same hand-computed values, ndcg = (1/log2(3)) / (2 + 1/log2(3)),
    map = (1/2) / 2, P@2 = recall@2 = 0.5."""
    qrels = _write(tmp_path / "q", COMMENTED_QRELS)
    run = _write(tmp_path / "r", COMMENTED_RUN)
    m = evaluate_trec(qrels, run, metrics="ndcg map p@2 recall@2").metrics
    d = 1 / np.log2(3)
    assert m["ndcg"] == pytest.approx(d / (2 + d), abs=1e-12)
    assert (m["map"], m["p@2"], m["recall@2"]) == (0.25, 0.5, 0.5)


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        # trec_eval refuses a fifth qrels field (get_qrels.c:255-261): so does ltrbench
        ("q", "# c\n1 0 a 1 # note\n", r"q:2: expected 4 fields 'qid iter docno rel', got 6"),
        ("q", "# c\n\n1 0 a\n", r"q:3: expected 4 fields"),
        # fewer than six run fields: "Malformed line" (get_trec_results.c:244-283)
        ("r", "# c\n1 Q0 a 1 0.5\n", r"r:2: expected 6 fields .*got 5"),
        # the line numbers of errors count comment lines (trec_eval counts data lines only)
        ("r", "# c\n# d\n1 Q0 a 1 0.5 x\n1 Q0 a 2 0.4 x extra\n",
         r"r:4: duplicate document 'a' for query '1' \(first on line 3\)"),
        ("r", "# only comments\n   # and blanks\n\n", r"r: empty run file"),
        ("q", "# only comments\n", r"q: empty qrels file"),
    ],
)
def test_what_trec_eval_refuses_is_refused_with_file_and_line(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    reader = read_qrels if name == "q" else read_run
    with pytest.raises(DataError, match=message):
        reader(_write(tmp_path / name, text))
