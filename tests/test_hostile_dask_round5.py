"""Hostile Dask inputs, round 5 (issue 19: the Dask surfaces): new instances of the classes of
``tests/test_hostile_dask_shards.py`` and ``tests/test_hostile_dask_inputs.py``.

Every case either gives the local engine's number on the same rows (the oracle:
:func:`bench.metrics.evaluate` on the shards read by pyarrow into one frame; for text query ids
also pytrec_eval), or a one-line :class:`~bench.errors.LtrbenchError` naming the shard's file,
the row / column where it applies and what was expected; a scheduler nothing listens at is
refused at once (Dask's own client retries a refused port for 30 s); a local cluster whose
workers never start is one line, closed all the same.

Classes: query-id types a shard may hold (struct, list, ``string_view`` beside ``string``,
``large_string`` and dictionary text, text ids as pytrec_eval reads them), a score column that
is the label or the query id, a shard with no columns, labels out of range in partition 7 of 8,
a null id in a ratings shard, hidden and ``_`` files beside ratings shards, ratings shards in two
formats, a damaged page behind a good footer, one column named for two roles, FIFOs named like
shards, scheduler addresses (closed port, a listener that never speaks, a scheduler without
workers, ``inproc``, ``ucx``), a cluster whose workers never register, a worker that dies,
scratch folders of killed runs. One in-process LocalCluster (one worker) serves the module;
one test starts worker processes (the no-leak check after an error).
"""

from __future__ import annotations

import contextlib
import os
import socket
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hostile_kit import cli, refused

from bench.errors import ConfigError, DataError

pytest.importorskip("distributed")

METRICS = ["ndcg@10", "map", "mrr@10"]


@pytest.fixture(scope="module")
def client() -> Any:
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                      dashboard_address=None) as lc, Client(lc) as c:
        yield c


def _shards(tmp: Path, parts: list[pd.DataFrame | pa.Table]) -> Path:
    folder = tmp / "shards"
    folder.mkdir(exist_ok=True)
    for k, part in enumerate(parts):
        table = part if isinstance(part, pa.Table) else pa.Table.from_pandas(
            part, preserve_index=False)
        pq.write_table(table, folder / f"part-{k:05d}.parquet")
    return folder


def _dask(folder: Path, score: str = "score") -> dict[str, float]:
    """What ``ltrbench evaluate --engine dask --data folder`` computes (the module's client)."""
    from bench.data.query_shards import read_query_shards, shard_columns
    from bench.metrics.distributed import evaluate_frame

    cols = ["qid", "label", score]
    shard_columns(folder, cols)
    r = evaluate_frame(read_query_shards(folder, columns=cols), score=score, metrics=METRICS,
                       where=str(folder))
    return {k: float(v) for k, v in r.metrics.items()}


def _local(folder: Path) -> dict[str, float]:
    """The local engine on the same rows (every shard read by pyarrow, in file order)."""
    from bench.metrics import evaluate

    frame = pd.concat([pq.read_table(f).to_pandas() for f in sorted(folder.glob("part-*"))],
                      ignore_index=True)
    r = evaluate(frame, label="label", score="score", qid="qid", metrics=METRICS)
    return {k: float(v) for k, v in r.metrics.items()}


A = pd.DataFrame({"qid": ["a", "a", "b"], "label": [1.0, 0.0, 2.0], "score": [0.1, 0.5, 0.3]})
B = pd.DataFrame({"qid": ["c", "c"], "label": [0.0, 1.0], "score": [0.2, 0.9]})


# ------------------------------------------------------------------------ query-id types


@pytest.mark.parametrize("ids", [pa.array([{"a": 1}, {"a": 1}]), pa.array([[1], [1]]),
                                 pa.array([None, None], pa.null())],
                         ids=["struct", "list", "null-type"])
def test_a_qid_column_of_a_type_that_holds_no_id_names_its_shard(ids: pa.Array, tmp_path: Path,
                                                                  client: Any) -> None:
    folder = _shards(tmp_path, [B, pa.table({"qid": ids, "label": [1.0, 0.0],
                                             "score": [0.1, 0.2]})])
    with pytest.raises(DataError, match=r"part-00001\.parquet, column 'qid'.*expected query ids"):
        _dask(folder)


