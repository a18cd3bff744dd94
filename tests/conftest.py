"""Test-wide set-up: no model hub, and a private home/config dir for every test."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
# tests import shared helpers such as _postgres from this folder
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(autouse=True)
def _private_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    from neuralgentics.config import get_settings

    base = tmp_path_factory.mktemp("ng")
    monkeypatch.setenv("NEURALGENTICS_HOME", str(base / "home"))
    monkeypatch.setenv("NEURALGENTICS_CONFIG_DIR", str(base / "config"))
    for var in ("NEURALGENTICS_DATABASE_URL", "NEURALGENTICS_TOKEN", "NEURALGENTICS_SERVICE_URL"):
        monkeypatch.delenv(var, raising=False)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()
