"""Downstream HTTP goes through EGRESS_GATEWAY_URL and carries the caller's session id."""

from __future__ import annotations

import mcp.types as types
import pytest

from neuralgentics.broker.service import Broker
from tests.broker.conftest import base_config, needs_node
from tests.broker.gateway import RecordingGateway


@needs_node
async def test_http_downstream_goes_through_the_gateway_with_the_session_id(
    write_config, everything_http, monkeypatch: pytest.MonkeyPatch
) -> None:
    gateway = RecordingGateway()
    await gateway.start()
    monkeypatch.setenv("EGRESS_GATEWAY_URL", gateway.url)
    try:
        path = write_config(base_config(http={"transport": "streamable_http", "url": everything_http}))
        async with Broker.open(path) as broker:
            result = await broker.call(role="coder", server="http", tool="echo",
                                       arguments={"message": "via gateway"}, session_id="sess-42")
            assert isinstance(result.content[0], types.TextContent)
            assert result.content[0].text == "Echo: via gateway"
    finally:
        await gateway.stop()
    targets = {s.target for s in gateway.seen}
    assert everything_http in targets  # absolute-form: it really went through the proxy
    calls = [s for s in gateway.seen if s.headers.get("x-neuralgentics-session") == "sess-42"]
    assert calls, [s.headers for s in gateway.seen]
    assert all(s.target == everything_http for s in calls)
