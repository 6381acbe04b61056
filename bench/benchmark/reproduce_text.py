"""Do a leaderboard's rendered files say what its JSON says? The check ``ltrbench reproduce``
makes of ``leaderboard.md``, ``.csv`` and ``.tex`` before any config is run again.

Reproduce re-runs the configs that ``leaderboard.json`` records and compares the numbers with
that JSON; a reader cites the Markdown, the CSV or the LaTeX. Each of those that lies beside the
JSON is rendered again from the JSON (the renderers ``ltrbench report`` wrote it with, which are
deterministic) and compared line by line, cell by cell: a number changed in its last digit, a
row removed, duplicated or renamed, columns reordered, a name in another Unicode normalisation,
each is a difference naming the file, its line, the table's heading, the row's first cell and the
column, with the file's text and the text the JSON renders to.

Differences that change no character a reader sees are said, never counted as a mismatch:
CRLF line ends (a Windows checkout), a UTF-8 byte-order mark, trailing blank lines.
"""

from __future__ import annotations

import csv
import difflib
import re
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from bench.benchmark.reproduce_steps import Outcome
from bench.errors import DataError

_BOM = "\ufeff"
_MD_SEPARATOR = re.compile(r"^\|[-:| ]+\|$")
_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")
_UNESCAPED_AMP = re.compile(r"(?<!\\)&")


def leaderboard_renderings(json_path: Path, raw: dict[str, Any]) -> dict[str, Callable[[], str]]:
    """A leaderboard's ``.md``, ``.csv`` and ``.tex`` twins of ``json_path``, each with what
    the document renders to (computed when called)."""
    from bench.report.latex import render_latex
    from bench.report.render import render_csv, render_markdown

    renderers: tuple[tuple[str, Callable[[dict[str, Any]], str]], ...] = (
        (".md", render_markdown), (".csv", render_csv), (".tex", render_latex))
    return {json_path.with_suffix(s).name: partial(render, raw) for s, render in renderers}


def tuned_renderings(json_path: Path, raw: dict[str, Any]) -> dict[str, Callable[[], str]]:
    """A tuned report's table files (:func:`bench.report.tuning_report.tuned_renderings`: the
    ``.md``, ``.csv``, ``.tex`` beside the JSON and ``tuned-<dataset>/trials.md``, ``.tex``)."""
    from bench.report.tuning_report import tuned_renderings as render
    from bench.runs.naming import dataset_slug

    sub = f"tuned-{dataset_slug(str(raw['tables'][0].get('dataset')))}"
    names = [f"{json_path.stem}{s}" for s in (".md", ".csv", ".tex")] + \
        [f"{sub}/trials{s}" for s in (".md", ".tex")]
    done: dict[str, str] = {}

    def one(name: str) -> str:
        if not done:
            done.update(render(raw, json_path.stem))
        return done[name]

    return {n: partial(one, n) for n in names}


def fold_renderings(json_path: Path, raw: dict[str, Any]) -> dict[str, Callable[[], str]]:
    """A fold document's Markdown twin (:func:`bench.report.folds.render_fold_document`)."""
    from bench.report.folds import render_fold_document

    return {json_path.with_suffix(".md").name: lambda: render_fold_document(raw)}


def check_rendered(json_path: Path, raw: dict[str, Any], given: Path,
                   renderings: dict[str, Callable[[], str]] | None = None) -> Outcome | None:
    """Compare every table file the document ``raw`` renders to that lies beside
    ``json_path`` (``renderings``: ``{path relative to its folder: renderer}``, by default a
    leaderboard's ``.md``, ``.csv`` and ``.tex``) with that rendering, cell by cell; ``None``
    when none lies there. ``given`` (the file the user named) missing is said (its JSON twin
    is reproduced)."""
    if renderings is None:
        renderings = leaderboard_renderings(json_path, raw)
    base = json_path.parent
    present = [(n, r) for n, r in renderings.items() if (base / n).is_file()]
    gone = [f"{given.name}: not found, only {json_path.name} is reproduced"] \
        if not given.is_file() else []
    if not present:  # a JSON-only leaderboard (the Python API writes one): nothing rendered
        return None
    names = ", ".join(n for n, _ in present)
    outcome = Outcome(source=f"{names} against {json_path.name}", status="match", reran=False,
                      tolerance_reason=f"the text {json_path.name} renders to, cell by cell")
    notes: list[str] = list(gone)
    for name, render in present:
        path = base / name
        try:
            want = render()
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            # a hand-edited part the renderer reads (a tuned document's versus_default made a
            # text): the file cannot be what the JSON says; the reruns still compare numbers
            outcome.differences.append(_diff(
                name, "whole file", "", f"the committed {name}",
                f"none: {json_path.name} cannot be rendered ({type(exc).__name__}: {exc}); "
                "expected a document written by 'ltrbench report' or 'ltrbench run --folds'"))
            continue
        text, said = _decoded(path)
        notes += [f"{name}: {s}" for s in said]
        n, diffs = compare_text(name, text, want, kind=path.suffix)
        outcome.compared += n
        outcome.differences += diffs
    formats = len(notes) - len(gone)
    outcome.reason = "; ".join(notes) + (" (compared without them)" if formats else "")
    outcome.n_differences = len(outcome.differences)
    outcome.status = "mismatch" if outcome.differences else "match"
    return outcome


