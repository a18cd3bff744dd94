"""`neuralgentics doctor`: is everything Neuralgentics needs in place, and what to do if not."""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

import httpx

from neuralgentics import __version__
from neuralgentics.config import Settings
from neuralgentics.embeddings import Embedder
from neuralgentics.text import plural

Status = Literal["ok", "warn", "fail"]
MIN_OPENCODE = (1, 18)


@dataclass
class Check:
    name: str
    status: Status
    detail: str
    fix: str = ""

    def to_json(self) -> dict[str, str]:
        return asdict(self)


def _get(url: str, timeout: float = 3.0) -> httpx.Response:
    return httpx.get(url, timeout=timeout)


def check_memini(base_url: str) -> Check:
    try:
        r = _get(base_url + "/health")
        body = r.json()
    except (httpx.HTTPError, ValueError) as exc:
        return Check(
            "memini-core",
            "fail",
            f"{base_url} does not answer ({type(exc).__name__})",
            "start it: neuralgentics up",
        )
    if r.status_code != 200 or body.get("status") != "ok":
        return Check(
            "memini-core",
            "fail",
            f"{base_url}/health answered {r.status_code}: {str(body)[:200]}",
            "see the memini-core log; a database URL that is down answers 503",
        )
    version = body.get("version")
    detail = (
        f"{base_url} ({body.get('store')}, {body.get('counts', {}).get('memories', '?')} memories)"
    )
    if version and version != __version__:
        return Check(
            "memini-core",
            "warn",
            f"{detail} runs version {version}, this CLI is {__version__}",
            "restart it: neuralgentics up",
        )
    return Check("memini-core", "ok", detail)


def check_credential(s: Settings, memini_url: str) -> Check:
    """The local token exists, is private, and the running memini-core accepts it."""
    import stat

    from neuralgentics.credentials import CredentialError, client_token, token_path

    path = token_path(s)
    try:
        token = client_token(s)
    except CredentialError as exc:
        return Check(
            "credential", "fail", str(exc), f"delete {path}; `neuralgentics up` makes a new one"
        )
    if token is None:
        return Check(
            "credential",
            "fail",
            f"no token: {path} does not exist and NEURALGENTICS_TOKEN is not set",
            "start the services (neuralgentics up) or run `neuralgentics opencode install`: both create it",
        )
    where = "NEURALGENTICS_TOKEN" if s.token else str(path)
    if not s.token:
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            return Check(
                "credential",
                "fail",
                f"{path} is readable by other users (mode {mode:o})",
                f"chmod 600 {path}",
            )
    try:
        r = httpx.get(
            memini_url + "/memory",
            params={"limit": 1},
            timeout=5.0,
            headers={"Authorization": f"Bearer {token}"},
        )
    except httpx.HTTPError:
        return Check(
            "credential", "ok", f"{where} (memini-core not running: not checked against it)"
        )
    if r.status_code == 401:
        return Check(
            "credential",
            "fail",
            f"memini-core at {memini_url} refuses the token from {where}",
            "it was started with another NEURALGENTICS_TOKEN or config dir: restart it (neuralgentics up)",
        )
    return Check("credential", "ok", f"{where}, accepted by memini-core")


def check_broker_http(s: Settings, url: str, required: bool) -> Check:
    try:
        r = _get(url + "/health")
        ok = r.status_code == 200
    except httpx.HTTPError:
        ok = False
    if ok:
        from neuralgentics.credentials import CredentialError, auth_headers

        try:
            refused = (
                httpx.get(url + "/servers", headers=auth_headers(s), timeout=3.0).status_code == 401
            )
        except (httpx.HTTPError, CredentialError):
            refused = False
        if refused:
            return Check(
                "broker (http)",
                "fail",
                f"{url} refuses this machine's token",
                "it was started with another NEURALGENTICS_TOKEN or config dir: restart it (neuralgentics up)",
            )
        return Check("broker (http)", "ok", f"{url}/mcp")
    status: Status = "fail" if required else "warn"
    why = "opencode.json points OpenCode at it" if required else "only needed with --broker http"
    return Check(
        "broker (http)", status, f"{url} does not answer ({why})", "start it: neuralgentics up"
    )