def test_string_view_qids_beside_string_qids_are_one_table(tmp_path: Path, client: Any) -> None:
    if not hasattr(pa, "string_view"):
        pytest.skip("pyarrow without string_view")
    first = pa.table({"qid": pa.array(["a", "a", "b"], pa.string_view()),
                      "label": [1.0, 0.0, 2.0], "score": [0.1, 0.5, 0.3]})
    folder = _shards(tmp_path, [first, B])
    assert _dask(folder) == _local(folder)


def test_text_qids_in_three_layouts_equal_the_local_engine_and_pytrec_eval(
        tmp_path: Path, client: Any) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    parts = [pa.table({"qid": pa.array(["q1", "q1", "q1"]).dictionary_encode(),
                       "label": [2, 0, 1], "score": [0.1, 0.5, 0.3]}),
             pa.table({"qid": pa.array(["q2", "q2"], pa.large_string()),
                       "label": [0, 1], "score": [0.9, 0.2]}),
             pa.table({"qid": ["1", "1", "01"], "label": [1, 0, 1], "score": [0.3, 0.4, 0.5]})]
    folder = _shards(tmp_path, parts)
    got = _dask(folder)
    assert got == _local(folder)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for t in parts:
        for k, (q, lab, s) in enumerate(zip(*(t.column(c).to_pylist()
                                             for c in ("qid", "label", "score")), strict=True)):
            qrels.setdefault(q, {})[f"{q}-{k}"] = int(lab)
            run.setdefault(q, {})[f"{q}-{k}"] = float(s)
    per = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut", "map"}).evaluate(run)
    # pytrec_eval's ndcg uses gain = label; ltrbench's 2^l - 1: equal for labels 0/1 only
    assert got["map"] == pytest.approx(sum(v["map"] for v in per.values()) / len(per), abs=1e-12)
    assert len(per) == 4  # "1" and "01" are two queries, as text


def test_int_qids_beside_float_qids_are_refused_naming_both_types(tmp_path: Path,
                                                                  client: Any) -> None:
    folder = _shards(tmp_path, [
        pa.table({"qid": pa.array([1.0, 1.0]), "label": [1.0, 0.0], "score": [0.1, 0.2]}),
        pa.table({"qid": pa.array([3, 3]), "label": [1.0, 0.0], "score": [0.1, 0.2]})])
    with pytest.raises(DataError) as info:
        _dask(folder)
    message = str(info.value)
    assert "part-00001.parquet" in message
    assert "int64" in message
    assert "double" in message
    assert "compare as text" not in message  # integers and floats are no text


# ------------------------------------------------------------------------ columns


@pytest.mark.parametrize("column", ["label", "qid"])
def test_a_score_column_that_is_the_label_or_the_qid_is_refused(column: str,
                                                                tmp_path: Path) -> None:
    from bench.engines.dask_engine import evaluate_shards
    from bench.engines.table import ClusterOptions

    folder = _shards(tmp_path, [A, B])
    with pytest.raises(ConfigError, match=f"--score-column '{column}'"):
        evaluate_shards(folder, score_column=column, metrics=METRICS, profile="ltrbench",
                        per_query=False, options=ClusterOptions(workers=1))


def test_evaluate_frame_refuses_one_column_read_as_score_and_label(tmp_path: Path,
                                                                   client: Any) -> None:
    from bench.data.query_shards import read_query_shards
    from bench.metrics.distributed import evaluate_frame

    ddf = read_query_shards(_shards(tmp_path, [A, B]))
    with pytest.raises(ConfigError, match="a column of its own"):
        evaluate_frame(ddf, score="label", metrics=METRICS)


def test_the_cli_refuses_score_column_label_in_one_line(tmp_path: Path) -> None:
    folder = _shards(tmp_path, [A, B])
    res = cli(tmp_path, "evaluate", "--engine", "dask", "--data", str(folder),
              "--score-column", "label", "--workers", "1")
    assert refused(res, "--score-column") is None, refused(res, "--score-column")


def test_a_shard_without_any_column_says_it_has_none(tmp_path: Path) -> None:
    from bench.data.query_shards import shard_columns

    folder = _shards(tmp_path, [A, pa.table({})])
    with pytest.raises(DataError, match=r"part-00001\.parquet: no column .*its columns are none"):
        shard_columns(folder, ["qid", "label", "score"])


