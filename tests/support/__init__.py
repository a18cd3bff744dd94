"""Helpers shared by the test folders (tests/conftest.py puts tests/ on sys.path):

- `cli`: `neuralgentics ARGS…` in-process, settings read afresh per command (`neuralgentics`,
  `invoke`)
- `ports`: `free_port`
- `postgres`: the session's real PostgreSQL and a fresh database per caller (the `pg_server`
  fixture of tests/conftest.py)
- `servers`: real MCP servers' configs (`time_server`, `python_server`)
- `parts`, `schema`, `token`: what a machine lacks, old schemas, the local credential
"""
