"""Plugin hook latency against a real memini-core, with a bare HTTP round trip as the baseline.

    .venv/bin/python bench/opencode_plugin.py            # 30 rounds per hook
    .venv/bin/python bench/opencode_plugin.py --rounds 10

Starts `neuralgentics serve` (SQLite, temporary home, warmed up) on a free port, runs
bench/opencode_plugin_hooks.mts with Node (through tsx) and prints its JSON: the median of each
hook, and that median as a multiple of a GET /health round trip measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=30)
    args = ap.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "NEURALGENTICS_HOME": f"{tmp}/home",
            "NEURALGENTICS_CONFIG_DIR": f"{tmp}/config",
            "HF_HUB_OFFLINE": "1",
        }
        proc = subprocess.Popen(
            [str(Path(sys.executable).parent / "neuralgentics"), "serve", "--port", str(port)],
            env=env,
            stderr=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                try:
                    if httpx.get(url + "/health", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.3)
            # `serve` made the owner token in its config dir; the plugin reads it from there too
            auth = {
                "Authorization": "Bearer " + (Path(tmp) / "config" / "token").read_text().strip()
            }
            httpx.post(
                url + "/orchestrator/route", json={"task": "warm up"}, headers=auth, timeout=120
            )
            httpx.post(url + "/memory/query", json={"query": "warm up"}, headers=auth, timeout=120)
            subprocess.run(
                [
                    "node",
                    "--import",
                    "tsx",
                    str(REPO / "bench" / "opencode_plugin_hooks.mts"),
                    url,
                    str(args.rounds),
                    tmp,
                ],
                cwd=REPO,
                check=True,
                timeout=600,
                env=env,
            )
        finally:
            proc.terminate()
            proc.wait(timeout=30)


if __name__ == "__main__":
    main()
