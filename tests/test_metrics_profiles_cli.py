"""``ltrbench evaluate --run-depth N --judged-only --relevance-level L``: trec_eval's ``-M``,
``-J`` and ``-l`` as profile fields from the command line, checked against pytrec_eval."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from bench.commands import evaluate as cmd
from bench.errors import LtrbenchError

pytrec_eval = pytest.importorskip("pytrec_eval")

QRELS = {"1": {"a": 1, "b": 0, "c": 2, "z": 1}, "2": {"x": 1, "y": 0}}
RUN = {"1": {"e": 0.95, "a": 0.9, "b": 0.8, "c": 0.7}, "2": {"u": 0.9, "y": 0.8, "x": 0.1}}


def _main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="ltrbench")
    cmd.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["evaluate", *argv])
    try:
        return args.func(args)
    except LtrbenchError as exc:
        print(f"error: {exc}")
        return 2


def _files(tmp_path: Path) -> tuple[str, str]:
    q = tmp_path / "qrels.txt"
    r = tmp_path / "run.txt"
    q.write_text("".join(f"{qid} 0 {d} {rel}\n" for qid, docs in QRELS.items()
                         for d, rel in docs.items()))
    r.write_text("".join(f"{qid} Q0 {d} {i + 1} {s} t\n" for qid, docs in RUN.items()
                         for i, (d, s) in enumerate(docs.items())))
    return str(q), str(r)


def _ours(tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str]) -> dict:
    q, r = _files(tmp_path)
    assert _main(["--qrels", q, "--run", r, "--metrics", "map", "ndcg", "P_2", "--format",
                  "json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def _theirs(run: dict, **kw: object) -> dict[str, float]:
    per_q = pytrec_eval.RelevanceEvaluator(QRELS, {"map", "ndcg", "P_2"}, **kw).evaluate(run)
    return {m: sum(v[m] for v in per_q.values()) / len(per_q) for m in ("map", "ndcg", "P_2")}


def test_judged_only_and_relevance_level_flags_equal_trec_eval(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _ours(tmp_path, capsys, ["--judged-only", "--relevance-level", "2"])
    want = _theirs(RUN, judged_docs_only_flag=True, relevance_level=2)
    for m, v in want.items():
        assert out["metrics"][m] == pytest.approx(v, abs=1e-12), m
    assert out["profile"].startswith("trec_eval+")


def test_run_depth_flag_equals_trec_eval_on_the_cut_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _ours(tmp_path, capsys, ["--run-depth", "2"])
    cut = {q: dict(sorted(d.items(), key=lambda kv: -kv[1])[:2]) for q, d in RUN.items()}
    for m, v in _theirs(cut).items():
        assert out["metrics"][m] == pytest.approx(v, abs=1e-12), m


@pytest.mark.parametrize("bad", ["0", "-3"])
def test_a_bad_run_depth_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               bad: str) -> None:
    q, r = _files(tmp_path)
    assert _main(["--qrels", q, "--run", r, "--run-depth", bad]) == 2
    out = capsys.readouterr().out
    assert out.startswith("error: ")
    assert "run_depth" in out
    assert out.count("\n") == 1


@pytest.mark.parametrize("bad", ["2.5", "２", "1_0"])
def test_a_run_depth_that_is_not_ascii_digits_is_refused_by_the_parser(bad: str) -> None:
    with pytest.raises(SystemExit):
        _main(["--qrels", "q", "--run", "r", "--run-depth", bad])


def test_judged_only_on_a_data_file_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    from bench import examples

    assert _main(["--data", str(examples.DATA), "--scores", str(examples.SCORES),
                  "--judged-only"]) == 2
    assert "--judged-only" in capsys.readouterr().out
