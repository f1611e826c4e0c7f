"""Fixtures shared by the vision tests."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from vision.letter_synth import hebrew_fonts

BUILD_SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "build_letter_model.py"


@pytest.fixture(scope="module")
def build() -> ModuleType:
    """``scripts/build_letter_model.py`` as a module (it is a script, not a package), for its fitting code."""
    spec = importlib.util.spec_from_file_location("build_letter_model", BUILD_SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("build_letter_model", module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def fonts() -> tuple[str, ...]:
    """The installed Hebrew fonts the training renderer draws with."""
    found = hebrew_fonts()
    assert found, "no Hebrew font: run scripts/install-system-deps.sh"
    return found


@pytest.fixture(scope="module")
def ink() -> Callable[[np.ndarray, tuple[int, int, int]], np.ndarray]:
    """Which pixels of a face texture are ink: more than 40 away from the body's colour in some channel."""
    def mask(texture: np.ndarray, body: tuple[int, int, int]) -> np.ndarray:
        return np.abs(texture.astype(np.float32) - np.array(body, np.float32)).max(axis=2) > 40
    return mask
