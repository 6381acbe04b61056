"""Hostile round 11b: a reviewer of a paper that cites an ltrbench leaderboard tries to catch it
lying (issue 19, classes "silently wrong numbers", "silent accepts", "names").

Found here:

* ``ltrbench reproduce results/leaderboard.md`` read only the JSON twin: a number changed in its
  last digit in ``leaderboard.md`` (or ``.csv`` / ``.tex``), a row removed, duplicated or renamed,
  columns swapped, a model name in NFD, all were reproduced "MATCH" -- the file a paper cites was
  never compared. Now every rendered file beside the JSON is rendered again from it and compared
  cell by cell; a difference names the file, the line, the row and the column, with both texts.
  CRLF line ends, a byte-order mark and trailing blank lines change nothing a reader sees: said,
  not counted.
* ``ltrbench crosscheck --run DIR`` checked the libraries' built-in values against the reference
  recomputed from ``scores.parquet``, but never the numbers the run reports: a per-query value
  (``per_query.parquet``) or a mean (``metrics.csv``) edited by hand was "OK", exit 0. Now each
  recorded value of the checked metric is compared with the reference query by query, and a
  difference names the file, model, seed, split and query.
* a model named ``$x$`` showed as math (an italic x) in ``leaderboard.md`` on GitHub.

Oracles: the committed files, hand arithmetic, scipy.stats, "the edited cell is named", the
files parsed back.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import sys
import unicodedata
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import Res, cli, letor_folder

ROOT = Path(__file__).resolve().parent.parent
COMMITTED = ROOT / "results"
NAMES = ("md", "csv", "tex", "json")
FAST = ("--bootstrap", "50", "--permutations", "64", "--no-progress", "--no-plots")


# --- reproduce: the committed leaderboard, edited by hand --------------------------------------

@pytest.fixture
def board(tmp_path: Path) -> Path:
    """A copy of the committed leaderboard.{md,csv,tex,json} (no run folders: nothing re-runs,
    only the rendered files are compared with the JSON)."""
    for n in NAMES:
        shutil.copy(COMMITTED / f"leaderboard.{n}", tmp_path / f"leaderboard.{n}")
    return tmp_path


def _reproduce(folder: Path, *extra: str, target: str = "leaderboard.md") -> Res:
    return cli(folder, "reproduce", target, "--no-progress", *extra)


def _rendered_line(res: Res) -> str:
    (line,) = [x for x in res.out.splitlines() if "against leaderboard.json" in x]
    return line


def _first_row(text: str, model_line: re.Pattern[str] = re.compile(r"^\| [a-z]")) -> int:
    """The index of the first Markdown table row of a model (after a header and separator)."""
    lines = text.splitlines()
    return next(i for i, x in enumerate(lines) if model_line.match(x) and i > 2
                and lines[i - 1].startswith("|---"))


def _edit_md(folder: Path, edit: object) -> tuple[str, str]:
    path = folder / "leaderboard.md"
    lines = path.read_text(encoding="utf-8").split("\n")
    i = _first_row("\n".join(lines))
    row = lines[i]
    lines = edit(lines, i)  # type: ignore[operator]
    path.write_text("\n".join(lines), encoding="utf-8")
    return row, row.split("|")[1].strip()


def _bump_last_digit(cell: str) -> str:
    m = next(iter(re.finditer(r"\d\.\d{4}", cell)))
    last = int(cell[m.end() - 1])
    return cell[:m.end() - 1] + str((last + 1) % 10) + cell[m.end():]


def test_the_committed_leaderboard_renders_back_to_its_own_files(board: Path) -> None:
    res = _reproduce(board)
    line = _rendered_line(res)
    assert line.startswith("MATCH"), line
    assert ", 0 differ" in line, line
    assert res.status == 1
    assert "not reproduced" in res.out


def test_a_last_digit_changed_in_the_markdown_is_named_by_line_row_and_column(board: Path) -> None:
    row, model = _edit_md(board, lambda ls, i: [*ls[:i], "|".join(
        [*ls[i].split("|")[:2], _bump_last_digit(ls[i].split("|")[2]), *ls[i].split("|")[3:]]),
        *ls[i + 1:]])
    res = _reproduce(board)
    assert res.status == 1
    assert _rendered_line(res).startswith("MISMATCH")
    (said,) = [x for x in res.out.splitlines() if x.startswith("    leaderboard.md")]
    lineno = _first_row((COMMITTED / "leaderboard.md").read_text()) + 1
    assert f"line {lineno}" in said, said
    assert repr(model) in said, said
    assert "NDCG@1" in said, said
    original = row.split("|")[2].strip()
    assert said.endswith(f"{_bump_last_digit(original)} -> {original}"), said


def test_a_last_digit_changed_in_the_csv_is_named(board: Path) -> None:
    path = board / "leaderboard.csv"
    rows = list(csv.reader(io.StringIO(path.read_text())))
    col = rows[0].index("ndcg@10_mean")
    model = rows[1][rows[0].index("model")]
    old = rows[1][col]
    rows[1][col] = old[:-1] + str((int(old[-1]) + 1) % 10)
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    path.write_text(buf.getvalue())
    res = _reproduce(board, "--format", "json")
    doc = json.loads(res.out)
    assert doc["ok"] is False
    diffs = [d for r in doc["runs"] for d in r["differences"] if d["file"] == "leaderboard.csv"]
    assert len(diffs) == 1, diffs
    assert diffs[0]["column"] == "ndcg@10_mean"
    assert repr(model) in diffs[0]["key"]
    assert (diffs[0]["original"], diffs[0]["reproduced"]) == (rows[1][col], old)


def test_a_number_changed_in_the_latex_is_named(board: Path) -> None:
    path = board / "leaderboard.tex"
    text = path.read_text()
    m = re.search(r"\$\\mathbf\{(0\.\d{4})\}", text)
    assert m
    path.write_text(text[:m.start(1)] + "0.9999" + text[m.end(1):])
    res = _reproduce(board)
    said = [x for x in res.out.splitlines() if x.startswith("    leaderboard.tex")]
    assert len(said) == 1, res.out
    assert "0.9999" in said[0], res.out
    assert m.group(1) in said[0], res.out
    assert "NDCG@" in said[0] or "MAP" in said[0] or "MRR" in said[0] or "P@" in said[0]


def test_a_markdown_row_removed_is_named_missing(board: Path) -> None:
    row, _ = _edit_md(board, lambda ls, i: [*ls[:i], *ls[i + 1:]])
    res = _reproduce(board, "--format", "json")
    diffs = [d for r in json.loads(res.out)["runs"] for d in r["differences"]]
    assert len(diffs) == 1
    assert diffs[0]["reproduced"] == row
    assert diffs[0]["original"] is None
    assert "missing" in diffs[0]["key"]


def test_a_markdown_row_duplicated_is_named_as_the_extra_line(board: Path) -> None:
    row, _ = _edit_md(board, lambda ls, i: [*ls[:i + 1], ls[i], *ls[i + 1:]])
    res = _reproduce(board, "--format", "json")
    diffs = [d for r in json.loads(res.out)["runs"] for d in r["differences"]]
    assert len(diffs) == 1
    assert diffs[0]["original"] == row
    assert diffs[0]["reproduced"] is None


def test_two_markdown_columns_swapped_are_named_column_by_column(board: Path) -> None:
    def swap(ls: list[str], i: int) -> list[str]:
        out = list(ls)
        for k in range(i - 2, len(ls)):  # the header, separator and rows of the first table
            if not ls[k].startswith("|"):
                break
            cells = ls[k].split("|")
            cells[2], cells[3] = cells[3], cells[2]
            out[k] = "|".join(cells)
        return out
    _edit_md(board, swap)
    res = _reproduce(board, "--format", "json")
    diffs = [d for r in json.loads(res.out)["runs"] for d in r["differences"]]
    assert diffs, diffs[:3]
    assert {d["column"] for d in diffs} == {"NDCG@1", "NDCG@3"}, diffs[:3]


def test_a_model_renamed_in_the_markdown_is_named(board: Path) -> None:
    _, model = _edit_md(board, lambda ls, i: [*ls[:i], ls[i].replace("| ", "| better-", 1),
                                              *ls[i + 1:]])
    res = _reproduce(board, "--format", "json")
    (d,) = [d for r in json.loads(res.out)["runs"] for d in r["differences"]]
    assert d["column"] == "Model"
    assert (d["original"], d["reproduced"]) == (f"better-{model}", model)


def test_a_model_name_in_nfd_is_a_difference(board: Path, tmp_path: Path) -> None:
    doc = json.loads((board / "leaderboard.json").read_text())
    doc["tables"][0]["rows"][0]["model"] = unicodedata.normalize("NFC", "café-rank")
    (board / "leaderboard.json").write_text(json.dumps(doc))
    from bench.report.render import render_markdown

    text = render_markdown(doc)
    assert "café-rank" in text
    (board / "leaderboard.md").write_text(text.replace("café-rank", unicodedata.normalize(
        "NFD", "café-rank")), encoding="utf-8")
    res = _reproduce(board, "--format", "json")
    diffs = [d for r in json.loads(res.out)["runs"] for d in r["differences"]
             if d["file"] == "leaderboard.md"]
    assert diffs
    assert all(d["reproduced"] is not None and "café-rank" in d["reproduced"]
                         for d in diffs)


@pytest.mark.parametrize(("edit", "said"), [
    (lambda t: t.replace("\n", "\r\n"), "CRLF line ends"),
    (lambda t: "\ufeff" + t, "byte-order mark"),
    (lambda t: t + "\n\n", "2 trailing blank line(s)"),
], ids=["crlf", "bom", "trailing-blank-lines"])
def test_a_change_no_reader_sees_is_said_not_counted(board: Path, edit: object, said: str) -> None:
    path = board / "leaderboard.md"
    path.write_bytes(edit(path.read_text(encoding="utf-8")).encode())  # type: ignore[operator]
    res = _reproduce(board)
    line = _rendered_line(res)
    assert line.startswith("MATCH"), line
    assert ", 0 differ" in line, line
    assert said in line, line


def test_a_number_changed_in_the_json_alone_shows_in_every_rendered_file(board: Path) -> None:
    doc = json.loads((board / "leaderboard.json").read_text())
    doc["tables"][0]["rows"][0]["metrics"]["ndcg@10"]["mean"] += 0.01
    (board / "leaderboard.json").write_text(json.dumps(doc))
    res = _reproduce(board, "--format", "json", target="leaderboard.json")
    files = {d["file"] for r in json.loads(res.out)["runs"] for d in r["differences"]}
    assert files == {"leaderboard.md", "leaderboard.csv", "leaderboard.tex"}


def test_a_seed_list_changed_in_the_json_is_a_difference(board: Path) -> None:
    doc = json.loads((board / "leaderboard.json").read_text())
    doc["tables"][0]["seeds"] = doc["tables"][0]["seeds"][:1]
    (board / "leaderboard.json").write_text(json.dumps(doc))
    res = _reproduce(board, "--format", "json")
    doc_out = json.loads(res.out)
    assert doc_out["ok"] is False
    assert any(d["file"] == "leaderboard.tex" for r in doc_out["runs"] for d in r["differences"])


def test_a_cell_of_the_confidence_interval_table_names_its_column(board: Path) -> None:
    path = board / "leaderboard.md"
    lines = path.read_text().split("\n")
    i = next(k for k, x in enumerate(lines) if x.startswith("| ") and re.match(
        r"^\| [^|]+ \| \[0\.\d{4}, 0\.\d{4}\] \|", x))
    lines[i] = re.sub(r"\[(0\.\d{4}),", "[0.0001,", lines[i], count=1)
    path.write_text("\n".join(lines))
    res = _reproduce(board)
    (said,) = [x for x in res.out.splitlines() if x.startswith("    leaderboard.md")]
    assert f"line {i + 1}" in said, said
    assert "NDCG@1" in said, said  # the column of the CI table


def test_a_csv_row_removed_is_named_missing(board: Path) -> None:
    path = board / "leaderboard.csv"
    lines = path.read_text().split("\n")
    gone = lines.pop(3)
    path.write_text("\n".join(lines))
    res = _reproduce(board, "--format", "json")
    (d,) = [d for r in json.loads(res.out)["runs"] for d in r["differences"]]
    assert d["file"] == "leaderboard.csv"
    assert d["reproduced"] == gone


def test_a_markdown_leaderboard_that_is_gone_is_named(board: Path) -> None:
    (board / "leaderboard.md").unlink()
    res = _reproduce(board)
    line = _rendered_line(res)
    assert "leaderboard.md: not found, only leaderboard.json is reproduced" in line, line
    assert line.startswith("MATCH     leaderboard.csv, leaderboard.tex against"), line


def test_reproduce_leaves_the_leaderboard_files_as_they_were(board: Path) -> None:
    _edit_md(board, lambda ls, i: [*ls[:i], *ls[i + 1:]])
    before = {n: (board / f"leaderboard.{n}").read_bytes() for n in NAMES}
    _reproduce(board)
    assert before == {n: (board / f"leaderboard.{n}").read_bytes() for n in NAMES}


def test_the_markdown_edited_is_checked_when_the_json_is_the_argument(board: Path) -> None:
    _edit_md(board, lambda ls, i: [*ls[:i], *ls[i + 1:]])
    res = _reproduce(board, target="leaderboard.json")
    assert res.status == 1
    assert "leaderboard.md line" not in res.out
    assert "leaderboard.md missing after line" in res.out, res.out


# --- reproduce: a real run, its report, the whole chain ----------------------------------------

@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``letor/``, ``res/runs/<run>`` (the random model, one seed) and its report in ``res``."""
    root = tmp_path_factory.mktemp("ltrbench-r11b-")
    letor_folder(root / "letor")
    res = cli(root, "run", "--dataset", "./letor", "--models", "random", "--seeds", "0",
              "--quick", "--no-crosscheck", "--no-progress", "--out", "res")
    assert res.status == 0, res.err
    res = cli(root, "report", "--runs", "res/runs", "--out", "res", *FAST)
    assert res.status == 0, res.err
    return root


