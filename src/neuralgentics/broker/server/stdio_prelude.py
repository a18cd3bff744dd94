"""``broker stdio``'s first two answers from the last start's, before the MCP SDK is imported.

OpenCode spawns ``broker stdio`` in every session and waits for ``initialize`` and
``tools/list``. Importing the MCP SDK and pydantic is most of a start (~1.2 s of CPU at load
11, docs/benchmarks-broker.md), yet both answers are the same as at the last start whenever
nothing they depend on changed. So the SDK path records the exact bytes it answered (the
result of each, by the request's params) under ``<home>/broker/stdio-answers.json``, stamped
with a digest of every input of those answers: this program's and the SDK's version, the
command line, the working directory (project skills), the ``NEURALGENTICS_*``/``XDG_*``
environment, the broker config file, the cached tool lists (less their ``saved_at``) and the
skill files. At the next start with the same digest, ``prelude`` (stdlib only, run by
``neuralgentics.cli.main`` while the SDK is imported on a thread) answers a matching
``initialize`` and then ``tools/list`` from those bytes, and hands every line it read to the
SDK path: the two answered requests re-sent under ids of their own (``REPLAY``), so the SDK
session is initialised and lists the tools exactly as if it had answered them, its answers
are not written but compared with what was sent. A difference (an input the digest does not
see) updates the file and, for the tool list, tells the client
``notifications/tools/list_changed``; the next start answers the new bytes. A first start in
a home answers before its servers have listed (``broker/server/stdio.py``); once they have, it
records what the next start will answer with their tools (``restate_initialize``,
``record_again``), so that start is answered from the file too.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from neuralgentics.filemodes import FILE_MODE, atomic_write

ANSWERS_FILE = "stdio-answers.json"
FORMAT = 1
METHODS = ("initialize", "tools/list")
# The ids the answered requests are re-sent under to the SDK path (a client's ids are its own).
REPLAY = {m: f"neuralgentics-prelude-{m}" for m in METHODS}
# Loaded on a thread while the prelude waits for the client: what `broker stdio` runs on.
HEAVY = (
    "neuralgentics.broker.cli",
    "neuralgentics.app.broker",
    "neuralgentics.broker.server.stdio",
)
_READ = 65536

logger = logging.getLogger(__name__)


@dataclass
class StartAnswers:
    """The recorded answers of one start's inputs; the SDK path records into it and checks
    the prelude's replayed answers against it (see ``saw_request`` / ``saw_answer``)."""

    path: Path
    digest: str
    answers: dict[str, str] = field(default_factory=dict)
    # the command line after `broker stdio` and the environment: the inputs are read again
    # when an answer is saved
    args: list[str] = field(default_factory=list)
    environ: dict[str, str] = field(default_factory=dict)
    _recorded: set[str] = field(default_factory=set)
    # request id (type, value) -> answer key, until the SDK path answers it
    _pending: dict[tuple[type, object], str] = field(default_factory=dict)
    _init_key: str | None = None
    _done: set[str] = field(default_factory=set)
    # the replay ids the prelude sent to the SDK path
    _replayed: set[str] = field(default_factory=set)
    # methods whose replayed answer differed from the one sent (an input the digest missed)
    stale: set[str] = field(default_factory=set)
    # methods to record again (``record_again``) whose next answer has not come yet
    _again: set[str] = field(default_factory=set)
    # bytes for the SDK path ahead of what it reads itself (the lines the prelude read)
    feed: bytes = b""

    @property
    def active(self) -> bool:
        """False once both answers were seen: the SDK path stops looking."""
        return bool(self._pending) or len(self._done) < len(METHODS)

    def saw_request(self, line: bytes) -> None:
        """An inbound line: note an ``initialize`` / ``tools/list`` whose answer may be kept."""
        if b'"initialize"' not in line and b'"tools/list"' not in line:
            return
        req = _request(line)
        if req is None or req["method"] in self._done:
            return
        self._expect(req["id"], req["method"], req.get("params"))

    def _expect(self, rid: object, method: str, params: Any) -> str | None:
        key = self._key(method, params)
        if key is not None:
            self._pending[(type(rid), rid)] = key
            if method == "initialize":
                self._init_key = key
        return key

    def saw_answer(self, rid: object, data: bytes) -> bool:
        """An outbound answer (or error) of the SDK path: record it; True when it must not be
        written — the answer to a replayed request, which the prelude already sent. When it
        differs from what was sent, its method is in ``stale`` afterwards."""
        key = self._pending.pop((type(rid), rid), None)
        if key is None:
            return False
        replayed = rid in self._replayed
        method = key.split(" ", 1)[0]
        self._done.add(method)
        result = _result_of(data, rid)
        if replayed and result != self.answers.get(key):
            # an input the digest does not see changed: this start's answer was the last one's
            logger.warning(
                "broker stdio: %s was answered from a stale start; now: %s", method, data
            )
            self.stale.add(method)
        if result is not None:
            self._again.discard(method)
        if result is not None and self.answers.get(key) != result:
            self.answers[key] = result
            self._recorded.add(key)
            self.save()
        return replayed

    def record_again(self, method: str) -> None:
        """Record the next answer to ``method`` again (its inputs are about to change)."""
        self._done.discard(method)
        self._again.add(method)

    def forget(self, method: str) -> None:
        """Drop the recorded answers to ``method`` unless it was answered again since
        ``record_again``: they no longer hold (the next start's SDK path answers it)."""
        if method not in self._again:
            return
        keys = [k for k in self.answers if k.startswith(method + " ")]
        for k in keys:
            del self.answers[k]
        if keys:
            self.save()

    def restate_initialize(self, text: str, declared: dict[str, bool]) -> bool:
        """What the next start's ``initialize`` answers, once this start's servers were listed
        in the background (a first start answered before they were): the recorded answers
        carry these instructions instead, and no longer the capabilities ``declared`` says
        are not (``resources`` / ``prompts`` once no server has any), under the digest of the
        inputs as they are now. An answer whose bytes the serializer does not reproduce
        exactly, or that would need a capability it lacks, is dropped (the next start's SDK
        path answers it); the next start's SDK path checks the restated bytes as it checks
        any. True when the file changed."""
        import pydantic_core

        changed = False
        for key in [k for k in self.answers if k.startswith("initialize ") and k in self._recorded]:
            old = self.answers[key]
            try:
                data = json.loads(old)
            except ValueError:
                data = None
            caps = data.get("capabilities") if isinstance(data, dict) else None
            if (
                not isinstance(data, dict)
                or not isinstance(caps, dict)
                or pydantic_core.to_json(data).decode() != old
                or any(on and kind not in caps for kind, on in declared.items())
            ):
                del self.answers[key]
                changed = True
                continue
            for kind, on in declared.items():
                if not on:
                    caps.pop(kind, None)
            if text:
                data["instructions"] = text
            else:
                data.pop("instructions", None)
            new = pydantic_core.to_json(data).decode()
            if new != old:
                self.answers[key] = new
                changed = True
        found = start_digest(self.args, self.environ)
        if changed or (found is not None and found[1] != self.digest):
            self.save()
            return True
        return False

    def _key(self, method: str, params: Any) -> str | None:
        if isinstance(params, dict) and "_meta" in params:
            return None  # progress tokens and envelopes: the SDK path's every time
        p = json.dumps(params, sort_keys=True, separators=(",", ":"))
        if method == "initialize":
            return f"initialize {p}"
        if self._init_key is None:
            return None
        return f"tools/list {self._init_key.split(' ', 1)[1]} {p}"

    def save(self) -> None:
        """Write the answers (a cache: when the file cannot be written, the next start's
        answers are the SDK path's)."""
        try:
            # The inputs as they are now, when the answer was just given: a first start lists
            # the servers for its instructions and caches their tools, which the next reads.
            found = start_digest(self.args, self.environ)
            if found is not None and found[1] != self.digest:
                self.digest = found[1]
                self.answers = {k: v for k, v in self.answers.items() if k in self._recorded}
            self.path.parent.mkdir(parents=True, exist_ok=True)
            body = {"format": FORMAT, "digest": self.digest, "answers": self.answers}
            atomic_write(self.path, json.dumps(body), mode=FILE_MODE)
        except OSError as exc:
            logger.warning("broker stdio: %s not written: %s", self.path, exc)


