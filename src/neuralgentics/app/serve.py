"""`neuralgentics serve` and `neuralgentics broker serve`: the composed apps under uvicorn.

Both refuse to bind beyond loopback without a token the user chose (NEURALGENTICS_TOKEN); on
loopback the token file is created if need be. Every route but /health needs it either way.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from neuralgentics import errors
from neuralgentics.config import Settings
from neuralgentics.credentials import CredentialError, ensure_token, token_location, with_token
from neuralgentics.filemodes import private_dir
from neuralgentics.netguard import check_bind, check_port_free


class ServeError(errors.InvalidConfig):
    """Could not start; the message says what to fix."""


def serve_core(settings: Settings, *, echo: Callable[[str], None] = print) -> None:
    """memini-core (memory, project index, orchestrator, dashboard) on settings.host:port."""
    # the address and the credential first: a refusal comes before a second of imports
    try:
        check_bind(settings.host, settings.token)
        check_port_free("memini-core", settings.host, settings.port)
        settings = with_token(settings)
    except (ValueError, CredentialError) as exc:
        raise ServeError(str(exc)) from None
    import uvicorn

    from neuralgentics.app.core import create_app
    from neuralgentics.httphead import HeadCappedHttpToolsProtocol
    from neuralgentics.logredact import log_config

    # Everything this process creates (database, indexes, task records, logs) is its owner's
    # alone; the stores also create their files 0600 and tighten older ones.
    os.umask(0o077)
    private_dir(settings.home)
    store = "postgres" if settings.database_url else f"sqlite ({settings.sqlite_path})"
    base = f"http://{settings.host}:{settings.port}"
    echo(f"memini-core on {base}  store: {store}")
    echo(f"dashboard at {base}/ui  (its token: {token_location(settings)})")
    # the access log never shows a credential from a query string (/ui?token=…)
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_level="info",
        log_config=log_config(),
        http=HeadCappedHttpToolsProtocol,  # a huge header refused before it is parsed
    )


def serve_broker(settings: Settings, config_path: Path | str | None, host: str, port: int) -> None:
    """The broker's HTTP front: streamable HTTP at /mcp plus REST."""
    try:  # before the imports, as serve_core
        check_bind(host, settings.token)
        check_port_free("broker", host, port)
        token = ensure_token(settings)
    except (ValueError, CredentialError) as exc:
        raise ServeError(str(exc)) from None
    import uvicorn

    from neuralgentics.app.broker import intents
    from neuralgentics.app.process import shared_embedder
    from neuralgentics.broker.server.http import create_app
    from neuralgentics.broker.server.http_protocol import DirectMcpProtocol

    app = create_app(
        config_path,
        host=host,
        token=token,
        settings=settings,
        intents=intents(settings, shared_embedder()),
    )
    # proxy_headers off: nothing here sits behind a proxy, and a local process must not be
    # able to rewrite the client address with X-Forwarded-For.
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level="warning",
        lifespan="on",
        proxy_headers=False,
        # a sized response goes out in one write; a fast-path call is answered without ASGI
        http=DirectMcpProtocol,
    )
