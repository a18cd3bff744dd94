"""What one huge request header costs the other requests of a front (issue 29, item 4).

Serves a one-route ASGI app (`GET /health`) under uvicorn twice in this run — with uvicorn's
own httptools protocol (the baseline, what both fronts ran before) and with
`neuralgentics.httphead.HeadCappedHttpToolsProtocol` — and, for each, sends one request whose
header is `--mib` MiB while another client polls `/health`. Prints how long the sender took
until the server stopped reading (or answered), the slowest `/health` answer meanwhile, and
the ratios.

    .venv/bin/python bench/header_stall.py            # 96 MiB
    .venv/bin/python bench/header_stall.py --mib 32   # quicker
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import threading
import time
from typing import Any

import httpx
import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from neuralgentics.httphead import HeadCappedHttpToolsProtocol


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(protocol: type, port: int) -> uvicorn.Server:
    config = uvicorn.Config(app, port=port, http=protocol, log_level="error", lifespan="off")
    server = uvicorn.Server(config)
    threading.Thread(target=lambda: asyncio.run(server.serve()), daemon=True).start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    return server


def send_huge(port: int, size: int, out: dict[str, float]) -> None:
    t0 = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), timeout=300) as s:
        try:
            s.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ")
            block, sent = b"a" * (1 << 20), 0
            while sent < size:
                s.sendall(block)
                sent += len(block)
            s.sendall(b"\r\n\r\n")
            s.recv(100)
        except OSError:
            pass
    out["sender_s"] = time.perf_counter() - t0


def run(protocol: type, size: int) -> dict[str, float]:
    port = free_port()
    server = serve(protocol, port)
    out: dict[str, float] = {}
    sender = threading.Thread(target=send_huge, args=(port, size, out))
    worst = 0.0
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=300) as client:
        sender.start()
        while sender.is_alive():
            t0 = time.perf_counter()
            client.get("/health")
            worst = max(worst, time.perf_counter() - t0)
            time.sleep(0.05)
    sender.join()
    server.should_exit = True
    return {**out, "worst_health_s": worst}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mib", type=int, default=96)
    size = parser.parse_args().mib << 20
    base = run(HttpToolsProtocol, size)
    capped = run(HeadCappedHttpToolsProtocol, size)
    print(f"one {size >> 20} MiB header; /health polled meanwhile")
    print(f"{'':28}{'sender until cut off':>22}{'slowest /health':>18}")
    for name, r in (("uvicorn httptools (before)", base), ("HeadCapped (now)", capped)):
        print(f"{name:28}{r['sender_s']:>20.3f} s{r['worst_health_s']:>16.3f} s")
    print(
        f"ratio before/now: sender {base['sender_s'] / capped['sender_s']:.0f}x, "
        f"slowest /health {base['worst_health_s'] / capped['worst_health_s']:.0f}x"
    )


if __name__ == "__main__":
    main()
