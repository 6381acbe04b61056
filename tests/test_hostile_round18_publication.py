"""Round 18, hostile (issue 19): a paper author, and a hostile co-author, paste ltrbench's
outputs into a paper (``leaderboard.tex``), a web page (``leaderboard.html``, the Markdown) and a
spreadsheet (``leaderboard.csv``, ``evaluate --format csv``), with names the user controls:
dataset names (``--name``: any printable line), custom model names, run names of a comparison.

Found on the base:

* a dataset or custom model named ``NA``, ``null``, ``nan``, ``None``, ``#N/A`` (pandas' missing
  values), ``007``, ``+1``, ``-1``, ``1.0``, ``1e3`` (numbers to pandas): ``run --name NA`` trained
  and then ended with exit 2 (``empty 'dataset'``) and ``report`` refused every such run
  ("rows of dataset '7' where the manifest names '007'") -- the run files read their own names
  back as numbers or missing values;
* two datasets ``=x`` and ``'=x`` were written as one dataset ``'=x`` in ``leaderboard.csv``
  (``evaluate --per-query`` refuses the same clash);
* the fold table's title (``folds/<name>-folds12345.md``) and ``crosscheck.md``'s title printed
  the dataset name raw: ``<img onerror=...>`` was markup, ``a|b`` and ``**`` broke the text;
* ``leaderboard.tex`` captioned a decomposed ``cafe`` + U+0301 as plain ``café`` where the
  Markdown and HTML say which of two look-alike datasets it is.

Oracles: the csv module and pandas reading the CSV back, Python's ``html.parser``, an
independent de-escaping of the Markdown and LaTeX text, ``leaderboard.json`` (the names exactly
and the numbers at full precision) against every rendering, hand formatting to 4 decimals,
"exit 2 and the message names both names".
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
import sys
import unicodedata
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import Res, cli, letor_folder, refused, write_run_tables

FAST = ("--no-plots", "--no-progress", "--bootstrap", "50", "--permutations", "300")
LGB, XGB, RND = "lightgbm-lambdarank", "xgboost-ndcg", "random"
PQ = {LGB: [0.9, 0.8, 0.7, 0.95, 0.85, 0.75, 0.6, 0.9],
      XGB: [0.91, 0.79, 0.7, 0.95, 0.85, 0.75, 0.6, 0.9],  # mean 0.80625 vs 0.80625: a tie
      RND: [0.3, 0.2, 0.1, 0.4, 0.35, 0.25, 0.2, 0.3]}

#: Dataset names an author gives with --name (one printable line, no '/' or '\\').
MARKUP = {
    "mix": "=HYPERLINK(\"x\")|<script>alert(1)</script><img src=x onerror=alert(1)>**b** "
           "[x](javascript:1) _u_ 50%_#$&{}~^ it's `c`",
    "at": "@SUM(A1)|x",
    "nfd": "cafe\u0301",
    "nfc": "caf\u00e9",
    "emoji": "\U0001F469\u200d\U0001F4BB \u0628\u064a\u0627\u0646\u0627\u062a",
    "latin": "Data",
    "cyrillic_a": "D\u0430ta",  # a Cyrillic a among Latin letters: drawn as "Data"
}
#: Names pandas reads as a missing value or a number unless told they are text.
PANDAS = {"NA": "NA", "zeros": "007", "minus1": "-1"}


def write_run(root: Path, rid: str, dataset: str, pq: dict[str, list[float]] | None = None,
              libraries: dict[str, str] | None = None) -> Path:
    """A finished one-seed run as the run loop writes it (metrics.csv: the per-query mean)."""
    pq = pq or PQ
    run = root / rid
    run.mkdir(parents=True)
    models = list(pq)
    (run / "config.toml").write_text(
        f"dataset = {json.dumps(dataset, ensure_ascii=False)}\nprofile = \"ltrbench\"\n"
        f"models = {json.dumps(models)}\nseeds = [0]\nquick = true\n", encoding="utf-8")
    (run / "manifest.json").write_text(json.dumps(
        {"finished": "2026-01-01T00:00:00+00:00", "seeds": [0],
         "models": {m: {} for m in models}, "evaluation": {"profile": "ltrbench"},
         "dataset": {"name": dataset}}), encoding="utf-8")
    lib = {LGB: "lightgbm", XGB: "xgboost", RND: "baseline", **(libraries or {})}
    p_rows, m_rows, t_rows = [], [], []
    for m, vals in pq.items():
        p_rows += [(dataset, m, 0, "test", q, "ndcg@10", v) for q, v in enumerate(vals)]
        m_rows.append((dataset, m, lib.get(m, "custom"), 0, "test", "ndcg@10",
                       float(np.mean(vals)), "ltrbench"))
        t_rows.append((dataset, m, lib.get(m, "custom"), 0, 1.0, 0.01, 100.0, 10, 10))
    return write_run_tables(run, m_rows, p_rows, t_rows)


def _report(base: Path, names: list[str], *extra: str) -> Path:
    for i, name in enumerate(names):
        write_run(base / "runs", f"r{i:02d}", name)
    res = cli(base, "report", "--runs", "runs", "--out", "out", *extra, *FAST)
    assert res.status == 0, res.err[-2000:]
    return base / "out"


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One report (``--html``) over one run per dataset name of :data:`MARKUP`."""
    return _report(tmp_path_factory.mktemp("publication"), list(MARKUP.values()), "--html")