@pytest.fixture
def w(world: Path, tmp_path: Path) -> Path:
    """A copy of :func:`world` of this test's own."""
    shutil.copytree(world, tmp_path / "w")
    return tmp_path / "w"


def test_an_untouched_report_reproduces_every_file(w: Path) -> None:
    res = _reproduce(w, target="res/leaderboard.md")
    assert res.status == 0, res.out
    assert _rendered_line(res).startswith("MATCH")
    assert sum(x.startswith("MATCH") for x in res.out.splitlines()) == 2, res.out


def test_an_edited_markdown_fails_even_when_the_rerun_matches(tmp_path: Path, w: Path) -> None:
    _edit_md(w / "res", lambda ls, i: [*ls[:i], ls[i].replace("0.", "0.9", 1)[:len(ls[i]) + 1],
                                       *ls[i + 1:]])
    res = _reproduce(w, target="res/leaderboard.md")
    assert res.status == 1
    assert _rendered_line(res).startswith("MISMATCH")
    assert any(x.startswith("MATCH     table") for x in res.out.splitlines()), res.out


# --- report: names that paste into a paper -----------------------------------------------------

HOSTILE = {"a|b": 0.0, "$x$": 0.05, "<script>": 0.1, "\\input{x}": 0.02, "50%_#~^{}&": 0.03}


