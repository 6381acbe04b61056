"""Round 20, hostile: an engineer whose data come from many countries and many tools.

Python's ``int()`` / ``float()`` / ``str.split()`` / ``str.strip()`` accept text the tools
ltrbench reproduces do not: full-width digits (``１``), Arabic-Indic digits (``٣``), ``1_0``,
``0x2``, a no-break space (U+00A0) or an ideographic space (U+3000) around or between values.
trec_eval reads numbers with C ``atoi`` / ``atof`` and splits fields on C ``isspace`` (ASCII
only); LightGBM's SVMlight reader is C++ too; ir_measures refuses a name holding U+00A0
("invalid non-printable character"). Each case below feeds one such text to one input path
(TREC qrels and runs, SVMlight, scores and ``.query`` files, ratings CSV and Parquet, frames and
dicts given to ``evaluate``, metric names, run configs, command-line values) and checks that it
is read as the oracle reads it (pytrec_eval, scikit-learn's ``load_svmlight_file``, pandas,
tomllib, hand arithmetic in the comments) or refused with an error naming where and what.

Earlier catalogues cover ``qid:+1`` / ``qid:01``, NBSP inside TREC fields, full-width letters in
metric and model names, text labels in arrays, and ``1e-400``. New here: Unicode white space as
a separator of metric-name lists, seeds and folds, numbers inside ir_measures parameters
(``rel=1_0``, ``cutoff=1_0``, gains), the ratings reader's words for a cell ending in a
no-break space, SVMlight tokens joined by one, and ids that differ only by NFC/NFD form, a
zero-width or a bidirectional character, on every file reader.

Classes (issue 19): silently wrong number, silent accept, unclear error, traceback: each test's
name ends with its class.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import unicodedata
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import tomllib
from hostile_kit import cli, own_error, refused

from bench.benchmark.config import RunConfig, parse_seeds
from bench.commands.text import ascii_float, ascii_int
from bench.data.scores import read_scores
from bench.data.svmlight import read_svmlight
from bench.data.tabular import load_ratings_table
from bench.data.trec import read_qrels, read_run
from bench.datasets.folds import parse_folds
from bench.errors import LtrbenchError
from bench.metrics import evaluate, evaluate_trec

NFC = "caf\u00e9"
NFD = unicodedata.normalize("NFD", NFC)
LABELS, SCORES, QIDS = [2, 0, 1], [0.9, 0.8, 0.1], ["q", "q", "q"]
QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 d 1\n2 0 e 0\n"
RUN = "1 Q0 a 1 0.4 t\n1 Q0 b 2 0.9 t\n1 Q0 c 3 0.1 t\n2 Q0 d 1 0.2 t\n2 Q0 e 2 0.8 t\n"
RATINGS_HEAD = "user,item,rating,timestamp\n"


def _write(tmp: Path, name: str, text: str | bytes) -> Path:
    p = tmp / name
    p.write_bytes(text.encode() if isinstance(text, str) else text)
    return p


def _oracle(qrels: str, run: str, measure: str = "ndcg") -> float:
    """pytrec_eval's mean of ``measure`` over the queries it evaluates (its own text parsers)."""
    import pytrec_eval

    q = pytrec_eval.parse_qrel(io.StringIO(qrels))
    r = pytrec_eval.parse_run(io.StringIO(run))
    per = pytrec_eval.RelevanceEvaluator(q, {measure}).evaluate(r)
    return float(np.mean([v[measure] for v in per.values()]))


def _trec(tmp: Path, qrels: str | bytes, run: str | bytes, measure: str = "ndcg") -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an unjudged-run note: the number is what is checked
        res = evaluate_trec(_write(tmp, "q.txt", qrels), _write(tmp, "r.txt", run),
                            metrics=measure)
    return float(res.metrics[measure])


def _arrays(metric: str) -> object:
    return evaluate(LABELS, SCORES, qid=QIDS, metrics=metric)


