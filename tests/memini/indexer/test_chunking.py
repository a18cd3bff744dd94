"""Chunks follow the code's own structure, carry symbol and lines, and read well alone."""

from __future__ import annotations

import pytest
from indexer_support import (
    C_SOURCE,
    GO_SOURCE,
    JAVA_SOURCE,
    MD_SOURCE,
    PY_SOURCE,
    RUBY_SOURCE,
    RUST_SOURCE,
    TS_SOURCE,
)

from neuralgentics.memini.indexer.chunking import MAX_LINES, OVERLAP, PART_LINES, chunk_file, render


def symbols(language: str, source: str) -> dict[str | None, tuple[int, int, str]]:
    return {c.symbol: (c.start_line, c.end_line, c.kind) for c in chunk_file("f", language, source)}


@pytest.mark.parametrize(
    ("language", "source", "expected"),
    [
        (
            "python",
            PY_SOURCE,
            {"compute_invoice_total": (6, 9, "function"), "PaymentGateway": (12, 19, "class")},
        ),
        (
            "typescript",
            TS_SOURCE,
            {
                "UserProfile": (3, 6, "interface"),
                "parseUserProfile": (8, 11, "function"),
                "loadProfileFromDisk": (13, 14, "function"),
            },
        ),
        (
            "go",
            GO_SOURCE,
            {
                "HealthHandler": (5, 8, "function"),
                "Router": (10, 12, "type"),
                "Register": (14, 16, "method"),
            },
        ),
        ("rust", RUST_SOURCE, {"RingBuffer": (6, 11, "impl")}),
        ("java", JAVA_SOURCE, {"OrderService": (1, 5, "class")}),
        ("c", C_SOURCE, {"count_vowels": (3, 7, "function")}),
        ("ruby", RUBY_SOURCE, {"Greeter": (1, 7, "module")}),
        ("markdown", MD_SOURCE, {"Project handbook": (1, 11, "section")}),
    ],
)
def test_definitions_become_chunks_with_symbol_and_lines(language, source, expected) -> None:
    found = symbols(language, source)
    for symbol, where in expected.items():
        assert found[symbol] == where, (symbol, found)


def test_doc_comments_and_attributes_stay_with_their_definition() -> None:
    go = {c.symbol: c for c in chunk_file("h.go", "go", GO_SOURCE)}
    assert go["HealthHandler"].body.startswith("// HealthHandler answers liveness probes.")
    rust = {
        c.symbol: c
        for c in chunk_file("p.rs", "rust", "/// A point.\n#[derive(Debug)]\nstruct P { x: i32 }\n")
    }
    assert (rust["P"].start_line, rust["P"].end_line) == (1, 3)


def test_module_level_code_is_kept_between_definitions() -> None:
    found = symbols("python", PY_SOURCE)
    assert found[None][:2] == (1, 3)  # module docstring and import


def test_large_class_is_split_into_methods_and_keeps_its_own_lines() -> None:
    methods = "\n".join(
        f"    def handler_{i}(self, event):\n        return self.dispatch(event, {i})\n"
        for i in range(40)
    )
    source = f'class EventBus:\n    """Routes events."""\n    registry = {{}}\n\n{methods}'
    chunks = chunk_file("bus.py", "python", source)
    by_symbol = {c.symbol: c for c in chunks}
    assert by_symbol["EventBus"].body.startswith("class EventBus:")
    assert by_symbol["EventBus"].end_line == 3
    assert by_symbol["EventBus.handler_7"].kind == "method"
    assert "return self.dispatch(event, 7)" in by_symbol["EventBus.handler_7"].body


def test_large_function_is_split_with_its_signature_repeated() -> None:
    body = "\n".join(f"    total += weight_{i} * value_{i}" for i in range(150))
    source = f"def weighted_sum(values, weights):\n    total = 0\n{body}\n    return total\n"
    parts = chunk_file("w.py", "python", source)
    assert len(parts) > 1
    assert all(p.symbol == "weighted_sum" and p.parts == len(parts) for p in parts)
    assert [p.part for p in parts] == list(range(1, len(parts) + 1))
    for p in parts[1:]:
        assert p.body.startswith("def weighted_sum(values, weights):\n    …\n")
    # consecutive parts overlap, and together they cover every line
    for a, b in zip(parts, parts[1:]):
        assert b.start_line <= a.end_line
    assert parts[0].start_line == 1 and parts[-1].end_line == 153
    assert all(p.end_line - p.start_line + 1 <= PART_LINES for p in parts)


def test_unknown_language_falls_back_to_overlapping_line_windows() -> None:
    source = "\n".join(f"setting_{i} = {i}" for i in range(100))
    windows = chunk_file("conf.ini", "ini", source)
    assert len(windows) == 3
    assert windows[0].start_line == 1 and windows[0].end_line == PART_LINES
    assert windows[1].start_line == PART_LINES - OVERLAP + 1
    assert windows[-1].end_line == 100
    assert all(w.kind == "lines" and w.symbol is None for w in windows)


def test_small_file_of_unknown_language_is_one_chunk() -> None:
    assert len(chunk_file("notes.txt", "text", "a\nb\nc\n")) == 1
    assert chunk_file("blank.txt", "text", "\n\n  \n") == []
    assert MAX_LINES >= PART_LINES


def test_header_names_path_and_symbol_and_ignores_line_numbers() -> None:
    chunk = next(
        c
        for c in chunk_file("billing/invoice.py", "python", PY_SOURCE)
        if c.symbol == "compute_invoice_total"
    )
    text = render("billing/invoice.py", "python", chunk)
    assert text.splitlines()[0] == "billing/invoice.py · function compute_invoice_total"
    shifted = chunk_file("billing/invoice.py", "python", "\n\n\n" + PY_SOURCE)
    moved = next(c for c in shifted if c.symbol == "compute_invoice_total")
    assert moved.start_line == chunk.start_line + 3
    assert render("billing/invoice.py", "python", moved) == text  # same text: embedding reused


def test_markdown_large_document_is_split_by_sections() -> None:
    sections = "\n".join(
        f"## Topic {i}\n\n" + "\n".join(f"line {j}" for j in range(20)) + "\n" for i in range(5)
    )
    chunks = chunk_file("guide.md", "markdown", "# Guide\n\nIntro.\n\n" + sections)
    names = [c.symbol for c in chunks]
    assert "Guide" in names and "Guide › Topic 3" in names


def test_very_long_lines_are_cut() -> None:
    chunks = chunk_file("data.txt", "text", "x" * 50_000)
    assert len(chunks) == 1 and len(chunks[0].body) < 1_100
