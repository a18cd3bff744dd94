"""A quick yes for arguments that plainly match a simple input schema.

``jsonschema`` took ~75 µs per forwarded call to say a one-string-argument call is valid
(its keyword dispatch, a resource per schema, a validator evolved per property) — about a
tenth of the HTTP front's CPU per call. Most tools' input schemas are an object of named
properties of primitive types with a list of required ones, so for those a predicate built
once per schema says "valid" in a microsecond.

It only ever says *valid*: for a schema using anything else, or arguments it is not sure of
(a value of another type, an integer written as 1.0, a missing key), it answers no, and the
caller runs jsonschema as before — which finds the error and words it. So what is accepted is
a subset of what jsonschema accepts, and every refusal is jsonschema's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# Keywords that do not constrain a value (annotations), in any draft from 4 on.
_ANNOTATIONS = frozenset(
    {"description", "title", "default", "examples", "$comment", "deprecated", "readOnly",
     "writeOnly", "format"}  # `format` asserts nothing unless a format checker is given
)  # fmt: skip
_TOP = _ANNOTATIONS | {"type", "properties", "required", "additionalProperties", "$schema"}
# Drafts whose `required` is a list at the object (draft 3 put a boolean on each property).
_DRAFTS = (
    "http://json-schema.org/draft-04/schema",
    "http://json-schema.org/draft-06/schema",
    "http://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "https://json-schema.org/draft/2020-12/schema",
)
# type name -> the exact Python types a JSON value of that type is here (bool is not a number)
_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
    "object": (dict,),
    "array": (list,),
}

Check = Callable[[dict[str, Any]], bool]


def _value_types(schema: Any) -> frozenset[type] | None:
    """The Python types a property schema certainly accepts, or None if it is not simple."""
    if not isinstance(schema, dict) or schema.keys() - _ANNOTATIONS - {"type"}:
        return None
    kind = schema.get("type")
    if kind is None:
        return None  # accepts anything; rare, and jsonschema answers it
    kinds = kind if isinstance(kind, list) else [kind]
    out: set[type] = set()
    for k in kinds:
        if not isinstance(k, str) or k not in _TYPES:
            return None
        out.update(_TYPES[k])
    return frozenset(out)


def quick_check(schema: Any) -> Check | None:
    """A predicate that returns True only for arguments ``schema`` accepts; None when the
    schema is not one it handles."""
    if not isinstance(schema, dict) or schema.keys() - _TOP:
        return None
    draft = schema.get("$schema")
    if draft is not None and (
        not isinstance(draft, str) or not draft.rstrip("#").startswith(_DRAFTS)
    ):
        return None
    if schema.get("type", "object") != "object":
        return None
    props = schema.get("properties", {})
    required = schema.get("required", [])
    extra = schema.get("additionalProperties", True)
    if not isinstance(props, dict) or not isinstance(required, list) or not isinstance(extra, bool):
        return None
    if not all(isinstance(r, str) for r in required):
        return None
    types: dict[str, frozenset[type]] = {}
    for name, sub in props.items():
        t = _value_types(sub)
        if t is None:
            return None
        types[name] = t
    needed = frozenset(required)

    def check(arguments: dict[str, Any]) -> bool:
        if not needed <= arguments.keys():
            return False
        for key, value in arguments.items():
            allowed = types.get(key)
            if allowed is None:
                if not extra:
                    return False
            elif type(value) not in allowed:  # exact: a bool is no integer, 1.0 is asked again
                return False
        return True

    return check
