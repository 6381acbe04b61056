"""A catalogue of hostile inputs, run through the real command line (``bench.cli.main``).

Every case is generated here (no committed files): the files it writes, the command, the exit
status it must give and the words its one-line message must contain (file, line or column, and
what was expected). A case that must succeed (a byte-order mark is only an encoding detail)
gives the number of the clean input, worked out by hand below. An exception escaping
``cli.main`` fails the test, and so does the word ``Traceback`` in stderr.

Clean inputs and their values (hand arithmetic):

- TREC (profile trec_eval: gain = rel, discount 1/log2(rank + 1)). Query 1 ranks b(0), a(1), c(2):
  DCG = 1/log2 3 + 2/log2 4 = 1.630930, ideal c, a, b: 2 + 1/log2 3 = 2.630930, ndcg 0.619906;
  query 2 ranks e(0), d(1): ndcg = (1/log2 3) / 1 = 0.630930. Mean ndcg@10 = 0.625418.
- SVMlight (profile ltrbench: gain 2^l - 1). Query 1 is ranked ideally (ndcg 1); query 2 ranks
  label 0 over label 1: ndcg = 1/log2 3. Mean ndcg@10 = (1 + 1/log2 3) / 2 = 0.815465.
"""

from __future__ import annotations

import builtins
import math
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bench import cli

QRELS = b"1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 d 1\n2 0 e 0\n"
RUN = b"1 Q0 a 1 0.4 t\n1 Q0 b 2 0.9 t\n1 Q0 c 3 0.1 t\n2 Q0 d 1 0.2 t\n2 Q0 e 2 0.8 t\n"
TREC_NDCG = ((1 / math.log2(3) + 2 / 2) / (2 + 1 / math.log2(3)) + 1 / math.log2(3)) / 2
DATA = b"2 qid:1 1:0.5 2:1\n0 qid:1 1:0.1\n1 qid:1 2:0.3\n1 qid:2 1:0.2\n0 qid:2 1:0.9\n"
SCORES = b"0.9\n0.1\n0.5\n0.2\n0.8\n"
SVM_NDCG = (1 + 1 / math.log2(3)) / 2
RATINGS = b"u,i,r,t\n" + b"".join(
    f"{u},{i},{(u + i) % 5 + 1},{1000 * u + i}\n".encode() for u in range(1, 4) for i in range(10, 13)
)  # 9 data rows: lines 2..10
UDATA = b"1\t10\t4\t100\n1\t11\t3\t200\n2\t10\t5\t300\n"
BOM = b"\xef\xbb\xbf"


def _sub(data: bytes, old: bytes, new: bytes) -> bytes:
    assert old in data
    return data.replace(old, new, 1)


@dataclass(frozen=True)
class Case:
    """A hostile input: files to write, the command, the expected status and message words."""

    name: str
    command: str  # evaluate-trec, evaluate-svmlight, convert-csv, convert-movielens, run, report,
    # or cli (args are the whole command line)
    files: dict[str, bytes]
    args: tuple[str, ...] = ()
    status: int = 2
    words: tuple[str, ...] = ()
    value: float | None = None  # status 0: the ndcg@10 it must print
    unreadable: str | None = None  # a file whose opening raises PermissionError
    links: dict[str, str] = field(default_factory=dict)  # hard link name -> existing file


def trec(name: str, *, qrels: bytes = QRELS, run: bytes = RUN, args: tuple[str, ...] = (),
         **kw: object) -> Case:
    return Case(name, "evaluate-trec", {"q.txt": qrels, "r.txt": run}, args, **kw)  # type: ignore[arg-type]


def svm(name: str, *, data: bytes = DATA, scores: bytes = SCORES, args: tuple[str, ...] = (),
        **kw: object) -> Case:
    return Case(name, "evaluate-svmlight", {"d.txt": data, "s.txt": scores}, args, **kw)  # type: ignore[arg-type]


def csv(name: str, ratings: bytes, **kw: object) -> Case:
    return Case(name, "convert-csv", {"ratings.csv": ratings}, **kw)  # type: ignore[arg-type]


def ml(name: str, udata: bytes, **kw: object) -> Case:
    return Case(name, "convert-movielens", {"ml/u.data": udata}, **kw)  # type: ignore[arg-type]


