"""Downstream HTTP goes through EGRESS_GATEWAY_URL and carries the caller's session id."""

from __future__ import annotations

import mcp.types as types
import pytest

from neuralgentics.broker.service import Broker
from neuralgentics.config import Settings
from tests.broker.conftest import base_config, needs_node
from tests.broker.gateway import RecordingGateway


@needs_node
@pytest.mark.parametrize("transport", ["streamable_http", "sse"])
async def test_http_downstream_goes_through_the_gateway_with_the_session_id(
    write_config, transport: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = request.getfixturevalue(
        "everything_http" if transport == "streamable_http" else "everything_sse"
    )
    gateway = RecordingGateway()
    await gateway.start()
    monkeypatch.setenv("EGRESS_GATEWAY_URL", gateway.url)
    try:
        path = write_config(base_config(http={"transport": transport, "url": url}))
        async with Broker.open(path, settings=Settings()) as broker:
            result = await broker.call(
                role="coder",
                server="http",
                tool="echo",
                arguments={"message": "via gateway"},
                session_id="sess-42",
            )
            assert isinstance(result.content[0], types.TextContent)
            assert result.content[0].text == "Echo: via gateway"
    finally:
        await gateway.stop()
    origin = url.rsplit("/", 1)[0]
    assert all(s.target.startswith(origin) for s in gateway.seen)  # absolute-form: via the proxy
    assert url in {s.target for s in gateway.seen}
    calls = [s for s in gateway.seen if s.headers.get("x-neuralgentics-session") == "sess-42"]
    assert calls and all(s.method == "POST" for s in calls), [
        (s.method, s.headers) for s in gateway.seen
    ]
