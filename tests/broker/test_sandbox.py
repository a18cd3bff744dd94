"""Launched servers under bubblewrap (issue 29, "sandboxed servers"), with real servers:
server-filesystem (npm) cannot read or write outside its profile even when its own allowed
paths would let it, mcp-server-fetch (PyPI) cannot reach a loopback port unless its network is
the host's, and `broker add --sandbox` / `broker check` / a missing bwrap say what they do."""

from __future__ import annotations

import http.server
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
import yaml
from support.parts import missing

from neuralgentics.broker.config import load_config
from neuralgentics.broker.service import Broker
from neuralgentics.config import Settings
from tests.broker.conftest import FILESYSTEM, PY, audit_lines, cli, needs_node
from tests.broker.test_egress_commands import gateway  # noqa: F401 - the fixture

SECRET = "the-neighbours-secret-1234"


@pytest.fixture
def bwrap() -> None:
    if shutil.which("bwrap") is None:
        missing("bubblewrap missing: `apt-get install bubblewrap` (scripts/install.sh --test)")


def _text(result) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)


@needs_node
def test_server_filesystem_cannot_read_or_write_outside_its_profile(
    write_config, home: Path, tmp_path: Path, bwrap
) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "notes.txt").write_text("mine")
    neighbour = tmp_path / "neighbour"
    neighbour.mkdir()
    (neighbour / "secret.txt").write_text(SECRET)
    # the server's own check allows all of tmp_path: only the sandbox stands in the way
    fs = {"command": str(FILESYSTEM), "args": [str(tmp_path)]}
    confined = {**fs, "sandbox": {"network": "none", "readable": [str(proj)]}}
    path = write_config(
        {
            "servers": {"open": fs, "boxed": confined},
            "roles": {"r": {"allow": ["open/*", "boxed/*"]}},
        }
    )

    async def main() -> None:
        async with Broker.open(path, settings=Settings()) as b:

            async def read(server: str, p: Path):
                return await b.call(
                    role="r", server=server, tool="read_text_file", arguments={"path": str(p)}
                )

            assert SECRET in _text(await read("open", neighbour / "secret.txt"))  # the baseline
            denied = await read("boxed", neighbour / "secret.txt")
            assert denied.is_error and SECRET not in _text(denied)
            assert "mine" in _text(await read("boxed", proj / "notes.txt"))
            wrote = await b.call(
                role="r",
                server="boxed",
                tool="write_file",
                arguments={"path": str(proj / "new.txt"), "content": "x"},
            )
            assert wrote.is_error  # readable is not writable

    anyio.run(main)
    assert not (proj / "new.txt").exists()
    # the audit names each answer's confinement
    calls = {(r["server"], r["sandbox"]) for r in audit_lines(home) if r["kind"] == "call"}
    assert calls == {("open", "off"), ("boxed", f"bwrap network=none readable={proj}")}


@pytest.fixture
def loopback_site() -> Iterator[str]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            body = b"User-agent: *\nAllow: /\n" if self.path == "/robots.txt" else b"hello-local"
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/page"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("network", ["none", "gateway", "host"])
def test_mcp_server_fetch_reaches_a_loopback_port_only_with_the_host_network(
    write_config, loopback_site: str, network: str, bwrap
) -> None:
    fetch = {
        "command": PY,
        "args": ["-m", "mcp_server_fetch", "--ignore-robots-txt", "--allow-private-ips"],
        "sandbox": {"network": network},
        "call_timeout": 30,
    }
    path = write_config({"servers": {"fetch": fetch}, "roles": {"r": {"allow": ["fetch/*"]}}})

    async def main() -> tuple[bool, str]:
        async with Broker.open(path, settings=Settings()) as b:
            got = await b.call(
                role="r",
                server="fetch",
                tool="fetch",
                arguments={"url": loopback_site, "raw": True},
            )
            return got.is_error, _text(got)

    is_error, text = anyio.run(main)
    if network == "host":
        assert not is_error and "hello-local" in text, text
    else:  # no gateway configured: gateway means no network at all
        assert is_error and "hello-local" not in text


