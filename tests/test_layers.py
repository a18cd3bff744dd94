"""The layering of docs/ARCHITECTURE.md, checked against the code.

Two views, both needed: the import statements of every module under src/ (including imports
made inside functions, which a fresh interpreter would not see), and what a fresh interpreter
actually loads when it imports one area's entry module (which a static reading would miss:
a package's __init__ pulling in its siblings, a third-party SDK loaded by a dependency).
"""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

# docs/ARCHITECTURE.md, "Layers": the shared foundations every area may use.
FOUNDATIONS = {
    "errors",
    "token_counts",
    "secret_shapes",
    "exits",
    "config",
    "credentials",
    "service_client",
    "asgi_client",
    "project_credentials",
    "netguard",
    "httpguard",
    "httphead",
    "jsonsafe",
    "jsonc",
    "filemodes",
    "logredact",
    "http_errors",
    "request_text",
    "provided",
    "text",
    "embeddings",
    "db",
    "lazy",
}
# area -> the areas it may import besides the foundations (memini < orchestrator < the rest).
MAY_IMPORT: dict[str, set[str]] = {
    "memini": set(),
    "orchestrator": {"memini"},
    "broker": set(),
    "ui": {"memini", "broker"},
    "opencode": {"memini", "orchestrator", "broker"},
    "app": {"memini", "orchestrator", "broker", "ui", "opencode"},
}
# Foundations stay below every area.
for _name in FOUNDATIONS:
    MAY_IMPORT[_name] = set()


