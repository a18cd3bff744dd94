"""Neuralgentics: memory, MCP broker and orchestration for the OpenCode coding agent."""

__version__ = "0.1.0"