def check_broker_config(s: Settings) -> Check:
    from neuralgentics.broker import ConfigError, default_config_path, load_config

    path = default_config_path(s)
    try:
        cfg = load_config(path, missing_ok=True)
    except ConfigError as exc:
        return Check(
            "broker config",
            "fail",
            str(exc),
            "fix the file; `neuralgentics broker check` validates it",
        )
    where = str(path) if path.exists() else f"{path} (absent: no servers yet)"
    return Check("broker config", "ok", f"{where}: {plural(len(cfg.servers), 'server')}")


def find_opencode() -> str | None:
    found = shutil.which("opencode")
    if found:
        return found
    local = Path(__file__).resolve().parents[3] / "node_modules" / ".bin" / "opencode"
    return str(local) if local.exists() else None


@functools.lru_cache(maxsize=8)
def _version_output(exe: str, identity: tuple[int, int, int]) -> str:
    """`exe --version`, once per program file and process (``identity``: the file's inode,
    size and mtime, so a replaced binary is asked again): a process that runs the checks more
    than once (the test suite does, dozens of times) starts it once."""
    return subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30).stdout


def check_opencode() -> Check:
    exe = find_opencode()
    if exe is None:
        return Check(
            "opencode",
            "fail",
            "the opencode program is not on PATH",
            "npm install -g opencode-ai (1.18 or newer)",
        )
    try:
        st = Path(exe).stat()
        out = _version_output(exe, (st.st_ino, st.st_size, st.st_mtime_ns)).strip()
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Check(
            "opencode",
            "fail",
            f"{exe} --version failed: {exc}",
            "reinstall: npm install -g opencode-ai",
        )
    m = re.search(r"(\d+)\.(\d+)\.(\d+)", out)
    if not m:
        return Check("opencode", "warn", f"{exe}: cannot read a version from {out!r}")
    if (int(m.group(1)), int(m.group(2))) < MIN_OPENCODE:
        return Check(
            "opencode",
            "fail",
            f"{exe} is {m.group(0)}; the plugin hooks need 1.18+",
            "npm install -g opencode-ai@latest",
        )
    return Check("opencode", "ok", f"{m.group(0)} ({exe})")


def installed_plugin(config: dict) -> tuple[Path, dict] | None:
    """Our plugin's file and options, as opencode.json names them (None: not listed)."""
    from urllib.parse import unquote, urlparse

    from neuralgentics.opencode.installer import PLUGIN_FILE

    for entry in config.get("plugin") or []:
        spec, opts = (
            (entry[0], entry[1] if len(entry) > 1 else {})
            if isinstance(entry, list) and entry
            else (entry, {})
        )
        if isinstance(spec, str) and spec.endswith("/" + PLUGIN_FILE):
            path = Path(unquote(urlparse(spec).path)) if spec.startswith("file:") else Path(spec)
            return path, opts if isinstance(opts, dict) else {}
    return None


def check_install(s: Settings, project: Path | None, global_: bool) -> list[Check]:
    from neuralgentics.opencode.installer import (
        MCP_NAME,
        InstallError,
        plugin_files,
        resolve_target,
    )
    from neuralgentics.opencode.jsonedit import JsonFileError, read_json_file

    try:
        target = resolve_target(s, project, global_)
    except InstallError as exc:
        return [Check("plugin", "fail", str(exc))]
    where = "--global" if global_ else f"--project {target.project_dir}"
    reinstall = f"neuralgentics opencode install {where}"
    checks: list[Check] = []
    try:
        cfg = read_json_file(target.config_file)
    except JsonFileError as exc:
        return [Check("opencode.json", "fail", str(exc), "fix the JSON")]
    found = installed_plugin(cfg)
    if found is None:
        checks.append(
            Check("plugin", "fail", f"{target.config_file} does not list the plugin", reinstall)
        )
    elif not found[0].exists():
        checks.append(Check("plugin", "fail", f"{found[0]} is missing", reinstall))
    elif any(
        not (found[0].parent / rel).exists() or (found[0].parent / rel).read_text("utf-8") != text
        for rel, text in plugin_files()
    ):
        checks.append(
            Check(
                "plugin",
                "warn",
                f"{found[0]} differs from this version's plugin",
                f"{reinstall} (updates it unless you edited it: then delete it first)",
            )
        )
    else:
        checks.append(Check("plugin", "ok", str(found[0])))
    if found is not None:
        checks.append(check_plugin_options(s, found[1], reinstall))
        if target.project_dir is not None:
            checks.append(check_project_key(s, found[1], reinstall))
        checks.append(check_plugin_routing(s, found[1], target.project_dir, reinstall))
    checks.append(check_tui_brand(target.home, where))
    entry = cfg.get("mcp", {}).get(MCP_NAME) if isinstance(cfg.get("mcp"), dict) else None
    if not entry:
        checks.append(
            Check(
                "opencode.json",
                "fail",
                f"{target.config_file} has no mcp.{MCP_NAME}",
                reinstall,
            )
        )
    else:
        how = entry.get("url") or " ".join(entry.get("command", []))
        checks.append(Check("opencode.json", "ok", f"mcp.{MCP_NAME}: {entry.get('type')} {how}"))
    checks.append(check_startup_lock(s, target.project_dir, reinstall))
    return checks