def letor(name: str, split: str, text: bytes, **kw: object) -> Case:
    files = {f"letor/{s}.txt": DATA for s in ("train", "vali", "test")}
    files[f"letor/{split}.txt"] = text
    return Case(name, "run", files, **kw)  # type: ignore[arg-type]


CASES: list[Case] = [
    # ---------------------------------------------------------------- evaluate --qrels --run
    trec("run-utf8-bom", run=BOM + RUN, status=0, value=TREC_NDCG),
    trec("qrels-utf8-bom", qrels=BOM + QRELS, status=0, value=TREC_NDCG),
    trec("run-crlf", run=RUN.replace(b"\n", b"\r\n"), status=0, value=TREC_NDCG),
    trec("run-utf16", run=RUN.decode().encode("utf-16"), words=("r.txt:1", "UTF-16", "UTF-8")),
    trec("qrels-utf16be", qrels=b"\xfe\xff" + QRELS.decode().encode("utf-16-be"),
         words=("q.txt:1", "UTF-16 (big-endian)")),
    trec("score-underscore", run=_sub(RUN, b"0.4", b"0_4"), words=("r.txt:1", "score", "'0_4'")),
    trec("score-hex", run=_sub(RUN, b"0.4", b"0x1p-2"), words=("r.txt:1", "'0x1p-2'", "hex")),
    trec("score-inf", run=_sub(RUN, b"0.4", b"inf"), words=("r.txt:1", "'inf'")),
    trec("score-nan", run=_sub(RUN, b"0.9", b"nan"), words=("r.txt:2", "'nan'")),
    trec("score-Infinity", run=_sub(RUN, b"0.1", b"Infinity"), words=("r.txt:3", "'Infinity'")),
    trec("score-overflow", run=_sub(RUN, b"0.4", b"1e400"), words=("r.txt:1", "float64")),
    trec("score-arabic-digit", run=_sub(RUN, b"0.4", "\u0660.4".encode()), words=("r.txt:1",)),
    trec("rel-underscore", qrels=_sub(QRELS, b"c 2", b"c 1_0"), words=("q.txt:3", "'rel'", "1_0")),
    trec("rel-decimal", qrels=_sub(QRELS, b"c 2", b"c 2.0"), words=("q.txt:3", "not an integer")),
    trec("rel-beyond-int64", qrels=_sub(QRELS, b"c 2", b"c 100000000000000000000"),
         words=("q.txt:3", "out of range")),
    trec("rank-beyond-int64", run=_sub(RUN, b"a 1 ", b"a 100000000000000000000 "),
         words=("r.txt:1", "'rank'", "out of range")),
    trec("rank-decimal", run=_sub(RUN, b"a 1 ", b"a 1.5 "), words=("r.txt:1", "'rank'")),
    trec("run-five-fields", run=_sub(RUN, b" t\n2 Q0 d", b"\n2 Q0 d"),
         words=("r.txt:3", "expected 6 fields")),
    trec("qrels-three-fields", qrels=_sub(QRELS, b"1 0 b 0", b"1 b 0"),
         words=("q.txt:2", "expected 4 fields")),
    trec("run-duplicate-doc", run=RUN + b"1 Q0 a 9 0.3 t\n", words=("r.txt:6", "duplicate")),
    trec("run-not-utf8", run=_sub(RUN, b"d 1", b"\xff 1"), words=("r.txt:4", "not UTF-8")),
    trec("run-empty", run=b"\n\n", words=("r.txt", "empty run file")),
    trec("cutoff-beyond-int32", args=("--metrics", "ndcg@100000000000000000000"),
         words=("cutoff", "1..2147483647")),
    trec("cutoff-superscript", args=("--metrics", "ndcg,\u00b2"), words=("unknown metric",)),
    trec("per-query-is-run", args=("--per-query", "r.txt"), words=("--per-query", "--run")),
    trec("per-query-hard-link", args=("--per-query", "link.csv"), links={"link.csv": "q.txt"},
         words=("same file as the input --qrels",)),
    trec("per-query-directory", args=("--per-query", "."), words=("is a directory",)),
    trec("per-query-under-a-file", args=("--per-query", "q.txt/pq.csv"),
         words=("is a file, not a folder",)),
    trec("run-unreadable", unreadable="r.txt", words=("r.txt", "cannot be read", "ermission")),
    Case("run-is-a-directory", "evaluate-trec", {"q.txt": QRELS, "r.txt/x": b""},
         words=("r.txt", "is a directory")),
    Case("qrels-missing", "evaluate-trec", {"r.txt": RUN}, words=("q.txt", "no such file")),
    # ---------------------------------------------------------------- evaluate --data --scores
    svm("data-utf8-bom", data=BOM + DATA, status=0, value=SVM_NDCG),
    svm("scores-utf8-bom", scores=BOM + SCORES, status=0, value=SVM_NDCG),
    svm("data-utf16", data=DATA.decode().encode("utf-16"), words=("d.txt:1", "UTF-16")),
    svm("value-underscore", data=_sub(DATA, b"1:0.5", b"1:0_5"), words=("d.txt:1", "1:0_5")),
    svm("label-underscore", data=_sub(DATA, b"2 qid:1", b"1_0 qid:1"), words=("d.txt:1", "label")),
    svm("label-nan", data=_sub(DATA, b"2 qid:1", b"nan qid:1"), words=("d.txt:1", "label")),
    svm("value-hex", data=_sub(DATA, b"1:0.5", b"1:0x10"), words=("d.txt:1", "hex")),
    svm("qid-beyond-int64", data=_sub(DATA, b"qid:2 1:0.2", b"qid:100000000000000000000 1:0.2"),
        words=("d.txt:4", "64-bit")),
    # evaluate reads labels and queries only: a huge index is checked, never allocated
    svm("index-beyond-uint32", data=_sub(DATA, b"2:1\n", b"4294967297:1\n"), status=0,
        value=SVM_NDCG),
    svm("index-two-billion", data=_sub(DATA, b"2:1\n", b"2000000000:1\n"), status=0,
        value=SVM_NDCG),
    svm("index-twenty-digits", data=_sub(DATA, b"2:1\n", b"100000000000000000000:1\n"),
        words=("d.txt:1",)),
    svm("qid-missing-on-one-line", data=_sub(DATA, b"1 qid:2 ", b"1 "),
        words=("d.txt:4", "no 'qid:'")),
    svm("qid-missing-on-first-line", data=_sub(DATA, b"2 qid:1 ", b"2 "),
        words=("d.txt:2", "has 'qid:'")),
    svm("qid-not-contiguous", data=DATA + b"1 qid:1 1:0.3\n", scores=SCORES + b"0.3\n",
        words=("d.txt:6", "reappears")),
    svm("query-file-ignored", args=("--query", "s.txt"), words=("qid:", "would be ignored")),
    svm("scores-underscore", scores=_sub(SCORES, b"0.9", b"0_9"), words=("s.txt:1", "0_9")),
    svm("scores-nan", scores=_sub(SCORES, b"0.1", b"nan"), words=("s.txt:2", "nan")),
    svm("scores-blank-line", scores=_sub(SCORES, b"0.1\n", b"\n"), words=("s.txt:2", "empty line")),
    svm("scores-too-few", scores=b"0.9\n0.1\n", words=("s.txt", "2 scores", "5 rows")),
    svm("per-query-is-data", args=("--per-query", "d.txt"), words=("--per-query", "--data")),
    svm("per-query-hard-link-of-scores", args=("--per-query", "h.csv"), links={"h.csv": "s.txt"},
        words=("same file as the input --scores",)),
    svm("data-unreadable", unreadable="d.txt", words=("d.txt", "cannot be read")),
    svm("scores-unreadable", unreadable="s.txt", words=("s.txt", "cannot be read")),
    Case("data-is-a-directory", "evaluate-svmlight", {"d.txt/x": b"", "s.txt": SCORES},
         words=("d.txt", "is a directory")),
    # ---------------------------------------------------------------- convert (ratings table)
    csv("rating-underscore", _sub(RATINGS, b"1,11,3,1011", b"1,11,0_3,1011"),
        words=("ratings.csv:3", "'r'", "0_3")),
    csv("rating-nan", _sub(RATINGS, b"1,11,3,1011", b"1,11,nan,1011"),
        words=("ratings.csv:3", "nan")),
    csv("rating-hex", _sub(RATINGS, b"1,11,3,1011", b"1,11,0x3,1011"), words=("ratings.csv:3",)),
    csv("timestamp-text-on-line-10", _sub(RATINGS, b",3012\n", b",abc\n"),
        words=("ratings.csv:10", "'abc'")),
    csv("timestamp-ten-to-the-twenty", _sub(RATINGS, b",3012\n", b",100000000000000000000\n"),
        words=("ratings.csv:10", "whole number of seconds")),
    csv("ratings-utf16", RATINGS.decode().encode("utf-16"), words=("ratings.csv:1", "UTF-16")),
    csv("ratings-unreadable", RATINGS, unreadable="ratings.csv",
        words=("ratings.csv", "cannot be read")),
    # ---------------------------------------------------------------- convert (MovieLens u.data)
    ml("udata-nan-rating", _sub(UDATA, b"\t3\t", b"\tnan\t"), words=("u.data:2", "'nan'")),
    ml("udata-inf-rating", _sub(UDATA, b"\t3\t", b"\tinf\t"), words=("u.data:2", "'inf'")),
    ml("udata-underscore", _sub(UDATA, b"\t3\t", b"\t0_3\t"), words=("u.data:2", "0_3")),
    ml("udata-timestamp-beyond-int64", _sub(UDATA, b"\t200", b"\t100000000000000000000"),
       words=("u.data:2", "timestamp", "out of range")),
    ml("udata-utf16", UDATA.decode().encode("utf-16"), words=("u.data:1", "UTF-16")),
    # ---------------------------------------------------------------- run (a LETOR folder)
    letor("train-underscore", "train", _sub(DATA, b"1:0.5", b"1:0_5"),
          words=("train.txt:1", "0_5")),
    letor("vali-index-two-billion", "vali", _sub(DATA, b"2:1\n", b"2000000000:1\n"),
          words=("vali.txt:1", "limit")),
    letor("test-utf16", "test", DATA.decode().encode("utf-16"), words=("test.txt:1", "UTF-16")),
    letor("test-unreadable", "test", DATA, unreadable="letor/test.txt",
          words=("test.txt", "cannot be read")),
    Case("run-out-under-a-file", "run", {"f": b"x"}, ("--out", "f/results"),
         words=("--out", "is a file, not a folder")),
    # ---------------------------------------------------------------- report
    Case("report-out-is-a-file", "report", {"results": b"x"}, ("--out", "results"),
         words=("--out", "is an existing file")),
    Case("report-runs-folder-missing", "cli", {}, ("report", "--runs", "nosuch", "--out", "r"),
         words=("nosuch", "not found")),
    # ---------------------------------------------------------------- the other commands
    Case("tune-unknown-dataset", "cli", {}, ("tune", "--dataset", "nosuch", "--model",
                                              "lightgbm", "--grid", "num_leaves=7,15"),
         words=("unknown dataset 'nosuch'", "valid:")),
    Case("tune-an-alias-of-several-models", "cli", {}, ("tune", "--dataset", "synthetic",
                                                        "--model", "gbdt", "--grid",
                                                        "num_leaves=3"),
         words=("one model", "'gbdt' names", "lightgbm-lambdarank")),
    Case("tune-unknown-model", "cli", {}, ("tune", "--dataset", "synthetic", "--model", "nosuch",
                                           "--grid", "num_leaves=7"),
         words=("unknown model 'nosuch'", "valid:")),
    Case("crosscheck-missing-folder", "cli", {}, ("crosscheck", "--dataset", "./nosuch",
                                                  "--format", "json"),
         words=("./nosuch", "no such file or folder")),
    Case("reproduce-missing-leaderboard", "cli", {}, ("reproduce", "nosuch.md"),
         words=("nosuch.json", "not found")),
    Case("datasets-info-unknown", "cli", {}, ("datasets", "info", "nosuch"),
         words=("unknown dataset 'nosuch'",)),
    Case("evaluate-dask-folder-without-shards", "cli", {"empty/x": b""},
         ("evaluate", "--engine", "dask", "--data", "empty", "--workers", "1"),
         words=("empty", "no Parquet shards")),
    Case("convert-dask-als-refused", "cli", {"r.csv": b"user,item,rating,timestamp\n1,2,4,1\n"},
         ("convert", "--engine", "dask", "--ratings", "r.csv", "--features", "user,als",
          "--out", "o"), words=("als", "--engine dask")),
    Case("convert-dask-synthetic-refused", "cli", {}, ("convert", "--engine", "dask",
                                                       "--ratings", "synthetic", "--out", "o"),
         words=("--engine dask reads",)),
    Case("run-strict-all-zero-training-labels", "cli",
         {"letor/train.txt": b"0 qid:1 1:0.5 2:1\n0 qid:1 1:0.1\n0 qid:2 1:0.2\n0 qid:2 2:0.9\n",
          "letor/vali.txt": DATA, "letor/test.txt": _sub(DATA, b"0.9", b"0.7")},
         ("run", "--dataset", "./letor", "--quick", "--no-cache", "--no-progress",
          "--no-crosscheck", "--models", "random", "--seeds", "0", "--out", "res", "--strict"),
         words=("[no_relevant]", "no train row has a label above 0", "--strict")),
]