@pytest.fixture(scope="module")
def pandas_board(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One report over one run per dataset name of :data:`PANDAS`."""
    return _report(tmp_path_factory.mktemp("pandas_names"), list(PANDAS.values()))


def _doc(board: Path) -> dict[str, Any]:
    return json.loads((board / "leaderboard.json").read_text(encoding="utf-8"))


def shown(name: str) -> str:
    """How a report heads a dataset: the name, and its escaped spelling when it is not in NFC,
    holds an invisible format character or mixes Latin with Cyrillic or Greek letters (so two
    look-alike datasets are told apart)."""
    mixed = any(unicodedata.name(c, "").startswith(("CYRILLIC", "GREEK")) for c in name) \
        and any(c.isascii() and c.isalpha() for c in name)
    if unicodedata.normalize("NFC", name) == name and not mixed and not any(
            unicodedata.category(c) == "Cf" for c in name):
        return name
    return f"{name} ({ascii(name)[1:-1]})"


def csv_rule(name: str) -> str:
    """README: a name that starts with = + - @ tab or CR gets a leading ' in leaderboard.csv."""
    return "'" + name if name.startswith(("=", "+", "-", "@", "\t", "\r")) else name


def un_md(text: str) -> str:
    """Markdown text back to what a renderer shows: backslash escapes, then entities."""
    return html.unescape(re.sub(r"\\(.)", r"\1", text))


_TEX_BACK = [(r"\textbackslash{}", "\\"), (r"\textasciitilde{}", "~"),
             (r"\textasciicircum{}", "^"), (r"\textless{}", "<"), (r"\textgreater{}", ">"),
             (r"\textbar{}", "|"), (r"\textquotedbl{}", '"'), (r"\textasciigrave{}", "`"),
             (r"\&", "&"), (r"\%", "%"),
             (r"\$", "$"), (r"\#", "#"), (r"\_", "_"), (r"\{", "{"), (r"\}", "}")]


def un_tex(text: str) -> str:
    """LaTeX text back to what it prints, and a check that no special character is bare."""
    out, i = [], 0
    while i < len(text):
        for esc, ch in _TEX_BACK:
            if text.startswith(esc, i):
                out.append(ch)
                i += len(esc)
                break
        else:
            if text.startswith("{}", i):  # a ligature break prints nothing
                i += 2
                continue
            assert text[i] not in "\\&%$#_{}~^<>|\"`", f"bare {text[i]!r} at {i} in {text!r}"
            out.append(text[i])
            i += 1
    return "".join(out)


def _md_cells(line: str) -> list[str]:
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def _md_sections(board: Path) -> dict[str, list[str]]:
    """leaderboard.md by dataset heading (as a renderer shows it) -> its lines."""
    out: dict[str, list[str]] = {}
    current: list[str] = []
    for line in (board / "leaderboard.md").read_text(encoding="utf-8").splitlines():
        m = re.match(r"## (.*) — test split, profile `ltrbench`$", line)
        if m:
            current = out.setdefault(un_md(m.group(1)), [])
        current.append(line)
    return out


# ------------------------------------------------------------------------ leaderboard.json: exact
def test_json_keeps_every_hostile_dataset_name_exactly(board: Path) -> None:
    assert sorted(t["dataset"] for t in _doc(board)["tables"]) == sorted(MARKUP.values())


@pytest.mark.parametrize("key", sorted(PANDAS))
def test_a_dataset_named_like_a_missing_value_or_number_is_reported_under_its_name(
        pandas_board: Path, key: str) -> None:
    """Base: NA, 007, -1 runs refused ('rows of dataset 7 where the manifest names 007')."""
    name = PANDAS[key]
    (table,) = [t for t in _doc(pandas_board)["tables"] if t["dataset"] == name]
    assert {r["model"] for r in table["rows"]} == set(PQ)
    assert name in _md_sections(pandas_board)
    rows = list(csv.DictReader(io.StringIO(
        (pandas_board / "leaderboard.csv").read_text(encoding="utf-8"))))
    assert csv_rule(name) in {r["dataset"] for r in rows}


# ---------------------------------------------------------------------------------- Markdown
def test_every_markdown_table_row_has_its_header_column_count(board: Path) -> None:
    lines = (board / "leaderboard.md").read_text(encoding="utf-8").splitlines()
    width = None
    for line in lines:
        if not line.startswith("|"):
            width = None
            continue
        n = len(_md_cells(line))
        width = n if width is None else width
        assert n == width, line


@pytest.mark.parametrize("key", sorted(MARKUP))
def test_a_markdown_heading_shows_the_dataset_name_as_written(board: Path, key: str) -> None:
    assert shown(MARKUP[key]) in _md_sections(board)


def test_markdown_opens_no_tag_and_no_link(board: Path) -> None:
    text = (board / "leaderboard.md").read_text(encoding="utf-8")
    body = re.sub(r"<!-- ltrbench-table .*? -->", "", text)
    assert not re.search(r"<[A-Za-z/!]", body)
    assert "](javascript:" not in body.replace("\\](", "")


# ---------------------------------------------------------------------------------- HTML
class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.h2: list[str] = []
        self._in_h2 = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))
        self._in_h2 = tag == "h2"
        if self._in_h2:
            self.h2.append("")

    def handle_endtag(self, tag: str) -> None:
        self._in_h2 = self._in_h2 and tag != "h2"

    def handle_data(self, data: str) -> None:
        if self._in_h2:
            self.h2[-1] += data