def check_project_key(s: Settings, options: dict, reinstall: str) -> Check:
    """The repository's key the plugin stores memories under; two installs must not share one
    (their memories would mix: issue 28)."""
    from neuralgentics import project_credentials
    from neuralgentics.credentials import CredentialError

    key = options.get("project")
    if not key:
        return Check(
            "project key",
            "fail",
            "the plugin has no project key: it stores memories under the folder name, which "
            "other repositories of that name share",
            reinstall,
        )
    try:
        sharing = [e for e in project_credentials.load(s) if e.project == key]
    except CredentialError as exc:
        return Check("project key", "fail", str(exc))
    if len(sharing) > 1:
        return Check(
            "project key",
            "fail",
            f"{key} is the key of {len(sharing)} installs ("
            + ", ".join(str(Path(e.token_file).parent) for e in sharing)
            + "): their memories mix",
            "uninstall all but one (neuralgentics opencode uninstall --project DIR)",
        )
    return Check("project key", "ok", f"{key} (shown as {options.get('project_name') or key})")


def check_plugin_options(s: Settings, options: dict, reinstall: str) -> Check:
    """The plugin must reach the services this machine runs, with the token they accept."""
    from neuralgentics.credentials import token_path

    url = str(options.get("service_url") or "http://127.0.0.1:8900").rstrip("/")
    if url != s.url.rstrip("/"):
        return Check(
            "plugin settings",
            "fail",
            f"the plugin talks to {url}, but memini-core is at {s.url} "
            "(NEURALGENTICS_PORT / NEURALGENTICS_SERVICE_URL changed since install)",
            reinstall,
        )
    if options.get("credential_file"):
        return check_project_credential(options, reinstall)
    token_file = options.get("token_file")
    if token_file:
        path = Path(str(token_file)).expanduser()
        if path != token_path(s) and not s.token:
            return Check(
                "plugin settings",
                "fail",
                f"the plugin reads the token from {path}, but this machine's is {token_path(s)}",
                reinstall,
            )
        token = path.read_text("utf-8").strip() if path.exists() else None
    else:
        token = s.token
    if not token:
        return Check(
            "plugin settings",
            "fail",
            "the plugin has no token: "
            + (f"{token_file} does not exist" if token_file else "NEURALGENTICS_TOKEN is not set"),
            "start the services (neuralgentics up), then " + reinstall,
        )
    try:
        r = httpx.get(
            url + "/memory",
            params={"limit": 1},
            headers={"Authorization": f"Bearer {token}"},
            timeout=5.0,
        )
    except httpx.HTTPError:
        return Check("plugin settings", "ok", f"{url} (not running: the token was not checked)")
    if r.status_code == 401:
        return Check(
            "plugin settings",
            "fail",
            f"memini-core at {url} refuses the token the plugin sends",
            "restart the services (neuralgentics up) or " + reinstall,
        )
    return Check("plugin settings", "ok", f"{url}, token accepted")


