"""No dangling references (issue 33, item 10): every file the code and the docs point a reader
to is in the repository, and no module names a path of a development machine."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# What is read: the code and every document a reader is sent to.
READ = ["src", "docs", "skills", "README.md", "AGENTS.md", "CHANGELOG.md"]
SUFFIXES = {".py", ".ts", ".tsx", ".md", ".toml", ".yaml", ".json", ".sh", ".txt"}
# A path from the repository's root (or a notes/ folder that was never in it, also as
# /work/notes/ on a development machine) to a file.
REF = re.compile(
    r"(?:(?<=/work/)|(?<![A-Za-z0-9_./~-]))((?:notes|src/neuralgentics|tests|docs|bench|scripts)/"
    r"[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.(?:py|ts|tsx|md|toml|yaml|json|sh))\b"
)
# Paths in text that are examples, not references.
EXAMPLES = {
    # a word the intent matcher must leave alone
    ("src/neuralgentics/broker/intent/text.py", "notes/todo.md"),
    ("docs/catalog-intent.md", "notes/todo.md"),
}
MACHINE_PATH = re.compile(r"(?<![A-Za-z0-9_.~-])/(?:work|Users|home/(?!me/))[A-Za-z0-9_]")


def _files() -> list[Path]:
    out: list[Path] = []
    for name in READ:
        path = ROOT / name
        if path.is_file():
            out.append(path)
        elif path.is_dir():
            out += [
                p
                for p in sorted(path.rglob("*"))
                if p.is_file() and p.suffix in SUFFIXES and "node_modules" not in p.parts
            ]
    return out


def test_every_file_the_code_and_docs_name_exists() -> None:
    missing = []
    for path in _files():
        rel = path.relative_to(ROOT).as_posix()
        for n, line in enumerate(
            path.read_text(encoding="utf-8", errors="replace").splitlines(), 1
        ):
            for ref in REF.findall(line):
                if (rel, ref) not in EXAMPLES and not (ROOT / ref).exists():
                    missing.append(f"{rel}:{n}: {ref}")
    assert not missing, "references to files not in the repository:\n" + "\n".join(missing)


def test_no_module_names_a_development_machines_path() -> None:
    found = []
    for path in (ROOT / "src").rglob("*"):
        if path.is_file() and path.suffix in SUFFIXES and "node_modules" not in path.parts:
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if MACHINE_PATH.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not found, "\n".join(found)
