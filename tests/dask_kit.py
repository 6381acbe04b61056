"""What the hostile Dask shard tests share: two small queries with their nDCG@10 by hand, an
in-process one-worker cluster, and a frame as a Parquet table."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest

A = pd.DataFrame({"qid": [1, 1, 1], "label": [2.0, 0.0, 1.0], "score": [0.9, 0.1, 0.5]})
B = pd.DataFrame({"qid": [2, 2], "label": [1.0, 0.0], "score": [0.3, 0.4]})
#: ndcg@10 of A and B by hand: A is ranked ideally (1); B puts its relevant document second
#: (1 / log2(3) over an ideal 1); the mean over both queries
NDCG_AB = (1.0 + 1.0 / math.log2(3.0)) / 2.0


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
