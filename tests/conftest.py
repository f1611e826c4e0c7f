"""Shared test fixtures."""

from __future__ import annotations

import pytest

from controller.clock import FakeClock


@pytest.fixture
def clock() -> FakeClock:
    """A clock that moves only when the test says so."""
    return FakeClock()