def check_project_credential(options: dict, reinstall: str) -> Check:
    """A project install's plugin holds a project credential: memini-core must accept it for
    the plugin's project (a search there answers 200; 401: unknown or revoked)."""
    url = str(options.get("service_url") or "http://127.0.0.1:8900").rstrip("/")
    path = Path(str(options["credential_file"])).expanduser()
    token = path.read_text("utf-8").strip() if path.exists() else None
    if not token:
        return Check(
            "plugin settings",
            "fail",
            f"the plugin's project credential {path} is missing (revoked?)",
            reinstall,
        )
    try:
        r = httpx.post(
            url + "/memory/query",
            json={"query": "doctor", "project": options.get("project") or "", "top_k": 1},
            headers={"Authorization": f"Bearer {token}"},
            timeout=5.0,
        )
    except httpx.HTTPError:
        return Check(
            "plugin settings", "ok", f"{url} (not running: the credential was not checked)"
        )
    if r.status_code in (401, 403):
        return Check(
            "plugin settings",
            "fail",
            f"memini-core at {url} refuses the plugin's project credential ({r.status_code})",
            reinstall,
        )
    return Check("plugin settings", "ok", f"{url}, project credential accepted")


def check_startup_lock(s: Settings, project_dir: Path | None, reinstall: str) -> Check:
    """A config dir without node_modules makes every `opencode` start wait for an npm install
    (about 70 s offline); one with our empty lock breaks a plugin that imports the SDK."""
    from neuralgentics.opencode import locks
    from neuralgentics.opencode.installer import global_config_home

    waiting = [
        d
        for d in locks.config_dirs(global_config_home(s), project_dir)
        if d.is_dir() and not (d / "node_modules").exists()
    ]
    if waiting:
        return Check(
            "start-up",
            "warn",
            "OpenCode will npm-install @opencode-ai/plugin at start in "
            + ", ".join(map(str, waiting))
            + " (about 70 s when offline)",
            reinstall,
        )
    importing = []
    for d in locks.config_dirs(global_config_home(s), project_dir):
        nm = d / "node_modules"
        if nm.is_dir() and not any(nm.iterdir()):
            for f in [*d.glob("plugin*/*.[jt]s"), *d.glob("tool*/*.[jt]s")]:
                text = f.read_text("utf-8", errors="replace")
                if re.search(r"^\s*import\s+(?!type\b)[^;]*[\"']@opencode-ai/plugin", text, re.M):
                    importing.append(str(f))
    if importing:
        return Check(
            "start-up",
            "warn",
            f"{', '.join(importing)} import(s) @opencode-ai/plugin, which the pre-created lock "
            "keeps OpenCode from installing",
            "run `npm install @opencode-ai/plugin` in that folder",
        )
    return Check("start-up", "ok", "no npm install at OpenCode start")


def check_agent_tools(s: Settings, project: Path | None) -> Check:
    """Every agent a session can run as has a broker role that reaches some server."""
    from neuralgentics.broker import ConfigError, default_config_path, load_config
    from neuralgentics.opencode.agents import load_roster
    from neuralgentics.opencode.broker_roles import OPENCODE_AGENTS, roles_without_tools

    try:
        cfg = load_config(default_config_path(s), missing_ok=True)
        roster = load_roster(project)
    except (ConfigError, Exception) as exc:  # the broker-config and routing checks name it
        return Check("agent tools", "warn", f"not checked: {exc}")
    if not cfg.brokered():
        return Check(
            "agent tools",
            "warn",
            "no brokered MCP servers yet",
            "neuralgentics broker add NAME -- COMMAND ARGS…",
        )
    agents = list(dict.fromkeys([*OPENCODE_AGENTS, *roster.agents]))
    blind = roles_without_tools(cfg, agents)
    if blind:
        return Check(
            "agent tools",
            "fail",
            "these agents would see no brokered tool: "
            + "; ".join(f"{a}: {why}" for a, why in blind.items()),
            "neuralgentics opencode install (adds the default roles), or edit roles in "
            f"{default_config_path(s)}",
        )
    return Check(
        "agent tools", "ok", f"{len(agents)} agents, each with a role that reaches a server"
    )


