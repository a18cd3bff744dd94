"""The real OpenCode TUI in a pseudo-terminal, its screen read back through a VT100 emulator (pyte)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import pexpect
import pyte
from oc_support import NODE_BIN, OPENCODE_ENV

COLS, ROWS = 170, 45


def precreate_plugin_lock(config_dir: Path) -> None:
    """OpenCode npm-installs @opencode-ai/plugin into every config dir it reads and waits for it
    when plugins exist: ~70 s when the registry cannot be reached. An empty node_modules plus a
    lock naming the package makes it skip that (docs: /work/notes/opencode-1.18.md section 3)."""
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "node_modules").mkdir(exist_ok=True)
    (config_dir / "package-lock.json").write_text(
        json.dumps({"packages": {"": {"dependencies": {"@opencode-ai/plugin": "1.18.33"}}}})
    )


class Tui:
    def __init__(self, project: Path, env: dict[str, str]) -> None:
        self.screen = pyte.Screen(COLS, ROWS)
        self.stream = pyte.ByteStream(self.screen)
        full = {
            **os.environ,
            **env,
            "PWD": str(project),
            "TERM": "xterm-256color",
            **OPENCODE_ENV,
        }
        self.child = pexpect.spawn(
            str(NODE_BIN / "opencode"),
            [],
            cwd=str(project),
            env=full,
            dimensions=(ROWS, COLS),
            timeout=5,
        )

    def pump(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                self.stream.feed(self.child.read_nonblocking(65536, timeout=0.2))
            except pexpect.TIMEOUT:
                pass
            except pexpect.EOF:
                return

    @property
    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)

    def wait_for(self, found: Callable[[str], bool], timeout: float, what: str) -> str:
        """Read the screen until ``found(text)``; fail with the last screen after ``timeout``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.pump(0.5)
            if found(self.text):
                return self.text
            if not self.child.isalive():
                break
        raise AssertionError(f"the TUI never showed {what}; last screen:\n{self.text}")

    def type(self, text: str) -> None:
        self.child.send(text)
        self.pump(0.5)
        self.child.send("\r")

    def close(self) -> None:
        if self.child.isalive():
            self.child.sendcontrol("c")
            self.pump(0.5)
            self.child.sendcontrol("c")
            self.pump(0.5)
        self.child.terminate(force=True)


def columns(text: str, start: int) -> str:
    """The screen from column ``start`` rightwards (the session sidebar), one line per row."""
    return "\n".join(line[start:].strip() for line in text.splitlines())
