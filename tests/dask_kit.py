"""What the hostile Dask shard tests share: two small queries with their nDCG@10 by hand, an
in-process one-worker cluster, a frame as a Parquet table, and a ratings table read by the
local reader and by the Dask one (its frame, or the error it raises), and the cluster
replaced by Dask's synchronous scheduler (``no_cluster``)."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest

A = pd.DataFrame({"qid": [1, 1, 1], "label": [2.0, 0.0, 1.0], "score": [0.9, 0.1, 0.5]})
B = pd.DataFrame({"qid": [2, 2], "label": [1.0, 0.0], "score": [0.3, 0.4]})
#: ndcg@10 of A and B by hand: A is ranked ideally (1); B puts its relevant document second
#: (1 / log2(3) over an ideal 1); the mean over both queries
NDCG_AB = (1.0 + 1.0 / math.log2(3.0)) / 2.0


@pytest.fixture
def no_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    """``open_cluster`` replaced by Dask's synchronous scheduler (no process, no socket): for
    ``--engine dask`` cases that are about the data, not the cluster."""
    import dask

    from bench.engines import dask_engine

    @contextlib.contextmanager
    def fake(options: Any) -> Iterator[None]:
        with dask.config.set(scheduler="synchronous"):
            yield None

    monkeypatch.setattr(dask_engine, "open_cluster", fake)


@pytest.fixture(scope="module")
def in_process_client() -> Iterator[Any]:
    """One in-process worker (no process start): for cases that are not about the cluster."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                      dashboard_address=None) as lc, Client(lc) as c:
        yield c


def parquet_table(part: pd.DataFrame | pa.Table) -> pa.Table:
    """``part`` as a pyarrow Table (a Table as it is; a frame without its index)."""
    return part if isinstance(part, pa.Table) else pa.Table.from_pandas(part, preserve_index=False)


#: the ratings tables' columns, each by its own name
RATINGS_COLS = {"user": "user", "item": "item", "rating": "rating", "timestamp": "timestamp"}


def local_ratings(path: Path, **cols: Any) -> pd.DataFrame:
    """The local reader's frame of ``path`` (columns ``cols``, else :data:`RATINGS_COLS`)."""
    from bench.data.tabular import load_ratings_table

    return load_ratings_table(path, **(cols or RATINGS_COLS)).frame.reset_index(drop=True)


def dask_ratings(path: Path, **kw: Any) -> pd.DataFrame:
    """The Dask reader's frame of ``path``, computed in this process."""
    from bench.data.dask_ratings import read_ratings_frame

    out = read_ratings_frame(path, **kw).frame.compute(scheduler="synchronous")
    return out.reset_index(drop=True)


def dask_ratings_error(path: Path, **kw: Any) -> Exception:
    """The :class:`~bench.errors.DataError` the Dask reader raises for ``path`` (the case
    fails when it raises none)."""
    from bench.data.dask_ratings import read_ratings_frame
    from bench.errors import DataError

    with pytest.raises(DataError) as caught:
        read_ratings_frame(path, **kw).frame.compute(scheduler="synchronous")
    return caught.value
