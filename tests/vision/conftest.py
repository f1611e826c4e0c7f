"""Fixtures shared by the vision tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

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
