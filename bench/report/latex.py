"""``leaderboard.tex``: one booktabs table per dataset, from the document of :mod:`bench.report.build`."""

from __future__ import annotations

import hashlib
import re
from typing import Any

from bench.data.look_alike import shown_name
from bench.metrics.families import metric_header
from bench.report.render import CONTROL, best_by_metric, fmt_fit_time
from bench.report.stats import confidence_percent, fmt_p

_TEX_ESCAPES = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    '"': r"\textquotedbl{}",
    "`": r"\textasciigrave{}",  # bare, TeX prints a left quote (and ``` `` ``` an opening one)
}


#: Pairs that TeX's fonts join into one glyph (ligatures): ``--`` an en dash, ``''`` a closing
#: quote, ``,,`` a low quote (T1); a backtick is escaped as a character of its own (so
#: ``!``` and ``?```, the inverted marks, cannot form). A ``{}`` between the two characters keeps
#: them apart, so ``lightgbm--v2`` prints two hyphens.
_LIGATURE = re.compile(r"(?<=-)(?=-)|(?<=')(?=')|(?<=,)(?=,)")
#: Characters outside Latin-1: pdfLaTeX's default input encoding (UTF-8 since LaTeX 2018) has no
#: glyph for them ("Unicode character ... not set up for use with LaTeX"); XeLaTeX and LuaLaTeX
#: with a font that holds them print them.
_BEYOND_LATIN1 = re.compile(r"[^\x00-\xff]")


def _labels(tables: list[dict[str, Any]]) -> list[str]:
    """One ``\\label`` per table, never two alike (LaTeX warns of a label "multiply defined"
    and every ``\\ref`` points at the last one): ``tab:ltrbench-<dataset>``, with 8 hex digits of
    the name's SHA-256 when the name is not plain ASCII letters and digits (``データ`` and ``数据``
    would both be empty), and ``-2``, ``-3`` ... when it still repeats (``--all``: one table per
    run of one dataset)."""
    out: list[str] = []
    for table in tables:
        name = str(table["dataset"])
        base = re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower() or "dataset"
        if not re.fullmatch(r"[A-Za-z0-9]+(?:[-_. ][A-Za-z0-9]+)*", name):
            base = f"{base}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"
        label, n = f"tab:ltrbench-{base}", 2
        while label in out:
            label, n = f"tab:ltrbench-{base}-{n}", n + 1
        out.append(label)
    return out


def tex_escape(text: str) -> str:
    """Plain text as LaTeX that prints it: the special characters escaped, ``<``, ``>``, ``|``
    and ``"`` (other glyphs in the default OT1 font encoding) and a backtick (a left quote to
    TeX) as text commands, ligatures (``--``, ``''``, ``,,``) broken with ``{}``, line breaks
    and other control characters as a space. Characters beyond Latin-1 are kept as they are: :func:`render_latex` says in the file
    which engine prints them."""
    escaped = "".join(_TEX_ESCAPES.get(ch, ch) for ch in CONTROL.sub(" ", str(text)))
    return _LIGATURE.sub("{}", escaped)


def _header(metric: str) -> str:
    """A metric's table header as LaTeX text: ``gm_map``, ``set_P``, ``RBP_residual(0.8)@10``
    hold ``_``, TeX's subscript outside math ("Missing $ inserted"), printed raw before."""
    return tex_escape(metric_header(metric))


def unicode_note(texts: list[str]) -> str | None:
    """A comment line for a ``.tex`` whose names hold characters beyond Latin-1 (listed, at most
    eight): compile it with XeLaTeX or LuaLaTeX (pdfLaTeX stops with "Unicode character ... not
    set up for use with LaTeX"); ``None`` when every character is Latin-1."""
    chars = sorted({c for t in texts for c in _BEYOND_LATIN1.findall(t)})
    if not chars:
        return None
    shown = " ".join(chars[:8]) + (" ..." if len(chars) > 8 else "")
    return ("% Names hold characters beyond Latin-1 (" + shown + "): compile with XeLaTeX or "
            "LuaLaTeX and a font that has them (pdfLaTeX stops at them).")