def _argv(case: Case) -> list[str]:
    base = {
        "evaluate-trec": ["evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", "ndcg@10",
                          "--format", "csv"],
        "evaluate-svmlight": ["evaluate", "--data", "d.txt", "--scores", "s.txt", "--metrics",
                              "ndcg@10", "--format", "csv"],
        "convert-csv": ["convert", "--ratings", "ratings.csv", "--layout", "csv", "--user", "u",
                        "--item", "i", "--rating", "r", "--timestamp", "t", "--out", "conv"],
        "convert-movielens": ["convert", "--ratings", "ml", "--out", "conv"],
        "run": ["run", "--dataset", "./letor", "--quick", "--no-cache", "--no-progress",
                "--no-crosscheck", "--models", "lightgbm", "--seeds", "0", "--out", "res"],
        "report": ["report"],
        "cli": [],  # the whole command line is in args
    }[case.command]
    if case.command == "run" and "--out" in case.args:
        base = base[:-2]
    if "--metrics" in case.args:
        i = base.index("--metrics")
        base = base[:i] + base[i + 2:]
    return base + list(case.args)


def _no_permission(path: str) -> Callable[..., object]:
    real_open = builtins.open

    def fake_open(file: object, *args: object, **kwargs: object) -> object:
        if isinstance(file, str | os.PathLike) and os.fspath(file).endswith(path):
            raise PermissionError(13, "Permission denied", os.fspath(file))
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    return fake_open


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_input(case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                       capsys: pytest.CaptureFixture[str]) -> None:
    for name, content in case.files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        if not name.endswith("/x"):
            (tmp_path / name).write_bytes(content)
    for link, target in case.links.items():
        os.link(tmp_path / target, tmp_path / link)
    before = {n: (tmp_path / n).read_bytes() for n in case.files if not n.endswith("/x")}
    monkeypatch.chdir(tmp_path)
    if case.unreadable is not None:
        monkeypatch.setattr(builtins, "open", _no_permission(case.unreadable))
    status = cli.main(_argv(case))  # any exception escaping here fails the test: a traceback
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    assert status == case.status, err
    if status == 0:
        assert case.value is not None
        assert out.splitlines()[1] == f"ndcg@10,{case.value!r}" or float(
            out.splitlines()[1].split(",")[1]) == pytest.approx(case.value, abs=1e-12), out
        return
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: "), err
    for word in case.words:
        assert word in lines[0], f"{word!r} not in {lines[0]!r}"
    for n, content in before.items():  # an error never touches an input
        assert (tmp_path / n).read_bytes() == content, n


def test_catalogue_covers_every_command_and_outcome() -> None:
    counts = Counter((c.command, c.status) for c in CASES)
    assert counts[("evaluate-trec", 2)] >= 25
    assert counts[("evaluate-svmlight", 2)] >= 20
    assert counts[("convert-csv", 2)] >= 5
    assert counts[("convert-movielens", 2)] >= 5
    assert counts[("run", 2)] >= 4
    assert counts[("report", 2)] >= 1
    commands = {c.args[0] if c.command == "cli" else c.command.split("-")[0] for c in CASES}
    assert commands >= {"evaluate", "convert", "run", "report", "tune", "crosscheck",
                        "reproduce", "datasets"}
    assert sum(n for (_, s), n in counts.items() if s == 0) >= 4
