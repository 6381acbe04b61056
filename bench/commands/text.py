"""Text for the terminal: docstrings as help text (the reStructuredText markup a terminal would
show raw, removed), names read from files printed so that they cannot drive the terminal,
numbers of options read as ASCII (:func:`ascii_int`, :func:`ascii_float`), and what a file or
folder given to an option looks like (:func:`looks_like`, :func:`check_input_kinds`: a run
file given as ``--qrels``, a dataset folder as ``report --tuned``, said at the door)."""

from __future__ import annotations

import argparse
import os
import re
import stat
from collections.abc import Iterator
from typing import NoReturn

_ROLE = re.compile(r":(?:mod|func|class|meth|data|attr|exc):`~?([^`]+)`")
_LITERAL = re.compile(r"``([^`]+)``")


def plain(doc: str | None) -> str | None:
    """``doc`` without Sphinx roles (``:func:`~a.b``` -> ``a.b``) and literal quotes
    (````x```` -> ``x``), for ``argparse`` descriptions."""
    if doc is None:
        return None
    return _LITERAL.sub(r"\1", _ROLE.sub(r"\1", doc))


def examples(*commands: str) -> str:
    """An ``argparse`` epilog listing example command lines, one per line (use with
    ``formatter_class=argparse.RawDescriptionHelpFormatter`` so the lines are kept)."""
    return "examples:\n" + "\n".join(f"  {c}" for c in commands)


#: Characters a terminal acts on instead of showing: C0 controls (ESC starts colour, title and
#: clipboard sequences; a line end forges a line), DEL, C1 controls (``\x9b`` is a one-byte CSI),
#: the Unicode line and paragraph separators, and the bidirectional overrides and isolates that
#: reorder what is shown (CVE-2021-42574, "Trojan Source").
_TERMINAL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def terminal_line(text: object) -> str:
    """``text`` for one line of a terminal: every character of :data:`_TERMINAL` written as its
    Python escape (``\\x1b``, ``\\n``, ``\\u202e``), so a run id or model name read from a
    run's files shows as itself and never moves the cursor, recolours, retitles or splits the
    line."""
    return _TERMINAL.sub(lambda m: ascii(m.group(0))[1:-1], str(text))




def ascii_int(text: str) -> int:
    """An integer option as ``ltrbench run`` reads one
    (:func:`bench.benchmark.config_schema.cli_int`): ASCII digits with an optional sign, so
    ``２０`` (full-width), ``٢٠`` (Arabic-Indic) and ``2_0`` are refused, not read as 20 by
    Python's ``int``. An ``argparse`` ``type=``."""
    from bench.data.inputs import is_plain_int
    from bench.errors import ASCII_SPACE

    body = text.strip(ASCII_SPACE)  # "\u00a010": 10 to Python's strip(), 0 to C's atoi
    if not is_plain_int(body):
        raise argparse.ArgumentTypeError(f"expected a whole number written in ASCII digits; "
                                          f"got {text!r}")
    return int(body)


def ascii_float(text: str, *, beyond_float: bool = False) -> float:
    """A number option written in ASCII (``0.8``, ``1e-3``, ``5``): Python's ``float`` also
    reads ``２`` and ``1_0``, which are refused here. An ``argparse`` ``type=``. A number beyond
    a float's range (``1e400``) is refused as written, or, with ``beyond_float``, returned as
    the infinity it reads as, for a caller whose own message says what the option takes."""
    from bench.data.inputs import is_option_float  # the one spelling rule (numpy: lazily)
    from bench.errors import ASCII_SPACE

    body = text.strip(ASCII_SPACE)
    if not is_option_float(body):
        raise argparse.ArgumentTypeError(f"expected a number written in ASCII (e.g. 0.8, "
                                          f"1e-3); got {text!r}")
    value = float(body)
    if value in (float("inf"), float("-inf")) and "inf" not in body.lower() \
            and not beyond_float:  # '1e400'
        raise argparse.ArgumentTypeError(f"{text!r} is beyond the largest finite number a "
                                          "float holds (about 1.8e308; it reads as inf): give "
                                          "a smaller one")
    return value