# --------------------------------------------------------------- metric names: one grammar
@pytest.mark.parametrize(("names", "char"), [
    ("ndcg@3\u00a0map", "U+00A0"),      # a no-break space pasted between two names
    ("ndcg@3\u3000map", "U+3000"),      # an ideographic space from a CJK input method
    ("map\u2003ndcg@3", "U+2003"),      # an em space from a word processor
    ("P@5\u00a0", "U+00A0"),            # ir_measures.parse_measure: "invalid non-printable"
    ("\u00a0ndcg@10", "U+00A0"),
])
def test_metric_list_unicode_space_refused_not_split__silent_accept(names: str, char: str) -> None:
    # Python's str.split() splits (and strip() trims) at these; trec_eval, pytrec_eval and
    # ir_measures know no such name. `P(rel=\u00a02)@5` is refused naming U+00A0 already: one rule.
    assert own_error(lambda: _arrays(names), char) is None


def test_config_metric_list_unicode_space_refused__silent_accept() -> None:
    assert own_error(lambda: RunConfig.from_dict({"metrics": "ndcg@10\u3000map"}),
                     "U+3000") is None
    assert own_error(lambda: RunConfig.from_dict({"metrics": ["ndcg@10\u00a0"]}),
                     "U+00A0") is None


@pytest.mark.parametrize("name", [
    "P(rel=1_0)@5",                     # ir_measures (Python's ast) reads rel=10
    "P(rel=0x2)@5",                     # ... and rel=2
    "nDCG(cutoff=1_0)",                 # ... and cutoff 10
    "nDCG(gains={0:0,1:1_0})@10",       # ... and gain 10
])
def test_ir_measures_parameter_numbers_as_strict_as_cutoffs__silent_accept(name: str) -> None:
    # `nDCG@1_0` and `rbp(0.95)@1_0` are refused ("written in decimal digits"): a number inside
    # the parentheses follows the same rule, not Python's literal grammar.
    assert own_error(lambda: _arrays(name), "decimal digits") is None


def test_ir_measures_cutoff_underscore_refused__silent_accept() -> None:
    assert own_error(lambda: _arrays("nDCG@1_0"), "decimal digits") is None


def test_ir_measures_rel_plain_digits_read__silently_wrong_number() -> None:
    # labels 2, 0, 1: one document with rel >= 2 in the top 5 -> P@5 = 1/5 (ir_measures' P)
    res = _arrays("P(rel=2)@5")
    assert res.metrics["P(rel=2)@5"] == pytest.approx(0.2)  # type: ignore[attr-defined]


@pytest.mark.parametrize(("name", "char"), [("ndcg@１０", "U+FF11"), ("map@٣", "U+0663"),
                                       ("P(rel=２)@5", "U+FF12")])
def test_metric_cutoff_foreign_digits_named__unclear_error(name: str, char: str) -> None:
    assert own_error(lambda: _arrays(name), char) is None


# ---------------------------------------------------------- option values: ASCII all around
@pytest.mark.parametrize("text", ["\u00a010", "10\u00a0", "\u300010", "１０", "1_0"])
def test_integer_option_unicode_space_or_digits_refused__silent_accept(text: str) -> None:
    # trec_eval's -M goes through atoi: "\u00a010" is 0 there, 10 to Python's strip(): refused.
    with pytest.raises(argparse.ArgumentTypeError):
        ascii_int(text)


