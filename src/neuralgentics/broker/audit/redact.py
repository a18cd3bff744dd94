"""Keeping secrets out of audit records, wherever in the record they would land.

Three layers, all applied to every string of a record (argument values and keys, the error
text, the rule):

1. **Secret keys**: the value of an argument whose key names a secret (``api_key``,
   ``password``, ``passphrase``, ``Authorization`` …) is replaced whole, at any depth.
2. **Those values, everywhere**: each such value (every string or number under a secret key)
   is also scrubbed from the rest of the record — a schema-validation message or a downstream
   error that quotes it (``'sk-live-…' is not of type 'integer'``) loses it too.
3. **Secret shapes**: patterns for what is a secret whatever its key is called: bearer/token
   headers, provider keys (``sk-…``, ``ghp_…``, ``xoxb-…``, ``AKIA…``, ``AIza…``, ``glpat-…``
   …), JWTs, passwords in URLs (``postgresql://user:PW@``) and in query strings
   (``?api_key=``), ``password=…`` pairs, private-key blocks.

Redaction is bounded like the record (depth, items, string length) and never recurses, so a
hostile argument cannot make it fail: the record is always written.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable
from typing import Any

from neuralgentics.secret_shapes import PREFIX, TOKEN_SHAPES

REDACTED = "[REDACTED]"

# Keys whose values are secrets (matched anywhere in the key, case-insensitive).
_SECRET_KEY = re.compile(
    r"passw|passphrase|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth"
    r"|credential|cookie|bearer|signature|session[_-]?id|^key$|[_-]key$|otp$|^pin$|^pw$|dsn$"
    r"|connection[_-]?string|client[_-]?secret",
    re.IGNORECASE,
)

# A value scrubbed from the rest of the record must be long enough that replacing it cannot
# wipe ordinary text: a 1-2 character "secret" protects nothing anyway.
MIN_SCRUBBED_CHARS = 3

_ANY_KEY_NAME = (
    r"[\w.-]*(?:passw(?:or)?d|passphrase|pwd|secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|account[_-]?key|client[_-]?secret|credential|signature"
    r"|auth[_-]?token)[\w.-]*"
)
_VALUE_CHARS = r"[A-Za-z0-9._~+/=:-]"

# (pattern, replacement). Order matters: block and URL shapes before the generic ones.
_SHAPES: list[tuple[re.Pattern[str], str]] = [
    # PEM / OpenSSH private keys (the whole block, or from its header to the end when cut)
    (
        re.compile(
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\Z)",
            re.S,
        ),
        REDACTED,
    ),
    (re.compile(r"PuTTY-User-Key-File-\d+:.*?(?:Private-MAC: *\S+|\Z)", re.S), REDACTED),
    # URL user info: scheme://user:PASSWORD@host
    (
        re.compile(r"(?i)\b([a-z][a-z0-9+.-]{1,20}://[^/\s:@'\"]*:)[^@\s/'\"]+@"),
        r"\1" + REDACTED + "@",
    ),
    # query / form parameters with secret names: ?api_key=…&access_token=…
    (
        re.compile(r"(?i)([?&;](?:" + _ANY_KEY_NAME + r"|key|sig|code)=)[^&\s#'\"]+"),
        r"\1" + REDACTED,
    ),
    # Authorization-style schemes with any whitespace before and after: Bearer x, Token x,
    # Basic x. "token"/"basic" are English words too, so their value must look like one.
    (re.compile(r"(?i)\b(bearer|digest)(\s+)" + _VALUE_CHARS + r"{4,}"), r"\1\2" + REDACTED),
    (
        re.compile(
            r"(?i)(authorization['\"]?\s*[:=]\s*['\"]?)((?:bearer|basic|digest|token|negotiate)\s+)?[^\s'\",;]+"
        ),
        r"\1\2" + REDACTED,
    ),
    (
        re.compile(
            r"(?i)\b(token|apikey|api-key|basic)(\s+)(?="
            + _VALUE_CHARS
            + r"*(?:[\d=+/_]|(?-i:[a-z][A-Z])))"
            + _VALUE_CHARS
            + r"{6,}"
        ),
        r"\1\2" + REDACTED,
    ),
    (re.compile(r"(?i)\b(token)(\s+)" + _VALUE_CHARS + r"{20,}"), r"\1\2" + REDACTED),
    # key = value / key: value / 'key': 'value' / "key": "value" in free text (repr, JSON, env);
    # a quoted value is redacted up to its closing quote (a passphrase has spaces)
    (
        re.compile(r"(?i)(['\"]?" + _ANY_KEY_NAME + r"['\"]?\s*[:=]\s*)(['\"])(.*?)(\2)"),
        r"\1\2" + REDACTED + r"\4",
    ),
    (
        re.compile(
            r"(?i)(['\"]?"
            + _ANY_KEY_NAME
            + r"['\"]?\s*[:=]\s*)(?!['\"]|\[REDACTED\])([^\s'\",;&}\])]+)"
        ),
        r"\1" + REDACTED,
    ),
    # JSON Web Tokens (also a bare header.payload, cut short: the index's shape needs three parts)
    (re.compile(r"\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"), REDACTED),
    # provider keys and tokens: the table the project index shares (secret_shapes.py)
    *((re.compile(shape), REDACTED) for _, _, shape in TOKEN_SHAPES),
    # shorter sk-/pk-/rk- keys (`sk-live-…`, `rk_test_…`): a redaction too many costs an audit
    # line nothing, while the index would lose a chunk for every such test name
    (re.compile(r"\b(?:sk|pk|rk)[-_](?:live|test|proj|ant|or)?[-_]?[A-Za-z0-9_-]{12,}"), REDACTED),
    # no fixed prefix: audit only (secret_shapes.py says why)
    (re.compile(r"\b(?:SK|AC)[0-9a-f]{32}\b"), REDACTED),  # Twilio
    (re.compile(r"\b[MN][A-Za-z\d]{23,25}\.[\w-]{6}\.[\w-]{27,}"), REDACTED),  # Discord bot token
]


# A necessary condition for every shape above: most strings (paths, names, prose) match
# none, and running every shape costs ~20-100 µs per string on a call's hot path. Words (in
# any case) that may start a shape, a query parameter, and case-sensitive fixed parts:
_MAYBE_WORDS = (
    "private key", "putty", "://", "bearer", "digest", "authoriz", "token", "api-key", "apikey",
    "basic", "passw", "passphrase", "pwd", "secret", "key", "credential", "signature",
)  # fmt: skip
_MAYBE_QUERY = r"[?&;][\w.-]*="
_MAYBE_CASED = (r"eyJ", r"(?:SK|AC)[0-9a-f]{32}", r"\.[\w-]{6}\.", r"\b[spr]k[-_]")
# The whole condition as one pattern (what `maybe_secret` decides, for any text).
_MAYBE = re.compile(
    "(?i:"
    + "|".join(map(re.escape, _MAYBE_WORDS))
    + "|"
    + _MAYBE_QUERY
    + ")|"
    + "|".join(_MAYBE_CASED)
    + "|"
    + PREFIX.pattern
)
# The same condition in parts, for ASCII text (``maybe_secret``). One search of `_MAYBE` costs
# ~0.4 µs per character here (an 800-character argument value: ~0.3 ms, at every call): the
# case-insensitive alternation is tried at every position. ASCII text lower-cased is matched
# by those words exactly as `(?i:)` matches it, and `in` scans at C speed.
_QUERY_RE = re.compile(_MAYBE_QUERY)
_CASED_RE = re.compile("|".join(_MAYBE_CASED) + "|" + PREFIX.pattern)
# Past a few dozen characters, one search per part is faster than one for all (each part
# has a fixed first character or literal to skip to); the two without one are searched only
# when a substring every match contains is there (`\b[spr]k[-_]` alone: 27 µs per 800
# characters).
_CASED_PARTS: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...] = tuple(
    (
        {r"(?:SK|AC)[0-9a-f]{32}": ("SK", "AC"), r"\b[spr]k[-_]": ("k-", "k_")}.get(p, ()),
        re.compile(p),
    )
    for p in (*_MAYBE_CASED, *(pre for _, pre, _ in TOKEN_SHAPES))
)
_SHORT = 64


def maybe_secret(text: str) -> bool:
    """Whether ``text`` may hold a secret shape: exactly ``_MAYBE.search(text) is not None``,
    faster (tests/broker/test_audit_redaction_speed.py compares both)."""
    if not text.isascii():
        return _MAYBE.search(text) is not None  # Unicode case folding: the pattern's own
    low = text.lower()
    for word in _MAYBE_WORDS:
        if word in low:
            return True
    if "=" in text and _QUERY_RE.search(text) is not None:
        return True
    if len(text) < _SHORT:
        return _CASED_RE.search(text) is not None
    for needs, pattern in _CASED_PARTS:
        if needs and not any(n in text for n in needs):
            continue
        if pattern.search(text) is not None:
            return True
    return False


@functools.lru_cache(maxsize=4096)
def is_secret_key(key: str) -> bool:
    return bool(_SECRET_KEY.search(key))


def scrub_shapes(text: str) -> str:
    """``text`` with every secret-shaped part replaced."""
    if len(text) < 6:
        return text
    if len(text) <= _CACHED_CHARS:
        return _scrub_short(text)
    return _scrub(text)


def _scrub(text: str) -> str:
    if not maybe_secret(text):
        return text
    for pattern, repl in _SHAPES:
        text = pattern.sub(repl, text)
    return text


# Names, keys and short values repeat from call to call (the same server, tool, role, session
# and argument keys): remembering their answer keeps the call path at a dict lookup.
_CACHED_CHARS = 128
_scrub_short = functools.lru_cache(maxsize=8192)(_scrub)


def _forms(value: str) -> Iterable[str]:
    """The ways a value can appear in a message: as is, as repr() and JSON would quote it."""
    yield value
    yield repr(value)[1:-1]
    yield json.dumps(value)[1:-1]
    yield json.dumps(value, ensure_ascii=False)[1:-1]


class Scrubber:
    """Removes the known secret values, then secret shapes, from any text."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        forms = {f for s in secrets if len(s) >= MIN_SCRUBBED_CHARS for f in _forms(s)}
        # Longest first, so a secret that contains another is removed whole.
        self._literals = sorted(
            (f for f in forms if len(f) >= MIN_SCRUBBED_CHARS), key=len, reverse=True
        )
        self._literal_re = (
            re.compile("|".join(re.escape(f) for f in self._literals)) if self._literals else None
        )

    def __call__(self, text: str) -> str:
        if self._literal_re is not None:
            text = self._literal_re.sub(REDACTED, text)
        return scrub_shapes(text)


def secret_leaves(value: Any, limit: int = 10_000) -> list[str]:
    """Every string and number inside ``value`` (iteratively, at most ``limit`` nodes)."""
    out: list[str] = []
    stack = [value]
    seen = 0
    while stack and seen < limit:
        v = stack.pop()
        seen += 1
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, bool) or v is None:
            continue
        elif isinstance(v, int | float):
            out.append(str(v))
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list | tuple):
            stack.extend(v)
    return out


def collect_secrets(value: Any, limit: int = 10_000) -> list[str]:
    """Values held under secret keys anywhere in ``value`` (iterative; bounded)."""
    found: list[str] = []
    stack: list[Any] = [value]
    seen = 0
    while stack and seen < limit:
        v = stack.pop()
        seen += 1
        if isinstance(v, dict):
            for k, item in v.items():
                if isinstance(k, str) and is_secret_key(k):
                    found += secret_leaves(item, limit)
                else:
                    stack.append(item)
        elif isinstance(v, list | tuple):
            stack.extend(v)
    return found
