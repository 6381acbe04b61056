"""Round 16 of the hostile catalogue (issue 19): a teaching assistant of an IR course who grades
40 students' TREC run files against one qrels file. ``ltrbench evaluate --qrels Q --run A
--run B ...`` (comparisons, ``--per-query``, ``--format json`` for the grading script) and the
Python API (``evaluate_trec``, ``compare_runs``). Students' files are hostile without meaning
to be: tabs and blanks mixed, Windows and old-Mac line ends, byte-order marks and UTF-16,
scores written ``1,5`` / ``1e400`` / ``nan`` / text or as ranks, columns swapped, two runs
concatenated into one file, no-break spaces pasted from a web page, query ids with leading
zeros, runs missing most topics.

Oracles: pytrec_eval (on the clean text, split by Python), hand arithmetic, and "exit 2 and the
message names the file, the line and what was expected".

Found here (failing before, fixed):

* a no-break space (U+00A0) or another Unicode space inside a field was part of the document
  id (trec_eval's reading) while ir_measures and pytrec_eval's ``parse_run`` split the field
  there: the judged document ``a`` became unjudged, exit 0; now refused naming line, column
  and character;
* a score column that rises with the rank column in every query (scores written as ranks or
  distances) or is constant in every query (the ranking left to the rank column) was graded
  by score without a word (trec_eval does the same): now a warning names the run and says what
  the scores do;
* docno and ``Q0`` swapped (``1 doc7 Q0 1 0.9 t``) made every document the unjudged ``Q0``
  (exit 0 with one document a query); now refused naming the line and the columns;
* a run file holding two run tags (two students' or two systems' runs concatenated) was read
  as one run without a word; now a warning names the tags and their first lines, and a
  duplicate document whose two lines carry different tags says so;
* "the runs have no query in common" did not say which runs: with 40 students the TA could
  not find the file; it now names the runs with the fewest queries and ``--missing zero``;
* rank and score swapped (``1 Q0 a 0.93 1 t``), an MS MARCO run (``qid docid rank``) and a run
  appended to itself (``cat run run``) now say so in their error;
* a run none of whose documents the qrels judge (``doc7.txt`` beside ``doc7``) was graded 0
  without a word: now a warning names a document of each side;
* names made up for shared file stems took another student's own stem (``ann.run``,
  ``ann.txt``, ``ann-2.run`` printed ``ann-2`` for ann.txt and ``ann-2-2`` for ann-2.run);
* a run DataFrame's rank column is read against its scores as a file's is.
"""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest
from hostile_kit import api_refused, call, cli, csv_values, refused

pytrec_eval = pytest.importorskip("pytrec_eval")

# Graded judgments over five topics; topic 5 has no relevant document.
QRELS = ("1 0 a 2\n1 0 b 0\n1 0 c 1\n1 0 d 0\n"
         "2 0 e 1\n2 0 f 0\n2 0 g 2\n"
         "3 0 h 1\n3 0 i 1\n3 0 j 0\n"
         "4 0 k 3\n4 0 l 0\n"
         "5 0 m 0\n5 0 n 0\n")

# Student runs as (query, document, score) in file order; ranks follow the file order.
GOOD = [("1", "b", 0.9), ("1", "a", 0.8), ("1", "x", 0.5), ("1", "c", 0.2),
        ("2", "g", 2.5), ("2", "e", 1.5), ("2", "f", 0.5),
        ("3", "j", 3.0), ("3", "h", 2.0), ("3", "i", 1.0),
        ("4", "l", 0.7), ("4", "k", 0.6),
        ("5", "m", 0.3), ("5", "n", 0.1)]
OTHER = [("1", "a", 0.95), ("1", "c", 0.9), ("1", "b", 0.1),
         ("2", "e", 0.8), ("2", "g", 0.7),
         ("3", "h", 0.6), ("3", "j", 0.5), ("3", "i", 0.4),
         ("4", "k", 0.9),
         ("5", "n", 0.2)]


def run_text(rows: list[tuple[str, str, float]], tag: str = "t", *, sep: str = " ",
             end: str = "\n") -> str:
    ranks: dict[str, int] = {}
    lines = []
    for q, d, s in rows:
        ranks[q] = ranks.get(q, 0) + 1
        lines.append(sep.join([q, "Q0", d, str(ranks[q]), repr(s), tag]))
    return end.join(lines) + end


def _rows(text: str, cast: type) -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {}
    for line in text.splitlines():
        f = line.split()
        if f and not f[0].startswith("#"):
            out.setdefault(f[0], {})[f[2]] = cast(f[3] if len(f) == 4 else f[4])
    return out


def pte_q(measure: str, run: str, qrels: str = QRELS) -> dict[str, float]:
    stem, _, tail = measure.rpartition("_")
    base = f"{stem}.{tail}" if stem and tail.isdigit() else measure
    got = pytrec_eval.RelevanceEvaluator(_rows(qrels, int), {base}).evaluate(_rows(run, float))
    return {q: v[measure] for q, v in got.items()}


def pte(measure: str, run: str, qrels: str = QRELS, *, over: list[str] | None = None) -> float:
    """pytrec_eval's mean over the run's judged queries, or over ``over`` (missing: 0)."""
    per = pte_q(measure, run, qrels)
    keys = over if over is not None else list(per)
    return sum(per.get(q, 0.0) for q in keys) / len(keys)


@pytest.fixture
def d(tmp_path: Path) -> Path:
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "good.run").write_text(run_text(GOOD, "good"))
    (tmp_path / "other.run").write_text(run_text(OTHER, "other"))
    return tmp_path


def _lacks(text: str, *words: str) -> list[str]:
    return [w for w in words if w not in text]


