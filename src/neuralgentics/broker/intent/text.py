"""Text analysis shared by tool documents and intents: the same words on both sides.

Identifiers are split (snake, camel, kebab), words are lower-cased and Snowball-stemmed, filler
is dropped, and a small table folds the abbreviations developers type (repo, dir, k8s, PR) into
the words tool descriptions use. The table is general developer vocabulary, not tuned to any
catalog; meaning beyond it is the embeddings' job.
"""

from __future__ import annotations

import re

from neuralgentics.broker.catalog.names import split_identifier
from neuralgentics.text import INTENT_STOPWORDS, stemmer

# Identifier-ish runs: words, snake/kebab/dotted names, camelCase.
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[_\-.][A-Za-z0-9]+)*")

# Folded on both sides (documents and intents), after splitting, before stemming.
_SYNONYMS: dict[str, tuple[str, ...]] = {
    "repo": ("repository",),
    "repos": ("repository",),
    "dir": ("directory",),
    "dirs": ("directory",),
    "folder": ("directory",),
    "folders": ("directory",),
    "k8s": ("kubernetes",),
    "kube": ("kubernetes",),
    "db": ("database",),
    "dbs": ("database",),
    "pr": ("pull", "request"),
    "prs": ("pull", "request"),
    "mr": ("merge", "request"),
    "msg": ("message",),
    "msgs": ("message",),
    "dm": ("direct", "message"),
    "env": ("environment",),
    "config": ("configuration",),
    "cfg": ("configuration",),
    "img": ("image",),
    "pic": ("image",),
    "picture": ("image",),
    "photo": ("image",),
    "screenshot": ("screenshot", "image"),
    "tz": ("timezone",),
    "url": ("url", "link"),
    "urls": ("url", "link"),
    "webpage": ("web", "page"),
    "website": ("web", "site"),
    "info": ("information",),
    "stats": ("statistics",),
    "auth": ("authentication",),
    "creds": ("credentials",),
    "deps": ("dependencies",),
    "ci": ("continuous", "integration"),
    "rm": ("delete",),
    "mkdir": ("create", "directory"),
    "ls": ("list",),
    "cd": ("change", "directory"),
    "cwd": ("current", "directory"),
    "cat": ("read",),
    "grep": ("search",),
    "vm": ("virtual", "machine"),
    "vms": ("virtual", "machine"),
    "ns": ("namespace",),
    "svc": ("service",),
    "js": ("javascript",),
    "ts": ("typescript",),
    "py": ("python",),
    "sql": ("sql", "query"),
    "todo": ("task",),
    "todos": ("task",),
    # Command names and jargon that stand for a service or an act.
    "kubectl": ("kubernetes",),
    "gh": ("github",),
    "tf": ("terraform",),
    "psql": ("postgres",),
    "ps": ("list", "running"),
    "cve": ("vulnerability",),
    "cves": ("vulnerability",),
    "vuln": ("vulnerability",),
    "vulns": ("vulnerability",),
    "lgtm": ("approve",),
    "ticket": ("ticket", "issue"),
    "tickets": ("ticket", "issue"),
    "bug": ("bug", "issue"),
    "bugs": ("bug", "issue"),
    "mail": ("email",),
    "mails": ("email",),
    "e-mail": ("email",),
    "docs": ("documentation",),
    "doc": ("document",),
    "pkg": ("package",),
    "pkgs": ("package",),
    "dep": ("dependency",),
    "lib": ("library",),
    "libs": ("library",),
    "fn": ("function",),
    "func": ("function",),
    "args": ("arguments",),
    "arg": ("argument",),
    "params": ("parameters",),
    "param": ("parameter",),
    "vars": ("variables",),
    "var": ("variable",),
    "prod": ("production",),
    "stg": ("staging",),
    "txn": ("transaction",),
    "pwd": ("password",),
    "perms": ("permissions",),
}

