"""What an imported command does that its user should read before ``--apply`` starts it.

``--apply`` starts every new server once to list its tools, so the dry run is the user's one
look at what will run: it shows the whole command (issue 29, item 8: it used to be cut at 100
characters, and ``env TZ=UTC … sh -c …`` hid the shell past that point) and marks a command
that runs a shell or inline code, or fetches code to run (``npx``, ``uvx``, ``curl | sh``).
These are marks for a reader, not a verdict: most MCP servers are started by ``npx``.
"""

from __future__ import annotations

import re
import shlex
from pathlib import PurePath, PureWindowsPath

SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "ash", "busybox"}
WINDOWS_SHELLS = {"cmd", "powershell", "pwsh"}
# interpreters given code on the command line instead of a file
INLINE = {"python": "-c", "python3": "-c", "node": "-e", "perl": "-e", "ruby": "-e", "deno": "eval"}
# runners that fetch a package and run it
FETCHERS = {"npx", "bunx", "uvx", "pipx", "pnpx"}
FETCH_SUBCOMMANDS = {
    ("pnpm", "dlx"),
    ("yarn", "dlx"),
    ("npm", "exec"),
    ("uv", "tool"),
    ("bun", "x"),
    ("docker", "run"),
    ("podman", "run"),
    ("go", "run"),
}
_DOWNLOAD = re.compile(r"\b(?:curl|wget|iwr|Invoke-WebRequest|irm)\b", re.I)
_PIPE_TO_SHELL = re.compile(r"\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b")
WIDTH = 80


def _base(token: str) -> str:
    name = PureWindowsPath(token).name if "\\" in token else PurePath(token).name
    name = name.lower().removesuffix(".exe")
    return re.sub(r"\d+(\.\d+)*$", "", name) if name.startswith("python") else name


def marks(command: str, args: list[str]) -> list[str]:
    """Why a reader should look twice at ``command args``: a shell, inline code, fetched code."""
    argv = [command, *args]
    found: list[str] = []
    for i, token in enumerate(argv):
        base = _base(token)
        nxt = argv[i + 1] if i + 1 < len(argv) else ""
        if base in SHELLS or base in WINDOWS_SHELLS:
            found.append(f"runs a shell ({token} {nxt}".rstrip() + ")")
        elif base in INLINE and nxt == INLINE[base]:
            found.append(f"runs inline code ({token} {nxt})")
        elif base in FETCHERS or (base, nxt.lower()) in FETCH_SUBCOMMANDS:
            found.append(f"downloads code to run ({token}" + (f" {nxt})" if nxt else ")"))
    text = " ".join(argv)
    if _DOWNLOAD.search(text):
        what = "downloads and runs code" if _PIPE_TO_SHELL.search(text) else "downloads"
        found.append(f"{what} ({_DOWNLOAD.search(text).group()} on its command line)")  # type: ignore[union-attr]
    return list(dict.fromkeys(found))


def shown(command: str, args: list[str]) -> list[str]:
    """The whole command, quoted as a shell would need it, in lines of at most :data:`WIDTH`
    characters, broken after a space where there is one: the lines put end to end are the
    command exactly (nothing dropped, nothing added)."""
    rest = shlex.join([command, *args])
    lines: list[str] = []
    while len(rest) > WIDTH:
        cut = rest.rfind(" ", 0, WIDTH)
        cut = cut + 1 if cut > 0 else WIDTH
        lines.append(rest[:cut])
        rest = rest[cut:]
    return [*lines, rest]
