"""The broker's names for downstream tools, prompts and resources (`broker/namespace.py`)."""

from __future__ import annotations

import re

from neuralgentics.broker.namespace import (
    MAX_NAME,
    NameTable,
    public_name,
    resource_uri,
    split_resource_uri,
)
from neuralgentics.broker.passthrough import RESERVED
from neuralgentics.broker.server.handlers import META_NAMES

MCP_NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}")


def test_names_stay_within_mcp_rules_and_64_characters() -> None:
    assert public_name("everything", "echo") == "everything_echo"
    assert public_name("fs", "read/file:v2") == "fs_read_file_v2"
    long = public_name("a-server-with-a-long-name", "x" * 100)
    assert len(long) == MAX_NAME and MCP_NAME.fullmatch(long)
    assert long != public_name("a-server-with-a-long-name", "x" * 99)  # the hash tells them apart


def test_collisions_and_meta_tool_names_get_distinct_names_that_resolve_back() -> None:
    table = NameTable.build(
        [("a_b", "c"), ("a", "b_c"), ("get", "tool_list"), ("time", "now")], reserved=RESERVED
    )
    names = set(table.by_public)
    assert "a_b_c" in names and len(names) == 4  # one of the pair keeps the plain form
    assert "get_tool_list" not in names  # never shadows a meta-tool
    for public, pair in table.by_public.items():
        assert table.resolve(public) == pair and table.public(*pair) == public
        assert MCP_NAME.fullmatch(public)
    assert table.public("time", "now") == "time_now"


def test_reserved_names_are_the_meta_tools() -> None:
    assert set(RESERVED) == set(META_NAMES)


def test_resource_uris_round_trip() -> None:
    for original in ["demo://resource/static/document/a.md", "file:///tmp/x y", "a/{id}"]:
        assert split_resource_uri(resource_uri("every.thing-1", original)) == (
            "every.thing-1",
            original,
        )
    assert split_resource_uri("demo://resource/x") is None
    assert split_resource_uri("broker://server-only") is None