# Verb families whose members tool descriptions and developers use interchangeably.
_VERBS: dict[str, str] = {
    "remove": "delete",
    "erase": "delete",
    "destroy": "delete",
    "drop": "delete",
    "wipe": "delete",
    "purge": "delete",
    "nuke": "delete",
    "trash": "delete",
    "ditch": "delete",
    "display": "show",
    "view": "show",
    "print": "show",
    "look": "show",
    "retrieve": "get",
    "obtain": "get",
    "grab": "get",
    "modify": "update",
    "change": "update",
    "edit": "update",
    "alter": "update",
    "tweak": "update",
    "make": "create",
    "generate": "create",
    "spin": "create",
    "launch": "start",
    "boot": "start",
    "kill": "stop",
    "halt": "stop",
    "terminate": "stop",
    "shutdown": "stop",
    "reboot": "restart",
    "bounce": "restart",
    "find": "search",
    "lookup": "search",
    "locate": "search",
}


# An issue key as trackers write them (PAY-123, ENG-42): it says "issue", not its letters
# ("WEB-7" is not about the web). Standards written the same way (UTF-8, SHA-256,
# CVE-2024-1234) are not issue keys.
_ISSUE_KEY = re.compile(
    r"\b(?!(?:UTF|SHA|AES|ISO|RFC|HTTP|TLS|SSL|CVE|CWE|MD|PEP|IPV|GPT|COVID)-)[A-Z]{2,10}-\d+\b(?!-)"
)


def words(text: str) -> list[str]:
    """Lower-case words of ``text`` with identifiers split into their parts."""
    out: list[str] = []
    text = _ISSUE_KEY.sub("issue", text)
    for raw in _TOKEN.findall(text):
        parts = split_identifier(raw)
        out.extend(parts if parts else [raw.lower()])
    return out


def analyze(text: str) -> list[str]:
    """Index terms: split, filler dropped, abbreviations folded, verbs unified, stemmed."""
    terms: list[str] = []
    for word in words(text):
        if word in INTENT_STOPWORDS:
            continue
        for w in _SYNONYMS.get(word, (word,)):
            w = _VERBS.get(w, w)
            terms.append(w)
    return stemmer().stemWords(terms) if terms else []


# Abbreviations the embedding model reads poorly ("dm", "k8s", "PR"), spelled out in the text
# that is embedded for an intent. Shell commands (ls, rm, cat, grep) stay: they read as
# themselves. Only free-standing words: "notes/todo.md" or "setup.cfg" are left alone.
_READ_AS_THEMSELVES = frozenset("ls rm cd cat grep sql js ts py urls".split())
_SPELLED_OUT = {
    k: " ".join(v)
    for k, v in _SYNONYMS.items()
    if v != (k,) and v[0] != k and k not in _READ_AS_THEMSELVES
}
_FREE_WORD = re.compile(r"(?<![\w./:@#-])[A-Za-z0-9]+(?![\w./:@-])")


def spell_out(text: str) -> str:
    """``dm bob about the PR`` -> ``direct message bob about the pull request`` (for embedding)."""
    text = _ISSUE_KEY.sub(lambda m: f"issue {m.group(0)}", text)
    return _FREE_WORD.sub(lambda m: _SPELLED_OUT.get(m.group(0).lower(), m.group(0)), text)


# Letters glued to digits are one word in a readable name: s3, ec2, k8s, oauth2, base64.
_NAME_PART = re.compile(
    r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+\d+[a-z]*|[A-Z]+\d+[A-Za-z]*|[A-Z]?[a-z]+|[A-Z]+|\d+"
)


def readable_name(name: str) -> str:
    """``s3_list_buckets`` -> ``s3 list buckets``; ``listDirectory`` -> ``list directory``."""
    return " ".join(w.lower() for w in _NAME_PART.findall(name))


def identifiers(text: str) -> set[str]:
    """Identifier-looking runs of ``text`` as written, lower-cased (for exact tool-name hits)."""
    return {m.lower() for m in _TOKEN.findall(text)}