def _put(d: Path, name: str, data: str | bytes) -> str:
    (d / name).write_bytes(data.encode() if isinstance(data, str) else data)
    return name


def _one(d: Path, run: str, *metrics: str, extra: tuple[str, ...] = ()) -> object:
    return cli(d, "evaluate", "--qrels", "qrels.txt", "--run", run, "--metrics", *metrics,
               "--format", "csv", *extra)


def _compare(d: Path, *runs: str, metrics: tuple[str, ...] = ("map",),
             extra: tuple[str, ...] = ()) -> object:
    argv = ["evaluate", "--qrels", "qrels.txt"]
    for r in runs:
        argv += ["--run", r]
    return cli(d, *argv, "--metrics", *metrics, "--format", "json", *extra)


def _doc(res: object) -> dict:  # type: ignore[type-arg]
    assert res.status == 0, (res.status, res.err[-800:])  # type: ignore[attr-defined]
    return json.loads(res.out, parse_constant=_no_constant)  # type: ignore[attr-defined, no-any-return]


def _no_constant(name: str) -> float:
    raise AssertionError(f"the JSON holds {name}, which strict JSON parsers (jq, JavaScript) refuse")


def _means(doc: dict, metric: str) -> dict[str, float]:  # type: ignore[type-arg]
    return {r["name"]: r["metrics"][metric]["mean"] for r in doc["runs"]}


def _same_as_good(d: Path, name: str, data: str | bytes, *measures: str) -> None:
    _put(d, name, data)
    res = _one(d, name, *measures)
    assert res.status == 0, res.err[-600:]  # type: ignore[attr-defined]
    got = csv_values(res)  # type: ignore[arg-type]
    clean = run_text(GOOD)
    for m in measures:
        assert got[m] == pytest.approx(pte(m, clean), rel=1e-12, abs=1e-15), m


CLASSES: dict[str, str] = {}


def _cls(name: str):  # type: ignore[no-untyped-def]
    def mark(fn):  # type: ignore[no-untyped-def]
        CLASSES[fn.__name__] = name
        return fn
    return mark


# ------------------------------------------------------------ files that read as the clean one
@_cls("silently wrong numbers")
def test_tabs_blank_runs_crlf_and_no_final_newline_read_as_the_clean_run(d: Path) -> None:
    text = run_text(GOOD, sep=" \t ", end="\r\n").rstrip("\r\n") + "  \t"
    _same_as_good(d, "messy.run", text, "ndcg_cut_10", "map", "P_5")


@_cls("silently wrong numbers")
def test_an_old_mac_run_with_a_byte_order_mark_reads_as_the_clean_run(d: Path) -> None:
    data = b"\xef\xbb\xbf" + run_text(GOOD, end="\r").encode()
    _same_as_good(d, "mac.run", data, "ndcg_cut_10", "recip_rank")


@_cls("silently wrong numbers")
def test_a_students_comment_after_the_tag_is_ignored_as_trec_eval_ignores_it(d: Path) -> None:
    text = "".join(line + " # my best run, v2\n" for line in run_text(GOOD).splitlines())
    _same_as_good(d, "comment.run", text, "ndcg_cut_10", "map")


@_cls("silently wrong numbers")
def test_comment_and_blank_lines_between_queries_change_nothing(d: Path) -> None:
    lines = run_text(GOOD).splitlines()
    text = "# student 17\n\n" + "\n".join(lines[:7]) + "\n   \n  # topic 3 on\n" + \
        "\n".join(lines[7:]) + "\n"
    _same_as_good(d, "blanks.run", text, "ndcg_cut_10", "P_5")


@_cls("silently wrong numbers")
def test_plus_signs_leading_dots_and_exponents_are_the_numbers_they_spell(d: Path) -> None:
    rows = [("1", "b", "+0.9"), ("1", "a", ".8"), ("1", "x", "5E-1"), ("1", "c", "2.e-1"),
            ("2", "g", "2.5"), ("2", "e", "15e-1"), ("2", "f", "0.5")]
    text = "".join(f"{q} Q0 {doc} {i} {s} t\n" for i, (q, doc, s) in enumerate(rows, 1))
    _put(d, "spell.run", text)
    res = _one(d, "spell.run", "ndcg_cut_10", "map")
    assert res.status == 0, res.err[-400:]  # type: ignore[attr-defined]
    for m in ("ndcg_cut_10", "map"):
        assert csv_values(res)[m] == pytest.approx(pte(m, text), rel=1e-12)  # type: ignore[arg-type]


@_cls("silently wrong numbers")
def test_a_query_split_over_two_blocks_of_the_file_is_one_query_as_in_pytrec_eval(d: Path) -> None:
    rows = GOOD[:2] + GOOD[4:7] + GOOD[2:4] + GOOD[7:]  # topic 1's tail after topic 2
    _same_as_good(d, "split.run", run_text(rows), "ndcg_cut_10", "map", "P_5")


@_cls("silently wrong numbers")
def test_all_ranks_zero_with_real_scores_is_graded_by_score_without_a_warning(d: Path) -> None:
    text = "".join(f"{q} Q0 {doc} 0 {s!r} t\n" for q, doc, s in GOOD)
    _put(d, "zero.run", text)
    res = _one(d, "zero.run", "ndcg_cut_10")
    assert res.status == 0, res.err[-400:]  # type: ignore[attr-defined]
    assert csv_values(res)["ndcg_cut_10"] == pytest.approx(pte("ndcg_cut_10", text), rel=1e-12)  # type: ignore[arg-type]
    assert "rank" not in res.err.lower(), res.err  # type: ignore[attr-defined]