def _tex_ms(entry: dict[str, Any] | None, bold: bool, digits: int = 4) -> str:
    if not entry or entry.get("mean") is None:
        return "--"
    mean = f"{entry['mean']:.{digits}f}"
    if bold:
        mean = rf"\mathbf{{{mean}}}"
    if entry.get("std") is None:
        return f"${mean}$"
    return rf"${mean} \pm {entry['std']:.{digits}f}$"


def _seed_words(table: dict[str, Any]) -> str:
    """What a cell's ``±`` is: the sample standard deviation over the table's seeds, the seeds
    of rows that have fewer named (a failed seed), none with one seed."""
    n = len(table["seeds"])
    text = (f"mean over {n} seed (one seed: no spread)" if n == 1 else
            f"mean $\\pm$ sample std (ddof 1) over {n} seeds")
    fewer = [f"{tex_escape(r['model'])}: {len(r['seeds'])}" for r in table["rows"]
             if len(r["seeds"]) < n]
    return text + (f" (fewer seeds: {', '.join(fewer)})" if fewer else "")


def render_latex(doc: dict[str, Any]) -> str:
    """``leaderboard.tex``: one booktabs ``table`` per dataset (needs ``\\usepackage{booktabs}``)."""
    so = doc["stats"]
    conf = confidence_percent(so["confidence"])
    out = [
        "% Generated by " + tex_escape(doc["generated_by"]) + "; requires \\usepackage{booktabs}.",
    ]
    names = [CONTROL.sub(" ", str(v)) for t in doc["tables"]
             for v in (t["dataset"], t["run_id"], t["profile"], *(r["model"] for r in t["rows"]))]
    note = unicode_note(names)
    out += [note, ""] if note else [""]
    for table, label in zip(doc["tables"], _labels(doc["tables"]), strict=True):
        metrics = table["metrics"]
        best = best_by_metric(table)
        primary = table["primary_metric"]
        with_tests = primary in metrics
        cols = "l" + "r" * (len(metrics) + 1) + ("rr" if with_tests else "")
        caption = (
            f"{tex_escape(shown_name(table['dataset']))}, {tex_escape(table['split'])} split, profile "
            f"\\texttt{{{tex_escape(table['profile'])}}}: {_seed_words(table)}; {conf}\\% percentile bootstrap CI over "
            f"{table['n_queries']} queries; p: paired randomization test of "
            f"{_header(primary)} against the best row, Holm-corrected. "
            f"Run \\texttt{{{tex_escape(table['run_id'])}}}."
        )
        if table["blank_queries"]:
            caption += f" {table['blank_queries']} blank queries excluded."
        out += [
            "\\begin{table}[t]",
            "\\centering",
            "\\small",
            "\\setlength{\\tabcolsep}{3pt}",
            f"\\caption{{{caption}}}",
            f"\\label{{{label}}}",
            f"\\begin{{tabular}}{{{cols}}}",
            "\\toprule",
        ]
        head = ["Model", *[_header(m) for m in metrics], "Fit s: median [range]"]
        if with_tests:
            head += [f"{_header(primary)} {conf}\\% CI", "$p$ (Holm)"]
        out.append(" & ".join(head) + " \\\\")
        out.append("\\midrule")
        for row in table["rows"]:
            cells = [tex_escape(row["model"])]
            cells += [_tex_ms(row["metrics"][m], row["model"] in best.get(m, ())) for m in metrics]
            cells.append(fmt_fit_time(row["fit_s"]).replace("†", r"$^\dagger$").replace("–", "--"))
            if with_tests:
                e = row["metrics"][primary]
                cells.append(
                    "--" if e.get("ci_low") is None
                    else f"$[{e['ci_low']:.4f}, {e['ci_high']:.4f}]$"
                )
                vs = row["vs_best"]
                if vs is None:
                    cells.append("best" if row["model"] == table["best_model"] else "--")
                else:
                    p = vs["p_randomization_holm"]
                    cells.append("--" if p is None else f"${fmt_p(p)}$")
            out.append(" & ".join(cells) + " \\\\")
        out += ["\\bottomrule", "\\end{tabular}"]
        # the notes the Markdown prints (a failed seed, a t-test without a statistic): a table
        # pasted into a paper says them too
        out += [f"\\par\\smallskip{{\\footnotesize Note: {tex_escape(n)}.}}"
                for n in table.get("notes") or []]
        out += ["\\end{table}", ""]
    return "\n".join(out)
