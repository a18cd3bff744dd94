"""Real `opencode run` sessions in throw-away homes, for bench/session_tokens.py.

Each session gets its own directory tree: a project (a git repository with a couple of files),
HOME and the XDG dirs, a Neuralgentics home and config dir. Nothing of the user's or of an
earlier run is read. OpenCode talks to a scripted OpenAI-compatible endpoint (the only fake).

Start-up stall (see /work/notes/opencode-1.18.md §3): OpenCode 1.18.33 runs a background
`npm install @opencode-ai/plugin` in every config dir and, when a plugin is configured, waits
for it; offline that is ~70 s of npm retries. Pre-creating an empty `node_modules/` and a
`package-lock.json` that lists the package makes it skip the install, so every config dir the
session will see gets them before the first run.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
NODE_BIN = ROOT / "node_modules" / ".bin"
VENV_BIN = Path(sys.executable).parent
OPENCODE = NODE_BIN / "opencode"
NEURALGENTICS = VENV_BIN / "neuralgentics"
OPENCODE_VERSION = "1.18.33"

# The seven servers of issue 21, launched as a user's opencode.json or broker.yaml would.
NPM_SERVERS = ("everything", "filesystem", "memory", "sequential-thinking")
PYPI_SERVERS = ("time", "git", "fetch")
# Thirteen more real servers (issue 30: 20 in all) that start offline and list their tools
# without network or credentials (a placeholder key where one must be set): executables.
EXTRA_NPM = (
    "playwright-mcp",
    "mcp-server-github",
    "mcp-server-brave-search",
    "mcp-server-slack",
    "mcp-server-google-maps",
    "mcp-server-postgres",
    "mcp-server-gitlab",
    "mcp-pdf-server",
    "mcp-server-chart",
    "mcp-taskmanager",
)
EXTRA_PYPI = ("excel-mcp-server", "duckduckgo-mcp-server", "mcp-pandoc")
# Which servers a run with N of them has: the first N (time first: the tasks need time, then
# filesystem and memory; `--servers 1,3,7,20`).
SERVER_ORDER = (
    *("time", "filesystem", "memory"),
    *("everything", "sequential-thinking", "git", "fetch"),
    *("playwright", "github", "brave-search", "slack", "google-maps", "postgres", "gitlab"),
    *("pdf", "chart", "taskmanager", "excel", "duckduckgo", "pandoc"),
)


class HarnessError(RuntimeError):
    """Something the bench needs is missing or broke; the message says what and where."""


def check_binaries(need_broker: bool) -> None:
    missing = [str(OPENCODE)] if not OPENCODE.exists() else []
    missing += [
        str(NODE_BIN / f"mcp-server-{n}")
        for n in NPM_SERVERS
        if not (NODE_BIN / f"mcp-server-{n}").exists()
    ]
    missing += [
        str(VENV_BIN / f"mcp-server-{n}")
        for n in PYPI_SERVERS
        if not (VENV_BIN / f"mcp-server-{n}").exists()
    ]
    missing += [str(NODE_BIN / n) for n in EXTRA_NPM if not (NODE_BIN / n).exists()]
    missing += [str(VENV_BIN / n) for n in EXTRA_PYPI if not (VENV_BIN / n).exists()]
    if need_broker and not NEURALGENTICS.exists():
        missing.append(str(NEURALGENTICS))
    if missing:
        raise HarnessError(
            "missing: "
            + ", ".join(missing)
            + f" — run `bash scripts/install.sh --test` in {ROOT} (npm install + the venv)"
        )


def server_commands(
    sandbox: Sandbox, count: int = 7
) -> dict[str, tuple[list[str], dict[str, str]]]:
    """name -> (argv, environment) of the first ``count`` real servers (SERVER_ORDER), for
    this sandbox."""
    every = {
        "everything": ([str(NODE_BIN / "mcp-server-everything"), "stdio"], {}),
        "filesystem": ([str(NODE_BIN / "mcp-server-filesystem"), str(sandbox.project)], {}),
        "memory": (
            [str(NODE_BIN / "mcp-server-memory")],
            {"MEMORY_FILE_PATH": str(sandbox.root / "memory.jsonl")},
        ),
        "sequential-thinking": ([str(NODE_BIN / "mcp-server-sequential-thinking")], {}),
        "time": ([str(VENV_BIN / "mcp-server-time"), "--local-timezone", "UTC"], {}),
        "git": ([str(VENV_BIN / "mcp-server-git"), "--repository", str(sandbox.project)], {}),
        "fetch": ([str(VENV_BIN / "mcp-server-fetch")], {}),
        "playwright": ([str(NODE_BIN / "playwright-mcp"), "--headless", "--isolated"], {}),
        "github": (
            [str(NODE_BIN / "mcp-server-github")],
            {"GITHUB_PERSONAL_ACCESS_TOKEN": "unused"},
        ),
        "brave-search": ([str(NODE_BIN / "mcp-server-brave-search")], {"BRAVE_API_KEY": "unused"}),
        "slack": (
            [str(NODE_BIN / "mcp-server-slack")],
            {"SLACK_BOT_TOKEN": "xoxb-unused", "SLACK_TEAM_ID": "T0"},
        ),
        "google-maps": (
            [str(NODE_BIN / "mcp-server-google-maps")],
            {"GOOGLE_MAPS_API_KEY": "unused"},
        ),
        # connects on the first query only: nothing listens on port 9
        "postgres": ([str(NODE_BIN / "mcp-server-postgres"), "postgresql://127.0.0.1:9/none"], {}),
        "gitlab": (
            [str(NODE_BIN / "mcp-server-gitlab")],
            {"GITLAB_PERSONAL_ACCESS_TOKEN": "unused"},
        ),
        "pdf": ([str(NODE_BIN / "mcp-pdf-server"), "--stdio"], {}),
        "chart": ([str(NODE_BIN / "mcp-server-chart")], {}),
        "taskmanager": (
            [str(NODE_BIN / "mcp-taskmanager")],
            {"TASK_MANAGER_FILE_PATH": str(sandbox.root / "tasks.json")},
        ),
        "excel": (
            [str(VENV_BIN / "excel-mcp-server"), "stdio"],
            {"EXCEL_FILES_PATH": str(sandbox.project)},
        ),
        "duckduckgo": ([str(VENV_BIN / "duckduckgo-mcp-server")], {}),
        "pandoc": ([str(VENV_BIN / "mcp-pandoc")], {}),
    }
    if not 1 <= count <= len(SERVER_ORDER):
        raise HarnessError(f"a run has 1 to {len(SERVER_ORDER)} servers (got {count})")
    return {name: every[name] for name in SERVER_ORDER[:count]}


def skip_plugin_install(config_dir: Path) -> bool:
    """Pre-create the lock that makes OpenCode skip its `npm install @opencode-ai/plugin` there.

    Only when `node_modules` does not exist yet (an existing install is left alone)."""
    if (config_dir / "node_modules").exists():
        return False
    (config_dir / "node_modules").mkdir(parents=True)
    (config_dir / "package-lock.json").write_text(
        json.dumps({"packages": {"": {"dependencies": {"@opencode-ai/plugin": OPENCODE_VERSION}}}})
    )
    return True


def _end_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


@dataclass
class RunResult:
    argv: list[str]
    returncode: int | None  # None: timed out
    seconds: float
    stdout: str
    stderr: str
    session_id: str | None
    first_request: int  # index into the fake LLM's request log
    last_request: int  # exclusive

    def failure(self) -> str | None:
        if self.returncode is None:
            return f"timed out after {self.seconds:.0f}s"
        if self.returncode != 0:
            return f"exit {self.returncode}"
        return None


@dataclass
class Sandbox:
    """One session's directory tree and environment."""

    root: Path
    env: dict[str, str] = field(default_factory=dict)

    @property
    def project(self) -> Path:
        return self.root / "proj"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def ng_home(self) -> Path:
        return self.root / "ng-home"

    @property
    def ng_config(self) -> Path:
        return self.root / "ng-config"

    @property
    def opencode_config_dir(self) -> Path:
        return self.home / ".config" / "opencode"

    @classmethod
    def create(cls, root: Path, extra_env: dict[str, str] | None = None) -> Sandbox:
        sb = cls(root)
        sb.project.mkdir(parents=True)
        (sb.project / "README.md").write_text(
            "# shop\n\nA small order service used by the token benchmark.\n"
        )
        (sb.project / "app.py").write_text(
            "def total(items):\n    return sum(i['price'] * i['qty'] for i in items)\n"
        )
        git = [
            "git",
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@localhost",
            "-c",
            "init.defaultBranch=main",
        ]
        for args in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "initial"]):
            subprocess.run([*git, *args], cwd=sb.project, check=True, capture_output=True)
        sb.env = {
            "HOME": str(sb.home),
            "XDG_CONFIG_HOME": str(sb.home / ".config"),
            "XDG_DATA_HOME": str(sb.home / ".local" / "share"),
            "XDG_CACHE_HOME": str(sb.home / ".cache"),
            "XDG_STATE_HOME": str(sb.home / ".local" / "state"),
            "NEURALGENTICS_HOME": str(sb.ng_home),
            "NEURALGENTICS_CONFIG_DIR": str(sb.ng_config),
            "PWD": str(sb.project),
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            **(extra_env or {}),
        }
        for key in (
            "HOME",
            "XDG_CONFIG_HOME",
            "XDG_DATA_HOME",
            "XDG_CACHE_HOME",
            "XDG_STATE_HOME",
            "NEURALGENTICS_HOME",
            "NEURALGENTICS_CONFIG_DIR",
        ):
            Path(sb.env[key]).mkdir(parents=True, exist_ok=True)
        sb.opencode_config_dir.mkdir(parents=True, exist_ok=True)
        return sb

    def full_env(self) -> dict[str, str]:
        # The user's own NEURALGENTICS_* / OPENCODE_* settings must not leak into the session.
        base = {
            k: v for k, v in os.environ.items() if not k.startswith(("NEURALGENTICS_", "OPENCODE_"))
        }
        return {**base, **self.env}

    def write_opencode_json(self, llm_base_url: str, mcp: dict[str, Any] | None = None) -> None:
        cfg: dict[str, Any] = {
            "$schema": "https://opencode.ai/config.json",
            "provider": {
                "fake": {
                    "npm": "@ai-sdk/openai-compatible",
                    "name": "Fake",
                    "options": {"baseURL": llm_base_url, "apiKey": "bench"},
                    "models": {"fake-model": {"name": "Fake", "tool_call": True}},
                }
            },
            "model": "fake/fake-model",
            "small_model": "fake/fake-model",
            "autoupdate": False,
            "share": "disabled",
        }
        if mcp:
            cfg["mcp"] = mcp
        (self.project / "opencode.json").write_text(json.dumps(cfg, indent=2) + "\n")

    def prepare_config_dirs(self) -> list[Path]:
        """Skip the plugin npm install in every config dir OpenCode will read (global + .opencode)."""
        dirs = [self.opencode_config_dir]
        if (self.project / ".opencode").is_dir():
            dirs.append(self.project / ".opencode")
        return [d for d in dirs if skip_plugin_install(d)]

    def run(
        self, message: str, requests: list[Any], session_id: str | None, timeout: float
    ) -> RunResult:
        argv = [str(OPENCODE), "run", "--format", "json", "--model", "fake/fake-model"]
        if session_id:
            argv += ["--session", session_id]
        argv.append(message)
        first = len(requests)
        t0 = time.monotonic()
        # Its own process group: on a time-out, or when it leaves MCP servers behind, the whole
        # group (OpenCode and the servers it started) is ended, and nothing else.
        proc = subprocess.Popen(
            argv,
            cwd=self.project,
            env=self.full_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            out, err = proc.communicate(timeout=timeout)
            rc: int | None = proc.returncode
        except subprocess.TimeoutExpired:
            _end_group(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            rc = None
        _end_group(proc.pid, signal.SIGTERM)
        seconds = time.monotonic() - t0
        sid = session_id
        for line in out.splitlines():
            if line.startswith("{"):
                try:
                    sid = sid or json.loads(line).get("sessionID")
                except json.JSONDecodeError:
                    pass
        with (self.root / "runs.log").open("a") as log:
            log.write(
                f"$ {' '.join(argv)}\nrc={rc} {seconds:.1f}s\n--- stdout\n{out}\n--- stderr\n{err}\n"
            )
        return RunResult(argv, rc, seconds, out, err, sid, first, len(requests))

    def opencode_log_tail(self, chars: int = 1500) -> str:
        logs = sorted((self.home / ".local" / "share" / "opencode" / "log").glob("*.log"))
        return logs[-1].read_text(errors="replace")[-chars:] if logs else "(no OpenCode log)"
