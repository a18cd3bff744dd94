"""Fixtures of the OpenCode-integration tests (helpers live in oc_support, a unique module name)."""

from oc_support import isolated_env, project, service, shared_models_dir  # noqa: F401
