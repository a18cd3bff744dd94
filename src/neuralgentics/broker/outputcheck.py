"""A tool's ``outputSchema`` checked on the direct path, as the SDK's client checks it.

``ClientSession.call_tool`` validates a result's structured content against the schema the
tool declared (``validate_tool_result``), so a call to such a tool used to leave the direct
pipe (``DirectCalls``) for the session: CPU per call 0.35 -> 1.5 ms with mcp-server-time.
Here the same check runs on the server's JSON: refused in the same cases with the same
error (a ``RuntimeError`` worded as the SDK words it, which every front answers as the SDK
path does); the validator is compiled once per listed tool, and the quick predicate of
``argcheck`` says "valid" for plain object schemas without running jsonschema at all (it
only ever says yes; any doubt goes to jsonschema, whose ``best_match`` picks the error).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import mcp.types as types

from neuralgentics.broker.argcheck import Check, quick_check


@dataclass
class OutputCheck:
    """The output check of one listed tool (rebuilt when the listing gives a new ``Tool``)."""

    tool: types.Tool
    quick: Check | None = field(init=False)
    _full: Any = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.quick = quick_check(self.tool.output_schema)

    def _validator(self) -> Any:
        """The compiled validator, as ``ClientSession._output_schema_validator`` builds it
        (the schema itself checked first; a bad schema is refused on every call)."""
        if self._full is None:
            from jsonschema import SchemaError
            from jsonschema.validators import validator_for
            from referencing import Registry

            schema = self.tool.output_schema or {}  # only built for a tool that has one
            cls = validator_for(schema)
            try:
                cls.check_schema(schema)
            except SchemaError as e:
                raise RuntimeError(f"Invalid schema for tool {self.tool.name}: {e}") from None
            # `$ref`s resolve within the schema document only, as in the SDK.
            self._full = cls(schema, registry=Registry())
        return self._full

    def check(self, result: dict[str, Any]) -> None:
        """Raise as the SDK client would for this result (the server's JSON); an error
        result is not checked (nor is it by the SDK)."""
        if result.get("isError") is True:
            return
        name = self.tool.name
        if "structuredContent" not in result:
            raise RuntimeError(
                f"Tool {name} has an output schema but did not return structured content"
            )
        structured = result["structuredContent"]
        validator = self._validator()
        if self.quick is not None and isinstance(structured, dict) and self.quick(structured):
            return
        from jsonschema import exceptions
        from referencing.exceptions import Unresolvable

        try:
            error = exceptions.best_match(validator.iter_errors(structured))
        except Unresolvable as e:
            raise RuntimeError(f"Invalid schema for tool {name}: {e}") from e
        if error is not None:
            raise RuntimeError(
                f"Invalid structured content returned by tool {name}: {error}"
            ) from error
