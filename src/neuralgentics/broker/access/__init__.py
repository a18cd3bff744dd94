"""Access control for the broker (every catalog read and every call passes through here).

Stable interface for other broker parts (catalog, intent):

- ``AccessPolicy(roles).check(role, server, tool) -> Decision`` (``.allowed``, ``.rule``)
- ``may_call(role, server, tool) -> bool``: against the policy of the running broker
  (installed by ``Broker`` at start and on every reload), or an explicit ``policy=``.
"""

from __future__ import annotations

from neuralgentics.broker.access.policy import AccessPolicy, Decision

_current: AccessPolicy = AccessPolicy({})


def install_policy(policy: AccessPolicy) -> None:
    """Make ``policy`` the one :func:`may_call` consults (the broker does this on (re)load)."""
    global _current
    _current = policy


def current_policy() -> AccessPolicy:
    return _current


def may_call(role: str | None, server: str, tool: str, policy: AccessPolicy | None = None) -> bool:
    """May ``role`` call ``tool`` on ``server``? Deny wins; unknown roles are denied."""
    return (policy or _current).may_call(role, server, tool)


__all__ = ["AccessPolicy", "Decision", "current_policy", "install_policy", "may_call"]