# ---------------------------------------------------- the score column is not a score (warned)
@_cls("silent accepts")
def test_scores_written_as_ranks_are_graded_by_score_and_the_run_is_warned(d: Path) -> None:
    ranks: dict[str, int] = {}
    lines = []
    for q, doc, _ in GOOD:
        ranks[q] = ranks.get(q, 0) + 1
        lines.append(f"{q} Q0 {doc} {ranks[q]} {ranks[q]} t")
    text = "\n".join(lines) + "\n"
    _put(d, "asrank.run", text)
    res = _one(d, "asrank.run", "ndcg_cut_10")
    assert res.status == 0, res.err[-400:]  # type: ignore[attr-defined]
    assert csv_values(res)["ndcg_cut_10"] == pytest.approx(pte("ndcg_cut_10", text), rel=1e-12)  # type: ignore[arg-type]
    err = res.err  # type: ignore[attr-defined]
    assert not _lacks(err, "asrank.run", "rank", "score"), err


@_cls("silent accepts")
def test_distances_lower_is_better_are_warned_in_a_comparison_naming_the_run(d: Path) -> None:
    ranks: dict[str, int] = {}
    lines = []
    for q, doc, _ in GOOD:
        ranks[q] = ranks.get(q, 0) + 1
        lines.append(f"{q} Q0 {doc} {ranks[q]} {0.25 * ranks[q] + 0.1 * int(q)} t")
    _put(d, "dist.run", "\n".join(lines) + "\n")
    res = _compare(d, "good.run", "dist.run")
    _doc(res)
    assert not _lacks(res.err, "dist.run", "rank"), res.err  # type: ignore[attr-defined]


@_cls("silent accepts")
def test_one_constant_score_per_query_with_distinct_ranks_is_warned(d: Path) -> None:
    ranks: dict[str, int] = {}
    lines = []
    for q, doc, _ in GOOD:
        ranks[q] = ranks.get(q, 0) + 1
        lines.append(f"{q} Q0 {doc} {ranks[q]} 1 t")
    text = "\n".join(lines) + "\n"
    _put(d, "flat.run", text)
    res = _one(d, "flat.run", "ndcg_cut_10", "map")
    assert res.status == 0, res.err[-400:]  # type: ignore[attr-defined]
    for m in ("ndcg_cut_10", "map"):  # trec_eval's ties: document id descending
        assert csv_values(res)[m] == pytest.approx(pte(m, text), rel=1e-12)  # type: ignore[arg-type]
    assert not _lacks(res.err, "flat.run", "tie"), res.err  # type: ignore[attr-defined]


@_cls("silent accepts")
def test_a_run_frame_whose_scores_rise_with_its_rank_column_is_warned_as_a_file_is() -> None:
    import warnings

    import pandas as pd

    from bench.data.trec_lines import RunFileWarning
    from bench.metrics import evaluate_trec

    qrels = _rows(QRELS, int)
    frame = pd.DataFrame([(q, doc, i, float(i)) for i, (q, doc, _) in enumerate(GOOD, 1)],
                         columns=["qid", "docno", "rank", "score"])
    frame["rank"] = frame.groupby("qid").cumcount() + 1
    frame["score"] = frame["rank"].astype(float)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = evaluate_trec(qrels, frame, metrics="map")
    assert any(issubclass(w.category, RunFileWarning) and "run DataFrame" in str(w.message)
               for w in caught), [str(w.message) for w in caught]
    text = "".join(f"{q} Q0 {doc} {r} {r} t\n" for q, doc, r in
                   frame[["qid", "docno", "rank"]].itertuples(index=False))
    assert got.metrics["map"] == pytest.approx(pte("map", text), rel=1e-12)


@_cls("silent accepts")
def test_a_run_whose_ranks_disagree_only_somewhere_is_not_warned(d: Path) -> None:
    text = run_text(GOOD).replace("1 Q0 a 2 0.8", "1 Q0 a 3 0.8").replace("1 Q0 x 3 0.5",
                                                                          "1 Q0 x 2 0.5")
    _put(d, "mostly.run", text)
    res = _one(d, "mostly.run", "map")
    assert res.status == 0, res.err  # type: ignore[attr-defined]
    assert "rank" not in res.err.lower(), res.err  # type: ignore[attr-defined]


@_cls("silent accepts")
def test_one_or_two_rising_steps_are_not_read_as_a_pattern(d: Path) -> None:
    text = "1 Q0 a 1 0.4 t\n1 Q0 b 2 0.9 t\n2 Q0 e 1 0.1 t\n2 Q0 g 2 0.3 t\n"
    _put(d, "two.run", text)
    res = _one(d, "two.run", "map")
    assert res.status == 0, res.err  # type: ignore[attr-defined]
    assert csv_values(res)["map"] == pytest.approx(pte("map", text), rel=1e-12)  # type: ignore[arg-type]
    assert "rise with the rank" not in res.err, res.err  # type: ignore[attr-defined]


@_cls("tracebacks")
def test_the_reversed_run_warning_made_an_error_is_one_error_line(d: Path) -> None:
    import contextlib
    import warnings

    from hostile_kit import chdir

    from bench import cli as bench_cli

    _put(d, "rev.run", "".join(f"{q} Q0 {doc} {i} {i} t\n" for i, (q, doc, _) in
                               enumerate(GOOD[:4], 1)))
    out, err = io.StringIO(), io.StringIO()
    with chdir(d), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            status: int | None = bench_cli.main(["evaluate", "--qrels", "qrels.txt", "--run",
                                                 "rev.run", "--metrics", "map"])
        except BaseException as exc:
            status = None
            err.write(f"escaped: {exc!r}")
    assert status == 2, err.getvalue()
    assert err.getvalue().startswith("error: rev.run: "), err.getvalue()
    assert "rise with the rank" in err.getvalue(), err.getvalue()


