"""Round 21c, hostile (issue 19): a reader of ltrbench's human-facing outputs (the terminal
table of ``evaluate --run A --run B``, ``leaderboard.md`` / ``.tex`` / ``.html``, the headings
of every table) and an adversary who names things so that those outputs mislead.

Rounds 19 (security) and 20 (numerals and Unicode) covered markup injection, Cyrillic and
Greek look-alikes, NFC vs NFD, full-width letters and format characters (category Cf). What
was left open, found on the base:

* characters that draw nothing but are not of category Cf -- Unicode's
  Default_Ignorable_Code_Point set: COMBINING GRAPHEME JOINER U+034F, the variation selectors
  U+FE0F and U+E0100, the Hangul fillers U+3164, U+115F, U+1160, U+FFA0, KHMER VOWEL INHERENT
  AQ U+17B4 -- and the blank BRAILLE PATTERN BLANK U+2800: ``evaluate --run bm25=a --run
  bm25<U+034F>=b`` printed two rows both reading ``bm25``; a run name made of U+3164 alone
  printed an empty row label;
* letters of other scripts drawn as Latin ones beyond the Cyrillic / Greek table (Armenian
  ``օ`` U+0585 and ``ս`` U+057D, Cherokee ``Ꭺ`` U+13AA, Lisu ``ꓮ`` U+A4EE): two runs
  ``solo`` / ``solօ`` were two rows reading alike;
* a leaderboard read from run folders printed three rows all reading ``random`` (``random``,
  ``random<U+3164>``, ``rand<Cyrillic о>m``) with three different NDCG@10 means (0.55, 0.25,
  0.10) and a verdict "not distinguishable: random, random, random";
* two datasets ``toy`` and ``toy<U+034F>`` got two leaderboard headings reading ``toy``
  (Markdown, LaTeX and HTML);
* ``leaderboard.html`` carried a dataset name's right-to-left override U+202E and an ESC byte
  raw into its heading (Markdown and LaTeX replace them by a space);
* the bidirectional marks U+200E, U+200F and U+061C (Bidi_Control, as the overrides) reached
  Markdown and LaTeX cells;
* a dataset display name (``--name``, ``name =``) of U+3164 or U+2800 alone was accepted:
  its tables were headed by a blank.
* ``evaluate --run a --run b`` printed a dropped query id ``q<ESC>[2J<U+202E>9`` raw on the
  terminal ("dropped from every run" and "left out" lines; the warning above escaped it);
* a plot's title and the HTML fold heading printed a dataset name raw (``toy<U+034F>`` read
  ``toy``), where the tables show it escaped;
* ``toy`` beside ``toy `` (a trailing blank) made two headings reading ``toy``;
* Latin look-alikes: the small capital ``ᴏ`` U+1D0F and ``ɑ`` U+0251 made run names
  ``solo`` / ``solᴏ`` two rows reading alike.

Oracles: Unicode's own character data (:mod:`unicodedata`: names, categories), UTS #39's
confusables for the look-alike letters, :func:`ascii` for the escaped spellings, hand
arithmetic (average precision of a two-document query: 1 or 1/2). Everything runs
in-process on tiny hand-written inputs (no training).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import Res, cli, own_error, refused, write_one_seed_run

FAST = ("--no-plots", "--no-progress", "--bootstrap", "20", "--permutations", "50")
LGB = "lightgbm-lambdarank"
QRELS = {"q1": {"d1": 1, "d2": 0}}
GOOD = {"q1": {"d1": 2.0, "d2": 1.0}}  # d1 (relevant) first: AP = 1
BAD = {"q1": {"d1": 1.0, "d2": 2.0}}  # d1 second: AP = 1/2


def _compare(names: tuple[str, str]) -> object:
    from bench.report.compare_runs import compare_runs

    return compare_runs(QRELS, {names[0]: GOOD, names[1]: BAD}, metrics="map",
                        n_bootstrap=10, n_permutations=10)


# ------------------------------------------ run names of a comparison (silent accepts)

INVISIBLE = ["\u034f", "\ufe0f", "\U000e0100", "\u3164", "\u115f", "\uffa0", "\u17b4", "\u2800"]


@pytest.mark.parametrize("char", INVISIBLE, ids=lambda c: f"U+{ord(c):04X}")
def test_silent_accept_a_run_name_with_a_trailing_invisible_twin_is_refused(char: str) -> None:
    esc = ascii(char)[1:-1]
    assert own_error(lambda: _compare(("bm25", "bm25" + char)), "bm25", esc, "read as one") is None


@pytest.mark.parametrize("char", INVISIBLE[:4], ids=lambda c: f"U+{ord(c):04X}")
def test_silent_accept_an_inner_invisible_character_makes_no_second_run(char: str) -> None:
    assert own_error(lambda: _compare(("bm25", "bm" + char + "25")), "read as one") is None


@pytest.mark.parametrize("name", ["\u3164", "\u2800", "\u115f\u1160", "\u034f\ufe0f"],
                         ids=["hangul-filler", "braille-blank", "two-fillers", "joiners"])
def test_silent_accept_a_run_name_that_draws_nothing_is_refused(name: str) -> None:
    assert own_error(lambda: _compare((name, "bm25")), ascii(name)[1:-1], "nothing") is None


@pytest.mark.parametrize(("a", "b"), [("solo", "sol\u0585"), ("run", "r\u057dn"),
                                      ("Alpha", "\u13aalpha"), ("Alpha", "\ua4eelpha"),
                                      ("solo", "sol\u1d0f"), ("bm25a", "bm25\u0251")],
                         ids=["armenian-oh", "armenian-seh", "cherokee-go", "lisu-a",
                              "latin-small-capital-o", "latin-alpha"])
def test_silent_accept_a_look_alike_letter_of_another_script_is_refused(a: str, b: str) -> None:
    assert own_error(lambda: _compare((a, b)), ascii(b)[1:-1], "read as one") is None


def test_a_visible_accent_is_another_name_and_both_are_scored_by_hand() -> None:
    res = _compare(("cafe", "caf\u00e9"))  # a visible accent: two names a reader tells apart
    assert res.names == ["cafe", "caf\u00e9"]  # type: ignore[attr-defined]
    assert list(res.mean["map"]) == pytest.approx([1.0, 0.5])  # type: ignore[attr-defined]


def test_silent_accept_the_command_line_refuses_an_invisible_twin_naming_it(tmp_path: Path) -> None:
    (tmp_path / "q").write_text("q1 0 d1 1\nq1 0 d2 0\n")
    (tmp_path / "a").write_text("q1 Q0 d1 1 2 a\nq1 Q0 d2 2 1 a\n")
    (tmp_path / "b").write_text("q1 Q0 d2 1 2 b\nq1 Q0 d1 2 1 b\n")
    res = cli(tmp_path, "evaluate", "--qrels", "q", "--run", "bm25=a", "--run", "bm25\u3164=b",
              "--metrics", "map")
    assert refused(res, "\\u3164") is None, res.err


# ------------------------------------------------ leaderboard rows read from run folders


write_run = write_one_seed_run  # a finished one-seed run from per-query values


def _report(tmp: Path, pq: dict[str, list[float]]) -> Res:
    write_run(tmp / "runs", "r1", "ds", pq)
    return cli(tmp, "report", "--runs", "runs/r1", "--out", "out", *FAST)


@pytest.mark.parametrize("twin", ["random\u3164", "rand\u043em", "rand\u0585m", "random\ufe0f"],
                         ids=["hangul-filler", "cyrillic-o", "armenian-oh", "variation-selector"])
def test_silently_wrong_number_two_leaderboard_rows_reading_random_are_refused(
        tmp_path: Path, twin: str) -> None:
    # three means a reader cannot tell apart: 0.85 (lgb), 0.25 'random', 0.55 the twin
    res = _report(tmp_path, {LGB: [0.9, 0.8], "random": [0.3, 0.2], twin: [0.5, 0.6]})
    assert refused(res, "random", ascii(twin)[1:-1], "r1") is None, res.err


def test_two_models_whose_names_differ_visibly_make_two_rows_with_hand_means(tmp_path: Path) -> None:
    res = _report(tmp_path, {LGB: [0.9, 0.8], "random": [0.3, 0.2], "random2": [0.5, 0.6]})
    assert res.status == 0, res.err
    md = (tmp_path / "out" / "leaderboard.md").read_text(encoding="utf-8")
    assert "| random | 0.2500 |" in md
    assert "| random2 | 0.5500 |" in md


# ------------------------------------------ dataset names in the headings of every output


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("names")
    pq = {LGB: [0.9, 0.8], "random": [0.3, 0.2]}
    write_run(base / "runs", "r1", "toy", pq)
    write_run(base / "runs", "r2", "toy\u034f", pq)
    write_run(base / "runs", "r3", "ev\u202eil\x1b[2J", pq)
    res = cli(base, "report", "--runs", "runs/r1", "runs/r2", "runs/r3", "--out", "out",
              "--html", *FAST)
    assert res.status == 0, res.err
    return base / "out"


def _text(board: Path, name: str) -> str:
    return (board / name).read_text(encoding="utf-8")


def test_silent_accept_markdown_headings_of_toy_and_its_joiner_twin_differ_visibly(board: Path) -> None:
    heads = [h for h in re.findall(r"^## (.*?) —", _text(board, "leaderboard.md"), re.M)
             if "toy" in h]
    assert len(heads) == 2, heads
    assert any("u034f" in h for h in heads), heads


def test_silent_accept_html_headings_of_toy_and_its_joiner_twin_differ_visibly(board: Path) -> None:
    heads = [h for h in re.findall(r"<h2>(.*?)</h2>", _text(board, "leaderboard.html")) if "toy" in h]
    assert len(heads) == 2, heads
    assert any("u034f" in h for h in heads), heads


def test_silent_accept_latex_captions_of_toy_and_its_joiner_twin_differ_visibly(board: Path) -> None:
    caps = [c for c in re.findall(r"\\caption\{(.*?),", _text(board, "leaderboard.tex")) if "toy" in c]
    assert len(caps) == 2, caps
    assert any("u034f" in c for c in caps), caps


@pytest.mark.parametrize("char", ["\u202e", "\x1b"], ids=["RLO", "ESC"])
def test_silent_accept_html_carries_no_override_or_escape_byte_from_a_dataset_name(
        board: Path, char: str) -> None:
    html = _text(board, "leaderboard.html")
    assert char not in html, html[max(0, html.find(char) - 60):html.find(char) + 60]


@pytest.mark.parametrize("name", ["leaderboard.md", "leaderboard.tex"])
def test_markdown_and_latex_carry_no_override_or_escape_byte(board: Path, name: str) -> None:
    text = _text(board, name)
    assert "\u202e" not in text
    assert "\x1b" not in text


def test_the_html_shows_the_overridden_name_escaped_in_ascii(board: Path) -> None:
    assert "ev\\u202eil\\x1b[2J" in _text(board, "leaderboard.html")


@pytest.mark.parametrize("name", ["toy\u034f", "toy\u3164", "toy\ufe0f", "t\u0585y", "t\u1d0fy"],
                         ids=["cgj", "hangul-filler", "vs16", "armenian-oh", "small-capital-o"])
def test_silent_accept_a_dataset_name_that_is_not_what_it_looks_like_is_shown_escaped(
        name: str) -> None:
    from bench.report.select import shown_name

    assert shown_name(name) == f"{name} ({ascii(name)[1:-1]})"


def test_a_plain_dataset_name_and_one_in_armenian_alone_are_shown_as_themselves() -> None:
    from bench.report.select import shown_name

    assert shown_name("toy") == "toy"
    assert shown_name("\u0585\u057d") == "\u0585\u057d"  # one script, no Latin: no confusion


# ------------------------------------------------------------- bidirectional marks in cells


@pytest.mark.parametrize("mark", ["\u200e", "\u200f", "\u061c"], ids=["LRM", "RLM", "ALM"])
def test_silent_accept_markdown_cells_carry_no_bidirectional_mark(mark: str) -> None:
    from bench.data.md_cells import md_text

    assert md_text(f"q{mark}17") == "q 17"


def test_silent_accept_latex_cells_carry_no_bidirectional_mark() -> None:
    from bench.report.latex import tex_escape

    assert tex_escape("q\u200f17") == "q 17"


# --------------------------------------------------------------- dataset display names


@pytest.mark.parametrize("name", ["\u3164", "\u2800", "\u115f\u034f"],
                         ids=["hangul-filler", "braille-blank", "filler-and-joiner"])
def test_silent_accept_a_display_name_that_draws_nothing_is_refused(name: str) -> None:
    from bench.benchmark.config_schema import check_name

    assert own_error(lambda: check_name(name, "--name"), "--name", ascii(name)[1:-1]) is None


def test_a_display_name_with_a_zero_width_space_stays_refused() -> None:
    from bench.benchmark.config_schema import check_name

    assert own_error(lambda: check_name("toy\u200b", "--name"), "--name") is None


def test_silent_accept_a_plot_title_shows_the_joiner_twin_of_toy_escaped(
        board: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from matplotlib.axes import Axes

    from bench.report.plots import plot_quality_vs_time

    titles: list[str] = []
    monkeypatch.setattr(Axes, "set_title", lambda self, text, **kw: titles.append(text))
    doc = json.loads(_text(board, "leaderboard.json"))
    twin = next(t for t in doc["tables"] if t["dataset"] == "toy\u034f")
    plot_quality_vs_time(twin, tmp_path / "q.png")
    assert titles, "no title drawn"
    assert titles[0].startswith("toy\u034f (toy\\u034f):"), titles


# ------------------------------------------------------ query ids reaching the terminal


def test_silent_accept_a_dropped_query_id_with_an_escape_sequence_reaches_no_terminal(
        tmp_path: Path) -> None:
    qid = "q\x1b[2J\u202e9"  # clear the screen, then reverse what follows
    (tmp_path / "q").write_text(f"q1 0 d1 1\nq1 0 d2 0\n{qid} 0 d1 1\n", encoding="utf-8")
    (tmp_path / "a").write_text(f"q1 Q0 d1 1 2 a\nq1 Q0 d2 2 1 a\n{qid} Q0 d1 1 1 a\n",
                                encoding="utf-8")
    (tmp_path / "b").write_text("q1 Q0 d2 1 2 b\nq1 Q0 d1 2 1 b\n", encoding="utf-8")
    res = cli(tmp_path, "evaluate", "--qrels", "q", "--run", "a", "--run", "b", "--metrics", "map")
    assert res.status == 0, res.err
    assert "\x1b" not in res.out + res.err
    assert "\u202e" not in res.out + res.err
    assert "q\\x1b[2J\\u202e9" in res.out  # named, escaped, where the dropped queries are listed
    rows = {ln.split("│")[1].strip(): ln.split("│")[2].strip() for ln in res.out.splitlines()
            if ln.startswith("│ a ") or ln.startswith("│ b ")}
    assert rows == {"a": "1.0000", "b": "0.5000"}, res.out  # q1 alone: AP 1 and 1/2


@pytest.mark.parametrize("name", ["toy ", " toy", "to  y"], ids=["trailing", "leading", "double"])
def test_silent_accept_a_dataset_name_whose_blanks_a_heading_swallows_is_shown_quoted(
        name: str) -> None:
    from bench.report.select import shown_name

    assert shown_name(name) == f"{name} ({name!r})"  # Markdown shows 'toy ' as 'toy'


def test_silent_accept_a_leaderboard_row_that_draws_nothing_is_refused(tmp_path: Path) -> None:
    res = _report(tmp_path, {LGB: [0.9, 0.8], "\u3164": [0.3, 0.2]})
    assert refused(res, "\\u3164", "nothing", "r1") is None, res.err