@pytest.fixture(scope="module")
def html_tags(board: Path) -> _Tags:
    parser = _Tags()
    parser.feed((board / "leaderboard.html").read_text(encoding="utf-8"))
    return parser


def test_html_has_no_injected_tag_or_event_attribute(html_tags: _Tags) -> None:
    names = [t for t, _ in html_tags.tags]
    assert "img" not in names or all(
        dict(a).get("src", "").startswith("data:image/png") for t, a in html_tags.tags if t == "img")
    assert names.count("script") == 1  # the report's own sorting script
    assert not [a for _, attrs in html_tags.tags for a, _ in attrs if a.startswith("on")]


def test_html_headings_are_the_dataset_names_as_written(html_tags: _Tags) -> None:
    assert sorted(html_tags.h2) == sorted(shown(n) for n in MARKUP.values())


# ---------------------------------------------------------------------------------- LaTeX
def _captions(board: Path) -> list[str]:
    tex = (board / "leaderboard.tex").read_text(encoding="utf-8")
    return re.findall(r"\\caption\{(.*), test split, profile", tex)


def test_latex_captions_escape_every_special_character_and_print_the_name(board: Path) -> None:
    assert sorted(un_tex(c) for c in _captions(board)) == sorted(
        shown(n) for n in MARKUP.values())


def test_latex_tells_a_decomposed_name_from_its_composed_twin_as_markdown_does(
        board: Path) -> None:
    """Base: both captions read ``café``; the Markdown and HTML headings differ."""
    got = {un_tex(c) for c in _captions(board)}
    assert "cafe\u0301 (cafe\\u0301)" in got
    assert "caf\u00e9" in got