@_cls("silent accepts")
def test_compare_runs_in_python_warns_of_a_file_holding_two_tags(d: Path) -> None:
    from bench.data.trec_lines import RunFileWarning
    from bench.report.compare_runs import compare_runs

    _put(d, "cat.run", run_text(GOOD[:7], "bm25") + run_text(GOOD[7:], "dense"))
    with pytest.warns(RunFileWarning, match=r"cat\.run.*'bm25' from line 1, 'dense' from line 8"):
        got = compare_runs(d / "qrels.txt", {"cat": d / "cat.run", "o": d / "other.run"},
                           metrics="map")
    assert float(got.mean["map"][0]) == pytest.approx(pte("map", run_text(GOOD)), rel=1e-12)


# ----------------------------------------------------------------------- white space hidden in ids
@_cls("silent accepts")
@pytest.mark.parametrize(("space", "code"), [("\u00a0", "U+00A0"), ("\u3000", "U+3000"),
                                        ("\u2009", "U+2009"), ("\u202f", "U+202F"),
                                        ("\x1f", "U+001F"), ("\u2003", "an em space")])
def test_a_unicode_space_inside_a_document_field_is_refused_naming_it(d: Path, space: str,
                                                                      code: str) -> None:
    text = run_text(GOOD).replace("1 Q0 a 2", f"1 Q0 a{space} 2")
    _put(d, "web.run", text)
    res = _one(d, "web.run", "map")
    assert refused(res, "web.run", ":2", code) is None, res.err[-400:]  # type: ignore[arg-type, attr-defined]


@_cls("silent accepts")
def test_a_no_break_space_between_fields_of_the_qrels_is_refused_naming_the_line(d: Path) -> None:
    _put(d, "qrels.txt", QRELS.replace("3 0 h 1", "3 0 h\u00a01 "))
    res = _one(d, "good.run", "map")
    assert refused(res, "qrels.txt", ":8", "U+00A0") is None, res.err[-400:]  # type: ignore[arg-type, attr-defined]


@_cls("silent accepts")
def test_a_no_break_space_query_id_is_refused_through_the_python_api(d: Path) -> None:
    from bench.metrics import evaluate_trec

    _put(d, "nb.run", run_text(GOOD).replace("4 Q0 k", "4\u00a0 Q0 k"))
    _, exc = call(lambda: evaluate_trec(str(d / "qrels.txt"), str(d / "nb.run"), metrics="map"))
    assert api_refused(exc, "nb.run", ":12", "U+00A0") is None, exc


@_cls("silently wrong numbers")
def test_a_no_break_space_past_the_sixth_field_or_in_a_comment_line_is_not_read(d: Path) -> None:
    lines = run_text(GOOD).splitlines()
    text = "#\u00a0student\u00a017\n" + "\n".join(ln + " # caf\u00e9\u00a0v2" for ln in lines) + "\n"
    _same_as_good(d, "late.run", text, "map", "ndcg_cut_10")


@_cls("silently wrong numbers")
def test_a_zero_width_space_in_a_docno_is_a_different_document_as_in_pytrec_eval(d: Path) -> None:
    text = run_text(GOOD).replace("1 Q0 a 2", "1 Q0 a\u200b 2")  # not white space anywhere
    _put(d, "zw.run", text)
    res = _one(d, "zw.run", "map")
    assert res.status == 0, res.err[-400:]  # type: ignore[attr-defined]
    assert csv_values(res)["map"] == pytest.approx(pte("map", text), rel=1e-12)  # type: ignore[arg-type]


# -------------------------------------------------------------------------- swapped columns
@_cls("silent accepts")
def test_docno_and_q0_swapped_with_one_document_a_query_is_refused(d: Path) -> None:
    _put(d, "swapped.run", "1 a Q0 1 0.9 t\n2 g Q0 1 0.8 t\n3 h Q0 1 0.7 t\n")
    res = _one(d, "swapped.run", "map")
    assert refused(res, "swapped.run", ":1", "Q0", "docno") is None, res.err[-400:]  # type: ignore[arg-type, attr-defined]


@_cls("unclear errors")
def test_docno_and_q0_swapped_in_a_long_run_names_the_swap_not_a_duplicate(d: Path) -> None:
    text = "".join(f"{q} {doc} Q0 {i} {s!r} t\n" for i, (q, doc, s) in enumerate(GOOD, 1))
    _put(d, "swapped.run", text)
    res = _one(d, "swapped.run", "map")
    assert refused(res, "swapped.run", ":1", "swapped") is None, res.err[-400:]  # type: ignore[arg-type, attr-defined]


@_cls("unclear errors")
def test_rank_and_score_swapped_says_they_look_swapped(d: Path) -> None:
    text = "".join(f"{q} Q0 {doc} {s!r} {i} t\n" for i, (q, doc, s) in enumerate(GOOD, 1))
    _put(d, "rs.run", text)
    res = _one(d, "rs.run", "map")
    assert refused(res, "rs.run", ":1", "rank", "swapped") is None, res.err[-400:]  # type: ignore[arg-type, attr-defined]


@_cls("unclear errors")
def test_an_ms_marco_run_is_refused_naming_its_format(d: Path) -> None:
    _put(d, "msmarco.tsv", "1\ta\t1\n1\tb\t2\n2\tg\t1\n")
    res = _one(d, "msmarco.tsv", "map")
    assert refused(res, "msmarco.tsv", ":1", "MS MARCO", "Q0") is None, res.err[-400:]  # type: ignore[arg-type, attr-defined]


