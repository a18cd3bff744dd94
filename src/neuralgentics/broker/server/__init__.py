"""The broker as an MCP *server*: the side the agent talks to (the SDK's `mcp.server` side).

- `handlers`: the four meta-tools and the one call path both fronts share (`build_server`,
  `route_call`, who the caller is).
- `stdio`: `broker stdio`, one MCP server on stdin/stdout; `stdio_transport` its pipes and
  the fast path for plain calls.
- `http`: `broker serve`, streamable HTTP at /mcp plus the REST routes.

The other side, the broker as a *client* of downstream servers, is `broker.client`.
"""