def check_stdio_servers(s: Settings, timeout: float = 20.0) -> list[Check]:
    """Start each brokered stdio server once (initialize and list tools), as the broker would."""
    import tempfile

    import anyio

    from neuralgentics.broker import ConfigError, default_config_path, fetch_tools, load_config

    try:
        cfg = load_config(default_config_path(s), missing_ok=True)
    except ConfigError:
        return []  # the broker-config check reports it
    checks = []
    for name, srv in sorted(cfg.brokered().items()):
        if srv.transport != "stdio" or not srv.command:
            continue
        label = f"server {name}"
        command = " ".join([srv.command, *srv.args])
        if shutil.which(srv.command) is None:
            checks.append(
                Check(
                    label,
                    "fail",
                    f"{srv.command!r} is not found (PATH or path)",
                    f"fix servers.{name}.command in {default_config_path(s)}",
                )
            )
            continue
        with tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace") as errlog:
            try:
                tools = anyio.run(fetch_tools, srv, timeout, errlog, s.egress_gateway_url)
            except Exception as exc:  # noqa: BLE001 - what the user needs is the reason
                errlog.seek(0)
                tail = [x.strip() for x in errlog.read().splitlines() if x.strip()][-2:]
                reason = " ".join(str(exc).split())[:200] or type(exc).__name__
                checks.append(
                    Check(
                        label,
                        "fail",
                        f"`{command}` does not start: {reason}"
                        + (f" ({' | '.join(tail)[:300]})" if tail else ""),
                        f"fix servers.{name} in {default_config_path(s)} (e.g. the interpreter that has the package)",
                    )
                )
                continue
        checks.append(Check(label, "ok", f"`{command}`: {len(tools)} tools"))
    return checks


def check_model_tiers(s: Settings, project: Path | None, global_: bool) -> Check:
    """Which model each roster tier runs on: models.yaml, and what the install wrote."""
    import json

    from neuralgentics.opencode.agents import OPENCODE_BUILTIN_AGENTS, load_roster
    from neuralgentics.opencode.installer import resolve_target
    from neuralgentics.opencode.models import ModelTierError, ModelTiers, load_tiers, models_file

    try:
        configured = load_tiers(models_file(s.config_dir))
    except ModelTierError as exc:
        return Check(
            "model tiers", "fail", str(exc), "fix the file (see docs/opencode.md, model tiers)"
        )
    try:
        target = resolve_target(s, project, global_)
        roster = load_roster(target.project_dir)
    except Exception as exc:  # InstallError, or a broken roster (the routing check names it)
        return Check("model tiers", "warn", f"cannot read the roster: {exc}")
    installed = configured
    where = "--global" if global_ else f"--project {target.project_dir}"
    if target.manifest.exists():
        try:
            installed = ModelTiers(
                **(json.loads(target.manifest.read_text("utf-8")).get("models") or {})
            )
        except (ValueError, TypeError):
            pass
    parts = []
    for tier in ("primary", "secondary"):
        agents = [
            n
            for n, a in roster.agents.items()
            if a.get("tier") == tier and n not in OPENCODE_BUILTIN_AGENTS
        ]
        model = installed.model_for(tier) or "OpenCode's default model"
        parts.append(f"{tier} → {model} ({', '.join(agents) or 'no agents'})")
    detail = "; ".join(parts)
    if target.manifest.exists() and installed != configured:
        return Check(
            "model tiers",
            "warn",
            f"installed: {detail}; {models_file(s.config_dir)} now says primary={configured.primary}, "
            f"secondary={configured.secondary}",
            f"neuralgentics opencode install {where} (rewrites the agents' model fields)",
        )
    return Check("model tiers", "ok", detail)