@_cls("unclear errors")
def test_five_fields_without_q0_name_the_line_and_the_six_fields(d: Path) -> None:
    _put(d, "noq0.run", "".join(f"{q} {doc} {i} {s!r} t\n" for i, (q, doc, s) in
                                enumerate(GOOD, 1)))
    res = _one(d, "noq0.run", "map")
    assert refused(res, "noq0.run", ":1", "6 fields", "got 5") is None, res.err[-400:]  # type: ignore[arg-type, attr-defined]


@_cls("unclear errors")
def test_a_header_line_from_a_spreadsheet_is_refused_naming_line_one(d: Path) -> None:
    _put(d, "hdr.run", "qid Q0 docno rank score tag\n" + run_text(GOOD))
    res = _one(d, "hdr.run", "map")
    assert refused(res, "hdr.run", ":1", "rank") is None, res.err[-400:]  # type: ignore[arg-type, attr-defined]


# ------------------------------------------------------------------------ two runs in one file
@_cls("silent accepts")
def test_two_runs_concatenated_with_different_tags_are_warned_naming_the_tags(d: Path) -> None:
    text = run_text(GOOD[:7], "bm25") + run_text(GOOD[7:], "dense")
    _put(d, "cat.run", text)
    res = _one(d, "cat.run", "map")
    assert res.status == 0, res.err[-400:]  # type: ignore[attr-defined]
    assert csv_values(res)["map"] == pytest.approx(pte("map", text), rel=1e-12)  # type: ignore[arg-type]
    assert not _lacks(res.err, "cat.run", "'bm25'", "'dense'"), res.err  # type: ignore[attr-defined]


@_cls("unclear errors")
def test_a_duplicate_from_two_concatenated_runs_names_both_tags(d: Path) -> None:
    _put(d, "cat.run", run_text(GOOD, "bm25") + run_text(OTHER, "dense"))
    res = _one(d, "cat.run", "map")
    assert refused(res, "cat.run", "duplicate", "'bm25'", "'dense'") is None, res.err[-400:]  # type: ignore[arg-type, attr-defined]


@_cls("unclear errors")
def test_a_run_appended_to_itself_is_refused_saying_it_repeats(d: Path) -> None:
    _put(d, "twice.run", run_text(GOOD) * 2)
    res = _one(d, "twice.run", "map")
    assert refused(res, f"twice.run:{len(GOOD) + 1}", "duplicate", "first on line 1",
                   "copy of itself") is None, res.err[-400:]  # type: ignore[arg-type, attr-defined]


@_cls("silent accepts")
def test_one_tag_throughout_is_not_warned(d: Path) -> None:
    res = _one(d, "good.run", "map")
    assert res.status == 0, res.err  # type: ignore[attr-defined]
    assert "tag" not in res.err, res.err  # type: ignore[attr-defined]


# ------------------------------------------------------------------------- refused numbers
@_cls("unclear errors")
@pytest.mark.parametrize(("score", "words"), [("1,5", ("decimal comma",)), ("1e400", ("float64",)),
                                         ("-1e400", ("float64",)), ("NaN", ("plain decimal",)),
                                         ("-Infinity", ("plain decimal",)),
                                         ("high", ("plain decimal",)), ("0x1p3", ("hex",)),
                                         ("1.5.2", ("plain decimal",))])
def test_a_bad_score_in_the_third_of_three_runs_names_that_run_line_and_column(
        d: Path, score: str, words: tuple[str, ...]) -> None:
    _put(d, "bad.run", run_text(OTHER).replace("3 Q0 j 2 0.5", f"3 Q0 j 2 {score}"))
    res = _compare(d, "good.run", "other.run", "bad.run")
    assert refused(res, "bad.run:7", "score", *words) is None, res.err[-400:]  # type: ignore[arg-type, attr-defined]


@_cls("silently wrong numbers")
def test_an_underflowing_score_beside_zero_is_refused_as_a_tie(d: Path) -> None:
    _put(d, "tiny.run", "1 Q0 a 1 1e-400 t\n1 Q0 b 2 0 t\n")
    res = _one(d, "tiny.run", "map")
    assert refused(res, "tiny.run:2", "1e-400") is None, res.err[-400:]  # type: ignore[arg-type, attr-defined]


@_cls("unclear errors")
def test_a_decimal_relevance_in_the_qrels_is_refused_naming_the_column(d: Path) -> None:
    _put(d, "qrels.txt", QRELS.replace("2 0 g 2", "2 0 g 2.0"))
    res = _one(d, "good.run", "map")
    assert refused(res, "qrels.txt:7", "rel") is None, res.err[-400:]  # type: ignore[arg-type, attr-defined]


# ------------------------------------------------------------------------- wrong files
@_cls("unclear errors")
def test_the_qrels_given_as_the_second_of_three_runs_is_refused_naming_it(d: Path) -> None:
    res = _compare(d, "good.run", "student=qrels.txt", "other.run")
    assert refused(res, "qrels.txt:1", "swapped") is None, res.err[-400:]  # type: ignore[arg-type, attr-defined]


@_cls("unclear errors")
def test_a_run_given_as_the_qrels_of_a_comparison_is_refused(d: Path) -> None:
    res = cli(d, "evaluate", "--qrels", "good.run", "--run", "other.run", "--run", "good.run",
              "--metrics", "map")
    assert refused(res, "good.run:1", "4 fields") is None, res.err[-400:]  # type: ignore[arg-type, attr-defined]


