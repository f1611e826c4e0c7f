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
from vision.recognizer import LetterRecognizer

BUILD_SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "build_letter_model.py"


def script_module(name: str) -> ModuleType:
    """``scripts/<name>.py`` as a module (a script, not a package), for its fitting code."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BUILD_SCRIPT.with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def generic() -> LetterRecognizer:
    """The committed letter model, untaught (``read`` keeps no state, so one serves every test)."""
    return LetterRecognizer.default()


@pytest.fixture(scope="module")
def build() -> ModuleType:
    """``scripts/build_letter_model.py`` as a module."""
    return script_module("build_letter_model")


@pytest.fixture(scope="module")
def pair_build() -> ModuleType:
    """``scripts/build_nun_gimel_model.py`` as a module (it imports the letter build's fitting code by name)."""
    script_module("build_letter_model")
    return script_module("build_nun_gimel_model")


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
