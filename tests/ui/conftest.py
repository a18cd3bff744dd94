"""Fixtures of the dashboard tests; the machinery is in ui_stack.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ui_stack import Stack, start_stack


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    s = start_stack(tmp_path_factory.mktemp("ui-stack"))
    try:
        yield s
    finally:
        s.stop()
