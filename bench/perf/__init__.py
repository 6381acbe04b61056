"""Benchmarks behind ``ltrbench perf``: each prints ratios against peers timed in the same run."""
