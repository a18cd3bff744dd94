"""Languages the chunker understands: file names → grammar, and which nodes are definitions.

Grammars come from the tree-sitter organisation's per-language wheels, which ship compiled
parsers; tree-sitter-language-pack >= 1.0 fetches grammars from the network at run time, which
an offline machine cannot do.
"""

from __future__ import annotations

import importlib
import os
import threading
from dataclasses import dataclass, field

from tree_sitter import Language, Node, Parser


@dataclass(frozen=True)
class LanguageSpec:
    name: str
    module: str
    entry: str = "language"
    # node type → kind of definition it is
    definitions: dict[str, str] = field(default_factory=dict)
    # definitions whose members become chunks of their own when the whole is too large
    containers: frozenset[str] = frozenset()
    # nodes that wrap a definition (decorators, export) and the field that holds it
    wrappers: dict[str, str] = field(default_factory=dict)


_JS_DEFS = {
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "class_declaration": "class",
    "abstract_class_declaration": "class",
    "method_definition": "method",
    "interface_declaration": "interface",
    "type_alias_declaration": "type",
    "enum_declaration": "enum",
    "module": "module",
    "internal_module": "namespace",
    "lexical_declaration": "function",
    "variable_declaration": "function",
}
_JS_CONTAINERS = frozenset(
    {
        "class_declaration",
        "abstract_class_declaration",
        "interface_declaration",
        "module",
        "internal_module",
    }
)
_C_DEFS = {
    "function_definition": "function",
    "struct_specifier": "struct",
    "union_specifier": "union",
    "enum_specifier": "enum",
}
_CPP_DEFS = {
    **_C_DEFS,
    "class_specifier": "class",
    "namespace_definition": "namespace",
    "template_declaration": "template",
}

SPECS: dict[str, LanguageSpec] = {
    spec.name: spec
    for spec in (
        LanguageSpec(
            "python",
            "tree_sitter_python",
            definitions={"function_definition": "function", "class_definition": "class"},
            containers=frozenset({"class_definition"}),
            wrappers={"decorated_definition": "definition"},
        ),
        LanguageSpec(
            "javascript",
            "tree_sitter_javascript",
            definitions=_JS_DEFS,
            containers=_JS_CONTAINERS,
            wrappers={"export_statement": "declaration"},
        ),
        LanguageSpec(
            "typescript",
            "tree_sitter_typescript",
            "language_typescript",
            definitions=_JS_DEFS,
            containers=_JS_CONTAINERS,
            wrappers={"export_statement": "declaration"},
        ),
        LanguageSpec(
            "tsx",
            "tree_sitter_typescript",
            "language_tsx",
            definitions=_JS_DEFS,
            containers=_JS_CONTAINERS,
            wrappers={"export_statement": "declaration"},
        ),
        LanguageSpec(
            "go",
            "tree_sitter_go",
            definitions={
                "function_declaration": "function",
                "method_declaration": "method",
                "type_declaration": "type",
            },
        ),
        LanguageSpec(
            "rust",
            "tree_sitter_rust",
            definitions={
                "function_item": "function",
                "impl_item": "impl",
                "struct_item": "struct",
                "enum_item": "enum",
                "trait_item": "trait",
                "mod_item": "module",
                "macro_definition": "macro",
                "union_item": "union",
            },
            containers=frozenset({"impl_item", "trait_item", "mod_item"}),
        ),
        LanguageSpec(
            "java",
            "tree_sitter_java",
            definitions={
                "class_declaration": "class",
                "interface_declaration": "interface",
                "enum_declaration": "enum",
                "record_declaration": "record",
                "annotation_type_declaration": "annotation",
                "method_declaration": "method",
                "constructor_declaration": "constructor",
            },
            containers=frozenset(
                {
                    "class_declaration",
                    "interface_declaration",
                    "enum_declaration",
                    "record_declaration",
                }
            ),
        ),
        LanguageSpec("c", "tree_sitter_c", definitions=_C_DEFS),
        LanguageSpec(
            "cpp",
            "tree_sitter_cpp",
            definitions=_CPP_DEFS,
            containers=frozenset({"class_specifier", "struct_specifier", "namespace_definition"}),
        ),
        LanguageSpec(
            "ruby",
            "tree_sitter_ruby",
            definitions={
                "method": "method",
                "singleton_method": "method",
                "class": "class",
                "module": "module",
                "singleton_class": "class",
            },
            containers=frozenset({"class", "module", "singleton_class"}),
        ),
        LanguageSpec(
            "markdown",
            "tree_sitter_markdown",
            definitions={"section": "section"},
            containers=frozenset({"section"}),
        ),
    )
}

EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".pyw": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".rb": "ruby",
    ".rake": "ruby",
    ".gemspec": "ruby",
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdx": "markdown",
}
# Text without a grammar here: indexed by line windows, labelled with a useful language name.
PLAIN_LANGUAGES: dict[str, str] = {
    ".txt": "text",
    ".rst": "rst",
    ".toml": "toml",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".json": "json",
    ".ini": "ini",
    ".cfg": "ini",
    ".sh": "shell",
    ".bash": "shell",
    ".zsh": "shell",
    ".sql": "sql",
    ".html": "html",
    ".css": "css",
    ".scss": "scss",
    ".kt": "kotlin",
    ".swift": "swift",
    ".cs": "csharp",
    ".php": "php",
    ".lua": "lua",
    ".scala": "scala",
    ".ex": "elixir",
    ".exs": "elixir",
    ".hs": "haskell",
    ".xml": "xml",
    ".vue": "vue",
    ".svelte": "svelte",
    ".proto": "protobuf",
    ".tf": "terraform",
}
NAMED_FILES: dict[str, str] = {
    "Dockerfile": "dockerfile",
    "Makefile": "make",
    "Rakefile": "ruby",
    "Gemfile": "ruby",
    "CMakeLists.txt": "cmake",
    "Justfile": "make",
}


def language_of(path: str) -> str:
    name = os.path.basename(path)
    if name in NAMED_FILES:
        return NAMED_FILES[name]
    ext = os.path.splitext(name)[1].lower()
    return EXTENSIONS.get(ext) or PLAIN_LANGUAGES.get(ext) or "text"


_local = threading.local()
_languages: dict[str, Language] = {}
_lock = threading.Lock()


def parser_for(language: str) -> Parser | None:
    """A parser for `language` (one per thread: parsers are not thread-safe), or None."""
    spec = SPECS.get(language)
    if spec is None:
        return None
    parsers: dict[str, Parser] = getattr(_local, "parsers", None) or {}
    _local.parsers = parsers
    if language not in parsers:
        with _lock:
            if language not in _languages:
                try:
                    module = importlib.import_module(spec.module)
                except ImportError:
                    return None
                _languages[language] = Language(getattr(module, spec.entry)())
        parsers[language] = Parser(_languages[language])
    return parsers[language]


def definition_name(spec: LanguageSpec, node: Node, source: bytes) -> str | None:
    """The name a definition node declares, where the grammar lets us find one."""

    def text(n: Node | None) -> str | None:
        return source[n.start_byte : n.end_byte].decode("utf-8", "replace") if n else None

    t = node.type
    if spec.name == "markdown":
        for child in node.named_children:
            if child.type in ("atx_heading", "setext_heading"):
                content = child.child_by_field_name("heading_content")
                raw = text(content) or text(child) or ""
                return raw.strip().lstrip("#").strip() or None
        return None
    if t in ("lexical_declaration", "variable_declaration"):
        for decl in node.named_children:
            value = decl.child_by_field_name("value")
            if value is not None and value.type in (
                "arrow_function",
                "function_expression",
                "function",
                "class",
                "generator_function",
            ):
                return text(decl.child_by_field_name("name"))
        return None
    if t == "impl_item":
        trait, typ = node.child_by_field_name("trait"), node.child_by_field_name("type")
        return f"{text(trait)} for {text(typ)}" if trait else text(typ)
    if t == "type_declaration":
        for child in node.named_children:
            if child.type in ("type_spec", "type_alias"):
                return text(child.child_by_field_name("name"))
        return None
    if t == "template_declaration":
        for child in node.named_children:
            if child.type in _CPP_DEFS:
                return definition_name(spec, child, source)
        return None
    if t == "function_definition" and spec.name in ("c", "cpp"):
        declarator = node.child_by_field_name("declarator")
        while declarator is not None and declarator.type not in (
            "identifier",
            "field_identifier",
            "qualified_identifier",
            "destructor_name",
            "operator_name",
        ):
            declarator = declarator.child_by_field_name("declarator")
        return text(declarator)
    return text(node.child_by_field_name("name"))


def is_definition(spec: LanguageSpec, node: Node, source: bytes) -> bool:
    if node.type not in spec.definitions:
        return False
    if node.type in ("lexical_declaration", "variable_declaration"):
        # only `const f = () => ...` and friends; plain variables stay with their neighbours
        return definition_name(spec, node, source) is not None
    if node.type in ("struct_specifier", "union_specifier", "enum_specifier", "class_specifier"):
        return node.child_by_field_name("body") is not None
    return True
