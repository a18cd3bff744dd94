"""Tool names: split identifiers into words, and fold shared prefixes into brace groups."""

from __future__ import annotations

import re
from collections.abc import Sequence

# A word is a run of capitals followed by a capitalised word boundary (HTTPServer -> HTTP, Server),
# a capitalised or lowercase run, or digits. Separators (_ - . / : space) just end words.
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
# First segment of an identifier, with the separator that ends it: "read_" / "get" (camel) / "git-".
_HEAD = re.compile(r"^([A-Za-z0-9]+?[_\-.])(?=.)|^([a-z]+)(?=[A-Z])")


def split_identifier(name: str) -> list[str]:
    """``listDirectoryWithSizes`` / ``git_diff-staged`` / ``HTTPServer`` -> lowercase words."""
    return [w.lower() for w in _WORD.findall(name)]


def _head(name: str) -> str | None:
    m = _HEAD.match(name)
    if not m:
        return None
    return m.group(1) or m.group(2)


def group_names(names: Sequence[str]) -> list[str]:
    """Fold names that share a first segment into shell brace groups, keeping first-seen order.

    ``read_file, read_text_file, write_file`` -> ``read_{file,text_file}, write_file``;
    ``getEnv, getTinyImage`` -> ``get{Env,TinyImage}``. Brace expansion gives back the exact
    names, and models read it the way shells do.
    """
    heads: dict[str, list[str]] = {}
    order: list[str] = []
    for name in names:
        head = _head(name)
        key = head if head is not None else f"\0{name}"
        if key not in heads:
            heads[key] = []
            order.append(key)
        heads[key].append(name)
    out: list[str] = []
    for key in order:
        members = heads[key]
        if key.startswith("\0") or len(members) < 2:
            out.extend(members)
        else:
            out.append(key + "{" + ",".join(m[len(key) :] for m in members) + "}")
    return out


def expand_group(item: str) -> list[str]:
    """Inverse of one :func:`group_names` item."""
    m = re.fullmatch(r"(.*?)\{(.*)\}", item)
    if not m:
        return [item]
    return [m.group(1) + rest for rest in m.group(2).split(",")]
