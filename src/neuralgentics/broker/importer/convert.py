"""One server entry of another client's config as a broker server entry.

Secrets are never copied in clear. A value that is a reference in the source stays one
(``{env:VAR}``, ``${env:VAR}`` -> ``${VAR}``, expanded by the broker at launch); a literal
secret — a secret-named env key or header (``*_TOKEN``, ``Authorization``, …), or a value
shaped like a credential (``sk-…``, ``ghp_…``, ``Bearer …``) — becomes ``${VAR}`` and the
user is told to set ``VAR`` where the broker runs (``SecretRef``). So do values the source
got from elsewhere: a VS Code ``${input:id}`` prompt, an OpenCode ``{file:path}``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from neuralgentics.broker.audit.redact import is_secret_key, scrub_shapes
from neuralgentics.broker.config import NAME_PATTERN, ServerConfig
from neuralgentics.broker.importer.sources import Kind

# How our own installer names the broker in opencode.json: never imported into itself.
BROKER_ENTRY = "neuralgentics"
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SCHEME = re.compile(r"^(Bearer|Token|Basic|Bot)\s+(\S.*)\Z", re.IGNORECASE)
_SCHEME_WORD = re.compile(r"Bearer|Token|Basic|Bot", re.IGNORECASE)
_OPENCODE_ENV = re.compile(r"\{env:([^}]+)\}")
_OPENCODE_FILE = re.compile(r"\{file:([^}]+)\}")
_VSCODE_VAR = re.compile(r"\$\{(env|input|workspaceFolder|userHome|pathSeparator)(?::([^}]*))?\}")
_BROKER_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}")
# Secret-named keys the audit's list does not catch (it is tuned not to over-redact records):
# DB_PASS, SMTP_PASS, SLACK_WEBHOOK_URL, SENTRY_DSN, …
_MORE_SECRET_KEYS = re.compile(
    r"(?:^|[_-])pass(?:[_-]|$)|webhook|dsn|conn(?:ection)?[_-]?str", re.I
)
# Secret-shaped values the audit's shapes do not catch: a URL whose user info is the key (a
# Sentry DSN https://KEY@o1.ingest.sentry.io/1), webhook URLs (the path is the secret).
_MORE_SECRET_VALUES = re.compile(
    r"(?i)\b[a-z][a-z0-9+.-]{1,20}://[^/\s@:]{8,}@"
    r"|hooks\.slack\.com/|discord(?:app)?\.com/api/webhooks/|webhook\.office\.com/"
)
# A command-line flag whose value is a secret: --password X, --api-key=X, --token X.
_SECRET_FLAG = re.compile(r"^(--?[A-Za-z][A-Za-z0-9_-]*)(?:=(.*))?\Z", re.S)


@dataclass(frozen=True)
class SecretRef:
    """A ``${VAR}`` the imported entry needs set in the broker's environment."""

    variable: str
    # where in the entry: env.GITHUB_TOKEN, headers.Authorization
    where: str
    # why it is a reference now: "a literal secret in <file>", "VS Code input 'pat'", …
    origin: str
    # whether the variable is set in this (the importing) environment
    present: bool
    # the source held the value itself (removing the entry from the source would lose it)
    literal: bool = False


