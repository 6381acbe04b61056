"""A config file that sets nothing is said, not run as the defaults in silence."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile_kit import cli


@pytest.mark.parametrize("text", ["", "# only a comment\n", "\ufeff\n\n"])
def test_a_config_file_that_sets_nothing_is_said(tmp_path: Path, text: str) -> None:
    """An empty config (or comments only) ran the defaults without a word."""
    (tmp_path / "c.toml").write_text(text, encoding="utf-8")
    res = cli(tmp_path, "run", "--config", "c.toml", "--models", "nosuch")
    assert res.status == 2  # stopped at the bad model: the warning came first
    assert "c.toml: sets nothing (empty, or comments only): the defaults run" in res.err