#: What :func:`looks_like` recognises: the phrase an error uses and where such a thing goes.
KINDS: dict[str, tuple[str, str]] = {
    "qrels": ("a TREC qrels file (4 fields: qid iter docno rel)", "--qrels of evaluate"),
    "trec-run": ("a TREC run (6 fields: qid Q0 docno rank score tag)", "--run of evaluate"),
    "svmlight": ("an SVMlight/LETOR data file (label qid:Q index:value ...)",
                 "--data of evaluate, or --dataset"),
    "scores": ("a scores file (one number a line)", "--scores of evaluate"),
    "toml": ("a TOML file (key = value lines)", "--config"),
    "json": ("a JSON document", ""),
    "parquet": ("a Parquet file", "--dataset (a folder of {train,vali,test}.parquet), or "
                "--data of evaluate --engine dask"),
    "run-dir": ("a run directory (config.toml, metrics.csv)",
                "report --runs, reproduce --run, crosscheck --run or run --resume"),
    "tune-dir": ("a tune folder (plan.json)", "report --tuned or tune --resume"),
    "results-dir": ("a results folder (runs/ or tune/ inside)", "--out, or report --runs"),
    "dataset-dir": ("a dataset folder (train/vali/test splits)", "--dataset"),
}

_NUMBER = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")  # ASCII only,
_INT = re.compile(r"[-+]?[0-9]+")  # as the readers: Arabic-Indic digits are no number there
_TOML_LINE = re.compile(r"""\s*(?:\[\[?[^\[\]]+\]\]?|[\w."'-]+\s*=.*)\s*(?:#.*)?""")
_SPLITS = ("train.txt", "vali.txt", "test.txt", "train.parquet", "test.parquet", "rank.train",
           "Fold1")


def looks_like(path: str | os.PathLike[str]) -> str | None:
    """The key in :data:`KINDS` of what ``path`` plainly is (see :func:`sniff`), or ``None``."""
    return sniff(path)[0]


