"""The self-contained HTML report (bench/report/html.py, issue 21 item 5): one table per dataset
with the leaderboard's numbers, nothing fetched from outside the file, every name from data
escaped, a per-query scatter with one point per query, and (where Chromium is installed) the
file opened offline in headless Chromium, the sorter run and a screenshot taken.

The expected texts are formatted here from ``leaderboard.json`` and ``per_query.parquet``
directly (pandas), never by the module's own helpers."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from bench.report.html import read_fold_docs, render_html, scatter_svg, write_html

HOSTILE_MODELS = ("<script>alert('m')</script>", 'a&b "quoted" \'single\' <i>')
HOSTILE_DATASET = "Ünïcødé 模型 <img src=x onerror=alert(1)> & co"
#: Attributes through which a page can fetch something.
URL_ATTRS = {"src", "href", "xlink:href", "action", "formaction", "poster", "srcset",
             "background", "cite", "ping", "data", "manifest", "codebase"}


class Page(HTMLParser):
    """What the tests read from a page: tables (class, rows of cell texts), URL attributes,
    scripts, styles, SVG points, sections, ``<details>`` texts and every element seen."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[dict[str, Any]] = []
        self.urls: list[tuple[str, str, str]] = []
        self.elements: list[str] = []
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self.points: list[dict[str, str]] = []
        self.details: list[str] = []
        self.text: list[str] = []
        self._stack: list[str] = []
        self._cell: list[str] | None = None
        self._section = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        self.elements.append(tag)
        self.urls += [(tag, k, v) for k, v in a.items() if k in URL_ATTRS]
        self._stack.append(tag)
        if tag == "section":
            self._section = a.get("id", "")
        elif tag == "table":
            self.tables.append({"cls": a.get("class", ""), "rows": [], "section": self._section,
                                "cells": []})
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"].append([])
        elif tag in ("td", "th") and self.tables:
            self._cell = []
            self.tables[-1]["cells"].append(a)
        elif tag == "circle":
            self.points.append({**a, "title": ""})
        elif tag == "details":
            self.details.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self.tables:
            self.tables[-1]["rows"][-1].append("".join(self._cell).strip())
            self._cell = None
        while self._stack and self._stack.pop() != tag:
            pass

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        top = self._stack[-1] if self._stack else ""
        if top == "script":
            self.scripts.append(data)
        elif top == "style":
            self.styles.append(data)
        if self._cell is not None:
            self._cell.append(data)
        if "title" in self._stack and "circle" in self._stack:
            self.points[-1]["title"] += data
        if "details" in self._stack:
            self.details[-1] += data