# ------------------------------------------------------------------------ values


def test_a_label_out_of_range_in_partition_7_names_its_shard_row_and_column(
        tmp_path: Path, client: Any) -> None:
    parts = [pd.DataFrame({"qid": [k, k], "label": [1.0, 0.0], "score": [0.5, 0.1]})
             for k in range(8)]
    parts[7] = pd.DataFrame({"qid": [7, 7, 7], "label": [1.0, 0.0, 100.0],
                             "score": [0.5, 0.1, 0.3]})
    with pytest.raises(DataError, match=r"part-00007\.parquet, row 3, column 'label': label 100"):
        _dask(_shards(tmp_path, parts))


def test_a_null_score_in_a_nullable_column_names_its_shard_and_row(tmp_path: Path,
                                                                   client: Any) -> None:
    folder = _shards(tmp_path, [A, pa.table({"qid": ["c", "c"], "label": [0.0, 1.0],
                                             "score": pa.array([0.2, None])})])
    with pytest.raises(DataError, match=r"part-00001\.parquet, row 2, column 'score'"):
        _dask(folder)


def test_one_row_in_all_equals_the_local_engine(tmp_path: Path, client: Any) -> None:
    folder = _shards(tmp_path, [A.iloc[:0], A.iloc[:1]])
    assert _dask(folder) == _local(folder)


# ------------------------------------------------------------------------ ratings shards


def _ratings(folder: Path, tables: dict[str, pa.Table | bytes]) -> Path:
    folder.mkdir(exist_ok=True)
    for name, t in tables.items():
        if isinstance(t, bytes):
            (folder / name).write_bytes(t)
        else:
            pq.write_table(t, folder / name)
    return folder


_R = pa.table({"user": [1, 1, 2], "item": [10, 11, 10], "rating": [4.0, 3.0, 5.0],
               "timestamp": [1, 2, 3]})


def test_a_null_user_id_in_a_ratings_shard_is_named_a_missing_value(tmp_path: Path,
                                                                   client: Any) -> None:
    from bench.data.dask_ratings import read_ratings_frame

    folder = _ratings(tmp_path / "r", {"a.parquet": _R, "b.parquet": pa.table({
        "user": pa.array([3, None], pa.int64()), "item": [10, 11], "rating": [4.0, 1.0],
        "timestamp": [5, 6]})})
    with pytest.raises(DataError) as info:
        read_ratings_frame(folder).frame.compute()
    message = str(info.value)
    assert "b.parquet, row 2, column 'user': missing value" in message, message
    assert "np.float64" not in message


def test_hidden_and_underscore_files_beside_ratings_shards_are_not_read(tmp_path: Path,
                                                                       client: Any) -> None:
    from bench.data.dask_ratings import read_ratings_frame

    clean = _ratings(tmp_path / "clean", {"a.parquet": _R})
    noisy = _ratings(tmp_path / "noisy", {"a.parquet": _R, ".a.parquet.crc": b"crc",
                                          ".hidden.parquet": b"junk", "_metadata.parquet": b"x",
                                          "_SUCCESS": b""})
    want = read_ratings_frame(clean).frame.compute()
    pd.testing.assert_frame_equal(read_ratings_frame(noisy).frame.compute(), want)


def test_a_folder_of_ratings_shards_in_two_formats_is_refused_not_half_read(
        tmp_path: Path) -> None:
    from bench.data.dask_ratings import read_ratings_frame

    folder = _ratings(tmp_path / "r", {"a.parquet": _R,
                                       "b.csv": b"user,item,rating,timestamp\n9,10,4,5\n"})
    with pytest.raises(DataError, match=r"a\.parquet, b\.csv.*one table in one format"):
        read_ratings_frame(folder)  # the CSV's ratings were dropped without a word