@_cls("unclear errors")
@pytest.mark.parametrize(("data", "words"), [
    (b"", ("empty",)), (b"# nothing yet\n#\n", ("empty",)), (b"\n  \n\t\n", ("empty",)),
    (b"\xff\xfe" + "1 Q0 a 1 1 t\n".encode("utf-16-le"), ("UTF-16", "iconv")),
    ("1 Q0 a 1 1 t\n".encode("utf-16-be"), ("NUL", "UTF-16")),
    (b"1 Q0 a 1 0.5 t\n1 Q0 b 2 0.4 t\n\x1a", (":3", "6 fields")),
    (b"1 Q0 caf\xe9 1 0.5 t\n", (":1", "UTF-8")),
])
def test_an_unreadable_students_file_among_runs_is_refused_naming_it(
        d: Path, data: bytes, words: tuple[str, ...]) -> None:
    _put(d, "s17.run", data)
    res = _compare(d, "good.run", "s17.run", "other.run")
    assert refused(res, "s17.run", *words) is None, res.err[-400:]  # type: ignore[arg-type, attr-defined]


@_cls("unclear errors")
def test_a_utf16_qrels_file_is_refused_naming_the_conversion(d: Path) -> None:
    _put(d, "qrels.txt", b"\xff\xfe" + QRELS.encode("utf-16-le"))
    res = _compare(d, "good.run", "other.run")
    assert refused(res, "qrels.txt", "UTF-16", "iconv") is None, res.err[-400:]  # type: ignore[arg-type, attr-defined]


@_cls("silently wrong numbers")
def test_crlf_qrels_with_a_byte_order_mark_read_as_the_clean_qrels(d: Path) -> None:
    _put(d, "qrels.txt", b"\xef\xbb\xbf" + QRELS.replace("\n", "\r\n").encode())
    res = _one(d, "good.run", "ndcg_cut_10", "map")
    assert res.status == 0, res.err[-400:]  # type: ignore[attr-defined]
    for m in ("ndcg_cut_10", "map"):
        assert csv_values(res)[m] == pytest.approx(pte(m, run_text(GOOD)), rel=1e-12)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- ids
@_cls("unclear errors")
def test_a_run_with_every_query_id_zero_padded_is_refused_saying_ids_are_text(d: Path) -> None:
    _put(d, "pad.run", run_text([("00" + q, doc, s) for q, doc, s in GOOD]))
    res = _one(d, "pad.run", "map")
    assert refused(res, "pad.run", "no query", "string") is None, res.err[-400:]  # type: ignore[arg-type, attr-defined]


@_cls("silent accepts")
def test_one_zero_padded_topic_is_named_in_the_warning(d: Path) -> None:
    text = run_text([("03" if q == "3" else q, doc, s) for q, doc, s in GOOD])
    _put(d, "pad1.run", text)
    res = _one(d, "pad1.run", "map")
    assert res.status == 0, res.err[-400:]  # type: ignore[attr-defined]
    assert csv_values(res)["map"] == pytest.approx(pte("map", text), rel=1e-12)  # type: ignore[arg-type]
    assert not _lacks(res.err, "03", "'01' is not '1'"), res.err  # type: ignore[attr-defined]


@_cls("silently wrong numbers")
def test_huge_and_number_like_query_ids_stay_their_text_in_the_per_query_json(d: Path) -> None:
    big = "9" * 60
    qrels = f"{big} 0 a 1\n{big} 0 b 0\n1e5 0 c 1\n100000 0 c 0\n1.0 0 d 1\n"
    run = (f"{big} Q0 b 1 0.9 t\n{big} Q0 a 2 0.1 t\n1e5 Q0 c 1 0.5 t\n100000 Q0 c 1 0.5 t\n"
           "1.0 Q0 d 1 0.3 t\n")
    _put(d, "qrels.txt", qrels)
    _put(d, "ids.run", run)
    res = cli(d, "evaluate", "--qrels", "qrels.txt", "--run", "ids.run", "--metrics", "map",
              "--per-query", "pq.json")
    assert res.status == 0, res.err[-400:]
    rows = {r["qid"]: r["map"] for r in json.loads((d / "pq.json").read_text())}
    assert rows == pytest.approx(pte_q("map", run, qrels)), rows


@_cls("silently wrong numbers")
def test_upper_and_lower_case_document_ids_are_two_documents_as_in_pytrec_eval(d: Path) -> None:
    text = run_text([(q, doc.upper() if q == "1" else doc, s) for q, doc, s in GOOD])
    _put(d, "upper.run", text)
    res = _one(d, "upper.run", "map", "ndcg_cut_10")
    assert res.status == 0, res.err[-400:]  # type: ignore[attr-defined]
    for m in ("map", "ndcg_cut_10"):
        assert csv_values(res)[m] == pytest.approx(pte(m, text), rel=1e-12)  # type: ignore[arg-type]


@_cls("silent accepts")
def test_a_run_whose_document_ids_never_match_the_qrels_is_graded_0_and_warned(d: Path) -> None:
    text = run_text([(q, doc + ".txt", s) for q, doc, s in GOOD])
    _put(d, "ext.run", text)
    res = _one(d, "ext.run", "map", "ndcg_cut_10")
    assert res.status == 0, res.err[-400:]  # type: ignore[attr-defined]
    assert csv_values(res) == {"map": 0.0, "ndcg_cut_10": 0.0}, res.out  # type: ignore[arg-type, attr-defined]
    assert pte("map", text) == 0.0
    assert not _lacks(res.err, "ext.run", "'b.txt'", "'a'", "judged"), res.err  # type: ignore[attr-defined]


@_cls("silent accepts")
def test_a_run_with_one_judged_document_is_not_warned_as_unjudged(d: Path) -> None:
    text = run_text([(q, doc if (q, doc) == ("4", "k") else doc + "_x", s) for q, doc, s in GOOD])
    _put(d, "one.run", text)
    res = _one(d, "one.run", "map")
    assert csv_values(res)["map"] == pytest.approx(pte("map", text), rel=1e-12)  # type: ignore[arg-type]
    assert "none of the" not in res.err, res.err  # type: ignore[attr-defined]


