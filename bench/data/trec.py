"""TREC files: qrels (``qid iter docno rel``) and runs (``qid Q0 docno rank score tag``).

Both are white-space separated, one judgment or retrieved document per line. What is accepted
follows trec_eval (usnistgov/trec_eval; line numbers of tag ``v10.0`` unless said otherwise):

* **Comment lines.** A line whose first non-blank character is ``#`` is skipped in both files.
  trec_eval 10.0 added this ("Support for '#' comment lines in TREC-format runs and qrels
  files", CHANGELOG 6/18/26): ``get_trec_results.c:152-160`` skips blank lines and lines whose
  first non-blank character is ``#``; ``get_qrels.c:137-139`` skips a line starting with ``#`` in
  its first column. (trec_eval 9.0.8 has no comment syntax: ``get_qrels.c:113-131`` and
  ``get_trec_results.c:109-133`` of ``v9.0.8`` parse every line.) An indented or repeated comment
  line in qrels, which 10.0 parses as a judgment of query ``#...``, is skipped here too: such a
  query could only match a run query starting with ``#``, and trec_eval skips those run lines, so
  the numbers are the same.
* **Run lines: fields after the sixth are ignored** (``get_trec_results.c:28`` "Any field
  following run_id is ignored", ``:287-292`` skip the rest of the line; the same in 9.0.8
  ``:236-239``). Fewer than six fields are refused (``:244-283`` return ``UNDEF``, "Malformed line").
* **Qrels lines have exactly four fields**: fewer, or a fifth field, are refused as trec_eval
  refuses them (``get_qrels.c:225-261``: after ``rel`` only white space may follow).
* Blank lines are skipped in both files (runs: ``get_trec_results.c:152-156``; trec_eval refuses
  a blank qrels line as malformed, ltrbench skips it).

Every refused line is a :class:`DataError` naming ``file:line`` (lines of the file, comments
counted). ltrbench is stricter than trec_eval where trec_eval would compute a silently wrong
number: a document retrieved twice for the same query in a run, or judged twice in qrels, is an
error (trec_eval would evaluate a list with a duplicate); the run's rank column must be an integer
(trec_eval never reads it, ``get_trec_results.c:263-269``; a non-integer there usually means
swapped columns) and is then ignored, as trec_eval does (``form_res_rels.c``: ranks come from
sorting by score); ``rel`` and ``score`` are parsed strictly (trec_eval's ``atol``/``atof`` read
``1.5`` as 1 and ``high`` as 0).

Files are read through :mod:`bench.data.inputs` (the input discipline of every path): LF, CRLF
and a lone CR each end a line (pytrec_eval and ir_measures read a CR-only run as lines too), and
no other character does: a NUL byte, a byte-order mark inside the file, VT, FF, NEL or U+2028 is
an error naming line and column (joined by U+2028, a run would be one line whose fields past
the sixth are ignored);
an integer score beyond 2^53 that a float64 cannot hold exactly is an error (trec_eval's
``atof`` would tie it with its neighbours), and so are two distinct decimal scores of one query
that a float64 ties (``0.10000000000000000001`` and ``0.1``); query ids are text, so ``7`` and ``"7"`` given as
objects are one query; a UTF-8 byte-order mark is skipped (it would
otherwise join the first query id), UTF-16 is refused, fields are split on ASCII white space,
and ``rel``, ``rank`` (int64) and ``score`` (finite float64) are parsed strictly (``1_0``,
``0x1``, ``inf``, ``1e400`` and integers beyond int64 are errors naming line and column).

The signs of a file written by hand are :mod:`bench.data.trec_lines`'s: a no-break space or
another white space that Python's ``str.split`` (pytrec_eval, ir_measures) splits fields on and
trec_eval does not is an error; so is ``Q0`` in the docno column (columns swapped); a run whose
tag column holds several tags, or whose scores rise with the rank column (or are constant) in
every query, is read as trec_eval reads it, with a warning.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from bench.data.input_ids import text_array
from bench.data.inputs import (
    check_input_file,
    dos_eof_hint,
    parse_float,
    parse_int,
    refuse_decimal_ties,
    text_lines,
)
from bench.data.trec_lines import (
    column_hints,
    count_hint,
    duplicate_hint,
    header_hint,
    hidden_space,
    rank_hint,
    score_order_problem,
    separator_hint,
    tag_problems,
)
from bench.errors import DataError

PathLike = str | os.PathLike[str]


def _per_subtopic(before: str, now: str) -> str:
    """What a document judged twice under two second columns likely is: one judgment per
    subtopic (diversity qrels) or per round (TREC-COVID's cumulative qrels)."""
    return (f"; the second column differs ({before!r} there, {now!r} here): a judgment per "
            "subtopic (diversity qrels 'topic subtopic docno judgment', which the diversity "
            "metrics read: alpha_ndcg@10, nerr_ia@10, precision_ia@10) or per round? a plain "
            "metric needs one judgment per document: keep one line per (query, document)")


class NotDiversityQrels(DataError):
    """What :func:`read_qrels` with ``subtopics=True`` raises for a line that ndeval's reading
    refuses but the ordinary reading may accept: a second column that is not a whole number
    ``>= 0`` (``Q0``), or a (query, subtopic, document) judged twice. A caller that tries the
    diversity reading first (:func:`bench.crosscheck.evaluators.trec_input`) falls back to the
    ordinary one on this type, never on a message's wording."""


@dataclass(frozen=True, eq=False)
class Qrels:
    """Relevance judgments: one row per (query, document); read with ``subtopics=True``, one
    row per (query, subtopic, document) and ``subtopic`` holds the second column."""

    qid: NDArray[np.str_]
    docno: NDArray[np.str_]
    rel: NDArray[np.int64]
    path: str
    subtopic: NDArray[np.int64] | None = None

    def __len__(self) -> int:
        return int(self.rel.shape[0])


@dataclass(frozen=True, eq=False)
class Run:
    """A ranked run: one row per retrieved (query, document), in file order."""

    qid: NDArray[np.str_]
    docno: NDArray[np.str_]
    rank: NDArray[np.int64]
    score: NDArray[np.float64]
    tag: NDArray[np.str_]
    path: str

    def __len__(self) -> int:
        return int(self.score.shape[0])


def read_qrels(path: PathLike, *, subtopics: bool = False) -> Qrels:
    """Read a qrels file: ``qid iter docno rel`` with an integer ``rel`` (negative = unjudged).

    ``subtopics``: the file is diversity qrels as ndeval reads them (TREC Web track,
    ``topic subtopic docno judgment``; ``ndeval.c`` ``processQrels``): the second column is
    the subtopic number, a whole number ``>= 0`` kept in ``Qrels.subtopic``, and a document
    may be judged once per subtopic ((query, subtopic, document) twice is an error: ndeval
    would add both judgments to the subtopic's count but keep the last one)."""
    p = _existing(path)
    qids: list[str] = []
    docs: list[str] = []
    rels: list[int] = []
    subs: list[int] = []
    lines: list[int] = []  # each judgment's line, to name it in a later error
    seen: dict[tuple[str, ...], tuple[int, str]] = {}  # first line, its second column
    for lineno, parts, plain in _lines(p):
        if len(parts) != 4:
            swapped = "; this line is a run line: were --qrels and --run swapped?" \
                if len(parts) >= 6 and parts[1] == "Q0" else header_hint(parts, "qrels") or \
                _hidden(parts[:4], "; ")
            raise DataError(
                f"expected 4 fields 'qid iter docno rel', got {len(parts)} (trec_eval refuses "
                f"other counts too; a comment line starts with '#'){swapped}"
                f"{dos_eof_hint(parts)}{separator_hint(parts, 4)}",
                path=p,
                line=lineno,
            )
        hidden = "" if plain else _hidden(parts)
        if hidden:
            raise DataError(hidden, path=p, line=lineno)
        q, it, d, r = parts
        try:
            rel = parse_int(r, what="relevance", path=p, line=lineno, column="rel")
        except DataError as exc:
            raise DataError(exc.reason + header_hint(parts, "qrels"), path=p, line=lineno,
                            column="rel") from None
        if subtopics:
            try:
                subs.append(parse_int(it, what="subtopic (the second column of diversity qrels: "
                                      "a whole number)", path=p, line=lineno, column="subtopic",
                                      low=0))
            except DataError as exc:
                raise NotDiversityQrels(exc.reason, path=p, line=lineno,
                                        column="subtopic") from None
        first, before = seen.setdefault((q, str(subs[-1]), d) if subtopics else (q, d),
                                        (lineno, it))
        if first != lineno:
            raise (NotDiversityQrels if subtopics else DataError)(
                f"document {d!r} is judged twice for query {q!r}"
                + (f" and subtopic {subs[-1]}" if subtopics else "") + f" (first on line {first})"
                + ("" if subtopics or before == it else _per_subtopic(before, it)),
                path=p,
                line=lineno,
            )
        qids.append(q)
        docs.append(d)
        rels.append(rel)
        lines.append(lineno)
    if not rels:
        raise DataError("empty qrels file: expected lines 'qid iter docno rel'", path=p)
    return Qrels(text_array(qids, what="query id", path=p, lines=lines, column="qid"),
                 text_array(docs, what="document id", path=p, lines=lines, column="docno"),
                 np.asarray(rels, dtype=np.int64), str(p),
                 np.asarray(subs, dtype=np.int64) if subtopics else None)


def read_run(path: PathLike) -> Run:
    """Read a run file: ``qid Q0 docno rank score tag`` with a finite ``score``."""
    p = _existing(path)
    qids: list[str] = []
    docs: list[str] = []
    ranks: list[int] = []
    scores: list[float] = []
    texts: list[str] = []
    lines: list[int] = []
    tags: list[str] = []
    seen: dict[tuple[str, str], int] = {}  # (query, document) -> its row
    for lineno, parts, plain in _lines(p):
        if len(parts) < 6:
            swapped = "; this line is a qrels line: were --qrels and --run swapped?" \
                if len(parts) == 4 and parts[1] != "Q0" else header_hint(parts, "run") or \
                count_hint(parts) or _hidden(parts, "; ")
            raise DataError(
                f"expected 6 fields 'qid Q0 docno rank score tag' (more are ignored, as "
                f"trec_eval does), got {len(parts)}{swapped}{dos_eof_hint(parts)}"
                f"{separator_hint(parts, 6)}",
                path=p,
                line=lineno,
            )
        q, _, d, rk, sc, tag = parts[:6]
        swap = ("" if plain else _hidden(parts[:6])) or column_hints(parts)
        if swap:
            raise DataError(swap, path=p, line=lineno)
        try:
            rank = parse_int(rk, what="rank", path=p, line=lineno, column="rank")
        except DataError as exc:
            raise DataError(exc.reason + (rank_hint(rk, sc) or header_hint(parts, "run")),
                            path=p, line=lineno, column="rank") from None
        score = parse_float(sc, what="score", path=p, line=lineno, column="score",
                            exact_integers=True)
        first = seen.setdefault((q, d), len(lines))
        if first != len(lines):
            joined = duplicate_hint((ranks[first], texts[first], tags[first]), (rank, sc, tag))
            raise DataError(
                f"duplicate document {d!r} for query {q!r} (first on line {lines[first]}): a "
                f"run must retrieve each document at most once per query{joined}",
                path=p,
                line=lineno,
            )
        qids.append(q)
        docs.append(d)
        ranks.append(rank)
        scores.append(score)
        texts.append(sc)
        lines.append(lineno)
        tags.append(tag)
    if not scores:
        raise DataError("empty run file: expected lines 'qid Q0 docno rank score tag'", path=p)
    run = Run(
        text_array(qids, what="query id", path=p, lines=lines, column="qid"),
        text_array(docs, what="document id", path=p, lines=lines, column="docno"),
        np.asarray(ranks, dtype=np.int64),
        np.asarray(scores, dtype=np.float64),
        text_array(tags, what="run tag", path=p, lines=lines, column="tag"),
        str(p),
    )
    refuse_decimal_ties(run.qid, run.score, texts, lines=lines, path=p)
    tag_problems(tags, lines, str(p))  # warnings: read as trec_eval reads them
    score_order_problem(run.qid, run.rank, run.score, str(p))
    return run


def _hidden(parts: list[str], lead: str = "") -> str:
    """:func:`~bench.data.trec_lines.hidden_space` of ``parts`` after ``lead`` (empty: none)."""
    why = hidden_space(parts)
    return lead + why if why else ""


def _existing(path: PathLike) -> Path:
    return check_input_file(path, expected="a TREC text file")


def _lines(p: Path) -> Iterator[tuple[int, list[str], bool]]:
    """Lines split on ASCII white space (as trec_eval does), blank and comment lines (first
    non-blank character ``#``) skipped, through the input layer (:mod:`bench.data.inputs`:
    UTF-8 byte-order mark skipped, UTF-16 refused, UTF-8 checked), each with whether it is
    plain (ASCII without the unit separator: no white space only Python splits on can be in
    it). The readers then refuse such white space inside a field they read (:func:`_hidden`),
    looked for in the lines that are not plain only (the search cost 15 % of a run's reading)."""
    for lineno, raw in text_lines(p, expected="a TREC text file"):
        parts = raw.split()
        if parts and not parts[0].startswith(b"#"):
            yield lineno, [x.decode("utf-8") for x in parts], raw.isascii() and b"\x1f" not in raw