def test_a_damaged_page_in_a_ratings_shard_names_the_shard_in_one_line(tmp_path: Path,
                                                                        client: Any) -> None:
    """The footer is intact (the checks before Dask pass); the first data page is garbage: the
    conversion's first read ended in ``OSError: Couldn't deserialize thrift``."""
    from bench.adapters.config import AdapterConfig
    from bench.adapters.distributed import convert_distributed
    from bench.data.dask_ratings import read_ratings_frame

    folder = _ratings(tmp_path / "r", {"a.parquet": _R})
    pq.write_table(_R, folder / "b.parquet", compression="none")
    raw = bytearray((folder / "b.parquet").read_bytes())
    for i in range(8, 40):  # the first column chunk, after the magic bytes
        raw[i] ^= 0x5A
    (folder / "b.parquet").write_bytes(bytes(raw))
    with pytest.raises(DataError, match=r"b\.parquet: not a readable Parquet file.*ratings"):
        convert_distributed(read_ratings_frame(folder), tmp_path / "out", AdapterConfig(), client)
    assert not any((tmp_path / "out").glob("*/part-*"))


@pytest.mark.parametrize("roles", [{"rating": "user"}, {"timestamp": "rating"}])
def test_one_parquet_column_named_for_two_roles_is_refused_as_the_local_engine_refuses_it(
        roles: dict[str, str], tmp_path: Path, client: Any) -> None:
    """``--rating user`` on Parquet ratings ended in ``AttributeError: 'DataFrame' object has no
    attribute 'dtype'`` (the column read twice); both engines refuse one column for two roles."""
    from bench.data.dask_ratings import read_ratings_frame
    from bench.data.tabular import load_ratings_table

    folder = _ratings(tmp_path / "r", {"a.parquet": _R})
    names = {"user": "user", "item": "item", "rating": "rating", "timestamp": "timestamp",
             **roles}
    with pytest.raises(ConfigError, match="name the same column"):
        load_ratings_table(folder / "a.parquet", **names)
    with pytest.raises(ConfigError, match="name the same column"):
        read_ratings_frame(folder, **roles)


def test_text_user_ids_in_one_ratings_shard_beside_integers_in_another_are_refused(
        tmp_path: Path, client: Any) -> None:
    """Round 10: text ids are numbered on both engines (tests/test_hostile_round10_dask.py);
    text in one Parquet shard and integers in another is one table of two types: refused."""
    from bench.data.dask_ratings import read_ratings_frame

    folder = _ratings(tmp_path / "r", {"a.parquet": _R, "b.parquet": pa.table({
        "user": pa.array(["u1"], pa.large_string()).dictionary_encode(), "item": [10],
        "rating": [4.0], "timestamp": [5]})})
    with pytest.raises(DataError, match=r"b\.parquet, column 'user'.*a\.parquet"):
        read_ratings_frame(folder)