def _area(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""  # "" is the package itself (__version__)


def _is_entry_point(module: str) -> bool:
    """The command modules: `neuralgentics.cli` and each area's `cli` (they sit above the
    composition root: `--local` builds the app in-process)."""
    return module == "neuralgentics.cli" or module.endswith(".cli")


def _modules() -> list[tuple[str, Path]]:
    out = []
    for path in sorted((SRC / "neuralgentics").rglob("*.py")):
        rel = path.relative_to(SRC).with_suffix("")
        out.append((".".join(rel.parts).removesuffix(".__init__"), path))
    return out


def _imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            found += [(node.lineno, n) for n in names[:1]]
            if node.module == "neuralgentics":  # from neuralgentics import errors
                found += [(node.lineno, f"neuralgentics.{a.name}") for a in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
    return [(line, name) for line, name in found if name.split(".")[0] == "neuralgentics"]


def test_every_module_imports_only_what_its_layer_may() -> None:
    problems = []
    for module, path in _modules():
        here = _area(module)
        if _is_entry_point(module) or here not in MAY_IMPORT:
            continue  # entry points may import anything; the package root only holds the version
        allowed = FOUNDATIONS | MAY_IMPORT[here] | {here, ""}
        for line, target in _imports(path):
            there = _area(target)
            if there in ("__version__",):
                continue
            if there not in allowed:
                problems.append(f"{path.relative_to(SRC)}:{line}: {here} imports {target}")
    assert not problems, "imports across the layers:\n" + "\n".join(problems)


AREAS = ("memini", "orchestrator", "broker", "ui", "opencode", "app")


def _cross_area_imports(path: Path, here: str) -> list[tuple[int, str, list[str]]]:
    """(line, module, names) of every import of another area (``names`` empty for a plain
    ``import``), inside functions too."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            mods = [(node.module, [a.name for a in node.names])]
        elif isinstance(node, ast.Import):
            mods = [(a.name, []) for a in node.names]
        else:
            continue
        for module, names in mods:
            parts = module.split(".")
            if parts[0] == "neuralgentics" and len(parts) > 1:
                if parts[1] in AREAS and parts[1] != here:
                    found.append((node.lineno, module, names))
    return found


def test_areas_import_from_each_other_only_what_the_other_exports() -> None:
    """Another area is used through its package's ``__all__`` (``from neuralgentics.memini
    import MemoryService``), never through its submodules (ARCHITECTURE.md, "Public
    surfaces"). The composition root and the commands wire internals: they are exempt."""
    exported = {
        area: set(importlib.import_module(f"neuralgentics.{area}").__all__) for area in AREAS
    }
    problems = []
    for module, path in _modules():
        here = _area(module)
        if _is_entry_point(module) or here == "app" or here not in MAY_IMPORT:
            continue
        for line, target, names in _cross_area_imports(path, here):
            where = f"{path.relative_to(SRC)}:{line}"
            there = target.split(".")[1]
            if target != f"neuralgentics.{there}" or not names:
                problems.append(f"{where}: imports {there}'s internals ({target})")
                continue
            hidden = sorted(set(names) - exported[there])
            if hidden:
                problems.append(f"{where}: {there} does not export {', '.join(hidden)}")
    assert not problems, "imports of another area's internals:\n" + "\n".join(problems)


@pytest.mark.parametrize("area", AREAS)
def test_exported_members(area: str) -> None:
    """Every name in an area's ``__all__`` exists and is importable (as httpx's own test): in a
    fresh interpreter all at once, and here one by one; none is a module (a submodule of the
    same name would rebind it), and the package's table of where each lives lists just these."""
    package = importlib.import_module(f"neuralgentics.{area}")
    names = package.__all__
    assert len(names) == len(set(names)), f"neuralgentics.{area}.__all__ repeats a name"
    where = getattr(package, "_WHERE", None)
    if where is not None:
        assert set(where) == set(names), f"neuralgentics.{area}: _WHERE and __all__ differ"
    if names:
        code = f"from neuralgentics.{area} import {', '.join(names)}"
        run = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
        )
        assert run.returncode == 0, run.stderr[-2000:]
    for name in names:
        value = getattr(package, name)
        assert not isinstance(value, types.ModuleType), f"{area}.{name} is a module"
    with pytest.raises(AttributeError, match="no_such_name"):
        package.no_such_name  # noqa: B018


def test_only_entry_points_read_the_process_settings_and_embedder() -> None:
    """Library code takes Settings and an Embedder; only the composition root and the command
    modules call get_settings() or shared_embedder() (ARCHITECTURE.md, "No singletons")."""
    problems = []
    for module, path in _modules():
        if _is_entry_point(module) or _area(module) == "app" or module == "neuralgentics.config":
            continue
        text = path.read_text(encoding="utf-8")
        for name in ("get_settings", "shared_embedder", "os.environ", "getenv("):
            if name in text:
                problems.append(f"{path.relative_to(SRC)} uses {name}")
    # The broker expands ${VAR} references of its own config file when a server starts: a
    # feature of that file, not a setting (README, "Configuration").
    problems = [p for p in problems if p != "neuralgentics/broker/config.py uses os.environ"]
    # Before importing torch, the reference backend sets its offline and thread defaults.
    problems = [p for p in problems if p != "neuralgentics/embeddings/model.py uses os.environ"]
    assert not problems, "\n".join(problems)


_PROBE = """
import importlib, json, sys
importlib.import_module(sys.argv[1])
print(json.dumps(sorted(sys.modules)))
"""

# entry module -> (neuralgentics areas it must not load, third-party SDKs it must not load)
FRESH: dict[str, tuple[set[str], set[str]]] = {
    # memini's routes: no orchestrator, no dashboard, no broker, no root, no MCP SDK
    "neuralgentics.memini.routes": (
        {"orchestrator", "ui", "broker", "app", "opencode"},
        {"mcp", "onnxruntime", "torch"},
    ),
    "neuralgentics.memini.service": (
        {"orchestrator", "ui", "broker", "app", "opencode"},
        {"mcp", "fastapi", "onnxruntime", "torch"},
    ),
    "neuralgentics.memini.indexer.routes": (
        {"orchestrator", "ui", "broker", "app", "opencode"},
        {"mcp", "onnxruntime", "torch"},
    ),
    "neuralgentics.orchestrator.http": (
        {"ui", "broker", "app", "opencode"},
        {"mcp", "onnxruntime", "torch"},
    ),
    "neuralgentics.orchestrator.service": (
        {"memini", "ui", "broker", "app", "opencode"},
        {"mcp", "fastapi", "onnxruntime", "torch"},
    ),
    "neuralgentics.broker.service": (
        {"memini", "orchestrator", "ui", "app", "opencode"},
        {"fastapi", "onnxruntime", "torch", "psycopg"},
    ),
    "neuralgentics.broker.server.http": (
        {"memini", "orchestrator", "ui", "app", "opencode"},
        {"onnxruntime", "torch"},
    ),
    # the dashboard loads the MCP SDK only when a catalog is asked for (memini-core starts ~1 s
    # sooner without it)
    "neuralgentics.ui.routes": (
        {"orchestrator", "app", "opencode"},
        {"mcp", "onnxruntime", "torch"},
    ),
    "neuralgentics.opencode.installer": (
        {"memini", "ui", "app"},
        {"mcp", "fastapi", "onnxruntime", "torch"},
    ),
    # the shared foundations load no area and no heavy runtime
    "neuralgentics.embeddings": (
        {"memini", "orchestrator", "broker", "ui", "opencode", "app"},
        {"onnxruntime", "torch", "fastapi", "mcp", "psycopg"},
    ),
    "neuralgentics.db.postgres": (
        {"memini", "orchestrator", "broker", "ui", "opencode", "app"},
        {"fastapi", "mcp", "onnxruntime", "torch"},
    ),
    "neuralgentics.text": (
        {"memini", "orchestrator", "broker", "ui", "opencode", "app"},
        {"numpy", "fastapi", "mcp"},
    ),
    # what `neuralgentics broker stdio` (spawned by OpenCode) loads before it serves: not the
    # intent matcher (numpy, bm25s) until a find_tool, nor jsonschema until a call needs it
    "neuralgentics.app.broker": (
        {"memini", "orchestrator", "ui", "opencode"},
        {"fastapi", "onnxruntime", "torch", "psycopg", "numpy", "bm25s", "jsonschema"},
    ),
    # the composed app: every area, but no model runtime until the first embedding, and no
    # MCP SDK (memini-core talks to the broker over REST)
    "neuralgentics.app.core": ({"opencode"}, {"mcp", "onnxruntime", "torch"}),
    # every `neuralgentics broker …` command registers these: no MCP SDK until one talks MCP
    **{
        f"neuralgentics.broker.{area}.cli": (
            {"memini", "orchestrator", "ui", "app", "opencode"},
            {"mcp", "fastapi", "onnxruntime", "torch"},
        )
        for area in ("catalog", "importer", "roles")
    },
    # every `neuralgentics memory …` command registers export/import too: their format's numpy
    # loads only when one of them runs (issue 32 item 11: ~0.15 s of CPU off each `memory add`)
    "neuralgentics.memini.portability.cli": (
        {"orchestrator", "ui", "broker", "app", "opencode"},
        {"numpy", "fastapi", "mcp", "onnxruntime", "torch"},
    ),
    # the command dispatcher alone loads no area (each command imports its own)
    "neuralgentics.cli": (
        {"memini", "orchestrator", "broker", "ui", "opencode", "app", "embeddings"},
        {"fastapi", "mcp", "numpy", "onnxruntime", "torch"},
    ),
}


@pytest.mark.parametrize("module", sorted(FRESH))
def test_a_fresh_interpreter_importing_an_area_loads_only_what_its_layer_allows(
    module: str,
) -> None:
    run = subprocess.run(
        [sys.executable, "-c", _PROBE, module], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr[-2000:]
    loaded = set(json.loads(run.stdout))
    forbidden_areas, forbidden_sdks = FRESH[module]
    areas = {_area(m) for m in loaded if m.startswith("neuralgentics.")}
    sdks = {m.split(".")[0] for m in loaded}
    assert not areas & forbidden_areas, f"{module} loaded {sorted(areas & forbidden_areas)}"
    assert not sdks & forbidden_sdks, f"{module} loaded {sorted(sdks & forbidden_sdks)}"


def test_every_area_and_foundation_is_in_the_table() -> None:
    """A new top-level package must be placed in the layers before it lands."""
    top = {_area(m) for m, _ in _modules()} - {""}
    entry = {"cli"}
    assert top - entry <= set(MAY_IMPORT), (
        f"not in the layer table: {sorted(top - entry - set(MAY_IMPORT))}"
    )


def test_no_production_module_imports_a_test_client() -> None:
    """`memory --local` once ran the app through fastapi's TestClient: a test tool's behaviour
    (its host name, its exception re-raising) in what users run. It is `asgi_client` now."""
    found = [
        f"{module}:{line} {name}"
        for module, path in _modules()
        for line, name in _imports(path)
        if name.split(".")[-1] == "testclient"
    ]
    assert not found, found
