"""Hypothesis strategies for hostile input (issue 13, finding 8): text with lone surrogates, NUL
and control characters, numbers JSON cannot write back (NaN, Infinity, 1e400, 5,000 digits),
JSON nested far deeper than the recursion limit, and parameters repeated hundreds of times.

Values are turned into bytes here, the way an attacker would send them: JSON bodies with
`\\ud800` escapes and `NaN` tokens (an HTTP client cannot encode a lone surrogate itself), deep
nesting written as text (json.dumps would hit the recursion limit first), query and path values
percent-encoded from their UTF-8 bytes (surrogates via surrogatepass).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from urllib.parse import quote

from hypothesis import strategies as st

# One of each kind, so every run meets them, not only when the random text happens to.
SHARP = [
    "\x00",
    "\ud800",
    "\udfff",
    "\udc80",
    "\ud83d",
    "\x01",
    "\x1b[31m",
    "\x7f",
    "\u2028",
    "\u202e",
    "\ufeff",
    "\ufffd",
    "\r\n",
    "'",
    '"',
    "\\",
    "%00",
    "../",
    "\U0010ffff",
]

any_char = st.characters(
    codec=None, categories=["Cs", "Cc", "Cf", "Co", "Cn", "Zl", "Zp", "L", "N", "P", "S", "Zs"]
)
hostile_text = st.one_of(
    st.text(alphabet=any_char, max_size=24),
    st.lists(st.one_of(st.sampled_from(SHARP), st.text(max_size=4)), min_size=1, max_size=6).map(
        "".join
    ),
    st.sampled_from(SHARP),
)


@dataclass(frozen=True)
class Raw:
    """JSON text to splice in as is: what json.dumps cannot produce."""

    text: str


def deep(depth: int, kind: str) -> Raw:
    opener, closer = ("[", "]") if kind == "list" else ('{"k":', "}")
    return Raw(opener * depth + "1" + closer * depth)


deep_values = st.builds(deep, st.integers(20, 3000), st.sampled_from(["list", "dict"]))
odd_numbers = st.one_of(
    st.sampled_from(
        [
            Raw("NaN"),
            Raw("Infinity"),
            Raw("-Infinity"),
            Raw("1e400"),
            Raw("-1e400"),
            Raw("9" * 5000),
            Raw("-0"),
            Raw("1E-400"),
        ]
    ),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(2**80), max_value=2**80),
)
leaf = st.one_of(st.none(), st.booleans(), odd_numbers, hostile_text)
hostile_json = st.one_of(
    st.recursive(
        leaf,
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(hostile_text, inner, max_size=4)
        ),
        max_leaves=10,
    ),
    deep_values,
)


def to_json(value: object) -> str:
    """JSON text, surrogates as `\\uXXXX` escapes, NaN/Infinity as tokens, Raw spliced in."""
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(str(k))}:{to_json(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(to_json(v) for v in value) + "]"
    return json.dumps(value)  # ensure_ascii: a lone surrogate becomes its escape


def url_part(text: str) -> str:
    """A query or path value as bytes on the wire (lone surrogates via surrogatepass)."""
    return quote(text.encode("utf-8", "surrogatepass"), safe="")


def kinds(value: object) -> set[str]:
    """Which hostile kinds a generated value holds (for the run's tally)."""
    found: set[str] = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, Raw):
            found.add("deep nesting" if v.text[:1] in "[{" else "non-JSON number")
        elif isinstance(v, float) and not math.isfinite(v):
            found.add("non-JSON number")
        elif isinstance(v, str):
            if any(0xD800 <= ord(c) <= 0xDFFF for c in v):
                found.add("lone surrogate")
            if "\x00" in v:
                found.add("NUL")
            if any(ord(c) < 0x20 or ord(c) == 0x7F for c in v if c != "\x00"):
                found.add("control character")
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
    return found