# ------------------------------------------------------------------- comparisons of the class
def _sparse(d: Path) -> str:
    """A student who ran topic 3 only."""
    return _put(d, "lazy.run", run_text([r for r in GOOD if r[0] == "3"], "lazy"))


@_cls("silently wrong numbers")
def test_a_run_of_one_topic_shrinks_the_comparison_to_it_and_says_so(d: Path) -> None:
    doc = _doc(_compare(d, "good.run", "other.run", _sparse(d)))
    assert (doc["n_queries"], doc["dropped"]) == (1, ["1", "2", "4", "5"]), doc
    means = _means(doc, "map")
    assert means["good"] == pytest.approx(pte_q("map", run_text(GOOD))["3"], rel=1e-12)
    assert means["other"] == pytest.approx(pte_q("map", run_text(OTHER))["3"], rel=1e-12)


@_cls("silently wrong numbers")
def test_missing_zero_grades_every_run_over_every_qrels_topic_as_trec_eval_c(d: Path) -> None:
    lazy = _sparse(d)
    doc = _doc(_compare(d, "good.run", "other.run", lazy, extra=("--missing", "zero")))
    topics = ["1", "2", "3", "4", "5"]
    assert doc["n_queries"] == 5, doc
    for name, text in (("good", run_text(GOOD)), ("other", run_text(OTHER)),
                       ("lazy", (d / lazy).read_text())):
        assert _means(doc, "map")[name] == pytest.approx(pte("map", text, over=topics), rel=1e-12)


@_cls("silently wrong numbers")
def test_one_student_graded_alone_is_averaged_over_their_topics_and_warned(d: Path) -> None:
    lazy = _sparse(d)
    res = _one(d, lazy, "map")
    assert res.status == 0, res.err[-400:]  # type: ignore[attr-defined]
    assert csv_values(res)["map"] == pytest.approx(pte("map", (d / lazy).read_text()))  # type: ignore[arg-type]
    assert not _lacks(res.err, "4 qrels queries have no run line", lazy), res.err  # type: ignore[attr-defined]


@_cls("silently wrong numbers")
def test_one_student_graded_alone_under_trec_eval_c_is_averaged_over_every_topic(d: Path) -> None:
    lazy = _sparse(d)
    res = _one(d, lazy, "map", "P_5", extra=("--profile", "trec_eval-c"))
    assert res.status == 0, res.err[-400:]  # type: ignore[attr-defined]
    for m in ("map", "P_5"):
        want = pte(m, (d / lazy).read_text(), over=["1", "2", "3", "4", "5"])
        assert csv_values(res)[m] == pytest.approx(want, rel=1e-12), m  # type: ignore[arg-type]


@_cls("unclear errors")
def test_runs_with_no_topic_in_common_are_refused_naming_the_runs(d: Path) -> None:
    _put(d, "t1.run", run_text([r for r in GOOD if r[0] == "1"], "t1"))
    _put(d, "t4.run", run_text([r for r in GOOD if r[0] == "4"], "t4"))
    res = _compare(d, "good.run", "t1.run", "other.run", "t4.run")
    assert refused(res, "no query in common", "'t1'", "'t4'", "--missing zero") is None, \
        res.err[-400:]  # type: ignore[arg-type, attr-defined]


@_cls("unclear errors")
def test_no_topic_in_common_through_compare_runs_names_the_runs_and_missing(d: Path) -> None:
    from bench.report.compare_runs import compare_runs

    _put(d, "t1.run", run_text([r for r in GOOD if r[0] == "1"], "t1"))
    _put(d, "t2.run", run_text([r for r in GOOD if r[0] == "2"], "t2"))
    runs = {"ann": d / "t1.run", "bob": d / "t2.run", "cy": d / "good.run"}
    _, exc = call(lambda: compare_runs(d / "qrels.txt", runs, metrics="map"))
    assert api_refused(exc, "'ann'", "'bob'", "missing='zero'") is None, exc


@_cls("silently wrong numbers")
def test_a_run_with_topics_outside_the_qrels_keeps_the_comparison_on_the_judged_ones(
        d: Path) -> None:
    extra = run_text([*GOOD, ("99", "zz", 1.0), ("100", "a", 0.5)], "extra")
    _put(d, "extra.run", extra)
    doc = _doc(_compare(d, "extra.run", "other.run", metrics=("map", "ndcg_cut_10")))
    assert doc["n_queries"] == 5, doc
    assert not {"99", "100"} & set(doc["dropped"]), doc
    for m in ("map", "ndcg_cut_10"):
        assert _means(doc, m)["extra"] == pytest.approx(pte(m, run_text(GOOD)), rel=1e-12)


@_cls("silently wrong numbers")
def test_the_comparison_json_is_strict_json_with_a_topic_without_relevant_documents(
        d: Path) -> None:
    doc = _doc(_compare(d, "good.run", "other.run", metrics=("ndcg@10", "map"),
                        extra=("--profile", "ltrbench")))
    assert doc["no_value"]["map"] == ["5"], doc


@_cls("silently wrong numbers")
def test_the_per_query_json_of_a_comparison_is_strict_json_and_averages_to_the_means(
        d: Path) -> None:
    res = cli(d, "evaluate", "--qrels", "qrels.txt", "--run", "good.run", "--run", "other.run",
              "--metrics", "ndcg@10", "--profile", "ltrbench", "--format", "json",
              "--per-query", "pq.json")
    doc = _doc(res)
    rows = json.loads((d / "pq.json").read_text(), parse_constant=_no_constant)
    for name in ("good", "other"):
        vals = [r[name] for r in rows if r["metric"] == "ndcg@10" and r[name] is not None]
        assert _means(doc, "ndcg@10")[name] == pytest.approx(sum(vals) / len(vals), rel=1e-12)


