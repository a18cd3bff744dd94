"""A real memini-core (with the dashboard) and a real broker in front of mcp-server-time,
driven by headless Debian Chromium through playwright-core (tests/ui/browser.mjs).

One stack per test module: starting the services and the embedding model once keeps the
suite short. The stack runs with NEURALGENTICS_TOKEN set, so every page must send it.
(A module of its own, not conftest.py: test modules import it by a name no other folder uses.)
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from support.parts import missing
from support.ports import free_port

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = REPO / "test-artifacts" / "ui"
TOKEN = "ui-test-token-7f3a"
PY = sys.executable


def _missing_browser() -> str | None:
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} is missing (apt-get install -y chromium)"
    if not (REPO / "node_modules" / "playwright-core").exists():
        return "node_modules/playwright-core is missing (npm install)"
    if shutil.which("node") is None:
        return "node is not on PATH"
    return None


def require_browser() -> None:
    why = _missing_browser()
    if why:
        # In CI a missing browser is a broken install step, not a reason to pass.
        missing(f"dashboard tests need a browser: {why}")


def _wait_healthy(
    url: str, proc: subprocess.Popen[bytes], log: Path, timeout: float = 60.0
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{url} exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(url, timeout=1.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{url} not healthy after {timeout} s:\n{log.read_text()[-3000:]}")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


class Browser:
    """tests/ui/browser.mjs as one process: one Chromium for every plan sent to it, each plan
    in a browser context of its own (no cookies, storage or cache shared between plans)."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: list[str] = []

    def run(self, plan: dict[str, Any], timeout: float = 150.0) -> dict[str, Any]:
        if self._proc is None or self._proc.poll() is not None:
            self._start()
        assert self._proc is not None and self._proc.stdin is not None
        self._proc.stdin.write(json.dumps(plan) + "\n")
        self._proc.stdin.flush()
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            self.close()
            raise AssertionError(f"the browser driver gave no answer in {timeout} s") from None
        stderr = "".join(self._stderr)[-3000:]
        assert line, f"browser driver printed nothing; stderr:\n{stderr}"
        return json.loads(line)

    def _start(self) -> None:
        self._lines = queue.Queue()
        self._stderr = []
        proc = subprocess.Popen(
            ["node", str(Path(__file__).with_name("browser.mjs"))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )
        lines, errs = self._lines, self._stderr

        def read_out() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.put(line)
            lines.put(None)  # the driver ended

        def read_err() -> None:
            assert proc.stderr is not None
            for line in proc.stderr:
                errs.append(line)

        threading.Thread(target=read_out, daemon=True).start()
        threading.Thread(target=read_err, daemon=True).start()
        self._proc = proc

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            assert proc.stdin is not None
            proc.stdin.close()  # the driver closes Chromium and ends
            proc.wait(timeout=15)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait(timeout=5)


@dataclass
class Stack:
    base: str
    broker: str
    home: Path
    token: str
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    browser: Browser = field(default_factory=Browser)

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def stop(self) -> None:
        self.browser.close()
        for p in reversed(self.procs):
            _stop(p)

    def api(self) -> httpx.Client:
        return httpx.Client(base_url=self.base, headers=self.headers, timeout=60.0)

    def broker_api(self) -> httpx.Client:
        return httpx.Client(base_url=self.broker, headers=self.headers, timeout=60.0)

    def browse(
        self, steps: list[dict[str, Any]], *, name: str, login: bool = True
    ) -> dict[str, Any]:
        """Run the steps in a fresh browser context (the stack's Chromium, nothing shared with
        other calls); the first page load carries ?token= unless `login` is False. Returns
        {step name: step result}."""
        require_browser()
        out_dir = ARTIFACTS / name
        out_dir.mkdir(parents=True, exist_ok=True)
        if login and self.token:
            steps = [
                {
                    "name": "login",
                    "goto": f"/ui?token={self.token}#/overview",
                    "wait": "main[data-ready]",
                },
                *steps,
            ]
        plan = {"base": self.base, "out_dir": str(out_dir), "chromium": CHROMIUM, "steps": steps}
        result = self.browser.run(plan)
        assert "launch_failure" not in result, result["launch_failure"]
        by_name = {s["name"]: s for s in result["steps"]}
        failed = [s for s in result["steps"] if s.get("failure")]
        assert not failed, (
            f"step {failed[0]['name']!r} failed: {failed[0]['failure']}\n"
            f"console: {failed[0]['errors']}\nscreenshot: {failed[0].get('screenshot')}"
        )
        assert len(by_name) == len(steps), "the browser stopped early"
        return by_name


BROKER_YAML = """\
servers:
  time:
    command: {py}
    args: [-m, mcp_server_time, --local-timezone, UTC]
    summary: Current time and time-zone conversion
roles:
  coder:
    allow: ["time/*"]
  reviewer:
    allow: ["time/get_current_time"]
default_role: coder
"""


def start_stack(base_dir: Path, *, with_broker: bool = True, token: str = TOKEN) -> Stack:
    home, config = base_dir / "home", base_dir / "config"
    home.mkdir()
    config.mkdir()
    (config / "broker.yaml").write_text(BROKER_YAML.format(py=PY))
    port, broker_port = free_port(), free_port()
    env = {
        **os.environ,
        "NEURALGENTICS_HOME": str(home),
        "NEURALGENTICS_CONFIG_DIR": str(config),
        "NEURALGENTICS_BROKER_PORT": str(broker_port),
        "NEURALGENTICS_TOKEN": token,
        "HF_HUB_OFFLINE": "1",
    }
    if not token:
        del env["NEURALGENTICS_TOKEN"]
    env.pop("NEURALGENTICS_DATABASE_URL", None)
    env.pop("NEURALGENTICS_SERVICE_URL", None)
    stack = Stack(f"http://127.0.0.1:{port}", f"http://127.0.0.1:{broker_port}", home, token)
    try:
        if with_broker:
            broker_log = base_dir / "broker.log"
            stack.procs.append(
                subprocess.Popen(
                    [
                        PY,
                        "-c",
                        "from neuralgentics.cli import main; main()",
                        "broker",
                        "serve",
                        "--port",
                        str(broker_port),
                    ],
                    env=env,
                    stdout=broker_log.open("wb"),
                    stderr=subprocess.STDOUT,
                    cwd=REPO,
                )
            )
        memini_log = base_dir / "memini.log"
        memini = subprocess.Popen(
            [PY, str(Path(__file__).with_name("serve_app.py")), str(port)],
            env=env,
            stdout=memini_log.open("wb"),
            stderr=subprocess.STDOUT,
            cwd=REPO,
        )
        stack.procs.append(memini)
        if with_broker:
            _wait_healthy(f"{stack.broker}/health", stack.procs[0], base_dir / "broker.log")
        _wait_healthy(f"{stack.base}/health", memini, memini_log)
    except BaseException:
        stack.stop()
        raise
    return stack
