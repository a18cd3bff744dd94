"""Schemathesis over memini-core's own /openapi.json: every route, generated inputs (valid and
invalid), no 5xx and every response matching the documented schema. Bounded in examples."""

from __future__ import annotations

import os
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from neuralgentics.config import Settings
from neuralgentics.memini.app import create_app

EXAMPLES = int(os.environ.get("NEURALGENTICS_FUZZ_EXAMPLES", "15"))
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]
# Left out: it starts a background job indexing whatever directory it is given ("/" included);
# generated paths would walk the machine. tests/indexer/test_routes.py covers it.
PLACEHOLDERS = {"GET /project/index"}
# Routes that answer text (markdown); fuzzed in a test of their own.
UNDECLARED_TEXT = {"POST /orchestrator/context", "GET /orchestrator/agents-md"}


def fuzz(home: Path, wanted) -> tuple[list[str], dict[str, str]]:
    from neuralgentics.memini.embeddings import get_embedder

    app = create_app(Settings(home=home), embedder=get_embedder())
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    failures: dict[str, str] = {}
    tried: list[str] = []
    for result in schema.get_all_operations():
        op = result.ok()
        if not wanted(op.label):
            continue
        tried.append(op.label)

        @given(case=op.as_strategy())
        @settings(max_examples=EXAMPLES, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        def check(case) -> None:
            case.call_and_validate(checks=CHECKS)

        try:
            check()
        except (Exception, BaseExceptionGroup) as exc:  # noqa: BLE001 - every route reported at once
            failures[op.label] = str(exc)[:1500]
    return tried, failures


def test_every_route_answers_within_its_schema_and_never_5xx(tmp_path) -> None:
    tried, failures = fuzz(tmp_path / "home", lambda label: label not in PLACEHOLDERS | UNDECLARED_TEXT)
    print(f"schemathesis: {len(tried)} operations x {EXAMPLES} examples")
    assert len(tried) >= 15
    assert not failures, "\n\n".join(f"{k}:\n{v}" for k, v in failures.items())


def test_text_answers_are_declared_in_the_schema(tmp_path) -> None:
    tried, failures = fuzz(tmp_path / "home", lambda label: label in UNDECLARED_TEXT)
    assert tried and not failures, "\n\n".join(f"{k}:\n{v}" for k, v in failures.items())
