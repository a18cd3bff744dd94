"""`neuralgentics doctor`: is everything Neuralgentics needs in place, and what to do if not."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

import httpx

from neuralgentics import __version__
from neuralgentics.config import Settings
from neuralgentics.embeddings import Embedder

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
    from neuralgentics.broker.config import ConfigError, default_config_path, load_config

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
    return Check("broker config", "ok", f"{where}: {len(cfg.servers)} server(s)")


def find_opencode() -> str | None:
    found = shutil.which("opencode")
    if found:
        return found
    local = Path(__file__).resolve().parents[3] / "node_modules" / ".bin" / "opencode"
    return str(local) if local.exists() else None


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
        out = subprocess.run(
            [exe, "--version"], capture_output=True, text=True, timeout=30
        ).stdout.strip()
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


def check_install(s: Settings, project: Path | None, global_: bool) -> list[Check]:
    from neuralgentics.opencode.installer import (
        MCP_NAME,
        PLUGIN_FILE,
        InstallError,
        plugin_source,
        resolve_target,
    )
    from neuralgentics.opencode.jsonedit import JsonFileError, read_json_file

    try:
        target = resolve_target(s, project, global_)
    except InstallError as exc:
        return [Check("plugin", "fail", str(exc))]
    where = "--global" if global_ else f"--project {target.project_dir}"
    plugin = target.plugin_dir / PLUGIN_FILE
    checks: list[Check] = []
    if not plugin.exists():
        checks.append(
            Check(
                "plugin", "fail", f"{plugin} is missing", f"neuralgentics opencode install {where}"
            )
        )
    elif plugin.read_text("utf-8") != plugin_source():
        checks.append(
            Check(
                "plugin",
                "warn",
                f"{plugin} differs from this version's plugin",
                f"neuralgentics opencode install {where} (updates it unless you edited it: then delete it first)",
            )
        )
    else:
        checks.append(Check("plugin", "ok", str(plugin)))
    checks.append(check_tui_brand(target.home, where))
    try:
        cfg = read_json_file(target.config_file)
    except JsonFileError as exc:
        checks.append(Check("opencode.json", "fail", str(exc), "fix the JSON"))
        return checks
    entry = cfg.get("mcp", {}).get(MCP_NAME) if isinstance(cfg.get("mcp"), dict) else None
    if not entry:
        checks.append(
            Check(
                "opencode.json",
                "fail",
                f"{target.config_file} has no mcp.{MCP_NAME}",
                f"neuralgentics opencode install {where}",
            )
        )
    else:
        how = entry.get("url") or " ".join(entry.get("command", []))
        checks.append(Check("opencode.json", "ok", f"mcp.{MCP_NAME}: {entry.get('type')} {how}"))
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
    if brand.read_text("utf-8") != tui.brand_source():
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


def check_routing(s: Settings, project: Path | None) -> Check:
    try:
        from neuralgentics.orchestrator.config import load_config

        cfg = load_config(project_dir=project or Path.cwd(), config_dir=s.config_dir)
    except Exception as exc:
        return Check("routing matrix", "fail", str(exc), "fix the roster/routing YAML it names")
    return Check(
        "routing matrix", "ok", f"{len(cfg.agents)} agents, {len(cfg.task_types)} task types"
    )


def run_checks(
    s: Settings,
    project: Path | None = None,
    global_: bool = False,
    *,
    model: Embedder | None = None,
) -> list[Check]:
    """Every check; `model`: the embedder to try (None: skip that check)."""
    checks = [
        Check("neuralgentics", "ok", __version__),
        check_memini(s.url),
        check_credential(s, s.url),
    ]
    remote = remote_broker_url(s, project, global_)
    checks.append(
        check_broker_http(
            s, remote or f"http://127.0.0.1:{s.broker_port}", required=remote is not None
        )
    )
    checks.append(check_broker_config(s))
    checks.append(check_routing(s, project))
    checks.append(check_opencode())
    checks += check_install(s, project, global_)
    checks.append(check_model_tiers(s, project, global_))
    if model is not None:
        checks.append(check_model(model))
    return checks
