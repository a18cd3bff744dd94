"""Hypothesis over what parses untrusted text: the broker's JSON-RPC framing on a real
`neuralgentics broker stdio` process, and the skills frontmatter parser."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neuralgentics.orchestrator.skills import Skill, SkillParseError, parse_skill

EXAMPLES = int(os.environ.get("NEURALGENTICS_PROPERTY_EXAMPLES", "80"))
NEURALGENTICS = str(Path(sys.executable).parent / "neuralgentics")


class StdioBroker:
    def __init__(self, home: Path) -> None:
        config = home / "broker.yaml"
        config.write_text(
            yaml.safe_dump(
                {
                    "servers": {
                        "time": {
                            "command": sys.executable,
                            "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"],
                        }
                    },
                    "roles": {"coder": {"allow": ["time/*"]}},
                }
            )
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith("NEURALGENTICS_")}
        env |= {
            "NEURALGENTICS_HOME": str(home / "home"),
            "NEURALGENTICS_CONFIG_DIR": str(home / "cfg"),
        }
        self.proc = subprocess.Popen(
            [NEURALGENTICS, "broker", "stdio", "--config", str(config), "--role", "coder"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=(home / "stderr.log").open("wb"),
            env=env,
            start_new_session=True,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.next_id = 1000

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def send(self, raw: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(raw)
        self.proc.stdin.flush()

    def request(self, method: str, params: dict | None = None) -> dict:
        """Send a request and return its response; every line before it must be valid JSON-RPC."""
        self.next_id += 1
        rid = self.next_id
        msg = {"jsonrpc": "2.0", "id": rid, "method": method} | (
            {"params": params} if params else {}
        )
        self.send(json.dumps(msg).encode() + b"\n")
        while True:
            line = self.lines.get(timeout=30)
            data = json.loads(line)  # stdout carries nothing but JSON-RPC
            assert data.get("jsonrpc") == "2.0", line
            if data.get("id") == rid:
                return data

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


@pytest.fixture(scope="module")
def stdio_broker(tmp_path_factory) -> Iterator[StdioBroker]:
    b = StdioBroker(tmp_path_factory.mktemp("stdio"))
    init = b.request(
        "initialize",
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "fuzz", "version": "0"},
        },
    )
    assert "result" in init, init
    b.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    yield b
    b.close()
    assert b.proc.returncode is not None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
rpc_like = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.sampled_from(["2.0", "1.0", 2, None]),
        "id": st.one_of(
            st.integers(-5, 5), st.text(max_size=5), st.none(), st.lists(st.integers(), max_size=2)
        ),
        "method": st.one_of(
            st.sampled_from(["tools/call", "tools/list", "ping", "initialize", "resources/read"]),
            st.text(max_size=15),
            st.integers(),
        ),
        "params": json_values,
        "result": json_values,
        "error": json_values,
    },
)
garbage_line = st.one_of(
    st.binary(max_size=200).map(lambda b: b.replace(b"\n", b" ")),
    json_values.map(lambda v: json.dumps(v).encode()),
    rpc_like.map(lambda v: json.dumps(v).encode()),
    st.text(max_size=100).map(lambda t: t.replace("\n", " ").encode("utf-8", "surrogatepass")),
)


@given(lines=st.lists(garbage_line, min_size=1, max_size=4))
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_no_line_on_stdin_breaks_the_stdio_framing(
    stdio_broker: StdioBroker, lines: list[bytes]
) -> None:
    for line in lines:
        stdio_broker.send(line + b"\n")
    # the connection is still in step: the next real request gets its own answer
    assert "result" in stdio_broker.request("tools/list")
    assert stdio_broker.proc.poll() is None


# -- skills frontmatter -------------------------------------------------------------------

header_value = st.one_of(st.text(max_size=30), json_values.map(json.dumps))
skill_text = st.one_of(
    st.text(max_size=400),
    st.builds(
        lambda keys, body, form: (
            "---\n" + "".join(f"{k}: {v}\n" for k, v in keys) + "---\n" + body
            if form
            else "# skill: " + "".join(f"{k}: {v}\n" for k, v in keys) + "---\n" + body
        ),
        st.lists(
            st.tuples(
                st.sampled_from(
                    [
                        "id",
                        "name",
                        "description",
                        "model",
                        "agents",
                        "task_types",
                        "applies_to",
                        "extra",
                        "id",
                    ]
                ),
                header_value,
            ),
            max_size=6,
        ),
        st.text(max_size=80),
        st.booleans(),
    ),
)


@given(text=skill_text)
@settings(max_examples=EXAMPLES * 4, deadline=None, database=None)
def test_any_skill_text_parses_or_names_the_line_at_fault(text: str) -> None:
    try:
        skill = parse_skill(text, default_id="fuzzed")
    except SkillParseError as exc:
        assert exc.problem and 1 <= exc.line <= max(1, text.count("\n") + 2), (
            exc.line,
            exc.problem,
        )
        return
    assert isinstance(skill, Skill)
    assert skill.description.strip() and skill.body.strip()
    assert skill.model in (None, "primary", "secondary")


# -- issue 13, finding 2/8: what may be stored is exactly what round-trips as UTF-8 JSON ---------

from reliability import hostile  # noqa: E402


def _value(v):
    """A generated value as the Python object a JSON parser (or a library caller) would hand in."""
    if isinstance(v, hostile.Raw):
        if v.text[:1] in "[{":
            depth = v.text.count("[") + v.text.count("{")
            out: object = 1
            for _ in range(depth):
                out = [out] if v.text[0] == "[" else {"k": out}
            return out
        return {
            "NaN": float("nan"),
            "Infinity": float("inf"),
            "-Infinity": float("-inf"),
            "1e400": float("inf"),
            "-1e400": float("-inf"),
            "-0": 0,
            "1E-400": 0.0,
        }.get(v.text, 10**5000)
    if isinstance(v, dict):
        return {k: _value(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_value(x) for x in v]
    return v


@given(raw=hostile.hostile_json)
@settings(
    max_examples=EXAMPLES * 5,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
def test_a_value_is_refused_with_its_path_or_round_trips_exactly(raw) -> None:
    from neuralgentics import jsonsafe
    from neuralgentics.memini.store.repair import Repairs, fix_json_value

    value = _value(raw)
    found = jsonsafe.problem({"metadata": value})
    if found is None:
        text = json.dumps(value, allow_nan=False, ensure_ascii=False).encode("utf-8")
        assert json.loads(text) == value
    else:
        assert found.field.startswith("metadata") and found.message
        str(found).encode("utf-8")  # the error itself can always be sent
    # what the read path shows for a stored value is always sendable, however bad it was
    shown = fix_json_value(value, Repairs("memory", "x"), "metadata")
    json.dumps(shown, allow_nan=False, ensure_ascii=False).encode("utf-8")