def parse(text: str) -> Page:
    page = Page()
    page.feed(text)
    page.close()
    return page


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real (quick) run of two baselines over two seeds, its report, and its HTML page."""
    from bench.benchmark.config import RunConfig
    from bench.benchmark.pipeline import run_benchmark
    from bench.report.leaderboard import write_leaderboard

    out = tmp_path_factory.mktemp("html-report")
    run = run_benchmark(RunConfig(dataset="synthetic", models=("random", "popularity"),
                                  seeds=(0, 1), quick=True, crosscheck=False),
                        out_dir=out, progress=False)
    write_leaderboard([out / "runs"], out)
    doc = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    page_path = write_html(doc, out / "leaderboard.html")
    return {"out": out, "run": run, "doc": doc, "path": page_path,
            "text": page_path.read_text(encoding="utf-8")}


def _leaderboards(page: Page) -> list[dict[str, Any]]:
    return [t for t in page.tables if "leaderboard" in t["cls"]]


def _expected_scatter(run: Path, a: str, b: str, metric: str = "ndcg@10",
                      dataset: str | None = None) -> dict[str, tuple[float, float]]:
    """qid -> (value of a, value of b): per-query test values averaged over seeds, queries
    with a value for both."""
    pq = pd.read_parquet(run / "per_query.parquet")
    pq = pq[(pq["split"] == "test") & (pq["metric"] == metric)]
    if dataset is not None:
        pq = pq[pq["dataset"] == dataset]
    wide = pq.groupby(["qid", "model"])["value"].mean().unstack("model")[[a, b]].dropna()
    return {str(q): (float(r[a]), float(r[b])) for q, r in wide.iterrows()}


def test_one_leaderboard_per_table_with_its_rows_and_numbers(report: dict[str, Any]) -> None:
    page = parse(report["text"])
    doc = report["doc"]
    boards = _leaderboards(page)
    assert len(boards) == len(doc["tables"]) == 1
    for board, table in zip(boards, doc["tables"], strict=True):
        header, *rows = board["rows"]
        assert header[0] == "Model"
        assert [r[0] for r in rows] == [r["model"] for r in table["rows"]]
        col = header.index("NDCG@10")
        ci_col = header.index("NDCG@10 95% CI")
        for got, row in zip(rows, table["rows"], strict=True):
            m = row["metrics"]["ndcg@10"]
            assert got[col] == "{:.4f} ± {:.4f}".format(m["mean"], m["std"])
            assert got[ci_col] == "[{:.4f}, {:.4f}]".format(m["ci_low"], m["ci_high"])
            p = (row["vs_best"] or {}).get("p_randomization_holm")
            want_p = "best" if p is None else ("<0.001" if p < 0.001 else f"{p:.3f}")
            assert got[header.index("p rand. (Holm)")] == want_p
            assert got[header.index("Fit s: median [range]")].startswith("{:.2f}".format(row["fit_s"]["median"]))
        # every numeric cell sorts on its full-precision value
        sort_keys = [c.get("data-v") for c in board["cells"] if "data-v" in c]
        means = [r["metrics"]["ndcg@10"]["mean"] for r in table["rows"]]
        assert all(any(k and abs(float(k) - v) < 1e-12 for k in sort_keys) for v in means)


def test_the_page_says_the_verdict_the_choice_of_run_and_the_contention_mark(
        report: dict[str, Any]) -> None:
    text = "".join(parse(report["text"]).text)
    table, sel = report["doc"]["tables"][0], report["doc"]["selection"][0]
    best = table["rows"][0]
    assert f"Verdict: best ndcg@10 is {best['model']} (%.4f)" % best["metrics"]["ndcg@10"][
        "mean"] in text
    assert sel["run"] in text
    assert sel["why"] in text
    assert "† a fit ran while other processes used more than" in text


def test_nothing_is_fetched_from_outside_the_file(report: dict[str, Any]) -> None:
    page = parse(report["text"])
    outside = [(t, k, v) for t, k, v in page.urls
               if not (v.startswith("#") or v.startswith("data:"))]
    assert not outside
    assert sum(1 for t, k, v in page.urls if t == "img" and v.startswith("data:image/png;base64,")) \
        == len(list((report["out"] / "synthetic").glob("*.png"))) >= 1
    assert not {"link", "iframe", "object", "embed", "base"} & set(page.elements)
    for css in page.styles:
        assert "url(" not in css
        assert "@import" not in css
    for js in page.scripts:
        assert "fetch" not in js
        assert "XMLHttpRequest" not in js
        assert "http" not in js
    assert "default-src 'none'" in report["text"]


def test_the_scatter_has_one_point_per_query_with_its_id(report: dict[str, Any]) -> None:
    page = parse(report["text"])
    table = report["doc"]["tables"][0]
    a, b = table["rows"][0]["model"], table["rows"][1]["model"]  # best and runner-up
    want = _expected_scatter(report["run"], a, b)
    got = {p["data-qid"]: p["title"] for p in page.points}
    assert len(page.points) == len(want) == len(got) > 0
    assert set(got) == set(want)
    q = sorted(want)[0]
    assert got[q] == f"query {q}: {a} %.4f, {b} %.4f" % want[q]


def test_the_pair_of_the_drill_down_can_be_chosen(report: dict[str, Any]) -> None:
    table = report["doc"]["tables"][0]
    a, b = table["rows"][1]["model"], table["rows"][0]["model"]  # runner-up on x
    page = parse(render_html(report["doc"], base=report["out"], pair=(a, b)))
    want = _expected_scatter(report["run"], a, b)
    q = sorted(want)[-1]
    assert {p["data-qid"]: p["title"] for p in page.points}[q] == (
        f"query {q}: {a} %.4f, {b} %.4f" % want[q])
    # a pair not in the table falls back to the best row and the runner-up
    page = parse(render_html(report["doc"], base=report["out"], pair=("nope", a)))
    assert len(page.points) == len(want)


def test_the_manifest_is_in_a_collapsed_details(report: dict[str, Any]) -> None:
    page = parse(report["text"])
    manifest = json.loads((report["run"] / "manifest.json").read_text(encoding="utf-8"))
    assert len(page.details) == 1
    assert report["run"].name in page.details[0]
    shown = json.loads(page.details[0][page.details[0].index("{"):])
    assert shown == manifest


def test_cross_check_absent_is_said_and_present_is_shown_per_library(
        report: dict[str, Any], tmp_path: Path) -> None:
    assert "No cross-check for this table" in "".join(parse(report["text"]).text)
    out = tmp_path / "copy"
    shutil.copytree(report["out"], out)
    check = {"library": "<b>lib</b>", "agreement": "exact", "abs_diff": 2e-16}
    case = {"library": "<b>lib</b>", "gap": 0.002, "explained": True,
            "reasons": {"ties": 0.002, "gain": 0.0}, "queries_affected": {"ties": 7, "gain": 0}}
    (out / "synthetic" / "crosscheck.json").write_text(json.dumps(
        {"ok": True, "metric": "ndcg@10", "default_profile": "ltrbench", "run_id": "other-run",
         "checks": [check, check], "cases": [case], "errors": [], "notes": []}))
    page = parse(render_html(report["doc"], base=out))
    cc = [t for t in page.tables if "crosscheck" in t["cls"]]
    assert len(cc) == 1
    header, row = cc[0]["rows"]
    assert row[:2] == ["<b>lib</b>", "2"]
    assert row[header.index("Cases explained")] == "1/1"
    assert "ties +2.00e-03 (7 queries)" in row[-1]
    assert "gain" not in row[-1]
    assert "This cross-check is of run other-run" in "".join(page.text)


def test_a_table_of_several_runs_finds_its_own_cross_check(report: dict[str, Any],
                                                          tmp_path: Path) -> None:
    """``report --all``: plots in ``<slug>@<run>/``, the run's cross-check in ``<slug>/``."""
    out = tmp_path / "all"
    shutil.copytree(report["out"], out)
    run_id = report["doc"]["tables"][0]["run_id"]
    (out / "synthetic").rename(out / f"synthetic@{run_id}")
    (out / "synthetic").mkdir()
    (out / "synthetic" / "crosscheck.json").write_text(json.dumps(
        {"ok": False, "metric": "ndcg@10", "run_id": run_id, "errors": ["<b>mismatch</b>"],
         "checks": [{"library": "xgboost", "agreement": "mismatch", "abs_diff": 0.1}]}))
    doc = copy.deepcopy(report["doc"])
    doc["tables"].append(copy.deepcopy(doc["tables"][0]))
    page = parse(render_html(doc, base=out))
    text = "".join(page.text)
    assert text.count("Status: FAILED") == 2
    assert "This cross-check is of run" not in text
    assert "<b>mismatch</b>" in text
    assert sum(1 for t, k, v in page.urls if t == "img") == 2 * len(
        list((report["out"] / "synthetic").glob("*.png")))
    assert text.count(f"synthetic {run_id}") == 2  # the contents tell the tables apart


