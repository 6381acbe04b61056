"""The dataset catalogue: cards, the data directory, downloads, resolution of a name to splits,
and the datasets ltrbench generates itself.

* :mod:`~bench.datasets.catalogue`: one card per dataset (``cards/*.toml``: URL, sha256, licence);
* :mod:`~bench.datasets.locations`: the data directory and a dataset's folder in it;
* :mod:`~bench.datasets.fetch`: download and verification (digests, and the card's counts);
* :mod:`~bench.datasets.resolve`: a name, path or ratings file → :class:`~bench.data.LetorSplits`
  (ratings go through :mod:`bench.adapters`);
* :mod:`~bench.datasets.synthetic`: the MovieLens-like ratings generator behind ``synthetic``.
"""