def test_a_cyrillic_letter_among_latin_ones_is_spelled_out_in_every_document(
        board: Path, html_tags: _Tags) -> None:
    """``Data`` and ``Dаta`` (Cyrillic ``а``) print alike; base: two tables headed ``Data``
    in the Markdown, HTML and LaTeX, told apart only by leaderboard.json."""
    twin = "D\u0430ta (D\\u0430ta)"
    assert twin in _md_sections(board)
    assert twin in html_tags.h2
    assert twin in {un_tex(c) for c in _captions(board)}


@pytest.mark.parametrize("name", ["\u0434\u0430\u043d\u043d\u044b\u0435",
                                  "\u0394\u03b5\u03b4\u03bf\u03bc\u03ad\u03bd\u03b1"])
def test_a_name_in_cyrillic_or_greek_alone_is_shown_as_itself(name: str) -> None:
    from bench.report.select import shown_name

    assert shown_name(name) == name


def test_latex_braces_balance_on_every_line(board: Path) -> None:
    for line in (board / "leaderboard.tex").read_text(encoding="utf-8").splitlines():
        bare = re.sub(r"\\[{}]", "", line)
        assert bare.count("{") == bare.count("}"), line


def test_latex_names_the_characters_beyond_latin1(board: Path) -> None:
    head = (board / "leaderboard.tex").read_text(encoding="utf-8").splitlines()[1]
    assert head.startswith("% Names hold characters beyond Latin-1")
    for ch in ("\u0628", "\u0301"):
        assert ch in head


# ---------------------------------------------------------------------------------- CSV
def test_csv_reads_back_with_the_csv_module_as_the_documented_cells(board: Path) -> None:
    rows = list(csv.DictReader(io.StringIO(
        (board / "leaderboard.csv").read_text(encoding="utf-8"), newline="")))
    assert sorted({r["dataset"] for r in rows}) == sorted(csv_rule(n) for n in MARKUP.values())
    assert len(rows) == 3 * len(MARKUP)


def test_csv_reads_back_with_pandas_as_the_same_cells(board: Path) -> None:
    frame = pd.read_csv(board / "leaderboard.csv", dtype=str, keep_default_na=False)
    assert sorted(set(frame["dataset"])) == sorted(csv_rule(n) for n in MARKUP.values())


def test_no_csv_text_cell_starts_a_spreadsheet_formula(board: Path) -> None:
    frame = pd.read_csv(board / "leaderboard.csv", dtype=str, keep_default_na=False)
    for col in ("dataset", "model", "library", "run_id", "profile", "split"):
        assert not frame[col].str.match(r"[=+\-@\t\r]").any(), col


def test_two_datasets_one_csv_cell_apart_are_refused_naming_both(tmp_path: Path) -> None:
    """``=x`` is written ``'=x`` (OWASP); a dataset really named ``'=x`` would be the same
    cell. Base: one CSV with two datasets under one name, exit 0."""
    write_run(tmp_path / "runs", "r1", "=x")
    write_run(tmp_path / "runs", "r2", "'=x")
    res = cli(tmp_path, "report", "--runs", "runs", "--out", "out", *FAST)
    assert refused(res, "'=x'", "\"'=x\"", "leaderboard.csv") is None, res.err[-800:]
    assert not (tmp_path / "out" / "leaderboard.md").exists()


# ------------------------------------------------------ numbers: one value in every format
def _md_table(board: Path, name: str) -> dict[str, list[str]]:
    lines = _md_sections(board)[shown(name)]
    rows = [_md_cells(x) for x in lines if x.startswith("|") and "---" not in x]
    head, body = rows[0], rows[1:len(PQ) + 1]
    return {r[0]: r for r in body} | {"#": head}


def _tex_rows(board: Path) -> list[list[str]]:
    tex = (board / "leaderboard.tex").read_text(encoding="utf-8")
    return [[c.strip() for c in line.removesuffix("\\\\").split(" & ")]
            for line in tex.splitlines() if line.startswith((LGB, XGB, RND))]


def test_markdown_latex_html_print_the_json_mean_to_four_decimals(board: Path) -> None:
    doc = _doc(board)
    page = (board / "leaderboard.html").read_text(encoding="utf-8")
    tex_rows = _tex_rows(board)
    for table in doc["tables"][:3]:
        md = _md_table(board, table["dataset"])
        col = md["#"].index("NDCG@10")
        for row in table["rows"]:
            want = f"{row['metrics']['ndcg@10']['mean']:.4f}"
            assert md[row["model"]][col].strip("*") == want
            assert want in page
            assert any(re.sub(r"\\mathbf\{(.*)\}", r"\1", r[col].strip("$")) == want
                       for r in tex_rows if r[0] == row["model"])


