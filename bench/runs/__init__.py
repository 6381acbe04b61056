"""The run directory ``<out>/runs/<run-id>/``: the contract between ``run``, ``report``,
``crosscheck`` and ``reproduce``, owned here and nowhere else.

* :mod:`~bench.runs.layout`: the files and their columns (:data:`~bench.runs.layout.TABLES`, one
  list for writer and readers), atomic table writes, per-(model, seed) upserts, status files;
* :mod:`~bench.runs.manifest`: ``manifest.json`` (environment, git state, dataset fingerprint);
* :mod:`~bench.runs.reader`: :class:`~bench.runs.reader.RunDir`, validated lazy readers;
* :mod:`~bench.runs.search`: finding runs under a folder (all, latest unfinished of a config);
* :mod:`~bench.runs.models`: the library of each model, from the run's records (never its name);
* :mod:`~bench.runs.naming`: run ids, dataset slugs, the library a model's name implies (the
  fallback for run folders that record none).
"""
