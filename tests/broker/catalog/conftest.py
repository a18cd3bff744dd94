"""Fixtures of this folder. Helpers live in catalog_support.py: test modules import them by that
unique name (two folders' `conftest` modules would shadow each other in one pytest run)."""

from catalog_support import eval_catalog, eval_matcher, git_repo, shared_embeddings  # noqa: F401