def test_bold_marks_agree_with_the_best_as_printed_in_markdown_and_latex(board: Path) -> None:
    """LightGBM and XGBoost tie at 0.8063 (means 0.80625 both): both bold, random not."""
    table = _doc(board)["tables"][0]
    md = _md_table(board, table["dataset"])
    col = md["#"].index("NDCG@10")
    bold_md = {m for m in PQ if md[m][col].startswith("**")}
    bold_tex = {r[0] for r in _tex_rows(board)[:3] if "\\mathbf" in r[col]}
    means = {r["model"]: f"{r['metrics']['ndcg@10']['mean']:.4f}" for r in table["rows"]}
    best = max(means.values())
    assert bold_md == bold_tex == {m for m, v in means.items() if v == best} == {LGB, XGB}


def test_the_p_values_printed_are_the_json_p_values(board: Path) -> None:
    table = _doc(board)["tables"][0]
    md = _md_table(board, table["dataset"])
    col = md["#"].index("p rand. (Holm)")
    for row in table["rows"]:
        p = (row["vs_best"] or {}).get("p_randomization_holm")
        if p is not None:
            want = "<0.001" if p < 0.001 else f"{p:.3f}"
            assert md[row["model"]][col].replace("&lt;", "<") == want


def test_csv_numbers_are_the_json_numbers_to_ten_significant_digits(board: Path) -> None:
    doc = _doc(board)
    rows = list(csv.DictReader(io.StringIO((board / "leaderboard.csv").read_text("utf-8"))))
    by = {(r["dataset"], r["model"]): r for r in rows}
    for table in doc["tables"]:
        for row in table["rows"]:
            got = by[(csv_rule(table["dataset"]), row["model"])]
            e = row["metrics"]["ndcg@10"]
            for key in ("mean", "ci_low", "ci_high"):
                assert float(got[f"ndcg@10_{key}"]) == float(f"{e[key]:.10g}")
            p = (row["vs_best"] or {}).get("p_randomization_holm")
            assert got["p_randomization_holm"] == ("" if p is None else got["p_randomization_holm"])
            if p is not None:
                assert float(got["p_randomization_holm"]) == float(f"{p:.10g}")


def test_html_bold_cells_are_the_markdown_bold_cells(board: Path) -> None:
    page = (board / "leaderboard.html").read_text(encoding="utf-8")
    first = page[page.index('<section id="t0">'):page.index('<section id="t1">')]
    best_cells = re.findall(r'<td data-v="([^"]*)" class="best"', first)
    table = _doc(board)["tables"][0]
    means = [r["metrics"]["ndcg@10"]["mean"] for r in table["rows"]]
    top = f"{max(means):.4f}"
    assert sorted(float(v) for v in best_cells) == sorted(m for m in means if f"{m:.4f}" == top)


def test_leaderboard_json_is_strict_json(board: Path) -> None:
    def no_constant(name: str) -> None:
        raise AssertionError(f"{name} in leaderboard.json")

    json.loads((board / "leaderboard.json").read_text(encoding="utf-8"),
               parse_constant=no_constant)


def test_a_run_folder_with_markup_in_its_name_keeps_every_table_whole(tmp_path: Path) -> None:
    """The run id is the folder's name, which the user may rename: Markdown rows keep their
    cells, the LaTeX caption prints it, the CSV cell is no formula."""
    rid = "=r|&%_{x}`$<b>"
    write_run(tmp_path / "runs", rid, "d")
    res = cli(tmp_path, "report", "--runs", "runs", "--out", "out", *FAST)
    assert res.status == 0, res.err[-800:]
    out = tmp_path / "out"
    (cap,) = re.findall(r"Run \\texttt\{(.*)\}\.\}$",
                        (out / "leaderboard.tex").read_text("utf-8"), re.M)
    assert un_tex(cap) == rid
    test_every_markdown_table_row_has_its_header_column_count(out)
    rows = list(csv.DictReader(io.StringIO((out / "leaderboard.csv").read_text("utf-8"))))
    assert {r["run_id"] for r in rows} == {"'" + rid}
    assert "<b>" not in (out / "leaderboard.md").read_text("utf-8").split("-->")[-1]


