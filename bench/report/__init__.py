"""Reporting: leaderboards with honest statistics, plots, and the cross-check of built-in metrics.

* :mod:`bench.report.stats`: mean ± std over seeds, bootstrap CIs over queries, paired
  randomization / t tests with Holm correction;
* :mod:`bench.report.runs`: reading a run directory ``results/runs/<run-id>/``;
* :mod:`bench.report.leaderboard`: ``results/leaderboard.{md,csv,json,tex}``;
* :mod:`bench.report.plots`: PNG plots per dataset;
* :mod:`bench.report.crosscheck`: library built-in NDCG vs the reference evaluator, and the gap to
  the default profile explained by reason.
"""