def _hostile_copy(report: dict[str, Any], tmp_path: Path) -> tuple[dict[str, Any], Path]:
    """The report with its models and dataset renamed to hostile names, in the document and
    in a copy of the run's per_query.parquet."""
    out = tmp_path / "hostile"
    shutil.copytree(report["out"], out)
    doc = copy.deepcopy(report["doc"])
    table = doc["tables"][0]
    names = {r["model"]: h for r, h in zip(table["rows"], HOSTILE_MODELS, strict=True)}
    for r in table["rows"]:
        r["model"] = names[r["model"]]
    table["best_model"] = names[str(table["best_model"])]
    table["dataset"] = doc["selection"][0]["dataset"] = HOSTILE_DATASET
    table["notes"] = [*table["notes"], "<script>alert('note')</script>"]
    run = out / table["run_dir"]
    pq = pd.read_parquet(run / "per_query.parquet")
    pq["model"] = pq["model"].map(names)
    pq["dataset"] = HOSTILE_DATASET
    pq.to_parquet(run / "per_query.parquet", index=False)
    return doc, out


def test_hostile_names_are_text_never_markup(report: dict[str, Any], tmp_path: Path) -> None:
    doc, out = _hostile_copy(report, tmp_path)
    text = render_html(doc, base=out)
    page = parse(text)
    assert page.elements.count("script") == 1  # the page's own sorter only
    assert "img" not in page.elements or all(
        v.startswith("data:") for t, k, v in page.urls if t == "img")
    assert "<script>alert" not in text
    assert "<img src=x" not in text
    board = _leaderboards(page)[0]
    assert [r[0] for r in board["rows"][1:]] == list(HOSTILE_MODELS)
    joined = "".join(page.text)
    assert HOSTILE_DATASET in joined
    assert "<script>alert('note')</script>" in joined
    want = _expected_scatter(out / doc["tables"][0]["run_dir"], *HOSTILE_MODELS,
                             dataset=HOSTILE_DATASET)
    assert len(page.points) == len(want) > 0
    q = sorted(want)[0]
    title = {p["data-qid"]: p["title"] for p in page.points}[q]
    assert title == f"query {q}: {HOSTILE_MODELS[0]} %.4f, {HOSTILE_MODELS[1]} %.4f" % want[q]