_current: StartAnswers | None = None


def current() -> StartAnswers | None:
    """This process's start answers (None when ``broker stdio`` was not started by the CLI)."""
    return _current


def _request(line: bytes) -> dict[str, Any] | None:
    """``line`` as an ``initialize`` / ``tools/list`` request whose answer may be cached: a
    plain JSON-RPC request with an id the SDK serialises as JSON does (an int, or a string of
    printable ASCII without escapes)."""
    try:
        req = json.loads(line)
    except ValueError:
        return None
    if (
        not isinstance(req, dict)
        or req.keys() - {"jsonrpc", "id", "method", "params"}
        or req.get("jsonrpc") != "2.0"
        or req.get("method") not in METHODS
        or ("params" in req and not isinstance(req["params"], dict))
    ):
        return None
    rid = req.get("id")
    if isinstance(rid, bool) or not isinstance(rid, int | str):
        return None
    if isinstance(rid, str) and not all(" " <= c <= "~" and c not in '"\\' for c in rid):
        return None
    return req


def _prefix(rid: object) -> bytes:
    return b'{"jsonrpc":"2.0","id":' + json.dumps(rid).encode() + b',"result":'


def _result_of(data: bytes, rid: object) -> str | None:
    """The result's bytes of an SDK answer line (None when it is not a plain result)."""
    line = data.rstrip(b"\n")
    head = _prefix(rid)
    if not line.startswith(head) or not line.endswith(b"}"):
        return None
    return line[len(head) : -1].decode()


