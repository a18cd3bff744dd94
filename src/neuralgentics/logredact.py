"""Access logs without credentials. uvicorn logs each request's path *with its query string*;
`/ui?token=…` put the token into every log that kept that line. The filter below rewrites the
access record before any handler formats it: the value of every query parameter whose name
says it carries a credential becomes `[redacted]`; everything else in the line is kept.

`log_config()` is uvicorn's own logging configuration with the filter on the access logger;
pass it to `uvicorn.run(..., log_config=log_config())`.
"""

from __future__ import annotations

import copy
import logging
from urllib.parse import unquote_plus

REDACTED = "[redacted]"
# Exact names, and name endings, of query parameters that carry credentials.
SECRET_NAMES = frozenset(
    {
        "token",
        "access_token",
        "refresh_token",
        "id_token",
        "auth",
        "authorization",
        "api_key",
        "apikey",
        "key",
        "password",
        "passwd",
        "pwd",
        "secret",
        "client_secret",
        "session",
        "signature",
        "sig",
        "code",
        "credential",
        "credentials",
    }
)
SECRET_ENDINGS = ("token", "secret", "password", "passwd", "apikey", "api_key", "_key", "-key")


def is_secret_name(name: str) -> bool:
    name = name.strip().lower()
    return name in SECRET_NAMES or name.endswith(SECRET_ENDINGS)


def redact_query(path_with_query: str) -> str:
    """`/ui?token=abc&x=1` → `/ui?token=[redacted]&x=1` (names compared decoded, case-blind)."""
    path, sep, query = path_with_query.partition("?")
    if not sep or not query:
        return path_with_query
    parts = []
    for part in query.split("&"):
        name, eq, _ = part.partition("=")
        if is_secret_name(unquote_plus(name)):
            parts.append(f"{name}={REDACTED}")
        else:
            parts.append(part)
    return f"{path}?{'&'.join(parts)}"


class RedactQueryFilter(logging.Filter):
    """For uvicorn's access logger: args are (client, method, path?query, http version, status)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if (
            isinstance(args, tuple)
            and len(args) >= 3
            and isinstance(args[2], str)
            and "?" in args[2]
        ):
            record.args = (*args[:2], redact_query(args[2]), *args[3:])
        return True


def log_config() -> dict:
    """uvicorn's default logging configuration, its access log passed through the filter."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config.setdefault("filters", {})["redact_query"] = {"()": f"{__name__}.RedactQueryFilter"}
    config["loggers"]["uvicorn.access"]["filters"] = ["redact_query"]
    config["handlers"]["access"]["filters"] = ["redact_query"]
    return config
