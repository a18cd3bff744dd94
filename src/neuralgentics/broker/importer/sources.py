"""Where MCP servers are already configured, and reading those files.

Four shapes, told apart by their top-level key:

| shape | file | key | entry |
|---|---|---|---|
| opencode | ``opencode.json[c]`` (project, ``~/.config/opencode/``) | ``mcp`` | ``{type: local, command: [..], environment}`` / ``{type: remote, url, headers}`` |
| claude | ``claude_desktop_config.json`` | ``mcpServers`` | ``{command, args, env}`` (also ``url``/``headers``/``type``) |
| cursor | ``.cursor/mcp.json`` (project, ``~/.cursor/``) | ``mcpServers`` | as claude; ``${env:VAR}``, ``${workspaceFolder}`` |
| vscode | ``.vscode/mcp.json``, the user's ``Code/User/mcp.json`` | ``servers`` | ``{type: stdio|http|sse, command, args, env, url, headers}``; ``${input:id}``, ``${env:VAR}`` |

JSONC (comments, trailing commas) is read by ``neuralgentics.jsonc`` (bounded: size, depth).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from neuralgentics import errors
from neuralgentics.jsonc import JsonTextError
from neuralgentics.jsonc import loads as jsonc_loads

Kind = Literal["opencode", "claude", "cursor", "vscode"]
KEYS: dict[str, Kind] = {"mcp": "opencode", "servers": "vscode"}


class SourceError(errors.InvalidInput, ValueError):
    """A file that cannot be imported from; the message names it and why."""


@dataclass(frozen=True)
class Source:
    path: Path
    kind: Kind
    # the directory ${workspaceFolder} stands for (a project file's project; else None)
    workspace: Path | None
    entries: dict[str, Any]


def _user_dirs(env: Mapping[str, str], home: Path) -> dict[str, Path]:
    xdg = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    if sys.platform == "darwin":
        support = home / "Library" / "Application Support"
        return {"claude": support / "Claude", "code": support / "Code" / "User"}
    if sys.platform == "win32":
        appdata = Path(env.get("APPDATA") or home / "AppData" / "Roaming")
        return {"claude": appdata / "Claude", "code": appdata / "Code" / "User"}
    return {"claude": xdg / "Claude", "code": xdg / "Code" / "User", "xdg": xdg}


def default_paths(project: Path, env: Mapping[str, str]) -> list[Path]:
    """The files looked at when none is named: the project's, then the user's (those that
    exist). ``env``: the environment (HOME, XDG_CONFIG_HOME, APPDATA)."""
    home = Path(env["HOME"]) if env.get("HOME") else Path.home()
    user = _user_dirs(env, home)
    xdg = user.get("xdg", home / ".config")
    candidates = [
        project / "opencode.json",
        project / "opencode.jsonc",
        project / ".vscode" / "mcp.json",
        project / ".cursor" / "mcp.json",
        xdg / "opencode" / "opencode.json",
        xdg / "opencode" / "opencode.jsonc",
        user["claude"] / "claude_desktop_config.json",
        user["code"] / "mcp.json",
        home / ".cursor" / "mcp.json",
    ]
    seen: set[Path] = set()
    out = []
    for p in candidates:
        if p.is_file() and p.resolve() not in seen:
            seen.add(p.resolve())
            out.append(p)
    return out


def _kind_of(path: Path, data: dict[str, Any]) -> Kind:
    if "mcpServers" in data:
        return "cursor" if path.parent.name == ".cursor" else "claude"
    for key, kind in KEYS.items():
        if key in data:
            return kind
    raise SourceError(
        f"{path}: no MCP servers here (expected a top-level 'mcp' (opencode.json), "
        "'mcpServers' (claude_desktop_config.json, .cursor/mcp.json) or 'servers' "
        "(.vscode/mcp.json))"
    )


def read_source(path: Path, project: Path | None = None) -> Source:
    """Parse one file; its shape is told by its top-level key."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SourceError(f"{path}: no such file") from None
    except OSError as exc:
        raise SourceError(f"{path}: cannot read it ({exc.strerror})") from None
    try:
        data = jsonc_loads(text, str(path)) if text.strip() else {}
    except JsonTextError as exc:
        raise SourceError(exc.message) from None
    if not isinstance(data, dict):
        raise SourceError(f"{path}: the top level must be an object")
    kind = _kind_of(path, data)
    key = {"opencode": "mcp", "vscode": "servers"}.get(kind, "mcpServers")
    entries = data.get(key)
    if not isinstance(entries, dict):
        raise SourceError(f"{path}: '{key}' must be an object of servers")
    # ${workspaceFolder}: the folder that holds .vscode/ or .cursor/, else the project's
    in_dot_dir = path.parent.name in (".vscode", ".cursor")
    workspace = path.parent.parent if in_dot_dir else project
    return Source(path=path, kind=kind, workspace=workspace, entries=entries)


def has_comments(path: Path) -> bool:
    """Whether rewriting the file as plain JSON would lose comments."""
    import json

    try:
        json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return True
    return False