# ------------------------------------------------------------------------ scheduler, cluster


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def no_client(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dask's client may not start: the address must be refused before it (the client retries
    for 30 s, or waits for ever on a silent peer). A structural check, not a wall-clock one, so
    a busy machine cannot fail it."""
    import distributed

    class Refused:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            raise AssertionError("Dask's client was started: the address was not refused first")

    monkeypatch.setattr(distributed, "Client", Refused)


def _connect(address: str) -> None:
    from bench.data.dask_cluster import cluster

    with cluster(address):
        pass


@pytest.mark.parametrize("form", ["tcp://127.0.0.1:{port}", "127.0.0.1:{port}",
                                  "ws://127.0.0.1:{port}"])
def test_a_scheduler_address_nothing_listens_at_is_refused_at_once(form: str,
                                                                    no_client: None) -> None:
    address = form.format(port=_closed_port())
    with pytest.raises(ConfigError, match="connection refused"):  # Dask's client retried 30 s
        _connect(address)


@pytest.mark.parametrize(("address", "words"), [
    ("inproc://x", "inproc://"), ("ucx://127.0.0.1:1", "UCX")])
def test_a_scheduler_address_of_a_protocol_that_cannot_serve_here_says_why(
        address: str, words: str) -> None:
    with pytest.raises(ConfigError) as info:
        _connect(address)
    message = str(info.value)
    assert words in message, message
    assert "tcp://" in message, message
    assert "unpack" not in message
    assert "abstract" not in message


def test_a_listener_that_sends_no_dask_handshake_is_refused_not_waited_on_for_ever(
        monkeypatch: pytest.MonkeyPatch, no_client: None) -> None:
    """Dask's client read the handshake of a peer that accepts and says nothing for ever
    (measured: still waiting after 200 s, whatever ``timeout=``)."""
    from bench.data import dask_cluster

    monkeypatch.setattr(dask_cluster, "CONNECT_TIMEOUT_S", 1.0)
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        with pytest.raises(ConfigError, match="no Dask handshake"):
            _connect(f"tcp://127.0.0.1:{silent.getsockname()[1]}")


def test_a_real_tcp_scheduler_passes_the_probe() -> None:
    from distributed import LocalCluster

    from bench.data.dask_cluster import cluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, host="127.0.0.1",
                      protocol="tcp", scheduler_port=0, dashboard_address=None) as lc, \
            cluster(lc.scheduler_address) as c:
        assert c.submit(sum, [40, 2]).result() == 42


def test_the_cli_refuses_an_unreachable_scheduler_in_one_line_fast(tmp_path: Path,
                                                                   no_client: None) -> None:
    folder = _shards(tmp_path, [A, B])
    res = cli(tmp_path, "evaluate", "--engine", "dask", "--data", str(folder),
              "--scheduler", f"tcp://127.0.0.1:{_closed_port()}")
    assert refused(res, "scheduler", "connection refused") is None, \
        refused(res, "scheduler", "connection refused")


def test_a_local_cluster_whose_workers_never_start_is_one_line_and_closed(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import distributed

    from bench.data import dask_cluster

    closed: list[str] = []

    class Local:
        def __init__(self, **kw: Any) -> None:
            self.scratch = Path(kw["local_directory"])

        def close(self) -> None:
            closed.append("cluster")

    class Client:
        def __init__(self, cluster: Any) -> None:
            pass

        def wait_for_workers(self, n: int, timeout: float) -> None:
            raise TimeoutError(f"only 0 of {n} workers")

        def close(self) -> None:
            closed.append("client")

    monkeypatch.setattr(distributed, "LocalCluster", Local)
    monkeypatch.setattr(distributed, "Client", Client)
    made: list[str] = []
    real = dask_cluster.tempfile.mkdtemp
    monkeypatch.setattr(dask_cluster.tempfile, "mkdtemp",
                        lambda **kw: made.append(real(dir=tmp_path, **kw)) or made[-1])
    with pytest.raises(ConfigError, match="did not all start"), dask_cluster.cluster(workers=2):
        pass
    assert closed == ["client", "cluster"]
    assert made
    assert not Path(made[0]).exists()


# ------------------------------------------------------------------------ files that block


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_named_like_a_shard_is_refused_not_read_for_ever(tmp_path: Path) -> None:
    from bench.data.query_shards import read_query_shards, shard_columns

    folder = _shards(tmp_path, [A])
    os.mkfifo(folder / "part-00001.parquet")  # read_schema blocked until a writer came
    with pytest.raises(DataError, match=r"part-00001\.parquet: is not a regular file"):
        shard_columns(folder, ["qid", "label", "score"])
    with pytest.raises(DataError, match=r"part-00001\.parquet: is not a regular file"):
        read_query_shards(folder)  # the API's reader too


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("given", ["folder", "file"])
def test_a_fifo_among_ratings_shards_is_refused_not_read_for_ever(given: str,
                                                                  tmp_path: Path) -> None:
    from bench.data.dask_ratings import read_ratings_frame

    folder = _ratings(tmp_path / "r", {"a.parquet": _R})
    os.mkfifo(folder / "b.parquet")
    with pytest.raises(DataError, match=r"b\.parquet: is not a regular file"):
        read_ratings_frame(folder if given == "folder" else folder / "b.parquet")


def test_a_worker_that_dies_during_an_evaluation_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                                             tmp_path: Path) -> None:
    from distributed.scheduler import KilledWorker

    from bench.engines import dask_engine
    from bench.engines.table import ClusterOptions
    from bench.errors import LtrbenchError
    from bench.metrics import distributed as metrics_distributed

    def dies(*args: Any, **kwargs: Any) -> None:
        raise KilledWorker("partition-3", SimpleNamespace(address="tcp://127.0.0.1:40001"), 3)

    monkeypatch.setattr(dask_engine, "open_cluster", lambda options: contextlib.nullcontext())
    monkeypatch.setattr(metrics_distributed, "evaluate_frame", dies)
    with pytest.raises(LtrbenchError, match="the Dask evaluation failed \\(KilledWorker"):
        dask_engine.evaluate_shards(_shards(tmp_path, [A, B]), score_column="score",
                                    metrics=METRICS, profile="ltrbench", per_query=False,
                                    options=ClusterOptions(workers=1))


def test_a_scheduler_without_workers_is_refused_not_waited_on_for_ever(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every compute on a scheduler no worker joined waits for ever (measured: evaluate hung)."""
    from distributed import LocalCluster

    from bench.data import dask_cluster

    monkeypatch.setattr(dask_cluster, "WORKERS_TIMEOUT_S", 1)
    with LocalCluster(n_workers=0, processes=False, host="127.0.0.1", protocol="tcp",
                      scheduler_port=0, dashboard_address=None) as lc, \
            pytest.raises(ConfigError, match="has no worker"):
        _connect(lc.scheduler_address)


