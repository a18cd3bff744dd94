"""Do an intent call's arguments fit the tool it matched? Auto-dispatch needs them to.

The matcher ranks tools by the sentence alone; the agent also sends ``arguments``, written for
the tool it had in mind. "look up what the knowledge graph knows about Alice" with
``{"query": "Alice"}`` matched ``memory/read_graph`` at 0.91 — a tool that takes no arguments
— and the call ran with ``query`` silently dropped (issue 29). So a confident match is
dispatched only when every argument is one the tool declares (or its schema says others are
welcome), every required one is there, and the values validate; otherwise the agent gets the
candidates and the reason.
"""

from __future__ import annotations

from typing import Any

from mcp.types import Tool


def misfit(tool: Tool, arguments: Any) -> str | None:
    """Why ``arguments`` do not fit ``tool``'s input schema, or None when they do."""
    args = {} if arguments is None else arguments
    if not isinstance(args, dict):
        return f"arguments must be an object, got {type(args).__name__}"
    schema: dict[str, Any] = tool.input_schema if isinstance(tool.input_schema, dict) else {}
    found = schema.get("properties")
    props: dict[str, Any] = found if isinstance(found, dict) else {}
    # Undeclared keys are usually accepted by JSON Schema, and dropped or ignored by the tool:
    # only a schema that asks for them (additionalProperties true or a schema) takes them.
    extra = sorted(set(args) - set(props))
    if extra and schema.get("additionalProperties") in (None, False):
        takes = ", ".join(sorted(props)) or "no arguments"
        return f"it takes {takes}, not {', '.join(map(repr, extra))}"
    listed = schema.get("required")
    required: list[Any] = listed if isinstance(listed, list) else []
    missing = [r for r in required if isinstance(r, str) and r not in args]
    if missing:
        return f"it needs {', '.join(map(repr, missing))}"
    import jsonschema  # only when an intent call dispatches (broker stdio starts without it)

    try:
        validator = jsonschema.validators.validator_for(schema)(schema)
        error = jsonschema.exceptions.best_match(validator.iter_errors(args))
    except jsonschema.exceptions.SchemaError:
        return None  # the server's schema is broken: Broker.call's own check answers that
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path)
        return f"{where + ': ' if where else ''}{error.message[:200]}"
    return None