# -- the digest of the inputs --------------------------------------------------------------


def _dirs(env: dict[str, str]) -> tuple[Path, Path]:
    """(home, config dir) as ``neuralgentics.config.Settings`` resolves them (its env names
    are case-insensitive)."""
    home, config = env.get("NEURALGENTICS_HOME"), env.get("NEURALGENTICS_CONFIG_DIR")
    if home is None or config is None:
        import platformdirs

        home = home or platformdirs.user_data_dir("neuralgentics")
        config = config or platformdirs.user_config_dir("neuralgentics")
    return Path(home), Path(config)


def _config_arg(args: list[str]) -> tuple[str | None, bool]:
    """(the --config value, whether the command line is one the prelude understands)."""
    config, i = None, 0
    while i < len(args):
        a = args[i]
        name, eq, value = a.partition("=")
        if name in ("--config", "-c", "--role", "--session-id"):
            if not eq:
                if i + 1 >= len(args):
                    return None, False
                i, value = i + 1, args[i + 1]
            if name in ("--config", "-c"):
                config = value
        else:
            return None, False
        i += 1
    return config, True


def _tree(root: Path) -> list[tuple[str, int, int]]:
    out = []
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = os.path.join(dirpath, f)
            try:
                st = os.stat(p)
            except OSError:
                continue
            out.append((os.path.relpath(p, root), st.st_size, st.st_mtime_ns))
    return sorted(out)


def _tool_lists(directory: Path) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    try:
        names = sorted(n for n in os.listdir(directory) if n.endswith(".json"))
    except OSError:
        return out
    for n in names:
        try:
            data = json.loads((directory / n).read_bytes())
        except (OSError, ValueError):
            data = None
        if isinstance(data, dict):
            data.pop("saved_at", None)  # rewritten whenever a server lists, same tools or not
        out.append((n, data))
    return out