def sniff(path: str | os.PathLike[str]) -> tuple[str | None, int | None]:
    """The key in :data:`KINDS` of what ``path`` plainly is, from its first lines (at most
    64 KiB read) or the files of a folder; ``None`` when it is none of them, or not a regular
    file or folder (a FIFO, a device: never opened here), or cannot be read. Every line read must
    agree (a qrels file: 4 fields, an integer last; a TREC run: 6 or more, an integer rank and a
    number score; SVMlight: a number then ``index:value`` pairs), so a file that is not plainly
    one kind is left to its reader. Formats: trec_eval's README (qrels, run), SVMlight
    (https://www.cs.cornell.edu/people/tj/svm_light/), TOML 1.0 (key/value and table lines),
    Apache Parquet (``PAR1``). With the kind, the line of a text file it was first seen on."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None, None
    if stat.S_ISDIR(mode):
        return _folder_kind(str(path)), None
    if not stat.S_ISREG(mode):
        return None, None
    try:
        with open(path, "rb") as f:
            head = f.read(65536)
    except OSError:
        return None, None
    if head.startswith(b"PAR1"):
        return "parquet", None
    try:
        text = head.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None, None
    return _text_kind(text)


def _folder_kind(folder: str) -> str | None:
    try:
        names = set(os.listdir(folder))
    except OSError:
        return None
    if "plan.json" in names and names & {"trials.csv", "study.db", "complete", "best.toml"}:
        return "tune-dir"
    if "config.toml" in names and names & {"metrics.csv", "manifest.json", "status"}:
        return "run-dir"
    if names & set(_SPLITS):
        return "dataset-dir"
    if ("runs" in names or "tune" in names) and all(
            os.path.isdir(os.path.join(folder, n)) for n in names & {"runs", "tune"}):
        return "results-dir"
    return None


#: Characters that end a line or split fields for Python's ``str.split`` but not for ltrbench's
#: readers (which name them: :func:`bench.data.inputs.stray_character`): a text holding one is
#: left to its reader, never classified here by fields it does not have.
_STRAY = re.compile("[\x00\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def _text_kind(text: str) -> tuple[str | None, int | None]:
    if _STRAY.search(text):
        return None, None
    numbered = list(_lines(text))[:20]
    if not numbered:
        return None, None
    at, lines = numbered[0][0], [ln for _, ln in numbered]
    first = lines[0].lstrip()
    if first.startswith("{") or (first.startswith("[") and (not _TOML_LINE.fullmatch(first)
                                                             or _is_json(text))):
        return "json", at  # a TOML table header ([custom_models."a/b"]) is no JSON array
    for kind, test in (("qrels", _is_qrels), ("trec-run", _is_run), ("svmlight", _is_svmlight),
                       ("scores", _is_score), ("toml", _TOML_LINE.fullmatch)):
        if all(test(ln) for ln in lines):
            return kind, at
    return None, None


def _is_json(text: str) -> bool:
    """Whether ``text`` (a whole file's head) parses as JSON: a first line that reads as a
    TOML table header (``[a]``, ``[1, 2]``) may be a JSON array, and only the parse tells them
    apart (a head cut at the read limit does not parse: its first line alone says JSON)."""
    import json

    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _lines(text: str) -> Iterator[tuple[int, str]]:
    """The complete, non-blank, non-comment lines of ``text`` with their 1-based numbers (a
    last line cut by the read limit is left out)."""
    parts = re.split(r"\r\n|\r|\n", text)
    if len(text) >= 65536:
        parts = parts[:-1]
    for number, ln in enumerate(parts, 1):
        if ln.strip() and not ln.lstrip().startswith("#"):
            yield number, ln


def _is_qrels(line: str) -> bool:
    f = line.split()
    return len(f) == 4 and bool(_INT.fullmatch(f[3])) and ":" not in f[1]


def _is_run(line: str) -> bool:
    f = line.split()
    return len(f) >= 6 and bool(_INT.fullmatch(f[3])) and bool(_NUMBER.fullmatch(f[4]))


def _is_svmlight(line: str) -> bool:
    f = line.split("#", 1)[0].split()
    return (len(f) >= 2 and bool(_NUMBER.fullmatch(f[0]))
            and all(":" in t and t.split(":", 1)[1] != "" for t in f[1:]))


def _is_score(line: str) -> bool:
    return bool(_NUMBER.fullmatch(line.strip()))


#: (command, option) -> (the option's destination, what it reads, the kinds it refuses). Only
#: kinds that plainly are not what the option reads: a MovieLens ``u.data`` of four integer
#: columns looks like qrels, and a ratings table of six or more numeric columns like a TREC
#: run, so ``--ratings`` and ``--dataset`` refuse neither.
_FILES = frozenset({"toml", "json", "svmlight", "parquet", "qrels", "trec-run", "scores"})
_FOLDERS = frozenset({"run-dir", "tune-dir", "results-dir", "dataset-dir"})
#: Rows that two commands share (evaluate's and crosscheck --evaluators' TREC pair and scores),
#: defined once: what the option reads and the kinds it refuses.
_QRELS = ("4 fields 'qid iter docno rel' (a TREC qrels file)", (_FILES | _FOLDERS) - {"qrels"})
_TREC_RUN = ("6 fields 'qid Q0 docno rank score tag' (a TREC run)",
             (_FILES | _FOLDERS) - {"trec-run"})
_SCORES = ("a text file of one score a line", (_FILES | _FOLDERS) - {"scores"})
_RUN_DIR = ("a run directory", _FILES | _FOLDERS - {"run-dir"})
DOOR: dict[tuple[str, str], tuple[str, str, frozenset[str]]] = {
    ("evaluate", "--qrels"): ("qrels", *_QRELS),
    ("evaluate", "--run"): ("run", *_TREC_RUN),
    ("evaluate", "--data"): ("data", "an SVMlight/LETOR file (or, with --engine dask, a folder "
                             "of Parquet shards)",
                             frozenset({"toml", "json", "qrels", "trec-run"}) | _FOLDERS - {
                                 "dataset-dir"}),
    ("evaluate", "--scores"): ("scores", *_SCORES),
    ("evaluate", "--query"): ("query", "a text file of group sizes, one a line",
                              (_FILES | _FOLDERS) - {"scores"}),
    ("crosscheck", "--qrels"): ("qrels", *_QRELS),
    ("crosscheck", "--trec-run"): ("trec_run", *_TREC_RUN),
    ("crosscheck", "--data"): ("data", "an SVMlight/LETOR file or LETOR Parquet split",
                               frozenset({"toml", "json", "qrels", "trec-run"}) | _FOLDERS),
    ("crosscheck", "--scores"): ("scores", *_SCORES),
    ("crosscheck", "--run"): ("run", *_RUN_DIR),
    ("report", "--runs"): ("runs", "run directories, run ids or folders of runs",
                           _FILES | {"tune-dir", "dataset-dir"}),
    ("report", "--tuned"): ("tuned", "a tune folder (DIR/tune/<name>, with plan.json)",
                            _FILES | {"run-dir", "dataset-dir"}),
    ("reproduce", "LEADERBOARD"): ("leaderboard", "a leaderboard or fold table written by "
                                   "'ltrbench report' (.md, .json or their folder)",
                                   _FILES - {"json"} | {"run-dir", "tune-dir", "dataset-dir"}),
    ("reproduce", "--run"): ("run", *_RUN_DIR),
    ("tune", "--resume"): ("resume", "a tune folder (with plan.json)",
                           _FILES | {"run-dir", "dataset-dir"}),
    ("convert", "--ratings"): ("ratings", "a ratings file or MovieLens folder",
                               frozenset({"toml", "json", "svmlight"}) | _FOLDERS),
}
DOOR[("run", "--resume")] = ("resume", "a run directory (with manifest.json)",
                             _FILES | {"tune-dir", "dataset-dir"})
for _command in ("run", "tune", "crosscheck"):
    DOOR[(_command, "--config")] = ("config", "a run config TOML file",
                                    (_FILES | _FOLDERS) - {"toml"})
    DOOR[(_command, "--dataset")] = ("dataset", "a catalogue name or a dataset file or folder",
                                     frozenset({"toml", "json"}) | _FOLDERS - {
                                         "dataset-dir"})


def check_input_kinds(command: str | None, args: argparse.Namespace) -> None:
    """Refuse, before any work, a file or folder given to an option of ``command`` that plainly
    is something else (:func:`looks_like`): ``evaluate --qrels run.txt``, ``--scores
    data.svm``, ``run --config manifest.json``, ``run --dataset config.toml``, ``report --tuned
    <a run directory>``, ``reproduce <a tune folder>``. Each reader gave its own error for such
    a file (a field count, "not valid TOML", "cannot tell the user and item columns", "the tune
    did not finish"), none saying what the file was; now one line names the option, the path,
    what it looks like, what the option reads and where such a file goes. An input file that
    is also the command's standard output or error (``evaluate ... >> run.txt``) is refused
    before it is read, as GNU cat refuses "input file is output file": the run was read, then
    the table appended to it."""
    from bench.errors import ConfigError
    from bench.streams import stream_of

    for (cmd, option), (dest, expected, refused) in DOOR.items():
        if cmd != command:
            continue
        values = getattr(args, dest, None)
        for value in values if isinstance(values, list) else [values]:
            if not isinstance(value, str) or not value:
                continue
            path = value.split("=", 1)[1] if option == "--run" and command == "evaluate" \
                and "=" in value and not os.path.lexists(value) else value
            # standard output only: a refusal said on a standard error that is the input
            # would itself be written into it (2>> run.txt)
            if os.path.isfile(path) and stream_of(path) == "standard output":
                raise ConfigError(f"{option} {terminal_line(path)}: this input file is also "
                                  "the command's standard output ('>>' or '>' to it): the output "
                                  "would be written into the input ('>' has emptied it "
                                  "already); redirect the output to another file")
            kind, line = sniff(path) if os.path.lexists(path) else (None, None)
            if kind in refused:
                where = path if line is None else f"{path}:{line}"
                raise ConfigError(_door_message(command, option, where, kind, expected, args))


def _door_message(command: str, option: str, path: str, kind: str, expected: str,
                  args: argparse.Namespace) -> str:
    """The one line of :func:`check_input_kinds`: the option, the path, what it looks like,
    what the option reads, and where such a file goes (or the option it was swapped with)."""
    what, where = KINDS[kind]
    swapped = next((other for (cmd, other), (dest, _, refused) in DOOR.items()
                    if cmd == command and other != option and kind not in refused
                    and getattr(args, dest, None)), None)
    if swapped is not None:
        hint = f"; were {option} and {swapped} swapped?"
    elif kind == "json" and option == "--ratings":
        hint = ("; a JSON Lines (NDJSON) table of ratings is not read: write it as CSV or "
                "Parquet, e.g. pandas.read_json(path, lines=True).to_parquet('ratings.parquet')")
    elif kind == "json":
        hint = ("; ltrbench reads a run's manifest.json, a tune's plan.json and a "
                "leaderboard.json from their folders")
    else:
        hint = f"; such a {'folder' if kind.endswith('-dir') else 'file'} goes to {where}"
    return f"{option} {terminal_line(path)}: this looks like {what}; expected {expected}{hint}"


def shell_option(option: str, value: object) -> str:
    """``--out VALUE`` as a shell reads it back, for a command line ltrbench suggests: quoted
    when it holds spaces or shell characters (``--out o with space`` was three words), and
    ``--out=-x`` when the value starts with ``-`` (argparse reads ``--out -x`` as two options)."""
    import shlex

    text = str(value)
    return f"{option}={shlex.quote(text)}" if text.startswith("-") else \
        f"{option} {shlex.quote(text)}"


_NO_VALUE = re.compile(r"argument (-[^ /:]+)(?:/[^:]+)?: expected (?:one|at least one) argument")


#: What argparse reads as a negative number (a value), not an option: its own ``-1``, ``-.5``
#: and the exponent forms ``-1e-3``, ``-2.5E+4``.
_NEGATIVE_NUMBER = re.compile(r"^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


def dash_values(parser: argparse.ArgumentParser) -> None:
    """Say why an option got no value when the word after it starts with ``-``: a file named
    ``-r.txt`` (``--run -r.txt``) reads as an unknown option, and argparse said only "expected
    one argument", naming no cause. The message now says how to pass it (``--run=-r.txt`` or
    ``./-r.txt``), on ``parser`` and its sub-commands. A negative number in exponent form
    (``--binary-threshold -1e-3``) is a value, as ``-1`` and ``-0.5`` are to argparse already:
    it read as an option, and the message spoke of files."""
    parser._negative_number_matcher = _NEGATIVE_NUMBER
    from bench.streams import cut_middle

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                dash_values(sub)
    error = parser.error

    def said(message: str) -> NoReturn:
        found = _NO_VALUE.fullmatch(message)
        if found is not None:
            opt = found.group(1)
            message += (f" (a value that starts with '-', such as a file named -x.txt, reads "
                        f"as an option: write {opt}=-x.txt, or {opt} ./-x.txt)")
        error(cut_middle(message))  # a 100 kB value echoed back: its middle cut

    parser.error = said  # type: ignore[method-assign]


#: trec_eval's flags as its users type them to ``ltrbench evaluate``: the option that does it.
TREC_EVAL_FLAGS = {
    "-c": "--profile trec_eval-c (a qrels query without a run line scores 0; comparing runs: "
          "--missing zero)",
    "-l": "--relevance-level L", "-m": "--metrics NAME ...", "-M": "--run-depth N",
    "-J": "--judged-only", "-q": "--per-query OUT.csv (one row per query and metric)",
}


def trec_eval_hints(parser: argparse.ArgumentParser, extras: list[str]) -> list[str]:
    """What ``ltrbench evaluate`` takes for trec_eval's flags (``-c``, ``-l2``, ``-m map``) and
    for its positional ``QRELS RUN``, named beside the unrecognized arguments
    (:func:`bench.cli._unrecognized`)."""
    if not parser.prog.endswith(" evaluate"):
        return []
    flags = [w for w in extras if w[:2] in TREC_EVAL_FLAGS]
    hints = [f"{w}: trec_eval's {w[:2]}; ltrbench evaluate takes {TREC_EVAL_FLAGS[w[:2]]}"
             for w in flags]
    if not any(w.startswith("-") for w in extras):
        hints.append("files are options here: --qrels QRELS --run RUN (not trec_eval's "
                     "positional QRELS RUN), or --data FILE --scores FILE")
    return hints