def test_string_query_ids_are_escaped_in_the_scatter() -> None:
    qids = ['<q>&"1"', "q'2", "クエリ3"]
    svg = scatter_svg(qids, np.array([0.1, 0.5, 0.9]), np.array([0.2, 0.5, 0.3]),
                      ("<a>", "b&b"), "ndcg@10")
    page = parse(svg)
    assert [p["data-qid"] for p in page.points] == qids
    assert page.points[0]["title"] == 'query <q>&"1": <a> 0.1000, b&b 0.2000'
    assert "<q>" not in svg
    assert "<a>" not in svg


def test_a_report_whose_runs_are_gone_still_renders(report: dict[str, Any],
                                                    tmp_path: Path) -> None:
    page = parse(render_html(report["doc"], base=tmp_path))
    text = "".join(page.text)
    assert len(_leaderboards(page)) == 1
    assert "The run directory is not here" in text
    assert "(not found here)" in text
    assert not page.points
    assert not page.details
    assert "No plots in the report folder" in text


def _fold_doc() -> dict[str, Any]:
    """A fold document as bench/benchmark/folds.py writes it (by hand)."""
    return {"dataset": "MQ<2008>", "folds": ["Fold1", "Fold2"], "runs": ["r1", "r2"],
            "tables": [{"metric": "ndcg@10", "profile": "ltrbench", "folds": ["Fold1", "Fold2"],
                        "run_ids": ["r1", "r2"], "n_queries": 784, "rows": [
                            {"model": "lambda&mart", "per_fold": [0.5, 0.6], "mean": 0.55,
                             "std": 0.0707106781, "pooled_mean": 0.551,
                             "ci": [0.52, 0.58], "p_holm_vs_best": None},
                            {"model": "random", "per_fold": [0.2, None], "mean": 0.2,
                             "std": None, "pooled_mean": 0.21, "ci": [0.19, 0.23],
                             "p_holm_vs_best": 0.0001}]}]}


def test_fold_tables_are_shown_when_given(report: dict[str, Any], tmp_path: Path) -> None:
    folder = tmp_path / "folds"
    folder.mkdir()
    (folder / "mq2008-folds12.json").write_text(json.dumps(_fold_doc()))
    docs = read_fold_docs(folder)
    assert read_fold_docs(tmp_path / "absent") == []
    page = parse(render_html(report["doc"], base=report["out"], folds=docs))
    folds = [t for t in page.tables if "folds" in t["cls"]]
    assert len(folds) == 1
    header, best, worst = folds[0]["rows"]
    assert header[:3] == ["Model", "Fold1", "Fold2"]
    assert "pooled (784 queries)" in header
    assert best == ["lambda&mart", "0.5000", "0.6000", "0.5500 ± 0.0707", "0.5510",
                    "[0.5200, 0.5800]", "best"]
    assert worst == ["random", "0.2000", "–", "0.2000 ± – (1 of 2 folds)", "0.2100",
                     "[0.1900, 0.2300]",
                     "<0.001"]
    assert "MQ<2008>: folds Fold1, Fold2" in "".join(page.text)
    assert not [t for t in parse(report["text"]).tables if "folds" in t["cls"]]


# ------------------------------------------------------------------------------------------
# A real browser: headless Chromium, offline
# ------------------------------------------------------------------------------------------


