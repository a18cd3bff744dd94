"""Launcher: server processes and sessions on demand, supervised, restarted, reloaded."""

from neuralgentics.broker.launcher.entry import Runtime, ServerEntry, State
from neuralgentics.broker.launcher.launcher import DRAIN_SECONDS, Launcher

__all__ = ["DRAIN_SECONDS", "Launcher", "Runtime", "ServerEntry", "State"]