def _file(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8", "replace")
    except OSError:
        return None


def start_digest(
    args: list[str], environ: dict[str, str], cwd: str | None = None
) -> tuple[Path, str] | None:
    """(the answers file, the digest of every input of the first answers) for ``broker stdio
    <args>``; None for a command line the prelude leaves alone."""
    import hashlib

    found = start_inputs(args, environ, cwd)
    if found is None:
        return None
    home, inputs = found
    blob = json.dumps(inputs, sort_keys=True, default=str).encode()
    return home / "broker" / ANSWERS_FILE, hashlib.sha256(blob).hexdigest()


def start_inputs(
    args: list[str], environ: dict[str, str], cwd: str | None = None
) -> tuple[Path, dict[str, Any]] | None:
    """(home, what the first answers depend on) for ``broker stdio <args>``."""
    from importlib.util import find_spec

    import neuralgentics

    config_arg, ok = _config_arg(args)
    if not ok:
        return None
    env = {k.upper(): v for k, v in environ.items()}
    home, config_dir = _dirs(env)
    config = Path(config_arg) if config_arg is not None else config_dir / "broker.yaml"
    cwd = cwd or os.getcwd()
    package = Path(neuralgentics.__file__).parent
    sdk = []
    for mod in ("mcp", "mcp_types", "pydantic"):
        spec = find_spec(mod)
        origin = spec.origin if spec is not None else None
        sdk.append((mod, origin, os.stat(origin).st_mtime_ns if origin else None))
    inputs = {
        "format": FORMAT,
        "version": neuralgentics.__version__,
        "package": str(package),
        "python": [sys.version, sys.executable],
        "sdk": sdk,
        "args": args,
        "cwd": cwd,
        "env": sorted(
            (k, v)
            for k, v in env.items()
            if k.startswith(("NEURALGENTICS_", "XDG_")) or k in ("HOME", "EGRESS_GATEWAY_URL")
        ),
        "config": [str(config.resolve()), _file(config)],
        "tools": _tool_lists(home / "broker" / "tools"),
        "skills": [
            _tree(d)
            for d in (
                Path(cwd) / "skills",
                config_dir / "skills",
                package / "orchestrator" / "builtin_skills",
            )
        ],
    }
    return home, inputs


# -- the prelude ---------------------------------------------------------------------------


def _load(path: Path, digest: str) -> dict[str, str]:
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("digest") != digest:
        return {}
    answers = data.get("answers")
    if not isinstance(answers, dict):
        return {}
    return {k: v for k, v in answers.items() if isinstance(k, str) and isinstance(v, str)}


def _is_pipe(fd: int) -> bool:
    import stat

    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _import_heavy() -> None:
    """Import what ``broker stdio`` runs on, with the cyclic collector off: the imports make
    ~150k objects (pydantic's models, the SDK's types), each collection walking all of them
    (~8 % of the imports' CPU); then frozen — they live as long as the process, and the
    collections of the start (and of every call after it) no longer walk them."""
    import gc
    from importlib import import_module

    enabled = gc.isenabled()
    gc.disable()
    try:
        for name in HEAVY:
            try:
                import_module(name)
            except Exception:  # noqa: BLE001 - the main thread imports it again and reports
                return
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def prelude(args: list[str], environ: dict[str, str]) -> None:
    """Before ``broker stdio <args>`` loads (in the process's ``environ``): answer what the
    last start's answers can, while the SDK is imported on a thread; leave what was read for
    the SDK path (``current().feed``)."""
    global _current
    found = start_digest(args, environ)
    if found is None:
        return
    path, digest = found
    answers = StartAnswers(path, digest, _load(path, digest), list(args), dict(environ))
    _current = answers
    loader = threading.Thread(target=_import_heavy, name="import", daemon=True)
    loader.start()
    if answers.answers and _is_pipe(0) and _is_pipe(1):
        answers.feed = _answer_from_cache(answers, loader)
    loader.join()


def _readable(loader: threading.Thread) -> bool:
    """Wait for input while the SDK is still loading; False once it has loaded with nothing
    to read (the SDK path takes over: a client that waits is not kept waiting for a start)."""
    import select

    while True:
        if select.select([0], [], [], 0.05)[0]:
            return True
        if not loader.is_alive():
            return False


def _answer_from_cache(answers: StartAnswers, loader: threading.Thread) -> bytes:
    """Read lines and answer ``initialize``, then ``tools/list``, while their answers are
    known; the bytes read, answered requests under their replay ids, for the SDK path."""
    buf, feed = b"", []
    want = list(METHODS)
    while want:
        nl = buf.find(b"\n")
        if nl < 0:
            if not _readable(loader):
                break
            try:
                chunk = os.read(0, _READ)
            except OSError:
                break
            if not chunk:
                break
            buf += chunk
            continue
        line, buf = buf[: nl + 1], buf[nl + 1 :]
        if not line.strip():
            feed.append(line)
            continue
        req = _request(line)
        if req is None:
            if b'"method":"notifications/initialized"' in line.replace(b" ", b""):
                feed.append(line)  # between the two: the SDK path reads it after initialize
                continue
            feed.append(line)
            break
        method = req["method"]
        key = answers._key(method, req.get("params"))
        result = answers.answers.get(key) if key is not None and method == want[0] else None
        if result is None:
            feed.append(line)
            break
        _write_all(_prefix(req["id"]) + result.encode() + b"}\n")
        want.pop(0)
        replay = REPLAY[method]
        answers._expect(replay, method, req.get("params"))
        answers._replayed.add(replay)
        feed.append(json.dumps({**req, "id": replay}).encode() + b"\n")
    return b"".join(feed) + buf


def _write_all(data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(1, view)
        view = view[n:]
