"""Launched servers under bubblewrap: a read-only root, a private /tmp, only the paths a
server's profile names writable, and its own network namespace unless it may use the host's.

A server entry's ``sandbox`` (``SandboxConfig``, broker/config.py):

- ``network``: ``none`` — ``--unshare-net``, the server sees only a loopback of its own (a port
  on the host's 127.0.0.1 is out of reach); ``gateway`` — the host's network with
  ``HTTP(S)_PROXY`` / ``ALL_PROXY`` set to ``EGRESS_GATEWAY_URL`` (no gateway configured: the
  same as ``none``); ``host`` — the host's network as it is.
- ``writable``: paths bound read-write (created if missing); everything else is read-only.
- ``readable``: when given, the user's home directory is hidden (an empty tmpfs) except these
  paths (and the writable ones): a server then cannot read ``~/.ssh`` or another project.

Docker's MCP Gateway isolates servers in containers; bubblewrap gives the same boundary for a
process without an image, a daemon or root (issue 29, "sandboxed servers").
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from neuralgentics.broker.config import SandboxConfig, ServerConfig
from neuralgentics.broker.errors import ServerUnavailable

BWRAP = "bwrap"
INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: `sudo apt-get install bubblewrap`; Fedora: `sudo dnf "
    "install bubblewrap`), or set `sandbox: off` on the server to run it unsandboxed"
)
_PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


class SandboxUnavailable(ServerUnavailable):
    """The server's profile asks for a sandbox this machine cannot give; the message says how."""


@dataclass(frozen=True)
class Launch:
    """What to execute for a server: its own command, or bwrap wrapping it."""

    command: str
    args: list[str]
    env: dict[str, str]
    # how the audit and `broker check` name it: "off" or "network=none writable=…"
    profile: str


def bwrap_path() -> str | None:
    return shutil.which(BWRAP)


def describe(sandbox: SandboxConfig | None) -> str:
    if sandbox is None:
        return "off"
    parts = [f"network={sandbox.network}"]
    if sandbox.writable:
        parts.append("writable=" + ",".join(sandbox.writable))
    if sandbox.readable:
        parts.append("readable=" + ",".join(sandbox.readable))
    return "bwrap " + " ".join(parts)


def _expand(path: str) -> str:
    return str(Path(os.path.expandvars(os.path.expanduser(path))).resolve())


def _install_root(path: Path) -> Path:
    """What a program needs beside itself: its ``node_modules`` tree, its virtualenv, or its
    folder."""
    for parent in path.parents:
        if parent.name == "node_modules":
            return parent
        if (parent / "pyvenv.cfg").is_file():
            return parent
    return path.parent


def _program_roots(exe: str) -> list[str]:
    """The install roots of the command, of the file it links to, and of a script's
    interpreter (its ``#!`` line)."""
    if os.sep not in exe or not Path(exe).exists():
        return []
    files = [Path(exe), Path(exe).resolve()]
    try:
        with open(files[1], "rb") as script:
            first = script.readline(512)
    except OSError:
        first = b""
    if first.startswith(b"#!"):
        interpreter = first[2:].decode("utf-8", "replace").split()
        if interpreter and interpreter[0].startswith("/"):
            files.append(Path(interpreter[0]))
    roots: list[str] = []
    for file in files:
        root = str(_install_root(file))
        if root not in roots and root != "/":
            roots.append(root)
    return roots


def launch(config: ServerConfig, gateway: str | None = None) -> Launch:
    """The command line that starts ``config``'s process (args and env already expanded)."""
    assert config.command is not None
    args, env = config.expanded_args(), config.expanded_env()
    sandbox = config.sandbox
    if sandbox is None:
        return Launch(config.command, args, env, "off")
    bwrap = bwrap_path()
    if bwrap is None:
        raise SandboxUnavailable(
            f"this server runs sandboxed but bwrap is not on PATH: {INSTALL_HINT}"
        )
    exe = shutil.which(config.command) if os.sep not in config.command else config.command
    if exe is None:
        exe = config.command  # bwrap says it is not found, like a direct start would
    argv = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    argv += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent"]
    if sandbox.readable:
        home = Path.home()
        if home.is_dir():
            argv += ["--tmpfs", str(home.resolve())]
        for path in sandbox.readable:
            p = _expand(path)
            if Path(p).exists():
                argv += ["--ro-bind", p, p]
    # The program itself stays visible, read-only, wherever it is installed: a server from a
    # checkout or a virtualenv under /tmp or the home directory would otherwise vanish behind
    # the tmpfs mounts above ("bwrap: execvp …: No such file or directory").
    for root in _program_roots(exe):
        argv += ["--ro-bind", root, root]
    for path in sandbox.writable:
        p = _expand(path)
        Path(p).mkdir(parents=True, exist_ok=True)
        argv += ["--bind", p, p]
    if config.cwd:
        argv += ["--chdir", _expand(config.cwd)]
    network = sandbox.network
    if network == "gateway" and not gateway:
        network = "none"  # no gateway to go through: no network
    if network == "none":
        argv.append("--unshare-net")
    elif network == "gateway":
        assert gateway is not None
        env = {**env, **dict.fromkeys(_PROXY_VARS, gateway), "NO_PROXY": "", "no_proxy": ""}
    return Launch(bwrap, [*argv, "--", exe, *args], env, describe(sandbox))
