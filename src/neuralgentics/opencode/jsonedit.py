"""Leaf-level edits of a JSON document that can be undone exactly.

The installer never replaces a user's value: it adds the keys that are missing, records each
one, and on uninstall removes only those that still hold what it wrote.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from neuralgentics import errors
from neuralgentics.jsonc import JsonTextError, check_limits

JsonPath = tuple[str, ...]
_ABSENT = object()


class JsonFileError(errors.InvalidConfig, ValueError):
    """The file cannot be read as JSON; the message names it and the position."""


def read_json_file(path: Path) -> dict[str, Any]:
    """A JSON object from ``path`` ({} when missing). JSONC is accepted only when it has no comments."""
    if not path.exists():
        return {}
    text = path.read_text(encoding="utf-8")
    if not text.strip():
        return {}
    try:
        check_limits(text, str(path))  # the stdlib parser recurses: a deep file is refused first
    except JsonTextError as exc:
        raise JsonFileError(exc.message) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        hint = ""
        if re.search(r"(^|\s)//|/\*", text):
            hint = (
                " (it has comments; Neuralgentics edits plain JSON only, so it would lose them —"
                " remove the comments or add the entries by hand, see docs/opencode.md)"
            )
        raise JsonFileError(
            f"{path}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}{hint}"
        ) from None
    if not isinstance(data, dict):
        raise JsonFileError(f"{path}: the top level must be a JSON object")
    return data


def dump_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def get_path(doc: dict[str, Any], path: JsonPath) -> Any:
    node: Any = doc
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return _ABSENT
        node = node[key]
    return node


def is_absent(value: Any) -> bool:
    return value is _ABSENT


@dataclass
class EditLog:
    """What a merge did, in JSON-friendly form (stored in the install manifest)."""

    set: list[dict[str, Any]] = field(default_factory=list)
    created: list[list[str]] = field(default_factory=list)
    kept: list[dict[str, Any]] = field(default_factory=list)
    # items appended to a list (OpenCode's `plugin` array): {"path": [...], "value": item}
    appended: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "set": self.set,
            "created": self.created,
            "kept": self.kept,
            "appended": self.appended,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EditLog:
        return cls(
            set=list(data.get("set", [])),
            created=list(data.get("created", [])),
            kept=list(data.get("kept", [])),
            appended=list(data.get("appended", [])),
        )

    @property
    def changed(self) -> bool:
        return bool(self.set or self.appended)


def merge_leaf(doc: dict[str, Any], path: JsonPath, value: Any, log: EditLog) -> None:
    """Set ``path`` to ``value`` unless the user already has a value there (then keep theirs)."""
    current = get_path(doc, path)
    if not is_absent(current):
        if current != value:
            log.kept.append({"path": list(path), "yours": current, "ours": value})
        return
    node = doc
    for i, key in enumerate(path[:-1]):
        child = node.get(key, _ABSENT)
        if is_absent(child):
            child = {}
            node[key] = child
            log.created.append(list(path[: i + 1]))
        elif not isinstance(child, dict):
            # A scalar where we need an object is the user's: keep it, skip ours.
            log.kept.append({"path": list(path[: i + 1]), "yours": child, "ours": {}})
            return
        node = child
    node[path[-1]] = value
    log.set.append({"path": list(path), "value": value})


def append_item(
    doc: dict[str, Any],
    path: JsonPath,
    value: Any,
    log: EditLog,
    same: Any = None,
) -> None:
    """Append ``value`` to the list at ``path`` (created when absent) unless an item ``same``
    says is ours is already there (then the user's stays, reported as kept)."""
    current = get_path(doc, path)
    if is_absent(current):
        parent = get_path(doc, path[:-1]) if len(path) > 1 else doc
        if not isinstance(parent, dict):
            log.kept.append({"path": list(path[:-1]), "yours": parent, "ours": {}})
            return
        current = parent[path[-1]] = []
        # a container of ours: undo removes it once it is empty again
        log.created.append(list(path))
    if not isinstance(current, list):
        log.kept.append({"path": list(path), "yours": current, "ours": [value]})
        return
    match = same or (lambda item: item == value)
    found = next((item for item in current if match(item)), _ABSENT)
    if not is_absent(found):
        if found != value:
            log.kept.append({"path": list(path), "yours": found, "ours": value})
        return
    current.append(value)
    log.appended.append({"path": list(path), "value": value})


def undo(doc: dict[str, Any], log: EditLog) -> list[str]:
    """Remove what ``log`` added and still holds our value; return notes on what was left."""
    notes: list[str] = []
    for entry in reversed(log.appended):
        items = get_path(doc, tuple(entry["path"]))
        if isinstance(items, list) and entry["value"] in items:
            items.remove(entry["value"])
        elif isinstance(items, list):
            notes.append(f"left {'.'.join(entry['path'])}: our entry was changed since install")
    for entry in reversed(log.set):
        path = tuple(entry["path"])
        current = get_path(doc, path)
        if is_absent(current):
            continue
        if current != entry["value"]:
            notes.append(f"left {'.'.join(path)}: changed since install")
            continue
        parent = get_path(doc, path[:-1]) if len(path) > 1 else doc
        del parent[path[-1]]
    for created in sorted(log.created, key=len, reverse=True):
        path = tuple(created)
        node = get_path(doc, path)
        if isinstance(node, dict | list) and not node:
            parent = get_path(doc, path[:-1]) if len(path) > 1 else doc
            del parent[path[-1]]
    return notes