@dataclass
class Converted:
    key: str  # the entry's name in the source
    name: str  # the broker server name
    entry: dict[str, Any] | None  # ServerConfig fields; None when skipped
    skipped: str | None = None
    secrets: list[SecretRef] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def server_name(key: str) -> str:
    """A broker server name for a source key: other characters become '-', 64 at most."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", key).lstrip("_.-")[:64]
    return name


def is_secret_name(key: str) -> bool:
    return is_secret_key(key) or _MORE_SECRET_KEYS.search(key) is not None


def looks_secret(value: str) -> bool:
    return scrub_shapes(value) != value or _MORE_SECRET_VALUES.search(value) is not None


def _env_var(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", text).upper().strip("_") or "SECRET"


class _Values:
    """Rewrites one entry's strings, collecting the secret references it made."""

    def __init__(
        self,
        kind: Kind,
        name: str,
        source: Path,
        workspace: Path | None,
        env: Mapping[str, str],
    ) -> None:
        self.kind, self.name, self.source, self.workspace = kind, name, source, workspace
        self.env = env
        self.secrets: list[SecretRef] = []
        self.notes: list[str] = []

    def _ref(self, var: str, where: str, origin: str, literal: bool = False) -> str:
        self.secrets.append(SecretRef(var, where, origin, var in self.env, literal))
        return "${" + var + "}"

    def references(self, value: str, where: str) -> str:
        """The source's variable syntax in ``value`` as the broker's ``${VAR}``."""

        def opencode_file(m: re.Match[str]) -> str:
            var = _env_var(f"{self.name}_{where.split('.', 1)[-1]}")
            return self._ref(var, where, f"OpenCode read it from {{file:{m.group(1)}}}")

        def vscode(m: re.Match[str]) -> str:
            what, arg = m.group(1), m.group(2) or ""
            if what == "env" and _ENV_NAME.fullmatch(arg):
                return kept(arg)
            if what == "input":
                var = _env_var(arg)
                return self._ref(var, where, f"VS Code prompts for input {arg!r}")
            if what == "workspaceFolder" and self.workspace is not None:
                return str(self.workspace)
            if what == "userHome" and self.env.get("HOME"):
                return self.env["HOME"]
            if what == "pathSeparator":
                return os.sep
            self.notes.append(f"{where}: {m.group(0)} has no value outside the editor; kept as is")
            return m.group(0)

        expanded = where.startswith(("env.", "headers."))  # what the broker expands at launch

        def kept(var: str) -> str:
            if expanded:  # the broker's environment must have it too
                self.secrets.append(
                    SecretRef(var, where, f"referenced in {self.source}", var in self.env)
                )
            return "${" + var + "}"

        if self.kind == "opencode":
            value = _OPENCODE_ENV.sub(lambda m: kept(m.group(1).strip()), value)
            value = _OPENCODE_FILE.sub(opencode_file, value)
        else:
            value = _VSCODE_VAR.sub(vscode, value)
        return value

    def secret_value(self, key: str, value: str, where: str, var: str) -> str:
        """``value`` for env key / header ``key``: references kept; a literal secret becomes
        ``${var}`` (a scheme such as ``Bearer`` stays in front)."""
        value = self.references(value, where)
        literal_part = _BROKER_REF.sub("", value).strip()
        scheme = _SCHEME.match(value)
        secret_named = is_secret_name(key)
        shaped = looks_secret(value)
        if not literal_part or not (secret_named or shaped):
            return value  # a reference, or an ordinary setting (TZ=UTC)
        if _SCHEME_WORD.fullmatch(literal_part) and value.startswith(literal_part):
            return value  # "Bearer ${GH_TOKEN}": the scheme is no secret, the rest a reference
        origin = f"a literal secret in {self.source}"
        if scheme and not _BROKER_REF.search(scheme.group(2)):
            return f"{scheme.group(1)} " + self._ref(var, where, origin, literal=True)
        # the whole value moves out (also one that is part reference, part literal)
        return self._ref(var, where, origin, literal=True)

    def args(self, args: list[str]) -> list[str]:
        """``args`` with each literal secret as ``${VAR}``: the value of a secret-named flag
        (``--password X``, ``--api-key=X``) and any secret-shaped argument."""
        out: list[str] = []
        origin = f"a literal secret on the command line in {self.source}"
        secret_flag: str | None = None  # the flag before this argument names a secret
        for i, raw in enumerate(args):
            arg = self.references(raw, "args")
            flag = _SECRET_FLAG.match(arg)
            if (
                secret_flag is not None
                and not arg.startswith("-")
                and not _BROKER_REF.fullmatch(arg)
            ):
                var = _env_var(f"{self.name}_{secret_flag}")
                arg = self._ref(var, f"args[{i}] ({secret_flag})", origin, literal=True)
            elif flag and flag.group(2) is not None and is_secret_name(flag.group(1).lstrip("-")):
                name = flag.group(1).lstrip("-")
                value = flag.group(2)
                if value and not _BROKER_REF.fullmatch(value):
                    var = _env_var(f"{self.name}_{name}")
                    value = self._ref(var, f"args[{i}] ({flag.group(1)})", origin, literal=True)
                arg = f"{flag.group(1)}={value}"
            elif _BROKER_REF.sub("", arg) and looks_secret(arg):
                var = _env_var(f"{self.name}_arg_{i}")
                arg = self._ref(var, f"args[{i}]", origin, literal=True)
            secret_flag = (
                flag.group(1).lstrip("-")
                if flag and flag.group(2) is None and is_secret_name(flag.group(1).lstrip("-"))
                else None
            )
            out.append(arg)
        return out


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(x, str | int | float) for x in value):
        return [str(x) for x in value]
    raise ValueError(f"expected a list of strings, got {type(value).__name__}")


