"""Access control for the broker (every catalog read and every call passes through here).

Stable interface for other broker parts (catalog, intent):

- ``AccessPolicy(roles).check(role, server, tool) -> Decision`` (``.allowed``, ``.rule``)
- ``AccessPolicy(roles).may_call(role, server, tool) -> bool``; the running broker's policy is
  ``broker.policy`` (replaced on every reload), and ``broker.may_call`` asks it.
"""

from __future__ import annotations

from neuralgentics.broker.access.policy import AccessPolicy, Decision

__all__ = ["AccessPolicy", "Decision"]