# ------------------------------------------------ runs whose own names pandas would misread
def test_read_checked_keeps_text_columns_as_written(tmp_path: Path) -> None:
    from bench.runs.layout import read_checked

    run = write_run(tmp_path / "runs", "r1", "007", pq={"NA": [0.5, 0.7], "nan": [0.1, 0.2]})
    frame = read_checked(run / "metrics.csv")
    assert list(frame["dataset"]) == ["007", "007"]
    assert list(frame["model"]) == ["NA", "nan"]
    assert list(frame["value"]) == [0.6, pytest.approx(0.15)]


def test_a_dataset_named_na_with_blank_lines_at_the_end_reads_as_its_rows(
        tmp_path: Path) -> None:
    """Blank lines after the rows (an editor's) are dropped as before; the name stays ``NA``."""
    from bench.runs.layout import read_checked

    run = write_run(tmp_path / "runs", "r1", "NA")
    with open(run / "metrics.csv", "a", encoding="utf-8") as fh:
        fh.write("\n\n")
    frame = read_checked(run / "metrics.csv")
    assert list(frame["dataset"]) == ["NA"] * len(PQ)
    assert list(frame["model"]) == list(PQ)


def test_an_empty_dataset_cell_is_still_refused_naming_line_and_column(tmp_path: Path) -> None:
    from bench.errors import DataError
    from bench.runs.layout import read_checked

    run = write_run(tmp_path / "runs", "r1", "d")
    text = (run / "metrics.csv").read_text().replace("\nd,", "\n,", 1)
    (run / "metrics.csv").write_text(text)
    with pytest.raises(DataError) as info:
        read_checked(run / "metrics.csv")
    assert "line 2" in str(info.value) or ":2" in str(info.value)
    assert "'dataset'" in str(info.value)


def test_an_empty_value_cell_is_still_a_missing_number(tmp_path: Path) -> None:
    from bench.runs.layout import read_checked

    run = write_run(tmp_path / "runs", "r1", "d")
    lines = (run / "metrics.csv").read_text().splitlines()
    lines[1] = re.sub(r",[0-9.]+,ltrbench$", ",,ltrbench", lines[1])
    lines[2] = re.sub(r",[0-9.]+,ltrbench$", ",NaN,ltrbench", lines[2])
    (run / "metrics.csv").write_text("\n".join(lines) + "\n")
    frame = read_checked(run / "metrics.csv")
    assert frame["value"].isna().tolist()[:2] == [True, True]


def test_custom_models_named_like_missing_values_and_numbers_are_reported(
        tmp_path: Path) -> None:
    """``[custom_models.NA]``, ``007``, ``1e3`` are valid custom model names."""
    pq = {"NA": PQ[LGB], "007": PQ[XGB], "1e3": PQ[RND]}
    write_run(tmp_path / "runs", "r1", "d", pq=pq)
    res = cli(tmp_path, "report", "--runs", "runs/r1", "--out", "out", *FAST)
    assert res.status == 0, res.err[-800:]
    doc = _doc(tmp_path / "out")
    assert {r["model"] for r in doc["tables"][0]["rows"]} == set(pq)
    rows = list(csv.DictReader(io.StringIO((tmp_path / "out" / "leaderboard.csv").read_text())))
    assert {r["model"] for r in rows} == set(pq)


def test_a_real_run_named_na_finishes_and_reports_under_its_name(tmp_path: Path) -> None:
    """Base: ``run --name NA`` trained, wrote its files, then exited 2 ("empty 'dataset'")."""
    letor_folder(tmp_path / "tiny")
    res = cli(tmp_path, "run", "--dataset", "tiny", "--models", "random", "--seeds", "0",
              "--quick", "--name", "NA", "--out", "o", "--no-progress", "--no-crosscheck")
    assert res.status == 0, res.err[-800:]
    res = cli(tmp_path, "report", "--runs", "o/runs", "--out", "rep", *FAST)
    assert res.status == 0, res.err[-800:]
    assert [t["dataset"] for t in _doc(tmp_path / "rep")["tables"]] == ["NA"]


