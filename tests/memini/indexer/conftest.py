"""Fixtures of this folder. Helpers live in indexer_support.py: test modules import them by that
unique name (two folders' `conftest` modules would shadow each other in one pytest run)."""

from indexer_support import chunks, repo, sqlite_chunks  # noqa: F401
