"""memini-core alone (`neuralgentics serve` without the broker, no token): the dashboard says
the broker is down, shows everything else, and logs no error."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ui_stack import Stack, start_stack


@pytest.fixture(scope="module")
def alone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    s = start_stack(tmp_path_factory.mktemp("ui-alone"), with_broker=False, token="")
    try:
        yield s
    finally:
        s.stop()


def test_pages_work_with_the_broker_stopped(alone: Stack) -> None:
    with alone.api() as c:
        assert (
            c.post("/memory/add", json={"content": "Only memini-core is running."}).status_code
            == 201
        )
    text = "document.querySelector('main').innerText"
    steps = [
        {
            "name": "overview",
            "goto": "/ui/#/overview",
            "wait": "main[data-ready=overview] #broker-state",
            "eval": text,
            "screenshot": "overview.png",
        },
        {
            "name": "broker",
            "goto": "/ui/#/broker",
            "wait": "main[data-ready=broker] #broker-down",
            "eval": text,
            "screenshot": "broker.png",
        },
        {
            "name": "memories",
            "goto": "/ui/#/memories",
            "wait": "main[data-ready=memories] #results",
            "eval": text,
        },
        {
            "name": "bad-id",
            "goto": "/ui/#/graph/not-an-id",
            "wait": "main[data-ready=graph]",
            "eval": text,
        },
    ]
    result = alone.browse(steps, name="without-broker")
    for name, step in result.items():
        assert step["errors"] == [], f"{name}: {step['errors']}"
    assert (
        "down" in result["overview"]["value"]
        and "neuralgentics broker serve" in result["overview"]["value"]
    )
    assert "Only memini-core is running." in result["overview"]["value"]
    assert "not reachable" in result["broker"]["value"]
    assert (
        "No broker calls" in result["overview"]["value"] or "No calls" in result["broker"]["value"]
    )
    assert "not a memory id" in result["bad-id"]["value"]