def test_broker_add_sandbox_writes_the_default_profile_and_check_shows_it(
    home: Path, bwrap
) -> None:
    proj = home / "proj"
    r = cli(
        "broker", "add", "clock", "--sandbox", "--writable", str(proj),
        "--", PY, "-m", "mcp_server_time",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    cfg = load_config(home / "config" / "broker.yaml")
    box = cfg.servers["clock"].sandbox
    assert box is not None and box.network == "gateway"
    state = home / "home" / "broker" / "state" / "clock"
    assert box.writable == [str(state), str(proj.resolve())]
    assert cfg.servers["clock"].command == PY
    r = cli("broker", "add", "plain", "--", PY, "-m", "mcp_server_time")
    assert (
        r.returncode == 0
        and load_config(home / "config" / "broker.yaml").servers["plain"].sandbox is None
    )
    check = cli("broker", "check")
    assert check.returncode == 0, check.stderr
    assert f"clock: sandbox bwrap network=gateway writable={state},{proj.resolve()}" in check.stdout
    assert "plain: sandbox off" in check.stdout
    # and it starts and answers under bwrap
    listed = cli("broker", "refresh", "clock")
    assert listed.returncode == 0 and "clock: 2 tools" in listed.stdout, listed.stderr


def test_a_missing_bwrap_is_a_clear_message_and_off_opts_out(
    write_config, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # no bwrap here (the server is named by full path)
    server = {"command": PY, "args": ["-m", "mcp_server_time"], "sandbox": {"network": "none"}}
    path = write_config({"servers": {"time": server}, "roles": {"r": {"allow": ["time/*"]}}})
    r = cli("broker", "refresh", "time", "--config", str(path))
    assert r.returncode == 1
    assert "bwrap is not on PATH" in r.stderr and "apt-get install bubblewrap" in r.stderr
    assert "sandbox: off" in r.stderr
    data = yaml.safe_load(path.read_text())
    data["servers"]["time"]["sandbox"] = "off"
    path.write_text(yaml.safe_dump(data))
    assert load_config(path).servers["time"].sandbox is None
    r = cli("broker", "refresh", "time", "--config", str(path))
    assert r.returncode == 0 and "time: 2 tools" in r.stdout, r.stderr


def test_bad_sandbox_entries_are_named() -> None:
    from neuralgentics.broker.config import ConfigError, parse_config

    with pytest.raises(ConfigError, match="network"):
        parse_config("servers: {x: {command: y, sandbox: {network: lan}}}\n")
    with pytest.raises(ConfigError, match="needs 'network: host'"):
        parse_config(
            "servers: {x: {transport: streamable_http, url: 'http://127.0.0.1:1/mcp', "
            "command: y, sandbox: {network: none}}}\n"
        )


def test_network_gateway_goes_through_the_egress_gateway(
    write_config, loopback_site: str, bwrap, request: pytest.FixtureRequest
) -> None:
    gw = request.getfixturevalue("gateway")  # the recording gateway (test_egress_commands.py)
    fetch = {
        "command": PY,
        "args": ["-m", "mcp_server_fetch", "--ignore-robots-txt", "--allow-private-ips"],
        "sandbox": {"network": "gateway"},
        "call_timeout": 30,
    }
    path = write_config({"servers": {"fetch": fetch}, "roles": {"r": {"allow": ["fetch/*"]}}})

    async def main() -> str:
        async with Broker.open(path, settings=Settings()) as b:
            got = await b.call(
                role="r",
                server="fetch",
                tool="fetch",
                arguments={"url": loopback_site, "raw": True},
            )
            assert not got.is_error, _text(got)
            return _text(got)

    assert "hello-local" in anyio.run(main)
    assert loopback_site in [s.target for s in gw.seen]  # it went through the gateway
