"""Issue 13, finding 14: a name with a trailing newline is not a name.

`re.match(r"^…$")` accepts "time\\n" (`$` also matches before a final newline). Every name
pattern is matched whole (fullmatch); checked here at each door a name comes through, and a
scan of the source keeps `^…$` patterns from coming back."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient
from support.cli import neuralgentics

from neuralgentics.broker.config import ConfigError, parse_config
from neuralgentics.config import Settings
from reliability.broker_proc import time_server, write_config
from reliability.memini_proc import clean_env

SRC = Path(__file__).resolve().parents[2] / "src" / "neuralgentics"
BAD = ["time\n", "time\r\n", "\ntime", "ti me", "time\x00", "t" * 65]


@pytest.mark.parametrize("name", BAD)
def test_broker_config_refuses_the_name(name: str) -> None:
    for section in ("servers", "roles"):
        entry = {"command": "x"} if section == "servers" else {"allow": ["*"]}
        with pytest.raises(ConfigError, match="must be 1-64 letters"):
            parse_config(yaml.safe_dump({section: {name: entry}}))


def test_post_servers_refuses_a_newline_name_and_changes_nothing(tmp_path: Path) -> None:
    from neuralgentics.broker.server.http import create_app

    config = write_config(tmp_path / "broker.yaml", {"time": time_server()})
    before = config.read_text()
    with TestClient(create_app(config, token="t0ken", settings=Settings())) as c:
        for name in BAD:
            r = c.post(
                "/servers",
                json={"name": name, **time_server()},
                headers={"Authorization": "Bearer t0ken"},
            )
            assert r.status_code == 400, (name, r.text)
        r = c.post(
            "/call",
            headers={"Authorization": "Bearer t0ken", "X-Neuralgentics-Role": "coder"},
            json={"server": "time\n", "tool": "get_current_time"},
        )
        assert r.status_code == 400 and "not a valid name" in r.json()["error"]["message"]
    assert config.read_text() == before


def test_cli_and_tokens_refuse_it(tmp_path: Path) -> None:
    from neuralgentics.broker.role_tokens import add_token

    config = write_config(tmp_path / "broker.yaml", {"time": time_server()})
    done = neuralgentics(
        "broker",
        "add",
        "time2\n",
        "--config",
        str(config),
        "--",
        "x",
        env=clean_env(tmp_path / "home"),
    )
    assert done.returncode != 0 and "must be 1-64 letters" in done.stderr
    with pytest.raises(ConfigError, match="label"):
        add_token("coder", "bot\n", config)


def test_orchestrator_names_refuse_it(tmp_path: Path) -> None:
    from neuralgentics.orchestrator.config import load_config
    from neuralgentics.orchestrator.errors import InvalidInput, RosterError
    from neuralgentics.orchestrator.skills import (
        SkillParseError,
        SkillRegistry,
        SkillSource,
        parse_skill,
    )

    (tmp_path / "roster.yaml").write_text(
        yaml.safe_dump({"agents": {"coder\n": {"description": "x"}}})
    )
    with pytest.raises(RosterError, match="not a valid name"):
        load_config(config_dir=tmp_path)
    registry = SkillRegistry([SkillSource("test", tmp_path)])
    with pytest.raises(InvalidInput, match="not valid"):
        registry.get("coder\n")
    with pytest.raises(
        SkillParseError, match="must be lowercase"
    ):  # (surrounding space is stripped)
        parse_skill('---\nid: "co\\nder"\ndescription: d\n---\nbody\n', default_id="x")


def test_no_anchored_name_pattern_is_left_in_src() -> None:
    """`^…$` patterns match a trailing newline; the ones left only parse single lines that
    were split or stripped first (no newline can be in them)."""
    line_parsers = {"SEED_HEADER_RE", "SEED_LINE_RE"}
    found = []
    for path in SRC.rglob("*.py"):
        for m in re.finditer(
            r"^(\w+)\s*=\s*re\.compile\(\s*r?([\"'])\^.*\$\2", path.read_text(), re.M
        ):
            if m.group(1) not in line_parsers:
                found.append(f"{path.relative_to(SRC)}: {m.group(1)}")
    assert not found, found
