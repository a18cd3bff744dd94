"""HTTP to the services these tests start: plain HTTP on 127.0.0.1.

httpx's module-level calls (`loopback.post(...)`) build a client per request, and each client
loads the CA bundle: about 30 ms of CPU in the test process per request (hundreds per file,
and every /health poll while a service starts, competing with the service for the CPU). The
same calls here share one TLS context, made once the way httpx makes it; each request still
opens a connection of its own, as before.
"""

from __future__ import annotations

from typing import Any

import httpx

TLS = httpx.create_ssl_context()  # never used on http://, but every client wants one


def request(method: str, url: str, **kw: Any) -> httpx.Response:
    return httpx.request(method, url, verify=TLS, **kw)


def get(url: str, **kw: Any) -> httpx.Response:
    return request("GET", url, **kw)


def post(url: str, **kw: Any) -> httpx.Response:
    return request("POST", url, **kw)


def delete(url: str, **kw: Any) -> httpx.Response:
    return request("DELETE", url, **kw)


def client(**kw: Any) -> httpx.Client:
    return httpx.Client(verify=TLS, **kw)
