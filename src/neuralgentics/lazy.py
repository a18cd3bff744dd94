"""A package's public names, loaded on first use (PEP 562): a foundation the areas' packages use.

An area's ``__init__`` lists what other areas may use (``__all__``) and where each is defined;
importing the package loads none of it, so a command that needs one name does not pay for the
rest (``neuralgentics broker stdio`` loads neither memini nor the orchestrator, memini's routes
not the MCP SDK). mypy reads the same names from the package's ``TYPE_CHECKING`` imports.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_getattr(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """The module ``__getattr__`` of ``package``: ``where`` maps each public name to the
    module that defines it — a submodule's name relative to the package (``"config"``), or a
    whole module path (``"neuralgentics.token_counts"``); ``"module:attr"`` exports ``attr``
    of that module under the public name."""

    def __getattr__(name: str) -> Any:
        target = where.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attr = target.partition(":")
        if not module.startswith("neuralgentics."):
            module = f"{package}.{module}"
        value = getattr(import_module(module), attr or name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