# ----------------------------------------------------------- fold tables and crosscheck.md
@pytest.mark.parametrize("name", ["<img src=x onerror=alert(1)>", "a|b", "**b** [x](javascript:1) _u_", MARKUP["nfd"]])
def test_a_fold_table_title_shows_the_dataset_name_as_text(name: str) -> None:
    """Base: ``**<img src=x onerror=alert(1)>**`` -- markup in ``folds/<name>-folds12345.md``."""
    from bench.report.folds import FoldRow, FoldTable, render_fold_markdown

    row = FoldRow(model=RND, per_fold=(0.5, 0.6), mean=0.55, std=0.0707, pooled_mean=0.55,
                  ci_low=0.4, ci_high=0.7, p_holm=None)
    text = render_fold_markdown(FoldTable(
        dataset=name, metric="ndcg@10", profile="ltrbench", folds=("Fold1", "Fold2"),
        run_ids=("a", "b"), n_queries=5, rows=(row,)))
    title = text.splitlines()[0]
    m = re.fullmatch(r"\*\*(.*)\*\*: ndcg@10 on the test folds, profile `ltrbench`", title)
    assert m is not None, title
    assert un_md(m.group(1)) == shown(name)
    assert not re.search(r"<[A-Za-z/]", m.group(1))


@pytest.mark.parametrize("name", ["<script>alert(1)</script>", "x **y** | z"])
def test_crosscheck_markdown_title_shows_the_dataset_name_as_text(name: str) -> None:
    from bench.crosscheck.render import render_markdown
    from bench.crosscheck.result import CrosscheckResult

    res = CrosscheckResult(dataset=name, run_dir="r", run_id="r1", metric="ndcg@10",
                           default_profile="ltrbench")
    title = render_markdown(res).splitlines()[0]
    assert title.startswith("# Cross-check of built-in ndcg@10: ")
    shown_text = title.removeprefix("# Cross-check of built-in ndcg@10: ")
    assert un_md(shown_text) == name
    assert "<script" not in title


# ----------------------------------------------------------------- evaluate's comparison CSV
QRELS = b"q1 0 a 1\nq1 0 b 0\nq2 0 c 1\nq2 0 d 0\n"
RUN_A = b"q1 Q0 a 1 0.9 t\nq1 Q0 b 2 0.1 t\nq2 Q0 c 1 0.8 t\nq2 Q0 d 2 0.2 t\n"
RUN_B = b"q1 Q0 a 1 0.1 t\nq1 Q0 b 2 0.9 t\nq2 Q0 c 1 0.9 t\nq2 Q0 d 2 0.1 t\n"


def _compare(tmp_path: Path, names: tuple[str, str], *extra: str) -> Res:
    (tmp_path / "q.txt").write_bytes(QRELS)
    (tmp_path / "a.txt").write_bytes(RUN_A)
    (tmp_path / "b.txt").write_bytes(RUN_B)
    return cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", f"{names[0]}=a.txt",
               "--run", f"{names[1]}=b.txt", "--metrics", "ndcg@10", *extra)


def test_comparison_csv_run_names_with_comma_and_quote_read_back_as_json(tmp_path: Path) -> None:
    names = ('a,b "x"', "it's|y")
    res = _compare(tmp_path, names, "--format", "csv")
    assert res.status == 0, res.err[-800:]
    rows = list(csv.DictReader(io.StringIO(res.out)))
    assert [r["run"] for r in rows] == ['a,b "x"', "it's|y"]
    got = {r["run"]: float(r["ndcg@10"]) for r in rows}
    assert got == {'a,b "x"': 1.0, "it's|y": pytest.approx(0.8154648767857288)}
    js = json.loads(_compare(tmp_path, names, "--format", "json").out)
    assert [r["name"] for r in js["runs"]] == list(names)


def test_comparison_per_query_csv_header_reads_back_as_the_run_names(tmp_path: Path) -> None:
    res = _compare(tmp_path, ("@a", "b,c"), "--per-query", "pq.csv")
    assert res.status == 0, res.err[-800:]
    with open(tmp_path / "pq.csv", newline="", encoding="utf-8") as fh:
        header = next(csv.reader(fh))
    assert header == ["qid", "metric", "profile", "'@a", "b,c"]