@pytest.fixture(scope="module")
def hostile_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from test_report_leaderboard import write_run

    root = tmp_path_factory.mktemp("names")
    write_run(root / "runs", "r1", dataset="d_$1$&x", models=HOSTILE)
    res = cli(root, "report", "--runs", "runs", "--out", "out", *FAST)
    assert res.status == 0, res.err
    return root / "out"


def test_a_dollar_in_a_model_name_is_not_math_in_the_markdown(hostile_report: Path) -> None:
    text = (hostile_report / "leaderboard.md").read_text()
    assert "| \\$x\\$ |" in text
    shown = [x for x in text.splitlines() if not x.startswith("<!--")]  # comments: not shown
    assert not [x for x in shown if re.search(r"(?<!\\)\$", x)]


def test_every_latex_line_has_balanced_braces_and_no_live_command(hostile_report: Path) -> None:
    text = (hostile_report / "leaderboard.tex").read_text()
    for line in text.splitlines():
        if line.startswith("%"):
            continue
        bare = re.sub(r"\\[{}$&%#_]", "", line)
        assert bare.count("{") == bare.count("}"), line
        assert bare.count("$") % 2 == 0, line
        assert "\\input" not in line.replace("\\textbackslash{}input", ""), line


def test_the_csv_reads_back_every_model_name(hostile_report: Path) -> None:
    frame = pd.read_csv(hostile_report / "leaderboard.csv", keep_default_na=False)
    assert set(frame["model"]) == set(HOSTILE)
    assert set(frame["dataset"]) == {"d_$1$&x"}


