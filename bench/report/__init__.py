"""Reporting: leaderboards with honest statistics, and plots.

* :mod:`bench.report.stats`: mean ± std over seeds, bootstrap CIs over queries, paired
  randomization / t tests with Holm correction;
* :mod:`bench.report.build`: the leaderboard document (one table per dataset) from run directories;
* :mod:`bench.report.render` (Markdown, CSV), :mod:`bench.report.latex` (LaTeX),
  :mod:`bench.report.leaderboard` (writes ``results/leaderboard.{md,csv,json,tex}``);
* :mod:`bench.report.plots`: PNG plots per dataset; :mod:`bench.report.published`: published
  numbers as data, shown beside ours.
"""