def _chromium() -> str | None:
    """The browser's path, or None. Where ``.ci/run`` installs it beside the tests, it names a
    file written once the install ended (``LTRBENCH_CHROMIUM_READY``): wait for it (bounded)."""
    ready = os.environ.get("LTRBENCH_CHROMIUM_READY")
    deadline = time.monotonic() + 600
    while ready and not os.path.exists(ready) and time.monotonic() < deadline:
        time.sleep(1)
    for name in ("/usr/bin/chromium", "chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _browser(page: Path, tmp: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """Chromium, headless, with no network (a dead proxy; the page's CSP forbids fetches)."""
    exe = _chromium()
    assert exe is not None
    args = [exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-extensions", "--disable-background-networking", "--disable-sync",
            "--disable-component-update", "--proxy-server=http://127.0.0.1:9",
            f"--user-data-dir={tmp / 'profile'}", "--window-size=1280,2000", *extra,
            page.resolve().as_uri()]
    env = {**os.environ, "HOME": str(tmp)}
    return subprocess.run(args, capture_output=True, text=True, timeout=600, env=env,
                          check=False)


_PROBE = """<script>
(function(){var t=document.querySelector('table.leaderboard');var ths=t.tHead.rows[0].cells;
for(var i=0;i<ths.length;i++){if(ths[i].textContent==='NDCG@10'){ths[i].querySelector('button')
.click();}}var p=document.createElement('pre');p.id='probe';p.textContent=JSON.stringify(
Array.prototype.map.call(t.tBodies[0].rows,function(r){return r.cells[0].textContent;}));
document.body.appendChild(p);})();
</script></body>"""


def test_the_page_renders_in_headless_chromium_offline(report: dict[str, Any],
                                                       tmp_path: Path) -> None:
    if _chromium() is None:  # at run time: CI installs it while the first tests run
        pytest.skip("no Chromium installed (apt-get install chromium)")
    shot = tmp_path / "leaderboard.png"
    done = _browser(report["path"], tmp_path, f"--screenshot={shot}")
    assert shot.is_file(), done.stderr[-2000:]
    if os.environ.get("LTRBENCH_SCREENSHOT"):  # CI keeps it as an artifact
        shutil.copyfile(shot, os.environ["LTRBENCH_SCREENSHOT"])
    import matplotlib.image

    pixels = np.asarray(matplotlib.image.imread(str(shot)), dtype=np.float64)
    assert pixels.shape[:2] == (2000, 1280)
    assert pixels[..., :3].std() > 0.05  # not a blank page: text, tables, figures
    dom = _browser(report["path"], tmp_path, "--dump-dom").stdout
    page = parse(dom)
    assert len(_leaderboards(page)) == 1
    sortable = [t for t in page.tables if "sortable" in t["cls"]]
    assert dom.count('data-sorter="ready"') == len(sortable) >= 1
    # the sorter itself: one click on NDCG@10 sorts it ascending (worst first)
    probe = report["out"] / "probe.html"
    probe.write_text(report["text"].replace("</body>", _PROBE), encoding="utf-8")
    dom = _browser(probe, tmp_path, "--dump-dom").stdout
    order = json.loads(dom.split('<pre id="probe">', 1)[1].split("</pre>", 1)[0])
    table = report["doc"]["tables"][0]
    want = [r["model"] for r in sorted(table["rows"],
                                       key=lambda r: r["metrics"]["ndcg@10"]["mean"])]
    assert order == want


def test_report_html_writes_the_page_and_a_later_report_without_it_removes_it(
        tmp_path: Path) -> None:
    """``ltrbench report --html`` (with ``--drill``) writes leaderboard.html beside the other
    files; a later report without ``--html`` removes the stale page (it is one of the report's
    own files)."""
    import shutil

    from hostile_kit import cli

    from bench.benchmark.config import RunConfig
    from bench.benchmark.pipeline import run_benchmark

    out = tmp_path / "res"
    run_benchmark(RunConfig(dataset="synthetic", models=("random", "popularity"), seeds=(0,),
                            quick=True, crosscheck=False), out_dir=out, progress=False)
    res = cli(tmp_path, "report", "--out", str(out), "--html", "--drill", "popularity,random",
              "--no-plots", "--no-progress")
    assert res.status == 0, res.err
    page = (out / "leaderboard.html").read_text(encoding="utf-8")
    assert "<strong>popularity</strong> (x) and <strong>random</strong> (y)" in page
    assert f"wrote {out / 'leaderboard.html'}" in res.out
    res = cli(tmp_path, "report", "--out", str(out), "--no-plots", "--no-progress")
    assert res.status == 0, res.err
    assert not (out / "leaderboard.html").exists()
    shutil.rmtree(out / "runs")


@pytest.mark.parametrize(("argv", "message"), [
    (("--drill", "a,b"), "--drill chooses the drill-down of the HTML page: add --html"),
    (("--html", "--drill", "a"), "--drill 'a': expected two different model names"),
    (("--html", "--drill", "a,a"), "--drill 'a,a': expected two different model names"),
])
def test_report_drill_is_checked_at_the_door(tmp_path: Path, argv: tuple[str, ...],
                                             message: str) -> None:
    from hostile_kit import cli

    res = cli(tmp_path, "report", "--out", str(tmp_path), *argv)
    assert res.status == 2
    assert message in res.err