def _decoded(path: Path) -> tuple[str, list[str]]:
    """The file's text with a BOM, CRLF line ends and trailing blank lines taken off, and what
    was taken off."""
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(f"byte {exc.start}: not UTF-8; expected the text 'ltrbench report' "
                        "wrote", path=path) from exc
    said = []
    if text.startswith(_BOM):
        text = text[1:]
        said.append("a UTF-8 byte-order mark")
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
        said.append("CRLF line ends")
    stripped = text.rstrip("\n")
    if text.endswith("\n\n"):
        said.append(f"{len(text) - len(stripped) - 1} trailing blank line(s)")
    return stripped + "\n" if text else text, said


def compare_text(name: str, text: str, want: str, *, kind: str) -> tuple[int, list[dict[str, Any]]]:
    """``(cells compared, differences)`` between ``text`` (file ``name``, as read) and ``want``
    (the rendering), aligned line by line (:mod:`difflib`) so a removed or added line is one
    difference, not a shift of every line after it."""
    have, rend = text.splitlines(), want.splitlines()
    context = _context(rend, kind)
    n, diffs = 0, []
    matcher = difflib.SequenceMatcher(None, have, rend, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            n += sum(len(_cells(line, kind)) for line in have[i1:i2])
            continue
        pairs = min(i2 - i1, j2 - j1) if op == "replace" else 0
        for k in range(pairs):
            a, b = have[i1 + k], rend[j1 + k]
            heading, header = context[j1 + k]
            ca, cb = _cells(a, kind), _cells(b, kind)
            n += max(len(ca), len(cb))
            row = _row_name(cb, header)
            where = f"line {i1 + k + 1}" + (f" ({heading})" if heading else "") + \
                (f", row {row!r}" if len(cb) > 1 else "")
            if len(ca) != len(cb):
                diffs.append(_diff(name, where, "", a, b))
                continue
            for c, (x, y) in enumerate(zip(ca, cb, strict=True)):
                if x != y:
                    col = header[c].strip() if c < len(header) else f"cell {c + 1}"
                    diffs.append(_diff(name, where, col, x.strip(), y.strip()))
        for i in range(i1 + pairs, i2):  # in the file, not in the rendering
            diffs.append(_diff(name, f"line {i + 1}: not in what the JSON renders to "
                               "(added, duplicated or moved?)", "", have[i], None))
        for j in range(j1 + pairs, j2):  # in the rendering, not in the file
            heading, _ = context[j]
            diffs.append(_diff(name, f"missing after line {i1 + pairs}"
                               + (f" ({heading})" if heading else ""), "", None, rend[j]))
    return n, diffs


def _diff(name: str, key: str, column: str, original: str | None,
          reproduced: str | None) -> dict[str, Any]:
    return {"file": name, "key": key, "column": column, "original": original,
            "reproduced": reproduced, "abs_diff": None}


def _row_name(cells: list[str], header: list[str]) -> str:
    """The row's model (its ``model`` column in the CSV), else its first cell."""
    names = [h.strip() for h in header]
    at = names.index("model") if "model" in names else 0
    return cells[at].strip() if at < len(cells) else ""


def _cells(line: str, kind: str) -> list[str]:
    if kind == ".md" and line.startswith("|"):
        return _UNESCAPED_PIPE.split(line.strip())[1:-1]
    if kind == ".csv":
        return next(csv.reader([line]), [])
    if kind == ".tex" and line.endswith("\\\\") and "&" in line:
        return _UNESCAPED_AMP.split(line[:-2])
    return [line]


def _is_header(line: str, after: str, kind: str) -> bool:
    """Is ``line`` the header of a table (the line before Markdown's ``|---|`` or ``\\midrule``)?"""
    if kind == ".md":
        return line.startswith("|") and bool(_MD_SEPARATOR.match(after))
    return kind == ".tex" and after == "\\midrule"


def _context(lines: list[str], kind: str) -> list[tuple[str, list[str]]]:
    """For each rendered line: the heading of its table and the header cells of its rows."""
    out: list[tuple[str, list[str]]] = []
    heading, header = "", [] if kind != ".csv" else _cells(lines[0], kind) if lines else []
    for i, line in enumerate(lines):
        if kind == ".md" and line.startswith(("#", "**")):  # a fold table's title: **name**
            heading, header = line.lstrip("#").strip(), []
        elif i + 1 < len(lines) and _is_header(line, lines[i + 1], kind):
            header = _cells(line, kind)
        elif kind == ".tex" and line.startswith("\\label{"):
            heading = line[len("\\label{"):].rstrip("}")
        out.append((heading, header))
    return out


__all__ = ["check_rendered", "compare_text", "fold_renderings", "leaderboard_renderings",
           "tuned_renderings"]
