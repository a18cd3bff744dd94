"""A one-sentence server summary when the config gives none, derived from its tools."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from mcp.types import Tool

from neuralgentics.broker.catalog.names import split_identifier
from neuralgentics.text import stemmer

# Verbs and filler that every server's tools share: they say nothing about what a server is for.
_GENERIC = frozenset(
    """a an the and or of to in on for with from by at as is are be this that it its into via
    get gets list lists set sets create creates update updates delete deletes remove removes add
    adds read reads write writes make run runs return returns show shows fetch fetches find search
    use used using given new all any one more multiple specific current information info details
    data value values item items object objects tool tools server servers optional required
    string number boolean id ids name names type types e g eg etc can will may you your if not
    when which their them other than then also only each every per about over under within""".split()
)
_FIRST_SENTENCE = re.compile(r"^(.+?[.!?])(\s|$)", re.S)


def first_sentence(text: str, max_words: int = 16) -> str:
    text = " ".join(text.split())
    m = _FIRST_SENTENCE.match(text)
    sentence = m.group(1) if m else text
    words = sentence.split()
    if len(words) > max_words:
        sentence = " ".join(words[:max_words]).rstrip(",;:") + "…"
    return sentence


def derive_summary(server: str, tools: Sequence[Tool], max_topics: int = 3) -> str:
    """One sentence for a server without a configured summary.

    A single tool speaks for itself (its description's first sentence). Otherwise the summary
    names the topics its tools share: words of tool names (weighted up, they are chosen with
    care) and descriptions, minus generic verbs and the server's own name.
    """
    if not tools:
        return ""
    if len(tools) == 1:
        desc = tools[0].description or ""
        return first_sentence(desc) if desc.strip() else ""
    own = set(split_identifier(server))
    weights: Counter[str] = Counter()
    for tool in tools:
        seen: set[str] = set()
        for word in split_identifier(tool.name):
            if word not in seen:
                weights[word] += 2
                seen.add(word)
        for word in re.findall(r"[a-z]{3,}", first_sentence(tool.description or "", 24).lower()):
            if word not in seen:
                weights[word] += 1
                seen.add(word)
    stem = stemmer().stemWord
    topics: list[str] = []
    stems: set[str] = set()
    for word, n in weights.most_common():
        if n < 2 or word in _GENERIC or word in own or len(word) <= 2:
            continue
        if stem(word) in stems:  # "file" already stands for "files"
            continue
        stems.add(stem(word))
        topics.append(word)
        if len(topics) == max_topics:
            break
    if not topics:
        return ""
    return "Topics: " + ", ".join(topics) + "."
