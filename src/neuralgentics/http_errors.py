"""One error body on every HTTP front: `install_error_handlers(app)` answers a raised
`NeuralgenticsError` with its status and `{"error": {"code", "message", "field", ...}}`, and
puts what FastAPI and Starlette answer themselves (validation errors, bodies that are not JSON,
unknown routes, wrong methods — otherwise `{"detail": ...}`) in the same shape. memini-core
and the broker's HTTP front both install it; HTTPGuard answers its refusals in this shape too.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from neuralgentics import jsonsafe
from neuralgentics.errors import NeuralgenticsError, error_body

# FastAPI's detail when reading the body failed for another reason than malformed JSON
# (fastapi/routing.py): a RecursionError, a number over Python's digit limit, ...
PARSE_FAILED = "There was an error parsing the body"


def error(
    status: int, code: str, message: str, field: str | None = None, **extra: Any
) -> JSONResponse:
    return JSONResponse(status_code=status, content=error_body(code, message, field, **extra))


def error_response(exc: NeuralgenticsError) -> JSONResponse:
    return JSONResponse(status_code=exc.status, content=exc.to_json())


def install_error_handlers(app: FastAPI) -> None:
    """Every error an app answers, in the documented shape."""

    @app.exception_handler(NeuralgenticsError)
    async def _known_error(_: Request, exc: NeuralgenticsError) -> JSONResponse:
        return error_response(exc)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
        return validation_response(exc)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return http_response(exc)


# Codes for the errors Starlette/FastAPI raise themselves (unknown route, wrong method, ...).
_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "request_too_large",
    415: "unsupported_media_type",
    422: "invalid_input",
}


def validation_response(exc: RequestValidationError) -> JSONResponse:
    """FastAPI's validation errors in the documented shape, naming the first field at fault."""
    first = exc.errors()[0] if exc.errors() else {}
    if first.get("type") == "json_invalid":
        loc = first.get("loc", ())
        at = f" at character {loc[-1]}" if loc and isinstance(loc[-1], int) else ""
        why = (first.get("ctx") or {}).get("error", "malformed")
        return error(422, "invalid_input", f"the request body is not valid JSON: {why}{at}", "body")
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
    msg = first.get("msg", "invalid request")
    where, msg = jsonsafe.shown(where, 200), jsonsafe.shown(msg, 500)
    return error(422, "invalid_input", f"{where}: {msg}" if where else msg, where or None)


def http_response(exc: StarletteHTTPException) -> JSONResponse:
    """Starlette's own errors ({"detail": ...}) in the documented shape. A body FastAPI could
    not parse (nested too deeply, a 5,000-digit number) is bad input like malformed JSON."""
    cause = exc.__cause__
    if exc.status_code == 400 and exc.detail == PARSE_FAILED and cause is not None:
        why = "nested too deeply to parse" if isinstance(cause, RecursionError) else str(cause)
        return error(
            422,
            "invalid_input",
            f"the request body could not be parsed: {jsonsafe.shown(why, 200)}",
            "body",
        )
    detail = exc.detail if isinstance(exc.detail, str) else "request refused"
    response = error(
        exc.status_code, _HTTP_CODES.get(exc.status_code, "http_error"), jsonsafe.shown(detail, 500)
    )
    for key, value in (exc.headers or {}).items():
        response.headers[key] = value
    return response