def check_tui_brand(home: Path, where: str) -> Check:
    """The TUI plugin that shows "Neuralgentics powered by OpenCode" and the live status."""
    from neuralgentics.opencode import tui
    from neuralgentics.opencode.jsonedit import JsonFileError, read_json_file

    config = tui.tui_config_file(home)
    try:
        listed = any(
            (p[0] if isinstance(p, list) and p else p) == tui.BRAND_SPEC
            for p in read_json_file(config).get("plugin", []) or []
        )
    except (JsonFileError, TypeError) as exc:
        return Check("tui brand", "warn", f"{config}: {exc}", "fix the JSON")
    brand = tui.brand_file(home)
    if not listed or not brand.exists():
        missing = (
            f"{config} does not list {tui.BRAND_SPEC}" if not listed else f"{brand} is missing"
        )
        return Check(
            "tui brand",
            "warn",
            f"{missing}: the TUI shows OpenCode's own footer",
            f"neuralgentics opencode install {where}",
        )
    if any(not f.is_file() or f.read_text("utf-8") != text for f, text in tui.brand_files(home)):
        return Check(
            "tui brand",
            "warn",
            f"{brand} differs from this version's",
            f"neuralgentics opencode install {where} (delete it first if you edited it)",
        )
    return Check("tui brand", "ok", f"{brand} (listed in {config})")


def remote_broker_url(s: Settings, project: Path | None, global_: bool) -> str | None:
    """The broker URL opencode.json sends OpenCode to, when it is installed as a remote server."""
    from neuralgentics.opencode.installer import MCP_NAME, InstallError, resolve_target
    from neuralgentics.opencode.jsonedit import JsonFileError, read_json_file

    try:
        cfg = read_json_file(resolve_target(s, project, global_).config_file)
    except (InstallError, JsonFileError, OSError):
        return None
    entry = cfg.get("mcp", {}).get(MCP_NAME) if isinstance(cfg.get("mcp"), dict) else None
    if (
        isinstance(entry, dict)
        and entry.get("type") == "remote"
        and isinstance(entry.get("url"), str)
    ):
        return entry["url"].removesuffix("/").removesuffix("/mcp")
    return None


def check_model(embedder: Embedder) -> Check:
    try:
        start = time.perf_counter()
        vec = embedder.embed(["neuralgentics doctor"])[0]
        ms = (time.perf_counter() - start) * 1000
    except Exception as exc:  # any failure to load is what the user needs to see
        return Check(
            "embedding model",
            "fail",
            f"{type(exc).__name__}: {exc}",
            "reinstall: scripts/install.sh (it exports the model once)",
        )
    return Check(
        "embedding model",
        "ok",
        f"all-MiniLM-L6-v2, {len(vec)} dims, first embedding in {ms:.0f} ms",
    )


def check_llm_provider(
    s: Settings, project: Path | None, global_: bool, environ: Mapping[str, str]
) -> Check:
    """Does OpenCode have a model to run on: a provider for each model tier (and the config's
    `model`), or at least one provider of the user's own (else its hosted free models, which
    need the internet)."""
    from neuralgentics.opencode import providers
    from neuralgentics.opencode.installer import InstallError, global_config_home, resolve_target
    from neuralgentics.opencode.models import ModelTierError, load_tiers, models_file

    try:
        project_dir = resolve_target(s, project, global_).project_dir
    except InstallError:
        project_dir = None
    data_home = s.xdg_data_home or Path.home() / ".local" / "share"
    found = providers.find(
        providers.config_files(global_config_home(s), project_dir),
        data_home / "opencode" / "auth.json",
        environ,
    )
    try:
        tiers = load_tiers(models_file(s.config_dir))
    except ModelTierError:
        tiers = None  # the model-tiers check reports the broken file
    wanted = {
        f"{tier} tier": m
        for tier in ("primary", "secondary")
        if tiers is not None and (m := tiers.model_for(tier))
    }
    if found.default_model:
        wanted["opencode.json model"] = found.default_model
    missing = [
        f"{what} runs on {m}, but OpenCode has no access to {providers.provider_of(m)!r}"
        for what, m in wanted.items()
        if not found.has(providers.provider_of(m)) and providers.provider_of(m) != "opencode"
    ]
    have = ", ".join(f"{p} ({how})" for p, how in sorted(found.usable.items()))
    if missing:
        return Check("llm provider", "fail", "; ".join(missing), providers.HOW_TO_ADD)
    if not found.usable:
        return Check(
            "llm provider",
            "warn",
            "no model provider of yours: OpenCode falls back to its hosted free models "
            "(opencode/…), which need the internet; offline a prompt retries "
            "'Cannot connect to API' for ever",
            providers.HOW_TO_ADD,
        )
    runs = "; ".join(f"{w} → {m}" for w, m in wanted.items()) or "OpenCode picks the model"
    return Check("llm provider", "ok", f"{runs}; providers: {have}")


