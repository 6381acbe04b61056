"""What a TREC file's lines say beyond their fields: the signs of a file written by hand.

:mod:`bench.data.trec` reads qrels and runs as trec_eval does; this module holds the checks of
the shapes such files take when a person (a student, a script in a hurry) wrote them, each
answered where trec_eval and its Python peers would silently disagree or grade something the
writer did not mean:

* **White space only Python sees** (:func:`hidden_space`). trec_eval splits fields on ASCII
  white space (C ``isspace``); pytrec_eval's ``parse_run`` and ir_measures' ``read_trec_run``
  split on Python's ``str.split``, which also splits at a no-break space (U+00A0, pasted from a
  web page or a word processor), U+2009, U+202F, U+3000 and the unit separator U+001F. A
  document ``a\u00a0`` is then ``a`` (judged) to one tool and an unjudged id to the other: a
  field holding one is an error naming the line, the field and the character (fields past the
  last one read are not looked at: no tool reads them).
* **Columns swapped** (:func:`column_hints`): ``Q0`` in the docno column (``1 doc7 Q0 1 0.9
  t``: every document would be the unjudged ``Q0``), a decimal rank beside an integer score
  (rank and score swapped), and three fields whose last is an integer (an MS MARCO run
  ``qid docid rank``) are said in the error.
* **Two runs in one file** (:func:`tag_problems`): trec_eval keeps the run tag of the last line
  and checks nothing ("no check is made that it is consistent throughout",
  ``get_trec_results.c``); a file holding several tags (two systems' or two students' runs
  concatenated) is read as one run, as trec_eval does, with a :class:`RunFileWarning` naming the
  tags and their first lines.
* **A score column that is not a score** (:func:`score_order_problem`): trec_eval ranks by
  score, highest first, ties by document id descending, and never reads the rank column. When
  in every query whose ranks are distinct the scores rise with the rank (ranks or distances
  written as scores) or are all one value (the order left to the rank column), over three rank
  steps at least (fewer happen by chance), the run is
  graded so, as trec_eval grades it, with a :class:`RunFileWarning` saying what the scores do.
"""

from __future__ import annotations

import re
import unicodedata
import warnings
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from bench.data.inputs import is_plain_float, is_plain_int

#: White space to ``str.split`` that ``bytes.split`` (and trec_eval's ``isspace``) does not split
#: on; the line ends VT, FF, NEL, U+2028 ... are refused earlier (:func:`bench.data.inputs.stray_character`).
_PYTHON_ONLY_SPACE = re.compile(r"[^\S \t\r\n\x0b\x0c]")


#: The fewest rank steps (pairs of documents at consecutive ranks of one query) that
#: :func:`score_order_problem` reads a pattern into: one or two rising steps happen by chance.
SCORE_ORDER_STEPS = 3


class RunFileWarning(UserWarning):
    """A run file read as trec_eval reads it, whose shape suggests the writer meant otherwise
    (several run tags, a score column that rises with the rank or is constant)."""


def hidden_space(parts: Sequence[str]) -> str | None:
    """Why fields ``parts`` (split on ASCII white space, as trec_eval splits) would be split
    otherwise by Python's ``str.split``, or ``None``: the first character ``str.split`` takes
    for white space inside one of them, named with the field's number and text."""
    for i, field in enumerate(parts, start=1):
        plain = field.isascii() and "\x1f" not in field  # the unit separator: ASCII, split
        m = None if plain else _PYTHON_ONLY_SPACE.search(field)
        if m is not None:
            ch = m.group()
            name = "unit separator" if ch == "\x1f" else unicodedata.name(ch, "space").lower()
            article = "an" if name[0] in "aeiou" else "a"
            return (f"{article} {name} (U+{ord(ch):04X}) in field {i} ({field!r}): Python's "
                    "str.split (pytrec_eval's parse_run, ir_measures) splits fields there, "
                    "trec_eval does not, so the id would differ between tools; expected spaces "
                    "or tabs between fields and none inside one (refused rather than guessed)")
    return None


def separator_hint(parts: Sequence[str], want: int) -> str:
    """``; ... ';' ...`` when the line, joined again, holds ``want`` or more fields once split at
    ``;``, ``,`` or ``|`` (a spreadsheet's CSV export of a TREC table, a German Excel writing
    ``1;Q0;d1;1;0,25;run``); empty otherwise. For the field-count errors of qrels and runs."""
    line = " ".join(parts)
    for sep in (";", ",", "|"):
        if len(line.split(sep)) >= want:
            return (f"; the line holds {len(line.split(sep))} fields separated by {sep!r} (a "
                    "spreadsheet's CSV export?): a TREC file separates its fields by spaces or "
                    "tabs (and writes numbers with a decimal point)")
    return ""


def header_hint(parts: Sequence[str], kind: str) -> str:
    """``; ... a table's header ...`` when the line names two or more columns of a qrels or run
    table (``query_id doc_id relevance iteration`` of an ir_datasets export, ``qid,docno,score``
    of ``DataFrame.to_csv``), split at white space, ``,``, ``;`` or ``|``; empty otherwise. A
    TREC file has no header: the Python API reads such a table as a DataFrame instead."""
    from bench.data.frame_columns import DOCNO_COLUMNS, QID_COLUMNS, REL_COLUMNS, SCORE_COLUMNS

    names = {f.lower() for f in re.split(r"[\s,;|]+", " ".join(parts)) if f}
    known = [c for c in (*QID_COLUMNS, *DOCNO_COLUMNS, *REL_COLUMNS, *SCORE_COLUMNS, "rank",
                         "iteration", "q0") if c in names]
    if len(known) < 2:
        return ""
    fields = "qid iter docno rel" if kind == "qrels" else "qid Q0 docno rank score tag"
    return (f"; the line looks like a table's header ({', '.join(known)}): a TREC {kind} file has "
            f"no header, only lines '{fields}'; remove it, or read the table with pandas and pass "
            "the DataFrame to evaluate_trec / compare_runs in Python (its columns are found by "
            "name)")