def test_the_json_keeps_every_name_as_written(hostile_report: Path) -> None:
    doc = json.loads((hostile_report / "leaderboard.json").read_text())
    assert {r["model"] for r in doc["tables"][0]["rows"]} == set(HOSTILE)


def test_a_hostile_report_reproduces_its_own_rendered_files(hostile_report: Path) -> None:
    from bench.benchmark.reproduce_text import check_rendered

    doc = json.loads((hostile_report / "leaderboard.json").read_text())
    outcome = check_rendered(hostile_report / "leaderboard.json", doc,
                             hostile_report / "leaderboard.md")
    assert outcome is not None, outcome.differences[:3]
    assert outcome.status == "match", outcome.differences[:3]
    assert outcome.compared > 3 * len(HOSTILE)


# --- statistics against scipy ------------------------------------------------------------------

def test_all_equal_differences_give_the_exact_sign_flip_p_value() -> None:
    from scipy import stats

    from bench.report.stats import randomization_test

    d = np.full(5, 0.1)
    want = stats.permutation_test((d,), lambda x: np.mean(x), permutation_type="samples",
                                  n_resamples=np.inf).pvalue
    assert float(randomization_test(d, n_resamples=10_000)) == pytest.approx(2 / 32)
    assert want == pytest.approx(2 / 32)


