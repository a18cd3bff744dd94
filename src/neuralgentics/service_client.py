"""The one way the commands and the dashboard reach our own services over HTTP.

memini-core and the broker's HTTP front sit at `Settings.url` and `Settings.broker_base_url`
(NEURALGENTICS_SERVICE_URL / NEURALGENTICS_BROKER_URL, else host and ports), and both want
the owner token (credentials.py: NEURALGENTICS_TOKEN or the token file). A client built here
has the base URL, the token and the TLS settings; the caller picks the timeout, because a
reload nudge and a cold-starting catalog wait for different things.

Downstream MCP servers are not ours: broker/client/ reaches them with the MCP SDK's httpx2.
"""

from __future__ import annotations

import functools
import ssl
from typing import Literal

import httpx

from neuralgentics.config import Settings
from neuralgentics.credentials import auth_headers

Service = Literal["memini-core", "broker"]

# What a caller catches when the service is not there (not listening, reset, timed out).
Unreachable = httpx.TransportError


def base_url(settings: Settings, service: Service) -> str:
    return settings.url if service == "memini-core" else settings.broker_base_url


@functools.cache
def tls() -> ssl.SSLContext:
    """The TLS settings httpx makes for each new client (its CA bundle, SSL_CERT_FILE and
    SSL_CERT_DIR honoured), made once: loading the bundle costs ~30 ms of CPU per client, and
    the dashboard makes a client per forwarded request."""
    return httpx.create_ssl_context()


def service_client(
    settings: Settings, service: Service, *, timeout: float | httpx.Timeout
) -> httpx.Client:
    """A client for `service` carrying the owner token. Raises CredentialError when the token
    file exists but cannot be read (the message says what to fix)."""
    return httpx.Client(
        base_url=base_url(settings, service),
        headers=auth_headers(settings),
        timeout=timeout,
        verify=tls(),
    )


def async_service_client(
    settings: Settings, service: Service, *, timeout: float | httpx.Timeout
) -> httpx.AsyncClient:
    """`service_client` for async callers (the dashboard's broker proxy)."""
    return httpx.AsyncClient(
        base_url=base_url(settings, service),
        headers=auth_headers(settings),
        timeout=timeout,
        verify=tls(),
    )