def count_hint(parts: Sequence[str]) -> str:
    """What a run line with too few fields looks like (empty when nothing in particular)."""
    if len(parts) == 3 and is_plain_int(parts[2]):
        return ("; this line looks like an MS MARCO run 'qid docid rank' (3 fields): write it as "
                "'qid Q0 docid rank score tag' (a score higher for better documents)")
    return ""


def column_hints(parts: Sequence[str]) -> str | None:
    """Why a six-field run line has its columns swapped, or ``None``: ``Q0`` in the docno
    column while the second column holds something else."""
    if parts[2] == "Q0" and parts[1] != "Q0":
        return (f"the docno column (the 3rd) holds 'Q0' and the 2nd holds {parts[1]!r}: were the "
                "Q0 and docno columns swapped? expected 'qid Q0 docno rank score tag' (every "
                "document would be the unjudged id 'Q0')")
    return None


def rank_hint(rank: str, score: str) -> str:
    """The end of a 'rank is not an integer' error when the score field holds an integer."""
    if is_plain_float(rank) and is_plain_int(score):
        return (f"; the score column holds the integer {score!r}: were the rank and score "
                "columns swapped? expected 'qid Q0 docno rank score tag'")
    return ""


def duplicate_hint(first: tuple[int, str, str], again: tuple[int, str, str]) -> str:
    """The end of a 'duplicate document' error from the two lines' (rank, score text, tag):
    two tags say two runs were joined; the same rank, score and tag say the run was joined with
    a copy of itself."""
    if first[2] != again[2]:
        return (f"; the two lines carry run tags {first[2]!r} and {again[2]!r}: two runs joined "
                "in one file?")
    if first == again:
        return ("; the line repeats the first one (rank, score and tag too): was the file joined "
                "with a copy of itself (cat run run)?")
    return ""


def tag_problems(tags: Sequence[str], lines: Sequence[int], path: str) -> None:
    """A :class:`RunFileWarning` when the run's tag column holds more than one tag."""
    n = len(set(tags))
    if n < 2:
        return
    first: dict[str, int] = {}
    for tag, line in zip(tags, lines, strict=True):
        first.setdefault(tag, line)
        if len(first) > 3:
            break
    if len(first) < 2:
        return
    shown = ", ".join(f"{t!r} from line {ln}" for t, ln in list(first.items())[:3])
    warnings.warn(
        f"{path}: the run tag column holds {n} tags ({shown}{', ...' if n > 3 else ''}): two "
        "runs joined in one file? read as one run, as trec_eval reads it (it keeps no tag); give "
        "each system's run in a file of its own",
        RunFileWarning, stacklevel=3)


def score_order_problem(qid: NDArray[np.str_], rank: NDArray[np.int64],
                        score: NDArray[np.float64], path: str) -> None:
    """A :class:`RunFileWarning` when, in every query whose ranks are distinct (two documents
    at least), the scores rise with the rank column or are all one value (over
    :data:`SCORE_ORDER_STEPS` rank steps at least). A query is a block of consecutive lines
    of one query id, as runs are written (a query split over two blocks is two here)."""
    if qid.shape[0] < 2:
        return
    # a query's lines as the file groups them (blocks of one query id; no string sort: a
    # million-line run is read in well under a second)
    block = np.concatenate(([0], np.cumsum(qid[1:] != qid[:-1])))
    same = block[1:] == block[:-1]  # consecutive lines (then ranks) of one query
    r, s = rank, score
    if not ((rank[1:] >= rank[:-1]) | ~same).all():  # not written in rank order: sort
        order = np.lexsort((rank, block))  # blocks stay in place, ranks ascending in each
        r, s = rank[order], score[order]
    n_blocks = int(block[-1]) + 1
    tied = np.bincount(block[1:], weights=same & (r[1:] == r[:-1]), minlength=n_blocks) > 0
    eligible = (np.bincount(block[1:], weights=same, minlength=n_blocks) > 0) & ~tied
    if not eligible.any():
        return
    inside = same & eligible[block[1:]]
    step = s[1:][inside] - s[:-1][inside]
    if step.shape[0] < SCORE_ORDER_STEPS or (step < 0).any():
        return  # too few steps to tell from chance, or the scores fall with the rank somewhere
    n = int(eligible.sum())
    queries = (f"{'the' if n == 1 else 'all'} {n} {'query' if n == 1 else 'queries'} with "
               "distinct ranks")
    if (step > 0).any():
        what = (f"in {queries} the scores rise with the rank column (rank 1 holds the lowest "
                "score): documents are ranked by score, highest first, as trec_eval ranks them, "
                "so this run is graded in reverse of its ranks; were ranks or distances (lower is "
                "better) written as scores? write scores that are higher for better documents")
    else:
        what = (f"in {queries} every document has the same score: they are ranked as trec_eval "
                "breaks ties, by document id (descending), not by the rank column, which "
                "trec_eval never reads; write scores that are higher for better documents")
    warnings.warn(f"{path}: {what}", RunFileWarning, stacklevel=3)