@_cls("silently wrong numbers")
def test_identical_copies_under_two_names_tie_with_p_one(d: Path) -> None:
    _put(d, "copy.run", run_text(GOOD, "copy"))
    doc = _doc(_compare(d, "good.run", "copy.run", "other.run"))
    by = {r["name"]: r for r in doc["runs"]}
    assert by["good"]["metrics"]["map"] == by["copy"]["metrics"]["map"], by
    pair = _doc(_compare(d, "copy.run", "good.run"))
    loser = [r for r in pair["runs"] if r["vs_best"] is not None]
    assert len(loser) == 1, pair
    assert loser[0]["vs_best"]["p_randomization"] == 1.0, pair
    assert loser[0]["name"] in pair["tied_with_best"], pair


@_cls("silently wrong numbers")
def test_twelve_students_means_equal_pytrec_eval_and_holm_is_monotone(d: Path) -> None:
    import random

    rnd = random.Random(16)
    names = []
    texts = {}
    for i in range(12):
        rows = [(q, doc, round(rnd.random(), 6)) for q, doc, _ in GOOD]
        names.append(_put(d, f"s{i:02d}.run", run_text(rows, f"s{i}")))
        texts[f"s{i:02d}"] = run_text(rows)
    runs = [a for n in names for a in ("--run", n)]
    doc = _doc(cli(d, "evaluate", "--qrels", "qrels.txt", *runs, "--metrics", "ndcg_cut_10",
                   "--format", "json"))
    means = _means(doc, "ndcg_cut_10")
    for n, text in texts.items():
        assert means[n] == pytest.approx(pte("ndcg_cut_10", text), rel=1e-12), n
    assert doc["best"] == max(means, key=lambda n: means[n]), doc["best"]
    for r in doc["runs"]:
        v = r["vs_best"]
        if v is not None:
            assert v["p_randomization_holm"] >= v["p_randomization"] - 1e-15, v


# ----------------------------------------------------------------------- names and outputs
@_cls("unclear errors")
def test_one_students_file_given_under_two_spellings_is_refused(d: Path) -> None:
    (d / "sub").mkdir()
    res = _compare(d, "good.run", "other.run", "./sub/../good.run")
    assert refused(res, "same file") is None, res.err[-400:]  # type: ignore[arg-type, attr-defined]


@_cls("unclear errors")
def test_a_hard_link_to_a_students_file_is_the_same_run(d: Path) -> None:
    os.link(d / "good.run", d / "good_late.run")
    res = _compare(d, "good.run", "good_late.run")
    assert refused(res, "same file") is None, res.err[-400:]  # type: ignore[arg-type, attr-defined]


@_cls("silently wrong numbers")
def test_a_made_up_name_never_takes_another_students_own_file_stem(d: Path) -> None:
    _put(d, "ann.run", run_text(GOOD))
    _put(d, "ann.txt", run_text(GOOD))
    _put(d, "ann-2.run", run_text(OTHER))
    doc = _doc(_compare(d, "ann.run", "ann.txt", "ann-2.run"))
    means = _means(doc, "map")
    assert set(means) == {"ann", "ann-3", "ann-2"}, means
    assert means["ann-2"] == pytest.approx(pte("map", run_text(OTHER), over=["1", "2", "3",
                                                                           "4", "5"]))


@_cls("inputs destroyed")
def test_per_query_onto_a_students_run_is_refused_and_the_run_kept(d: Path) -> None:
    before = (d / "other.run").read_bytes()
    res = cli(d, "evaluate", "--qrels", "qrels.txt", "--run", "good.run", "--run", "other.run",
              "--metrics", "map", "--per-query", "./other.run")
    assert refused(res, "other.run") is None, res.err[-400:]
    assert (d / "other.run").read_bytes() == before


@_cls("inputs destroyed")
def test_per_query_through_a_link_to_the_qrels_is_refused_and_the_qrels_kept(d: Path) -> None:
    os.symlink(d / "qrels.txt", d / "grades.csv")
    res = cli(d, "evaluate", "--qrels", "qrels.txt", "--run", "good.run", "--run", "other.run",
              "--metrics", "map", "--per-query", "grades.csv")
    assert refused(res, "qrels.txt") is None, res.err[-400:]
    assert (d / "qrels.txt").read_text() == QRELS


@_cls("silently wrong numbers")
def test_student_names_with_commas_and_quotes_survive_the_per_query_csv(d: Path) -> None:
    _put(d, 'o"neil, pat.run', run_text(OTHER))
    res = cli(d, "evaluate", "--qrels", "qrels.txt", "--run", "good.run", "--run",
              'o"neil, pat.run', "--metrics", "map", "--format", "csv", "--per-query", "pq.csv")
    assert res.status == 0, res.err[-400:]
    rows = list(csv.DictReader(io.StringIO((d / "pq.csv").read_text())))
    want = pte_q("map", run_text(OTHER))
    got = {r["qid"]: float(r['o"neil, pat']) for r in rows}
    assert got == pytest.approx({q: want[q] for q in got}), rows


def test_every_test_here_has_a_class() -> None:
    from hostile_kit import CLASSES as KNOWN

    here = {n for n in globals()
            if n.startswith("test_") and n != "test_every_test_here_has_a_class"}
    assert here == set(CLASSES), here ^ set(CLASSES)
    assert set(CLASSES.values()) <= set(KNOWN)