def check_routing(s: Settings, project: Path | None) -> Check:
    try:
        from neuralgentics.orchestrator import load_config

        cfg = load_config(project_dir=project or Path.cwd(), config_dir=s.config_dir)
    except Exception as exc:
        return Check("routing matrix", "fail", str(exc), "fix the roster/routing YAML it names")
    return Check(
        "routing matrix",
        "ok",
        f"{plural(len(cfg.agents), 'agent')}, {plural(len(cfg.task_types), 'task type')}",
    )


def check_tasks(s: Settings) -> Check:
    """Tasks stalled at verify (the model ignored the hint): their results are not remembered
    until someone verifies, closes or resumes them."""
    from neuralgentics.orchestrator import TaskStore
    from neuralgentics.orchestrator import stalled as is_stalled

    path = s.home / "orchestrator.db"
    if not path.exists():
        return Check("tasks", "ok", "no task recorded yet")
    store = TaskStore(path)
    try:
        records = store.list(limit=500)
    finally:
        store.close()
    stalled = [t for t in records if is_stalled(t, s.task_stall_seconds)]
    if not stalled:
        return Check("tasks", "ok", f"none stalled ({plural(len(records), 'recent task')})")
    names = ", ".join(f"{t.id[:8]} ({t.task_type}, {t.agent})" for t in stalled[:5])
    return Check(
        "tasks",
        "warn",
        f"{plural(len(stalled), 'task')} stalled at verify, results not remembered: {names}",
        "neuralgentics task list; then task resume ID (the orchestrator is reminded on the "
        "session's next turn) or task close ID [--succeeded]",
    )


def check_plugin_routing(
    s: Settings, options: dict, project_dir: Path | None, reinstall: str
) -> Check:
    """The plugin's copy of the routing matrix (applied while memini-core is down) must be the
    matrix the orchestrator resolves now."""
    from neuralgentics.opencode.installer import InstallError, routing_for

    try:
        current = routing_for(s, project_dir)
    except InstallError as exc:
        return Check("plugin routing", "fail", str(exc), "fix the roster/routing YAML it names")
    installed = options.get("routing")
    if installed is None:
        return Check(
            "plugin routing",
            "warn",
            "the plugin has no copy of the routing matrix: with memini-core down delegations "
            "run unchecked",
            reinstall,
        )
    if installed != current:
        return Check(
            "plugin routing",
            "warn",
            "the routing matrix changed since install: with memini-core down the plugin "
            "applies the old one",
            reinstall,
        )
    return Check("plugin routing", "ok", "the plugin holds the current matrix")


def run_checks(
    s: Settings,
    project: Path | None = None,
    global_: bool = False,
    *,
    model: Embedder | None = None,
    servers: bool = True,
    environ: Mapping[str, str] | None = None,
) -> list[Check]:
    """Every check; `model`: the embedder to try (None: skip that check); `servers`: start
    each brokered stdio server once; `environ`: the environment OpenCode will see (its
    providers' API keys; None: none)."""
    from concurrent.futures import ThreadPoolExecutor

    # The two checks that wait on other programs (`opencode --version`, about a second; each
    # stdio server's start) run beside the rest; the report keeps its order.
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="doctor") as pool:
        opencode = pool.submit(check_opencode)
        stdio = pool.submit(check_stdio_servers, s) if servers else None
        checks = [
            Check("neuralgentics", "ok", __version__),
            check_memini(s.url),
            check_credential(s, s.url),
        ]
        remote = remote_broker_url(s, project, global_)
        checks.append(
            check_broker_http(s, remote or s.broker_base_url, required=remote is not None)
        )
        checks.append(check_broker_config(s))
        checks.append(check_routing(s, project))
        checks.append(check_tasks(s))
        checks.append(opencode.result())
        checks += check_install(s, project, global_)
        checks.append(check_agent_tools(s, project))
        if stdio is not None:
            checks += stdio.result()
        checks.append(check_model_tiers(s, project, global_))
        checks.append(check_llm_provider(s, project, global_, environ or {}))
        if model is not None:
            checks.append(check_model(model))
    return checks
