"""The whole-history models of the out-of-core adapter, fitted over blocks of whole users
(:mod:`bench.adapters.distributed`, step 4): the two SVDs through a ``LinearOperator`` whose
products run on the blocks, the history tag applications filtered on each author's block, the
item metadata. The client holds ``(users + items) x (k + 10)`` numbers, never the ratings.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from bench.adapters.config import AdapterConfig
from bench.adapters.metadata import item_genres, item_years
from bench.adapters.pipeline import CatalogueModels
from bench.adapters.user_blocks import UserBlock
from bench.data.dask_ratings import RatingsFrame

Progress = Callable[[str], None]


def _block_matrix(block: UserBlock, binary: bool) -> Any:
    from bench.adapters.svd import history_matrices

    h = block.history()
    R, B = history_matrices(h.indptr, h.item, h.rating, h.n_items)
    return B if binary else R


def _rows_times(block: UserBlock, X: NDArray[np.float32], binary: bool) -> NDArray[np.float32]:
    return np.asarray(_block_matrix(block, binary) @ X)


def _add_transposed(block: UserBlock, X: NDArray[np.float32], Y: NDArray[np.float32] | None,
                    n_items: int, binary: bool) -> NDArray[np.float32]:
    from bench.adapters.svd import add_transposed_product

    A = _block_matrix(block, binary)
    out = (np.zeros((n_items, X.shape[1]), dtype=np.result_type(A.dtype, X.dtype))
           if Y is None else Y.copy())
    add_transposed_product(A.indptr, A.indices, A.data, np.ascontiguousarray(X), out)
    return out


def _history_operator(client: Any, blocks: list[Any], bounds: list[int], n_items: int,
                      binary: bool) -> Any:
    from scipy.sparse.linalg import LinearOperator

    n_users = bounds[-1]

    def matmat(X: NDArray[np.float32]) -> NDArray[np.float32]:
        Xf = client.scatter(np.asarray(X), broadcast=True)
        rows = client.gather([client.submit(_rows_times, b, Xf, binary, pure=False)
                              for b in blocks])
        return np.vstack(rows)

    def rmatmat(X: NDArray[np.float32]) -> NDArray[np.float32]:
        X = np.asarray(X)
        Y = None
        for k, b in enumerate(blocks):  # block after block: SciPy's order of additions
            Y = client.submit(_add_transposed, b, X[bounds[k]: bounds[k + 1]], Y, n_items,
                              binary, pure=False)
        return np.asarray(client.gather(Y))

    return LinearOperator((n_users, n_items), matvec=lambda x: matmat(x.reshape(-1, 1)).ravel(),
                          rmatvec=lambda x: rmatmat(x.reshape(-1, 1)).ravel(), matmat=matmat,
                          rmatmat=rmatmat, dtype=np.float32)


def _block_tags(block: UserBlock, tags: pd.DataFrame) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    from bench.adapters.tags import history_tags

    tu, ti = history_tags(tags, block.table, block.split(0))
    return np.where(tu >= 0, tu + block.u0, tu), ti


def _tags(ratings: RatingsFrame, client: Any, blocks: list[Any], bounds: list[int],
          user_ids: NDArray[np.int64], item_ids: NDArray[np.int64], config: AdapterConfig
          ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """History tag applications: those of each block's users filtered on the block (their cut
    and target items live there); those of authors without ratings here
    (:func:`~bench.adapters.splits.other_authors_cut`)."""
    from bench.adapters.splits import NO_CUT, Split, other_authors_cut
    from bench.adapters.table import RatingsTable
    from bench.adapters.tags import history_tags

    tags = ratings.tags
    assert tags is not None
    author = pd.to_numeric(tags["user"], errors="coerce").to_numpy(dtype=np.float64,
                                                                   na_value=np.nan)
    code = np.full(author.shape[0], -1, dtype=np.int64)
    ok = np.isfinite(author)
    pos = np.searchsorted(user_ids, author[ok].astype(np.int64))
    hit = (pos < user_ids.shape[0]) & (user_ids[np.minimum(pos, user_ids.shape[0] - 1)]
                                       == author[ok].astype(np.int64))
    code[np.flatnonzero(ok)[hit]] = pos[hit]
    block_of = np.searchsorted(bounds, code, side="right") - 1
    futures = [client.submit(_block_tags, b, tags[(code >= 0) & (block_of == k)], pure=False)
               for k, b in enumerate(blocks)]
    nobody = RatingsTable(user=np.zeros(0, np.int32), item=np.zeros(0, np.int32),
                          rating=np.zeros(0), timestamp=np.zeros(0, np.int64),
                          indptr=np.zeros(1, np.int64), user_ids=np.zeros(0, np.int64),
                          item_ids=item_ids)
    ou, oi = history_tags(tags[code < 0], nobody,
                          Split(role=np.zeros(0, np.int8), tag_cut=np.full(0, NO_CUT),
                                reference_time=0, other_tag_cut=other_authors_cut(config)))
    got = client.gather(futures)
    return (np.concatenate([*(g[0] for g in got), ou]),
            np.concatenate([*(g[1] for g in got), oi]))


def fit_models(ratings: RatingsFrame, client: Any, blocks: list[Any], bounds: list[int],
            user_ids: NDArray[np.int64], item_ids: NDArray[np.int64], config: AdapterConfig,
            say: Progress, *, history_rows: NDArray[np.int64]) -> CatalogueModels:
    """The whole-history models; the SVDs are fitted on the users of ``history_rows`` (those
    with a history rating), as :func:`bench.adapters.pipeline.ratings_to_letor` fits them."""
    wanted = set(config.feature_groups)
    skipped: dict[str, str] = {}
    years = item_years(ratings.items, item_ids) if "item" in wanted else None
    genres = None
    if "genre" in wanted:
        genres = item_genres(ratings.items, item_ids)
        if genres is None:
            skipped["genre"] = "no item genres in the data"
    ratings_svd = pattern_svd = None
    if "svd" in wanted or "similarity" in wanted:
        from bench.adapters.svd import on_rows, rows_operator, truncated_svd_operator

        n_users = bounds[-1]
        say(f"SVD of the history matrix (rank {config.svd_factors}) over the blocks")
        op = _history_operator(client, blocks, bounds, item_ids.shape[0], binary=False)
        ratings_svd = on_rows(truncated_svd_operator(rows_operator(op, history_rows),
                                                     config.svd_factors, seed=config.seed),
                              history_rows, n_users)
        if "similarity" in wanted:
            say("SVD of the history pattern")
            op = _history_operator(client, blocks, bounds, item_ids.shape[0], binary=True)
            pattern_svd = on_rows(truncated_svd_operator(rows_operator(op, history_rows),
                                                         config.svd_factors,
                                                         seed=config.seed + 1),
                                  history_rows, n_users)
    tags = None
    if "tags" in wanted:
        if ratings.tags is None or ratings.tags.empty:
            skipped["tags"] = "no tags table in the data"
        else:
            tags = _tags(ratings, client, blocks, bounds, user_ids, item_ids, config)
    return CatalogueModels(years=years, genres=genres, ratings_svd=ratings_svd,
                           pattern_svd=pattern_svd, tags=tags, skipped=skipped)