def _strings(value: Any, what: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"'{what}' must be an object")
    return {str(k): str(v) for k, v in value.items() if v is not None}


def _normalised(kind: Kind, raw: dict[str, Any]) -> dict[str, Any]:
    """Every shape as {transport, command, args, env, url, headers, cwd, disabled}."""
    if kind == "opencode":
        command = _as_list(raw.get("command"))
        remote = raw.get("type") == "remote" or ("url" in raw and not command)
        return {
            "transport": "remote" if remote else "stdio",
            "command": command[:1],
            "args": command[1:],
            "env": _strings(raw.get("environment"), "environment"),
            "url": raw.get("url"),
            "headers": _strings(raw.get("headers"), "headers"),
            "cwd": None,
            "disabled": raw.get("enabled") is False,
        }
    declared = str(raw.get("type") or "").lower()
    url = raw.get("url") or raw.get("serverUrl")
    if declared in ("sse",):
        transport = "sse"
    elif declared in ("http", "streamable-http", "streamable_http", "streamablehttp") or (
        url and not raw.get("command")
    ):
        transport = "remote"
    else:
        transport = "stdio"
    return {
        "transport": transport,
        "command": _as_list(raw.get("command"))[:1],
        "args": _as_list(raw.get("command"))[1:] + _as_list(raw.get("args")),
        "env": _strings(raw.get("env"), "env"),
        "url": url,
        "headers": _strings(raw.get("headers"), "headers"),
        "cwd": raw.get("cwd"),
        "disabled": raw.get("disabled") is True,
    }


def is_the_broker(key: str, norm: dict[str, Any]) -> bool:
    """Our own entry (what `opencode install` writes): the broker is not imported into itself."""
    command = " ".join([*norm["command"], *norm["args"]])
    return key == BROKER_ENTRY or ("neuralgentics" in command and "broker" in command)


def convert(
    kind: Kind,
    key: str,
    raw: Any,
    *,
    source: Path,
    workspace: Path | None,
    env: Mapping[str, str],
) -> Converted:
    """``raw`` (entry ``key`` of a ``kind`` file at ``source``) as a broker entry, or why it is
    skipped. ``env``: the importing environment (says which ``${VAR}`` are set already)."""
    name = server_name(key)
    out = Converted(key=key, name=name, entry=None)
    if not isinstance(raw, dict):
        out.skipped = "not an object"
        return out
    try:
        norm = _normalised(kind, raw)
    except ValueError as exc:
        out.skipped = str(exc)
        return out
    if is_the_broker(key, norm):
        out.skipped = "the Neuralgentics broker itself"
        return out
    if norm["disabled"]:
        out.skipped = "disabled in the source"
        return out
    if not NAME_PATTERN.fullmatch(name):
        out.skipped = f"no usable server name in {key!r}"
        return out
    values = _Values(kind, name, source, workspace, env)
    entry: dict[str, Any] = {}
    if norm["transport"] == "stdio":
        if not norm["command"]:
            out.skipped = "no command and no url"
            return out
        args = values.args(norm["args"])
        entry.update(
            transport="stdio",
            command=values.references(norm["command"][0], "command"),
            args=args,
        )
        if norm["cwd"]:
            entry["cwd"] = values.references(str(norm["cwd"]), "cwd")
    else:
        url = values.references(str(norm["url"] or ""), "url")
        if looks_secret(url):
            out.skipped = "a secret in its URL; put it in a header instead, then import again"
            return out
        transport = norm["transport"]
        if transport == "remote":
            transport = "sse" if url.rstrip("/").endswith("/sse") else "streamable_http"
        entry.update(transport=transport, url=url)
    entry["env"] = {
        k: values.secret_value(k, v, f"env.{k}", k if _ENV_NAME.fullmatch(k) else _env_var(k))
        for k, v in norm["env"].items()
    }
    entry["headers"] = {
        k: values.secret_value(k, v, f"headers.{k}", _env_var(f"{name}_{k}"))
        for k, v in norm["headers"].items()
    }
    entry["summary"] = str(raw.get("description") or "")[:200]
    try:
        ServerConfig.model_validate(entry)
    except ValidationError as exc:
        first = exc.errors()[0]
        out.skipped = f"not a valid server: {first['msg'].removeprefix('Value error, ')}"
        return out
    out.entry = {k: v for k, v in entry.items() if v not in ({}, [], "", None)}
    out.secrets, out.notes = values.secrets, values.notes
    return out
