"""A real part a test needs (an npm package, Chromium, PostgreSQL, opencode) that is missing.

Outside CI that is a skip, with the command that installs the part. Under CI (`CI=true`, which
.ci/run sets) the install step was supposed to provide it, so a missing part is a broken
install: the test fails instead of passing silently as a skip.
"""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def missing(what: str) -> NoReturn:
    """Skip (or, under CI, fail) because `what` (say what is missing and how to get it) is absent."""
    if in_ci():
        pytest.fail(f"CI: a real part is missing, so the install step is broken: {what}")
    pytest.skip(what)
