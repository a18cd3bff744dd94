"""The broker's YAML configuration: downstream servers and roles.

One file holds both. It is validated at load with messages that name the field and
the line, and every edit (``add`` / ``remove``) is validated the same way before the
file is replaced atomically, so a bad entry never changes anything.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from neuralgentics import errors
from neuralgentics.config import Settings
from neuralgentics.filemodes import FILE_MODE, atomic_write, distrust, private_dir

Transport = Literal["stdio", "streamable_http", "sse"]
# What of a server the broker lists on its own MCP surface as it is (namespaced), instead of
# behind the meta-tools and the catalog: `expose: tools` is passthrough for its tools.
Exposed = Literal["tools", "resources", "prompts"]
# `expose: auto` (the default): the broker decides per server by token cost whether its tools
# are listed directly or stay behind the catalog (broker/exposure.py); resources and prompts
# stay behind it.
AUTO: Literal["auto"] = "auto"
EXPOSABLE: tuple[Exposed, ...] = ("tools", "resources", "prompts")

# Server and role names. fullmatch, never match with `$`: `$` also matches before a
# trailing newline, so "time\n" passed as a name.
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_TOKEN_HASH = re.compile(r"sha256:[0-9a-f]{64}")


class ConfigError(errors.InvalidConfig, ValueError):
    """The configuration is invalid; the message names the field (and line when known)."""


Network = Literal["none", "gateway", "host"]


class SandboxConfig(BaseModel):
    """How a launched server is confined (bubblewrap; see broker/sandbox.py)."""

    model_config = ConfigDict(extra="forbid")

    # none: a loopback of its own; gateway: through EGRESS_GATEWAY_URL (none without one);
    # host: the host's network
    network: Network = "gateway"
    # bound read-write; everything else is read-only (and /tmp private)
    writable: list[str] = Field(default_factory=list)
    # given: the home directory is hidden except these (and the writable ones)
    readable: list[str] = Field(default_factory=list)


class ServerConfig(BaseModel):
    """One downstream MCP server."""

    model_config = ConfigDict(extra="forbid")

    transport: Transport = "stdio"
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    summary: str = ""
    # Written straight into opencode.json by the installer instead of being brokered.
    first_class: bool = False
    # Listed directly (namespaced `server_name`, `broker://server/URI`) rather than behind the
    # meta-tools and in the catalog: any of tools, resources, prompts; "all"; "none"; default
    # "auto" (tools listed directly when that costs fewer tokens: broker/exposure.py).
    expose: list[Exposed] | Literal["auto"] = AUTO
    # Seconds without a call before the server is stopped; 0 keeps it warm forever.
    idle_timeout: float = Field(default=600.0, ge=0)
    # Seconds a single tools/call may take before the caller gets a timeout error.
    call_timeout: float = Field(default=60.0, gt=0)
    # Seconds the server has to start and answer `initialize`.
    start_timeout: float = Field(default=30.0, gt=0)
    # After a second failure in a row, seconds before the next start; doubled on each further
    # failure, up to 5 s (the first restart is immediate).
    restart_backoff: float = Field(default=0.25, ge=0)
    # A launched server (stdio, or command + url) under bubblewrap; None (`off`) runs it as a
    # plain process. `broker add --sandbox` writes the default profile.
    sandbox: SandboxConfig | None = None

    @field_validator("sandbox", mode="before")
    @classmethod
    def _sandbox(cls, value: Any) -> Any:
        if value in ("off", False, None):  # YAML reads a bare `off` as False
            return None
        if value in ("default", "on", True):
            return {}
        return value

    @field_validator("expose", mode="before")
    @classmethod
    def _expose(cls, value: Any) -> Any:
        if value == "all":
            return list(EXPOSABLE)
        if value == AUTO:
            return AUTO
        if value in ("none", None):
            return []
        if isinstance(value, str):
            return [value]
        return value

    @field_validator("expose")
    @classmethod
    def _expose_once(cls, value: list[Exposed] | str) -> list[Exposed] | str:
        if isinstance(value, str):
            return value  # "auto"
        return [k for k in EXPOSABLE if k in value]  # canonical order, each once

    @property
    def auto_expose(self) -> bool:
        """`expose: auto`: whether the tools are listed directly is decided by token cost."""
        return self.expose == AUTO

    @property
    def exposed(self) -> frozenset[str]:
        """What the config itself says is listed directly (nothing for `auto`; the tools of an
        auto server may still be, `broker.exposure` decides)."""
        return frozenset() if isinstance(self.expose, str) else frozenset(self.expose)

    @model_validator(mode="after")
    def _transport_fields(self) -> ServerConfig:
        if self.transport == "stdio":
            if not self.command:
                raise ValueError("transport 'stdio' needs 'command'")
            if self.url:
                if "transport" not in self.model_fields_set:
                    raise ValueError(
                        "an entry with both 'command' and 'url' is started and then reached "
                        "over its URL: set 'transport' to streamable_http or sse"
                    )
                raise ValueError("transport 'stdio' takes 'command', not 'url'")
        else:
            if not self.url:
                raise ValueError(f"transport '{self.transport}' needs 'url'")
            if not re.match(r"^https?://", self.url):
                raise ValueError(f"'url' must start with http:// or https:// (got {self.url!r})")
            # A 'command' here is launched first (client.launched); 'args', 'env' and 'cwd'
            # are its own, as for a stdio server.
            if not self.command and (self.args or self.env or self.cwd):
                raise ValueError(
                    f"transport '{self.transport}' without 'command' takes no 'args', 'env' "
                    "or 'cwd' (they are for a server the broker starts)"
                )
        if self.first_class and self.exposed:
            raise ValueError("a first_class server is not brokered: 'expose' has no effect on it")
        if self.sandbox is not None and not self.command:
            raise ValueError("'sandbox' confines a server the broker starts: it needs 'command'")
        if self.sandbox is not None and self.url and self.sandbox.network != "host":
            raise ValueError(
                "a launched HTTP server is reached on the host's network: its sandbox needs "
                "'network: host'"
            )
        return self

    @property
    def launched(self) -> bool:
        """An HTTP or SSE server the broker starts itself (``command`` + ``url``)."""
        return self.transport != "stdio" and self.command is not None

    def expanded_args(self) -> list[str]:
        # `--password ${DB_PASSWORD}`: what `broker import` makes of a secret on a command line
        return [expand_env(a) for a in self.args]

    def expanded_env(self) -> dict[str, str]:
        return {k: expand_env(v) for k, v in self.env.items()}

    def expanded_headers(self) -> dict[str, str]:
        return {k: expand_env(v) for k, v in self.headers.items()}


class RoleConfig(BaseModel):
    """What a role may see and call: ``server/tool`` globs, a server alone (everything it
    offers), ``server:resource:URI`` and ``server:prompt:NAME`` globs (`access.patterns`);
    deny wins over allow. ``read_only``: of the tools allowed, only those that change nothing
    (their ``readOnlyHint``/``destructiveHint`` annotations, else their names:
    `access.readonly`)."""

    model_config = ConfigDict(extra="forbid")

    allow: list[str] = Field(default_factory=list)
    deny: list[str] = Field(default_factory=list)
    read_only: bool = False

    @field_validator("allow", "deny")
    @classmethod
    def _patterns(cls, patterns: list[str]) -> list[str]:
        # Imported here: the access package imports this module (RoleConfig).
        from neuralgentics.broker.access.patterns import parse_pattern

        for p in patterns:
            parse_pattern(p)  # PatternError is a ValueError: pydantic reports it with the field
        return patterns


class AuditConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    sink: Literal["jsonl", "postgres"] = "jsonl"
    # JSONL file; default: <NEURALGENTICS_HOME>/broker/audit.jsonl
    path: str | None = None
    # Rotate the JSONL file when it grows past this many bytes.
    max_bytes: int = Field(default=50_000_000, gt=0)
    keep: int = Field(default=5, ge=1)
    # batch: fsync in the background within 0.2 s (a broker crash still loses nothing:
    # every record is written before its call is answered); always: each call waits for it.
    fsync: Literal["batch", "always"] = "batch"
    # postgres sink; default: NEURALGENTICS_DATABASE_URL (the memini-core database)
    database_url: str | None = None
    # Flood gate (audit/gate.py): denied or malformed calls each credential may have
    # recorded one by one — `flood_burst` at once, then `flood_per_second`; past that they
    # are still answered and counted in a summary record.
    flood_burst: int = Field(default=100, ge=1)
    flood_per_second: float = Field(default=10.0, gt=0)


# get_tool_list's token budget; here, not in broker.catalog, so that the CLI can show it
# without loading the MCP SDK (`neuralgentics broker …` commands that do not talk MCP)
DEFAULT_BUDGET_TOKENS = 600


class CatalogConfig(BaseModel):
    """What the agent is shown of the tools (docs/broker.md, "The catalog without a round trip")."""

    model_config = ConfigDict(extra="forbid")

    # get_tool_list's answer
    budget_tokens: int = Field(default=DEFAULT_BUDGET_TOKENS, gt=0)
    # The role's catalog also goes into the broker's MCP `instructions`, which OpenCode puts
    # into every agent's system prompt: the first call needs no get_tool_list round trip.
    in_instructions: bool = True
    instructions_budget_tokens: int = Field(default=400, gt=0)
    # Seconds `initialize` waits for servers whose tools were never listed (they are started
    # and listed then); past it they are named without their tools. Unset: the front's
    # default — `broker serve` 3 s; `broker stdio` 0, its never-listed servers start once the
    # client's first `tools/list` is answered (docs/broker.md, "The first start in a home").
    list_wait: float | None = Field(default=None, ge=0)


class SessionsConfig(BaseModel):
    """Streamable HTTP sessions on ``/mcp`` (``broker serve``): how many one credential may
    hold open. At its limit, a credential's next ``initialize`` ends its own least recently
    used idle session; the owner's room is kept apart from every role token's."""

    model_config = ConfigDict(extra="forbid")

    per_token: int = Field(default=32, ge=1, le=1000)
    owner: int = Field(default=256, ge=1, le=5000)


class TokenConfig(BaseModel):
    """A bearer token bound to one role, for a client other than the owner (stored hashed)."""

    model_config = ConfigDict(extra="forbid")

    label: str
    role: str
    # "sha256:<hex>" of the token (credentials.token_hash); the token itself is never stored.
    hash: str

    @field_validator("label")
    @classmethod
    def _label(cls, label: str) -> str:
        if not NAME_PATTERN.fullmatch(label):
            raise ValueError(f"label {label!r} must be 1-64 letters, digits, '_', '-' or '.'")
        return label

    @field_validator("hash")
    @classmethod
    def _hash(cls, value: str) -> str:
        if not _TOKEN_HASH.fullmatch(value):
            raise ValueError(
                "hash must be 'sha256:' and 64 hex digits (see `neuralgentics broker token add`)"
            )
        return value


class BrokerConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    servers: dict[str, ServerConfig] = Field(default_factory=dict)
    roles: dict[str, RoleConfig] = Field(default_factory=dict)
    # Role used when the caller names none (no --role, no header, no argument).
    default_role: str | None = None
    audit: AuditConfig = Field(default_factory=AuditConfig)
    # Extra HTTP credentials, each bound to one role (the owner token is not here).
    tokens: list[TokenConfig] = Field(default_factory=list)
    catalog: CatalogConfig = Field(default_factory=CatalogConfig)
    sessions: SessionsConfig = Field(default_factory=SessionsConfig)

    @field_validator("servers", "roles")
    @classmethod
    def _names(cls, items: dict[str, Any]) -> dict[str, Any]:
        for name in items:
            if not NAME_PATTERN.fullmatch(str(name)):
                raise ValueError(
                    f"name {name!r} must be 1-64 letters, digits, '_', '-' or '.', "
                    "starting with a letter or digit"
                )
        return items

    @model_validator(mode="after")
    def _default_role_exists(self) -> BrokerConfig:
        if self.default_role is not None and self.default_role not in self.roles:
            raise ValueError(f"default_role {self.default_role!r} is not one of the roles")
        return self

    @model_validator(mode="after")
    def _tokens_consistent(self) -> BrokerConfig:
        labels: set[str] = set()
        for t in self.tokens:
            if t.role not in self.roles:
                raise ValueError(
                    f"token {t.label!r} is bound to role {t.role!r}, which is not one of the roles"
                )
            if t.label in labels:
                raise ValueError(f"two tokens are labelled {t.label!r}")
            labels.add(t.label)
        return self

    def brokered(self) -> dict[str, ServerConfig]:
        """Servers the broker fronts (first-class ones go straight into opencode.json)."""
        return {n: s for n, s in self.servers.items() if not s.first_class}


def expand_env(value: str) -> str:
    """Replace ``${VAR}`` / ``${VAR:-default}`` from the environment at launch time.

    Expansion happens only when a server starts, so secrets live in the environment and
    never in the config object the broker reports, logs or audits.
    """

    def repl(m: re.Match[str]) -> str:
        name, default = m.group(1), m.group(2)
        if name in os.environ:
            return os.environ[name]
        if default is not None:
            return default
        raise ConfigError(f"environment variable {name} is not set (referenced as ${{{name}}})")

    return _ENV_REF.sub(repl, value)


def env_references(server: dict[str, Any] | ServerConfig) -> list[str]:
    """Names of the ``${VAR}`` references an entry's args, env and headers would expand at
    launch.

    A server entry that arrives over HTTP may not have any: expanding them would hand the
    broker's own environment (its secrets) to whoever may add servers. Only a config written
    on this machine (the file, ``neuralgentics broker add``) may reference the environment.
    """
    data = server.model_dump(mode="json") if isinstance(server, ServerConfig) else server
    names: list[str] = []
    for section in ("args", "env", "headers"):
        values = data.get(section) if isinstance(data, dict) else None
        if isinstance(values, dict):
            values = list(values.values())
        if isinstance(values, list):
            for v in values:
                if isinstance(v, str):
                    names += [m.group(1) for m in _ENV_REF.finditer(v)]
    return sorted(set(names))


def default_config_path(settings: Settings) -> Path:
    return settings.config_dir / "broker.yaml"


def _line_of(node: yaml.Node | None, loc: tuple[int | str, ...]) -> int | None:
    """Line (1-based) of the YAML node at a pydantic error location, or the nearest parent."""
    line = node.start_mark.line + 1 if node is not None else None
    for key in loc:
        if isinstance(node, yaml.MappingNode):
            nxt = next((v for k, v in node.value if k.value == str(key)), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            nxt = node.value[key]
        else:
            nxt = None
        if nxt is None:
            break
        node = nxt
        line = node.start_mark.line + 1
    return line


def _format_errors(exc: ValidationError, node: yaml.Node | None, source: str) -> str:
    lines = []
    for err in exc.errors():
        loc = tuple(x for x in err["loc"] if not (isinstance(x, str) and x.startswith("function-")))
        field = ".".join(str(x) for x in loc) or "(top level)"
        msg = err["msg"].removeprefix("Value error, ")
        line = _line_of(node, loc)
        where = f"{source}:{line}" if line else source
        lines.append(f"{where}: {field}: {msg}")
    return "\n".join(lines)


def parse_config(text: str, source: str = "<config>") -> BrokerConfig:
    """Parse and validate YAML text; raise :class:`ConfigError` naming line and field."""
    try:
        node = yaml.compose(text)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{source}: not valid YAML: {exc}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{source}:1: the top level must be a mapping with 'servers' and 'roles'")
    try:
        return BrokerConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_format_errors(exc, node, source)) from None


def load_config(path: Path | str, *, missing_ok: bool = False) -> BrokerConfig:
    """Load the config file. A missing file is an error, or with `missing_ok` (the default file,
    which nobody has written yet) an empty config."""
    p = Path(path)
    if not p.exists():
        if not missing_ok:
            raise ConfigError(f"{p}: no such config file")
        return BrokerConfig()
    # its server commands run as this user: a file another user could have written is refused
    if (why := distrust(p, "broker config")) is not None:
        raise ConfigError(why)
    return parse_config(p.read_text(encoding="utf-8"), str(p))


def dump_config(config: BrokerConfig) -> str:
    data = config.model_dump(mode="json", exclude_defaults=True)
    data.setdefault("servers", {})
    data.setdefault("roles", {})
    return yaml.safe_dump(data, sort_keys=False)


def save_config(config: BrokerConfig, path: Path | str) -> Path:
    """Write the config atomically (temp file + fsync + rename): a crash leaves old or new."""
    p = Path(path)
    if not p.parent.exists():  # private from the start: load_config refuses a writable dir
        private_dir(p.parent)
    text = dump_config(config)
    parse_config(text, str(p))  # what we write must load again
    write_text_atomic(p, text)
    return p


def write_text_atomic(path: Path, text: str, mode: int = FILE_MODE) -> None:
    """Replace a file in one rename (filemodes.atomic_write): a crash leaves old or new.
    ``mode``: the new file's permissions (default 0600: broker.yaml names commands to run)."""
    atomic_write(path, text, mode=mode)


def config_from(data: dict[str, Any], source: str = "config") -> BrokerConfig:
    """Validate an edited config (as a dict) like a loaded file: ConfigError naming the field."""
    try:
        return BrokerConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_format_errors(exc, None, source)) from None


def with_server(
    config: BrokerConfig, name: str, server: dict[str, Any] | ServerConfig
) -> BrokerConfig:
    """A copy of ``config`` with ``name`` added or replaced; validated like a loaded file."""
    data = config.model_dump(mode="json")
    data["servers"][name] = (
        server.model_dump(mode="json") if isinstance(server, ServerConfig) else server
    )
    try:
        return BrokerConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_format_errors(exc, None, "server entry")) from None


def without_server(config: BrokerConfig, name: str) -> BrokerConfig:
    if name not in config.servers:
        raise ConfigError(f"servers.{name}: no server named {name!r}")
    data = config.model_dump(mode="json")
    del data["servers"][name]
    return BrokerConfig.model_validate(data)