@pytest.mark.parametrize(("workers", "threads"), [(0, 1), (10**6, 1), (1, 0), (True, 1),
                                                  (1.5, 1)])
def test_a_local_cluster_of_no_or_absurd_workers_is_refused_before_any_start(
        workers: Any, threads: Any) -> None:
    from bench.data.dask_cluster import cluster

    with pytest.raises(ConfigError, match=r"workers|threads"), cluster(workers=workers,
                                                                      threads=threads):
        pass


def test_an_evaluation_refused_on_a_real_cluster_leaves_no_worker_process(tmp_path: Path) -> None:
    """The one test here that starts worker processes: a partition's refusal raised through
    ``evaluate_shards`` closes the local cluster (only multiprocessing's resource tracker, which
    lives as long as this process, may remain)."""
    psutil = pytest.importorskip("psutil")
    from bench.engines.dask_engine import evaluate_shards
    from bench.engines.table import ClusterOptions

    def children() -> set[int]:
        return {p.pid for p in psutil.Process().children(recursive=True)
                if "resource_tracker" not in " ".join(p.cmdline())}

    before = children()
    bad = pd.DataFrame({"qid": ["z", "z"], "label": [1.0, 100.0], "score": [0.1, 0.2]})
    with pytest.raises(DataError, match=r"part-00001\.parquet, row 2, column 'label'"):
        evaluate_shards(_shards(tmp_path, [A, bad]), score_column="score", metrics=METRICS,
                        profile="ltrbench", per_query=False, options=ClusterOptions(workers=1))
    deadline = time.monotonic() + 30
    while children() - before and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not children() - before


def test_scratch_folders_of_killed_runs_are_removed_and_live_ones_kept(tmp_path: Path) -> None:
    """A run killed with SIGKILL leaves its scratch folder (its workers' spilled partitions);
    the next local cluster removes those whose process is gone."""
    import subprocess
    import sys

    from bench.data.dask_cluster import SCRATCH_PREFIX, remove_stale_scratch

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead = tmp_path / f"{SCRATCH_PREFIX}{int(gone.stdout)}-abc123"
    live = tmp_path / f"{SCRATCH_PREFIX}{os.getpid()}-def456"
    other = tmp_path / "ltrbench-dask-notapid"
    for folder in (dead, live, other):
        (folder / "worker-1").mkdir(parents=True)
    assert remove_stale_scratch(str(tmp_path)) == [dead.name]
    assert not dead.exists()
    assert live.exists()
    assert other.exists()


def test_a_scratch_folder_whose_worker_lock_is_held_is_kept(tmp_path: Path) -> None:
    """A process of another PID namespace sharing the temp folder looks gone by its id; its
    workers' directory locks (Dask's ``*.dirlock``, held with locket) say it runs."""
    import subprocess
    import sys

    pytest.importorskip("locket")
    from bench.data.dask_cluster import SCRATCH_PREFIX, remove_stale_scratch

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    held = tmp_path / f"{SCRATCH_PREFIX}{int(gone.stdout)}-abc123"
    (held / "dask-scratch-space").mkdir(parents=True)
    lock = held / "dask-scratch-space" / "worker-x.dirlock"
    holder = subprocess.Popen([sys.executable, "-c", (
        "import locket, sys, time; l = locket.lock_file(sys.argv[1]); l.acquire(); "
        "print('held', flush=True); time.sleep(60)"), str(lock)], stdout=subprocess.PIPE,
        text=True)
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held"
        assert remove_stale_scratch(str(tmp_path)) == []
        assert held.exists()
    finally:
        holder.kill()
        holder.wait()
    assert remove_stale_scratch(str(tmp_path)) == [held.name]