@pytest.mark.parametrize("text", ["0.5\u00a0", "\u30000.5", "０.5", "0_5"])
def test_float_option_unicode_space_or_digits_refused__silent_accept(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        ascii_float(text)


@pytest.mark.parametrize(("text", "char"), [("1,\u00a02", "U+00A0"), ("0,1\u3000", "U+3000"),
                                       ("\u20030-2", "U+2003")])
def test_seeds_unicode_space_refused__silent_accept(text: str, char: str) -> None:
    assert own_error(lambda: parse_seeds(text, where="--seeds"), char) is None


def test_seeds_ascii_spaces_still_read__silently_wrong_number() -> None:
    assert parse_seeds("1, 2", where="--seeds") == (1, 2)
    assert parse_seeds(" 0-2 ", where="--seeds") == (0, 1, 2)


@pytest.mark.parametrize(("text", "char"), [("1,\u00a02", "U+00A0"), ("all\u00a0", "U+00A0")])
def test_folds_unicode_space_refused__silent_accept(text: str, char: str) -> None:
    assert own_error(lambda: parse_folds(text), char) is None


def test_folds_foreign_digits_refused__silent_accept() -> None:
    assert own_error(lambda: parse_folds("٣"), "٣") is None


def test_toml_integer_underscore_is_toml_grammar__silently_wrong_number(tmp_path: Path) -> None:
    # TOML (and tomllib, the oracle) reads 1_0 as 10 inside a TOML file: that is the format.
    text = "seeds = [1_0]\n"
    assert tomllib.loads(text)["seeds"] == [10]
    assert RunConfig.from_dict(tomllib.loads(text)).seeds == (10,)


def test_toml_seeds_string_of_fullwidth_digits_refused__silent_accept() -> None:
    assert own_error(lambda: RunConfig.from_dict({"seeds": "０-２"}), "seeds") is None


def test_cli_metrics_unicode_space_refused__silent_accept(tmp_path: Path) -> None:
    q, r = _write(tmp_path, "q.txt", QRELS), _write(tmp_path, "r.txt", RUN)
    res = cli(tmp_path, "evaluate", "--qrels", str(q), "--run", str(r),
              "--metrics", "ndcg@10\u00a0map")
    assert refused(res, "U+00A0") is None


def test_cli_run_depth_leading_nbsp_refused__silent_accept(tmp_path: Path) -> None:
    q, r = _write(tmp_path, "q.txt", QRELS), _write(tmp_path, "r.txt", RUN)
    res = cli(tmp_path, "evaluate", "--qrels", str(q), "--run", str(r), "--run-depth", "\u00a02")
    assert refused(res, "--run-depth") is None


# ------------------------------------------------------------ TREC files: trec_eval's reading
def test_qrels_plus_sign_relevance_read_as_atoi__silently_wrong_number(tmp_path: Path) -> None:
    qrels = QRELS.replace("a 1", "a +1").replace("c 2", "c +2")
    assert _trec(tmp_path, qrels, RUN) == pytest.approx(_oracle(qrels, RUN), abs=1e-12)


@pytest.mark.parametrize("score", ["+0.4", ".4", "4.", "4E-1", "0.4e+0"])
def test_run_score_c_spellings_read_as_strtod__silently_wrong_number(tmp_path: Path,
                                                                      score: str) -> None:
    run = RUN.replace("a 1 0.4", f"a 1 {score}")
    assert _trec(tmp_path, QRELS, run) == pytest.approx(_oracle(QRELS, run), abs=1e-12)


def test_qrels_fullwidth_qid_is_another_query__silently_wrong_number(tmp_path: Path) -> None:
    # trec_eval compares ids as bytes: '１' is not '1' (query 1 loses document a's judgment)
    qrels = QRELS.replace("1 0 a 1", "１ 0 a 1")
    assert _trec(tmp_path, qrels, RUN) == pytest.approx(_oracle(qrels, RUN), abs=1e-12)


def test_qrels_docno_with_zero_width_space_is_another_doc__silently_wrong_number(
        tmp_path: Path) -> None:
    qrels = QRELS.replace("a 1", "a\u200b 1")
    got = _trec(tmp_path, qrels, RUN)
    assert got == pytest.approx(_oracle(qrels, RUN), abs=1e-12)
    assert got < _oracle(QRELS, RUN)  # the id really is another one


def test_nfc_qrels_nfd_run_ids_compared_as_bytes__silently_wrong_number(tmp_path: Path) -> None:
    qrels = QRELS.replace(" a ", f" {NFC} ")
    run = RUN.replace(" a ", f" {NFD} ")
    assert _trec(tmp_path, qrels, run) == pytest.approx(_oracle(qrels, run), abs=1e-12)


def test_bidi_override_in_docno_kept_in_id__silently_wrong_number(tmp_path: Path) -> None:
    qrels = QRELS.replace(" c ", " \u202ec ")
    run = RUN.replace(" c ", " \u202ec ")
    assert _trec(tmp_path, qrels, run) == pytest.approx(_oracle(qrels, run), abs=1e-12)


def test_bom_cr_only_nfd_run_as_lf_file__silently_wrong_number(tmp_path: Path) -> None:
    run = RUN.replace(" a ", f" {NFD} ")
    qrels = QRELS.replace(" a ", f" {NFD} ")
    messy = ("\ufeff" + run).replace("\n", "\r").encode()
    assert _trec(tmp_path, qrels, messy) == pytest.approx(_oracle(qrels, run), abs=1e-12)


def test_mixed_line_ends_in_qrels_with_nfc_ids__silently_wrong_number(tmp_path: Path) -> None:
    qrels = QRELS.replace(" a ", f" {NFC} ")
    run = RUN.replace(" a ", f" {NFC} ")
    lines = qrels.splitlines()
    messy = lines[0] + "\r\n" + lines[1] + "\r" + "\n".join(lines[2:]) + "\n"
    assert _trec(tmp_path, messy, run) == pytest.approx(_oracle(qrels, run), abs=1e-12)


def test_run_rank_arabic_indic_refused__silent_accept(tmp_path: Path) -> None:
    p = _write(tmp_path, "r.txt", RUN.replace("c 3 0.1", "c ٣ 0.1"))
    assert own_error(lambda: read_run(p), "r.txt:3", "rank", "٣") is None


def test_qrels_rel_arabic_indic_refused__silent_accept(tmp_path: Path) -> None:
    p = _write(tmp_path, "q.txt", QRELS.replace("b 0", "b ٠"))
    assert own_error(lambda: read_qrels(p), "q.txt:2", "rel") is None


def test_run_latin1_docno_named_with_line_and_byte__unclear_error(tmp_path: Path) -> None:
    p = _write(tmp_path, "r.txt", RUN.encode().replace(b" c ", b" caf\xe9 "))
    assert own_error(lambda: read_run(p), "r.txt:3", "0xe9", "UTF-8") is None


def test_qrels_utf16_be_without_bom_named__unclear_error(tmp_path: Path) -> None:
    p = _write(tmp_path, "q.txt", QRELS.encode("utf-16-be"))
    assert own_error(lambda: read_qrels(p), "UTF-16BE") is None


# ------------------------------------------------------------------ SVMlight: C readers' view
SVM = "2 qid:1 1:0.5 2:1\n0 qid:1 1:0.1\n1 qid:1 2:0.3\n"


def _svm(tmp: Path, text: str) -> tuple[list[float], list[int], list[list[float]]]:
    d = read_svmlight(_write(tmp, "d.txt", text))
    return d.y.tolist(), d.qid.tolist(), np.asarray(d.X).tolist()


def test_svmlight_c_number_spellings_as_sklearn__silently_wrong_number(tmp_path: Path) -> None:
    from sklearn.datasets import load_svmlight_file

    text = "+2 qid:1 1:+.5 2:1.\n0e0 qid:1 1:1E-1\n1e0 qid:1 2:.3\n"
    X, y, qid = load_svmlight_file(io.BytesIO(text.encode()), query_id=True, n_features=2)
    got_y, got_q, got_x = _svm(tmp_path, text)
    assert got_y == y.tolist()
    assert got_q == qid.tolist()
    assert np.allclose(got_x, X.toarray().astype(np.float32))


@pytest.mark.parametrize(("text", "col"), [
    ("٢ qid:1 1:0.5\n0 qid:1 1:0.1\n", "column 1"),          # Arabic-Indic label
    ("2 qid:1 ١:0.5\n0 qid:1 1:0.1\n", "column 9"),          # Arabic-Indic index
    ("2 qid:1 1:0.5\n0 qid:٠١ 1:0.1\n", "qid"),              # Arabic-Indic query id, line 2
])
def test_svmlight_arabic_indic_digits_refused__silent_accept(tmp_path: Path, text: str,
                                                             col: str) -> None:
    # scikit-learn's reader calls Python's float()/int() and reads these; LightGBM does not.
    assert own_error(lambda: _svm(tmp_path, text), "d.txt", col) is None


@pytest.mark.parametrize(("text", "char"), [
    ("2\u00a0qid:1 1:0.5\n0 qid:1 1:0.1\n", "U+00A0"),       # after the label
    ("2 qid:1\u30001:0.5\n0 qid:1 1:0.1\n", "U+3000"),       # after qid:1
    ("2 qid:1 1:0.5\u20032:1\n0 qid:1 1:0.1\n", "U+2003"),   # between two features
])
def test_svmlight_unicode_space_between_tokens_named__unclear_error(tmp_path: Path, text: str,
                                                                    char: str) -> None:
    # scikit-learn splits at it (str.split), LightGBM does not: the message names the character
    # rather than calling the label or the query id "not a number".
    assert own_error(lambda: _svm(tmp_path, text), "d.txt:1", char) is None


def test_svmlight_bom_cr_only_as_plain_file__silently_wrong_number(tmp_path: Path) -> None:
    plain = _svm(tmp_path, SVM)
    assert _svm(tmp_path, ("\ufeff" + SVM).replace("\n", "\r")) == plain


# -------------------------------------------------------------- scores and .query side files
@pytest.mark.parametrize(("text", "line"), [("0.9\n\u30000.1\n", ":2"), ("0.9\u00a0\n0.1\n", ":1"),
                                       ("0.9\n٠.1\n", ":2"), ("１\n0.1\n", ":1")])
def test_scores_file_foreign_digit_or_space_refused__silent_accept(tmp_path: Path, text: str,
                                                                   line: str) -> None:
    p = _write(tmp_path, "s.scores", text)
    assert own_error(lambda: read_scores(p, 2), "s.scores" + line) is None


def test_scores_file_plus_sign_read_as_strtod__silently_wrong_number(tmp_path: Path) -> None:
    p = _write(tmp_path, "s.scores", "+0.9\n-.1\n")
    assert read_scores(p, 2).tolist() == [0.9, -0.1]


def test_query_sidecar_fullwidth_group_size_refused__silent_accept(tmp_path: Path) -> None:
    p = _write(tmp_path, "d.txt", "2 1:0.5\n0 1:0.1\n")
    _write(tmp_path, "d.txt.query", "２\n")
    assert own_error(lambda: read_svmlight(p), "d.txt.query:1", "group size") is None


# ----------------------------------------------------------------------- ratings CSV / Parquet
def _ratings(tmp: Path, body: str, name: str = "r.csv") -> pd.DataFrame:
    p = _write(tmp, name, RATINGS_HEAD + body)
    r = load_ratings_table(p, user="user", item="item", rating="rating", timestamp="timestamp")
    return r.frame


@pytest.mark.parametrize(("body", "where", "char"), [
    ("1,1,4\u00a0,10\n1,2,3,11\n", "r.csv:2", "U+00A0"),
    ("1,1,4,10\n1,2,\u30003,11\n", "r.csv:3", "U+3000"),
    ("1,1,4\u2003,10\n1,2,3,11\n", "r.csv:2", "U+2003"),
])
def test_rating_cell_with_unicode_space_named__unclear_error(tmp_path: Path, body: str,
                                                             where: str, char: str) -> None:
    # was "value '4\xa0' is not a finite number": the cell is finite, it holds a no-break space
    assert own_error(lambda: _ratings(tmp_path, body), where, "rating", char) is None


def test_timestamp_cell_with_nbsp_named__unclear_error(tmp_path: Path) -> None:
    body = "1,1,4,10\u00a0\n1,2,3,11\n"
    assert own_error(lambda: _ratings(tmp_path, body), "r.csv:2", "timestamp", "U+00A0") is None


@pytest.mark.parametrize("cell", ["４", "٤", "4_0", "nAn"])
def test_rating_cell_foreign_number_refused__silent_accept(tmp_path: Path, cell: str) -> None:
    body = f"1,1,{cell},10\n1,2,3,11\n"
    assert own_error(lambda: _ratings(tmp_path, body), "r.csv:2", "rating") is None


def test_rating_plus_sign_read_as_pandas__silently_wrong_number(tmp_path: Path) -> None:
    frame = _ratings(tmp_path, "1,1,+4,10\n1,2,3.5,11\n")
    want = pd.read_csv(io.StringIO(RATINGS_HEAD + "1,1,+4,10\n1,2,3.5,11\n"))["rating"]
    assert frame["rating"].tolist() == want.tolist()


def test_user_fullwidth_and_ascii_are_two_users__silently_wrong_number(tmp_path: Path) -> None:
    # pandas reads the column as text: '１' and '1' are two ids (ids compare as text)
    frame = _ratings(tmp_path, "１,1,4,10\n1,2,3,11\n")
    assert frame["user"].nunique() == 2


def test_user_nfc_and_nfd_are_two_users__silently_wrong_number(tmp_path: Path) -> None:
    frame = _ratings(tmp_path, f"{NFC},1,4,10\n{NFD},2,3,11\n")
    assert frame["user"].nunique() == 2


def test_parquet_rating_text_arabic_digit_refused__silent_accept(tmp_path: Path) -> None:
    p = tmp_path / "r.parquet"
    pd.DataFrame({"user": [1, 1], "item": [1, 2], "rating": ["٤", "3"],
                  "timestamp": [10, 11]}).to_parquet(p)
    assert own_error(lambda: load_ratings_table(p, user="user", item="item", rating="rating",
                                                timestamp="timestamp"),
                     "r.parquet", "row 1", "rating") is None


def test_ratings_latin1_user_named_with_line__unclear_error(tmp_path: Path) -> None:
    p = _write(tmp_path, "r.csv", (RATINGS_HEAD + "a,1,4,10\ncaf\u00e9,2,3,11\n").encode("latin-1"))
    assert own_error(lambda: load_ratings_table(p, user="user", item="item", rating="rating",
                                                timestamp="timestamp"),
                     "r.csv:3", "0xe9") is None


# --------------------------------------------------------------- frames and dicts (evaluate)
def test_dict_qrels_arabic_indic_relevance_refused__silent_accept() -> None:
    run = {"q": {"a": 0.9, "b": 0.8}}
    assert own_error(lambda: evaluate_trec({"q": {"a": "٢", "b": 0}}, run, metrics="ndcg"),
                     "relevance") is None


def test_frame_fullwidth_score_text_refused__silent_accept() -> None:
    frame = pd.DataFrame({"qid": QIDS, "label": LABELS, "score": ["０.9", "0.8", "0.1"]})
    assert own_error(lambda: evaluate(frame, metrics="ndcg@3"), "row 1", "score") is None


def test_qid_array_nfc_nfd_are_two_queries__silently_wrong_number() -> None:
    # query NFC: labels 1, 0 scored 0.9, 0.8 -> ndcg@3 = 1; query NFD: labels 1, 0 scored 0.1,
    # 0.3 -> DCG = 1/log2(3), ideal 1 -> 0.6309; mean 0.8155 (one query would give another value)
    res = evaluate([1, 0, 1, 0], [0.9, 0.8, 0.1, 0.3], qid=[NFC, NFC, NFD, NFD], metrics="ndcg@3")
    assert res.metrics["ndcg@3"] == pytest.approx((1 + 1 / np.log2(3)) / 2, abs=1e-12)


def test_dict_ids_nfc_vs_nfd_compared_as_bytes__silently_wrong_number() -> None:
    import pytrec_eval

    qrels, run = {"q": {NFC: 1, "b": 0}}, {"q": {NFD: 0.9, "b": 0.8}}
    want = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg"}).evaluate(run)["q"]["ndcg"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert evaluate_trec(qrels, run, metrics="ndcg").metrics["ndcg"] == want


def test_no_traceback_on_any_numeral_path__traceback() -> None:
    texts = ["１", "٣", "1_0", "\u00a01", "1\u3000", "infinity", "nAn", "+5", "0x1"]
    calls = [lambda t: _arrays(f"ndcg@{t}"), lambda t: parse_seeds(t, where="--seeds"),
             parse_folds, lambda t: RunConfig.from_dict({"eval_at": [t]})]
    for t in texts:
        for fn in calls:
            with contextlib.suppress(LtrbenchError):  # anything else escapes: a traceback
                fn(t)


# ------------------------------------------------- names and grids: the same white-space rule
def test_run_integer_option_leading_ideographic_space_refused__silent_accept() -> None:
    from bench.benchmark.config_schema import SEED, cli_int

    assert own_error(lambda: cli_int("\u300010", SEED, "--n-trees"), "--n-trees") is None
    assert cli_int(" 10 ", SEED, "--n-trees") == 10  # ASCII blanks, as atoi skips them


def test_grid_value_trailing_nbsp_refused__silent_accept() -> None:
    from bench.benchmark.tune import parse_space

    assert own_error(lambda: parse_space("num_leaves=15,31\u00a0"), "--grid", "U+00A0") is None


def test_model_name_trailing_nbsp_refused__silent_accept() -> None:
    assert own_error(lambda: RunConfig.from_dict({"models": ["lightgbm\u00a0"]}),
                     "U+00A0") is None


def test_profile_name_trailing_ideographic_space_refused__silent_accept() -> None:
    assert own_error(lambda: evaluate(LABELS, SCORES, qid=QIDS, metrics="ndcg@3",
                                      profile="lightgbm\u3000"), "U+3000") is None



# ------------------------------------- one visible id, two spellings: graded as bytes, but said
def _said(tmp: Path, qrels: str, run: str) -> tuple[float, list[str]]:
    from bench.metrics.trec import UnjudgedRunWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = evaluate_trec(_write(tmp, "q.txt", qrels), _write(tmp, "r.txt", run),
                              metrics="ndcg").metrics["ndcg"]
    return float(value), [str(w.message) for w in caught
                          if issubclass(w.category, UnjudgedRunWarning)]


@pytest.mark.parametrize(("judged", "retrieved"), [
    (NFC, NFD),                  # a macOS copy of the qrels beside a Linux run
    ("a\u200b", "a"),            # a zero-width space from a web page
    ("\u202ea", "a"),            # a right-to-left override
    ("ａ", "a"),                  # a full-width letter from a CJK spreadsheet
])
def test_same_visible_id_two_spellings_said__silent_accept(tmp_path: Path, judged: str,
                                                           retrieved: str) -> None:
    # trec_eval (pytrec_eval) grades the document unjudged; so does ltrbench, and says why
    qrels, run = QRELS.replace(" a ", f" {judged} "), RUN.replace(" a ", f" {retrieved} ")
    value, said = _said(tmp_path, qrels, run)
    assert value == pytest.approx(_oracle(qrels, run), abs=1e-12)
    assert said, "no warning that a judged document is spelled another way in the run"
    assert repr(judged) in said[0]


def test_ascii_and_same_spelling_ids_not_said__silent_accept(tmp_path: Path) -> None:
    qrels, run = QRELS.replace(" a ", f" {NFD} "), RUN.replace(" a ", f" {NFD} ")
    assert _said(tmp_path, QRELS, RUN)[1] == []
    assert _said(tmp_path, qrels, run)[1] == []


# --------------------------------------------------------- TOML: the format's grammar, named
@pytest.mark.parametrize(("text", "words"), [
    (b"seeds = [1]\rquick = true\r", ("c.toml", "lone CR")),        # classic Mac OS line ends
    ("seeds\u00a0= [1]\n".encode(), ("c.toml", "U+00A0")),          # a pasted no-break space
    ("seeds = [１]\n".encode(), ("c.toml", "U+FF11")),              # a full-width digit
    ("seeds =\u3000[1]\n".encode(), ("c.toml", "U+3000")),          # an ideographic space
])
def test_toml_foreign_text_named__unclear_error(tmp_path: Path, text: bytes,
                                                words: tuple[str, ...]) -> None:
    from bench.data.toml import read_toml

    with pytest.raises(tomllib.TOMLDecodeError):  # the oracle refuses each one too
        tomllib.loads(text.decode())
    assert own_error(lambda: read_toml(_write(tmp_path, "c.toml", text)), *words) is None


def test_toml_hex_and_signed_integers_as_tomllib__silently_wrong_number(tmp_path: Path) -> None:
    from bench.data.toml import read_toml

    text = b"seeds = [0x1, +2, 0o3]\n"  # TOML 1.0 integers: tomllib reads 1, 2, 3
    doc = read_toml(_write(tmp_path, "c.toml", text))
    assert doc == tomllib.loads(text.decode())
    assert RunConfig.from_dict(doc).seeds == (1, 2, 3)


@pytest.mark.parametrize("cuts", ["１０００,２０００,３０００", "1_000,2_000,3_000",
                                  "1000,2000,\u00a03000"])
def test_convert_time_cuts_python_only_numerals_refused__silent_accept(tmp_path: Path,
                                                                       cuts: str) -> None:
    # Python's int() read each of these as (1000, 2000, 3000)
    from hostile_kit import RATINGS

    _write(tmp_path, "ratings.csv", RATINGS)
    res = cli(tmp_path, "convert", "--ratings", "ratings.csv", "--layout", "csv", "--user", "user",
              "--item", "item", "--rating", "rating", "--timestamp", "timestamp", "--split",
              "time-cut", "--time-cuts", cuts, "--out", "out")
    assert refused(res, "--time-cuts") is None


def test_tsv_nbsp_instead_of_tab_named__unclear_error(tmp_path: Path) -> None:
    # a tab retyped as a no-break space: pandas' C reader sees 3 fields; say which character
    p = _write(tmp_path, "r.tsv", "user\titem\trating\ttimestamp\n1\u00a01\t4\t10\n1\t2\t3\t11\n")
    assert own_error(lambda: load_ratings_table(p, user="user", item="item", rating="rating",
                                                timestamp="timestamp"),
                     "r.tsv:2", "U+00A0") is None
