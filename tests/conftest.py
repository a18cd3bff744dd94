"""Test-wide set-up: no model hub, a private home/config dir for every test, skips counted."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
# tests import shared helpers from this folder (support/)
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


@pytest.fixture(scope="session")
def pg_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The session's real PostgreSQL (tests/support/postgres.py): its maintenance database's
    URL; each caller makes its own database with `fresh_database`."""
    from support.postgres import postgres_url

    return postgres_url(tmp_path_factory, request.config)


# --- parallel runs (pytest-xdist, `--dist loadfile` in scripts/test.sh) ---
# Each test file runs whole on one worker: a module-wide set-up (a served stack, the OpenCode
# loop's six runs) split over two workers would run once on each. (`--dist loadgroup` with
# xdist_group marks would be finer, but under pytest 9.2 xdist 3.8 ignores the marks: its
# group travels in the node id, which pytest no longer lets it change.) Session fixtures (the
# model, PostgreSQL) start once per worker; every test makes its own files, ports and
# databases, so workers share nothing else.


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # The long tests (marked slow: the OpenCode runs, the pip install, the audit flood) first, so
    # that no worker is left with one of them while the other has run out of work. A stable
    # sort: the same order on every worker, as xdist requires.
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


# --- skips: counted, and under --fail-on-skip (scripts/test.sh) or CI an unexpected one fails ---
# Expected skips are the tests marked `opt_in` (they need something outside the repository that
# only the person running them can name, e.g. a real OpenCode checkout). Anything else skipped
# means a real part of the test set-up is missing, and a green run would hide it.


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fail-on-skip",
        action="store_true",
        help="exit non-zero when a test not marked opt_in is skipped (on by default under CI=true)",
    )


_skips: dict[str, list[tuple[str, str]]] = {"expected": [], "unexpected": []}


def _record_skip(report: pytest.CollectReport | pytest.TestReport) -> None:
    if not report.skipped or hasattr(report, "wasxfail"):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    kind = "expected" if "opt_in" in getattr(report, "keywords", {}) else "unexpected"
    _skips[kind].append((report.nodeid, reason.removeprefix("Skipped: ")))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _record_skip(report)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    _record_skip(report)


def _fail_on_skip(config: pytest.Config) -> bool:
    from support.parts import in_ci

    return bool(config.getoption("--fail-on-skip")) or in_ci()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _skips["unexpected"] and _fail_on_skip(session.config) and exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config):
    # a wrapper, to write after pytest's own "short test summary": right above the last line
    yield
    expected, unexpected = _skips["expected"], _skips["unexpected"]
    failing = bool(unexpected) and _fail_on_skip(config)
    for nodeid, reason in unexpected:
        terminalreporter.write_line(
            f"UNEXPECTED SKIP {nodeid}: {reason}", red=failing, yellow=not failing
        )
    terminalreporter.write_sep(
        "=",
        f"skipped: {len(expected) + len(unexpected)} ({len(unexpected)} unexpected, "
        f"{len(expected)} opt-in)" + ("; unexpected skips fail this run" if failing else ""),
        red=failing,
    )