def test_identical_models_have_p_one() -> None:
    from bench.report.stats import randomization_test

    assert float(randomization_test(np.zeros(7))) == 1.0


def test_the_paired_t_test_equals_scipy_on_two_queries() -> None:
    from scipy import stats

    from bench.report.stats import paired_t_test

    a, b = np.array([0.5, 0.9]), np.array([0.4, 0.6])
    assert float(paired_t_test(a, b)) == pytest.approx(stats.ttest_rel(a, b).pvalue)


def test_holm_by_hand() -> None:
    from bench.report.stats import holm

    assert list(holm([0.01, 0.04, 0.03])) == pytest.approx([0.03, 0.06, 0.06])


# --- crosscheck: numbers edited in a run -------------------------------------------------------

@pytest.fixture(scope="module")
def gbdt_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of quick LightGBM (one seed)."""
    root = tmp_path_factory.mktemp("ltrbench-r11b-xc-")
    letor_folder(root / "letor")
    res = cli(root, "run", "--dataset", "./letor", "--models", "lightgbm-lambdarank",
              "--seeds", "0", "--quick", "--no-crosscheck", "--no-progress", "--out", "res")
    assert res.status == 0, res.err
    (run,) = (root / "res" / "runs").iterdir()
    return run


@pytest.fixture
def run(gbdt_run: Path, tmp_path: Path) -> Path:
    """A copy of :func:`gbdt_run` as ``run`` in this test's folder (``_xc``'s ``--run``)."""
    shutil.copytree(gbdt_run, tmp_path / "run")
    return tmp_path / "run"


def _xc(tmp: Path) -> Res:
    return cli(tmp, "crosscheck", "--run", "run", "--out", "xc", "--format", "json")


@pytest.mark.usefixtures("run")
def test_an_untouched_run_crosschecks_ok(tmp_path: Path) -> None:
    res = _xc(tmp_path)
    assert res.status == 0, res.out[-600:]


def test_a_per_query_value_edited_is_named_query_by_query(tmp_path: Path, run: Path) -> None:
    pq = pd.read_parquet(run / "per_query.parquet")
    sel = pq.index[(pq.metric == "ndcg@10") & (pq.split == "test")]
    i = sel[1]
    qid, old = pq.loc[i, "qid"], float(pq.loc[i, "value"])
    pq.loc[i, "value"] = old / 2
    pq.to_parquet(run / "per_query.parquet")
    res = _xc(tmp_path)
    assert res.status == 1, res.out[-400:]
    errors = json.loads(res.out)["errors"]
    (said,) = [e for e in errors if "per_query.parquet" in e]
    assert f"qid {qid}" in said, said
    assert "test" in said, said
    assert "seed 0" in said, said
    assert f"{old / 2:.6f}" in said, said
    assert f"{old:.6f}" in said, said


def test_a_metrics_csv_mean_edited_is_named(tmp_path: Path, run: Path) -> None:
    m = pd.read_csv(run / "metrics.csv")
    i = m.index[(m.metric == "ndcg@10") & (m.split == "vali") & (m.profile == "ltrbench")][0]
    m.loc[i, "value"] = m.loc[i, "value"] + 1e-4
    m.to_csv(run / "metrics.csv", index=False)
    res = _xc(tmp_path)
    assert res.status == 1
    (said,) = [e for e in json.loads(res.out)["errors"] if "metrics.csv" in e]
    assert "vali" in said, said
    assert "ndcg@10" in said, said


def test_an_evallog_value_edited_is_a_mismatch(tmp_path: Path, run: Path) -> None:
    log = pd.read_csv(run / "evallog.csv")
    log["value"] = log["value"] * 0.5
    log.to_csv(run / "evallog.csv", index=False)
    res = _xc(tmp_path)
    assert res.status == 1
    assert any("evallog" in e for e in json.loads(res.out)["errors"])


# --- more edits a reviewer tries ---------------------------------------------------------------

def test_a_latex_row_removed_is_named_missing(board: Path) -> None:
    path = board / "leaderboard.tex"
    lines = path.read_text().split("\n")
    i = next(k for k, x in enumerate(lines) if x.endswith("\\\\") and "\\pm" in x)
    gone = lines.pop(i)
    path.write_text("\n".join(lines))
    res = _reproduce(board, "--format", "json")
    (d,) = [d for r in json.loads(res.out)["runs"] for d in r["differences"]]
    assert d["file"] == "leaderboard.tex"
    assert d["reproduced"] == gone
    assert "missing" in d["key"]


def test_a_row_duplicated_in_the_json_alone_is_a_difference(board: Path) -> None:
    doc = json.loads((board / "leaderboard.json").read_text())
    rows = doc["tables"][0]["rows"]
    rows.append(rows[-1])
    (board / "leaderboard.json").write_text(json.dumps(doc))
    res = _reproduce(board, "--format", "json", target="leaderboard.json")
    assert json.loads(res.out)["ok"] is False
    extra = [d for r in json.loads(res.out)["runs"] for d in r["differences"]
             if d["file"] == "leaderboard.md" and d["original"] is None]
    assert extra  # the row the JSON holds twice is missing from the Markdown


def test_a_whole_table_removed_from_the_markdown_is_named(board: Path) -> None:
    path = board / "leaderboard.md"
    text = path.read_text()
    parts = text.split("\n## ")
    path.write_text("\n## ".join(parts[:1] + parts[2:]))  # the first dataset's section gone
    res = _reproduce(board, "--format", "json")
    diffs = [d for r in json.loads(res.out)["runs"] for d in r["differences"]]
    assert diffs
    assert all(d["original"] is None for d in diffs)  # only missing lines, nothing else


def test_a_duplicated_metrics_row_in_a_run_is_a_mismatch(w: Path) -> None:
    (run,) = (w / "res" / "runs").iterdir()
    m = pd.read_csv(run / "metrics.csv")
    pd.concat([m, m.iloc[[3]]]).to_csv(run / "metrics.csv", index=False)
    res = cli(w, "reproduce", "--run", str(run), "--no-progress", "--format", "json")
    assert res.status == 1, res.out[-300:]
    (d,) = json.loads(res.out)["runs"][0]["differences"]
    assert d["file"] == "metrics.csv"
    assert (d["original"], d["reproduced"]) == (2, 1)
    assert d["key"]["metric"] == m.iloc[3]["metric"]


def test_a_per_query_row_removed_from_a_run_is_a_mismatch(w: Path) -> None:
    (run,) = (w / "res" / "runs").iterdir()
    pq = pd.read_parquet(run / "per_query.parquet")
    gone = pq.iloc[5]
    pq.drop(index=pq.index[5]).to_parquet(run / "per_query.parquet")
    res = cli(w, "reproduce", "--run", str(run), "--no-progress", "--format", "json")
    assert res.status == 1
    (d,) = json.loads(res.out)["runs"][0]["differences"]
    assert d["file"] == "per_query.parquet"
    assert d["original"] is None
    assert d["key"]["qid"] == str(gone["qid"])


def test_a_config_hash_changed_in_the_manifest_is_refused_before_any_run(w: Path) -> None:
    (run,) = (w / "res" / "runs").iterdir()
    doc = json.loads((run / "manifest.json").read_text())
    doc["config_hash"] = "0" * len(str(doc["config_hash"]))
    (run / "manifest.json").write_text(json.dumps(doc))
    res = cli(w, "reproduce", "--run", str(run), "--no-progress")
    assert res.status == 2
    assert "config_hash" in res.err
    assert "0" * 8 in res.err


def test_a_huge_fit_time_is_a_short_cell_not_hundreds_of_digits(tmp_path: Path) -> None:
    from test_report_leaderboard import write_run

    run = write_run(tmp_path / "runs", "r1", dataset="toy", models={"a": 0.0, "b": 0.05})
    t = pd.read_csv(run / "timings.csv")
    t["fit_s"] = 1e300
    t.to_csv(run / "timings.csv", index=False)
    res = cli(tmp_path, "report", "--runs", "runs", "--out", "out", *FAST)
    assert res.status == 0, res.err
    for name in ("leaderboard.md", "leaderboard.tex"):
        text = (tmp_path / "out" / name).read_text()
        assert not re.search(r"\d{30}", text), name
        assert "1e+300" in text, name


def test_the_plots_are_real_images_of_this_report(tmp_path: Path) -> None:
    from matplotlib import image
    from test_report_leaderboard import write_run

    write_run(tmp_path / "runs", "r1", dataset="toy", models={"a": 0.0, "b": 0.05})
    res = cli(tmp_path, "report", "--runs", "runs", "--out", "out", "--bootstrap", "50",
              "--permutations", "64", "--no-progress")
    assert res.status == 0, res.err
    pngs = sorted((tmp_path / "out").rglob("*.png"))
    assert len(pngs) == 3
    listed = json.loads((tmp_path / "out" / ".ltrbench-report.json").read_text())["files"]
    for png in pngs:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        h, w, *_ = image.imread(png).shape
        assert h > 100
        assert w > 100
        assert str(png.relative_to(tmp_path / "out")) in listed


def test_a_cell_in_a_row_whose_name_holds_a_pipe_names_the_right_column(
        hostile_report: Path, tmp_path: Path) -> None:
    for n in NAMES:
        shutil.copy(hostile_report / f"leaderboard.{n}", tmp_path / f"leaderboard.{n}")
    path = tmp_path / "leaderboard.md"
    lines = path.read_text().split("\n")
    i = next(k for k, x in enumerate(lines) if x.startswith("| a\\|b | "))
    cells = lines[i].split(" | ")
    cells[2] = _bump_last_digit(cells[2])  # the NDCG@3 cell (cell 0 is "| a\|b")
    lines[i] = " | ".join(cells)
    path.write_text("\n".join(lines))
    from bench.benchmark.reproduce_text import check_rendered

    doc = json.loads((tmp_path / "leaderboard.json").read_text())
    outcome = check_rendered(tmp_path / "leaderboard.json", doc, path)
    assert outcome is not None
    (d,) = outcome.differences
    assert d["column"] == "NDCG@3", d
    assert "a\\\\|b" in d["key"], d


def test_the_hidden_table_metadata_edited_is_a_difference(board: Path) -> None:
    path = board / "leaderboard.md"
    text = path.read_text()
    m = re.search(r'<!-- ltrbench-table dataset="([^"]+)"', text)
    assert m
    path.write_text(text[:m.start(1)] + "other" + text[m.end(1):])
    res = _reproduce(board)
    assert _rendered_line(res).startswith("MISMATCH"), res.out


def test_every_query_edited_is_counted_and_the_first_ones_named(tmp_path: Path, run: Path) -> None:
    pq = pd.read_parquet(run / "per_query.parquet")
    sel = (pq.metric == "ndcg@10") & (pq.split == "test")
    n = int(sel.sum())
    pq.loc[sel, "value"] = pq.loc[sel, "value"] * 0.5
    pq.to_parquet(run / "per_query.parquet")
    res = _xc(tmp_path)
    assert res.status == 1
    (said,) = [e for e in json.loads(res.out)["errors"] if "per_query.parquet" in e]
    assert f"on {n} queries" in said, said
    assert said.count("recorded,") == min(n, 5), said
