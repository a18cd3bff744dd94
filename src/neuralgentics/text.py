"""Words: for every keyword path the Snowball stemmers and the stop-word lists; for messages,
`plural` ("1 file", "2 files").

Three lists, because three keyword paths drop different words, each measured on its own data:
memory search drops only the words that match nearly every row (the SQLite FTS5 and the
PostgreSQL tsvector paths score rare words anyway); code search drops English function words a
question asked in prose is full of; intent matching also drops the filler of requests to an
agent ("please", "help", "tool"). Merging them would move those benchmarks.
"""

from __future__ import annotations

from functools import lru_cache

import Stemmer


@lru_cache(maxsize=2)
def stemmer(algorithm: str = "english") -> Stemmer.Stemmer:
    """PyStemmer's stemmer: "english" (Snowball's Porter2), or "porter" (the original Porter
    algorithm, which SQLite FTS5's porter tokenizer uses). Made once per algorithm: building
    one costs more than stemming a query."""
    return Stemmer.Stemmer(algorithm)


# Memory keyword search (memini store): words that match nearly every row score nothing and cost time.
MEMORY_STOPWORDS = frozenset(
    "a an and are as at be by do does for from has have how i in is it its of on or that the "
    "this to was we what when where which who why will with you".split()
)

# Code search (project index): a question asked in prose ("return the number of nodes in a
# graph") would otherwise match every chunk on "the".
CODE_STOPWORDS = frozenset(
    """
a about above after again against all also am an and any are as at be because been before
being below between both but by can could did do does doing down during each either else
few for from further had has have having he her here hers herself him himself his how i if
in into is it its itself just me more most my myself no nor not of off on once only or other
our ours ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were
what when where which while who whom why will with would you your yours yourself yourselves
given using use used whether returns return
""".split()
)

# Intent matching (broker): English filler plus the words every request to an agent has.
INTENT_STOPWORDS = frozenset(
    """a an the and or but of to in on at by for with from into onto as is are was were be been
    being am do does did doing have has had having it its it's this that these those there here
    i me my mine we us our you your he she they them their what which who whom whose when where
    why how can could would should will shall may might must please want wanted need needs
    needed like just also so then than too very some any all each every either neither both
    let lets let's i'd i'm i've gonna wanna kindly quickly thing things something stuff via
    using use via tool tools way able help hey ok okay""".split()
)


def plural(count: int, word: str, many: str | None = None) -> str:
    """The count with its noun in the right number: "1 file", "0 files", "2 task types".
    `many` for nouns that do not just take an "s" ("1 entry", "2 entries")."""
    return f"{count} {word if count == 1 else (many or word + 's')}"
