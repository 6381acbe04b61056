"""Shared test fixtures: where the real datasets of ``../shared/data`` are."""

from __future__ import annotations

from pathlib import Path

import pytest

# Resolved, as the code resolves it: ../shared may be a symbolic link.
SHARED_DATA = (Path(__file__).resolve().parents[2] / "shared" / "data").resolve()


@pytest.fixture
def shared_data() -> Path:
    """``../shared/data`` beside the project root; tests using it skip cleanly when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data folder {SHARED_DATA} is absent")
    return SHARED_DATA
