"""Cutting a file into chunks: one per function, class or method, line windows for the rest.

A chunk is what a search hit shows and what gets one embedding, so it should be one idea and
fit the model's window (all-MiniLM-L6-v2 reads ~256 word pieces; longer text is cut off for the
vector, but still found by keywords). Large definitions are split into parts, each repeating the
definition's signature so a part still says what it belongs to. Containers (a class, an impl
block, a markdown section) stay whole when small; when large, their members become chunks and
what is left of the container (fields, docstring, the class line) becomes its own chunk.
Headers carry path and symbol but no line numbers, so an edit above a function does not change
the function's text, and its embedding is reused.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from tree_sitter import Node

from neuralgentics.memini.indexer.languages import (
    SPECS,
    LanguageSpec,
    definition_name,
    is_definition,
    parser_for,
)

log = logging.getLogger(__name__)

MAX_LINES = 60  # a definition up to this long is one chunk
MAX_CHARS = 2_400  # ...and up to this many characters
PART_LINES = 40  # parts of a larger one, and line windows, are this long
OVERLAP = 8  # lines shared by consecutive windows, so text at a boundary is found whole
MAX_LINE_CHARS = 1_000  # a longer line (minified code, data) is cut in the chunk text
SIGNATURE_LINES = 3


@dataclass(frozen=True)
class Chunk:
    start_line: int  # 1-based, inclusive
    end_line: int
    symbol: str | None
    kind: str  # function, method, class, section, lines, ...
    body: str
    part: int = 1
    parts: int = 1


@dataclass(frozen=True)
class _Piece:
    start: int  # 0-based rows, inclusive
    end: int
    symbol: str | None
    kind: str
    signature_end: int | None = None  # last row of the signature, for splitting


def header(path: str, language: str, chunk: Chunk) -> str:
    where = path
    if chunk.symbol:
        where += f" · {chunk.kind} {chunk.symbol}"
    else:
        where += f" · {language}"
    if chunk.parts > 1:
        where += f" (part {chunk.part}/{chunk.parts})"
    return where


def render(path: str, language: str, chunk: Chunk) -> str:
    """The stored and embedded text of a chunk: a header line, then the source."""
    return header(path, language, chunk) + "\n" + chunk.body


def chunk_file(path: str, language: str, text: str) -> list[Chunk]:
    lines = [line.rstrip("\r") for line in text.split("\n")]
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        return []
    spec = SPECS.get(language)
    pieces: list[_Piece] | None = None
    if spec is not None:
        try:
            pieces = _syntax_pieces(spec, text.encode("utf-8"), len(lines))
        except Exception as exc:  # a grammar failure must not lose the file
            log.warning("cannot parse %s as %s (%s); using line windows", path, language, exc)
    if pieces is None:
        pieces = [_Piece(0, len(lines) - 1, None, "lines")]
    chunks: list[Chunk] = []
    for piece in pieces:
        chunks += _split(piece, lines)
    return chunks


# -- syntax ---------------------------------------------------------------------------------


def _last_row(node: Node) -> int:
    end = node.end_point
    # a node ending at column 0 ends on the previous line (markdown sections do)
    return end.row - 1 if end.column == 0 and end.row > node.start_point.row else end.row


def _syntax_pieces(spec: LanguageSpec, source: bytes, n_lines: int) -> list[_Piece]:
    parser = parser_for(spec.name)
    if parser is None:
        raise RuntimeError("grammar not installed")
    tree = parser.parse(source)
    leaves: list[_Piece] = []
    containers: list[_Piece] = []
    _collect(spec, source, tree.root_node, [], leaves, containers)
    n_lines = max(n_lines, 1)
    # Rows of a large container not covered by its members belong to the innermost container.
    owner: list[_Piece | None] = [None] * n_lines
    for container in sorted(containers, key=lambda p: p.start - p.end):
        for row in range(container.start, min(container.end, n_lines - 1) + 1):
            owner[row] = container
    covered = [False] * n_lines
    for leaf in leaves:
        for row in range(leaf.start, min(leaf.end, n_lines - 1) + 1):
            covered[row] = True
    gaps: list[_Piece] = []
    row = 0
    while row < n_lines:
        if covered[row]:
            row += 1
            continue
        start, box = row, owner[row]
        while row < n_lines and not covered[row] and owner[row] is box:
            row += 1
        if box is None:
            gaps.append(_Piece(start, row - 1, None, "lines"))
        else:
            gaps.append(_Piece(start, row - 1, box.symbol, box.kind))
    return sorted(leaves + gaps, key=lambda p: (p.start, p.end))


def _collect(
    spec: LanguageSpec,
    source: bytes,
    node: Node,
    scope: list[str],
    leaves: list[_Piece],
    containers: list[_Piece],
) -> None:
    for child in node.named_children:
        inner = child
        if child.type in spec.wrappers:
            inner = child.child_by_field_name(spec.wrappers[child.type]) or child
        if inner.type == "template_declaration":
            inner = next((c for c in inner.named_children if c.type in spec.definitions), inner)
        if not is_definition(spec, inner, source):
            if child.type in (
                "declaration_list",
                "linkage_specification",
                "preproc_ifdef",
                "preproc_if",
                "preproc_else",
            ):
                _collect(spec, source, child, scope, leaves, containers)
            continue
        name = definition_name(spec, inner, source) or "<anonymous>"
        kind = spec.definitions[inner.type]
        if kind == "function" and scope and spec.name != "markdown":
            kind = "method"
        symbol = " › ".join([*scope, name]) if spec.name == "markdown" else ".".join([*scope, name])
        start, end = _leading_comments(child), _last_row(child)
        if inner.type in spec.containers and _too_big(source, child, start, end):
            container_body = inner.child_by_field_name("body") or inner
            before = len(leaves)
            _collect(spec, source, container_body, [*scope, name], leaves, containers)
            if len(leaves) > before:
                containers.append(_Piece(start, end, symbol, kind))
                continue
        body = inner.child_by_field_name("body")
        sig_end = start
        if body is not None:
            sig_end = body.start_point.row
            line_start = source.rfind(b"\n", 0, body.start_byte) + 1
            if sig_end > start and not source[line_start : body.start_byte].strip():
                sig_end -= 1  # the body opens its own line (Python): the signature ends above
        leaves.append(_Piece(start, end, symbol, kind, min(sig_end, start + SIGNATURE_LINES - 1)))


_ATTACHED = (
    "comment",
    "line_comment",
    "block_comment",
    "attribute_item",
    "decorator",
    "annotation",
    "marker_annotation",
)


def _leading_comments(node: Node) -> int:
    """First row of a definition counting the doc comments and attributes right above it."""
    start = node.start_point.row
    prev = node.prev_named_sibling
    while prev is not None and prev.type in _ATTACHED and _last_row(prev) >= start - 1:
        start = prev.start_point.row
        prev = prev.prev_named_sibling
    return start


def _too_big(source: bytes, node: Node, start: int, end: int) -> bool:
    return end - start + 1 > MAX_LINES or node.end_byte - node.start_byte > MAX_CHARS


# -- sizes ----------------------------------------------------------------------------------


def _clip(line: str) -> str:
    return line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + " …"


def _windows(lines: list[str], start: int, end: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    s = start
    while s <= end:
        e, chars = s, len(_clip(lines[s]))
        while e < end and e - s + 1 < PART_LINES and chars + len(_clip(lines[e + 1])) <= MAX_CHARS:
            e += 1
            chars += len(_clip(lines[e])) + 1
        spans.append((s, e))
        if e >= end:
            break
        s = max(e - OVERLAP + 1, s + 1)
    return spans


def _trim(lines: list[str], start: int, end: int) -> tuple[int, int] | None:
    while start <= end and not lines[start].strip():
        start += 1
    while end >= start and not lines[end].strip():
        end -= 1
    if start > end:
        return None
    text = "".join(lines[start : end + 1])
    # a run of closing brackets left over between members says nothing
    if not any(ch.isalnum() for ch in text):
        return None
    return start, end


def _text(lines: list[str], start: int, end: int) -> str:
    return "\n".join(_clip(line) for line in lines[start : end + 1])


def _split(piece: _Piece, lines: list[str]) -> list[Chunk]:
    span = _trim(lines, piece.start, min(piece.end, len(lines) - 1))
    if span is None:
        return []
    start, end = span
    size = sum(len(_clip(line)) + 1 for line in lines[start : end + 1])
    if end - start + 1 <= MAX_LINES and size <= MAX_CHARS:
        return [Chunk(start + 1, end + 1, piece.symbol, piece.kind, _text(lines, start, end))]
    sig_end = piece.signature_end
    signature = _text(lines, start, min(sig_end, end)) if sig_end is not None else ""
    spans = _windows(lines, start, end)
    chunks = []
    for i, (s, e) in enumerate(spans, 1):
        body = _text(lines, s, e)
        if signature and sig_end is not None and s > sig_end:
            body = signature + "\n    …\n" + body
        chunks.append(Chunk(s + 1, e + 1, piece.symbol, piece.kind, body, i, len(spans)))
    return chunks
