"""Update detection on write: a new fact that replaces or contradicts an older one, found
without an LLM (text.py reads a fact, features.py compares two, scorer.py weighs them,
detect.py searches the candidates and decides)."""
