"""Settings from the environment (prefix ``NEURALGENTICS_``) and the user's directories.

Every environment variable the program reads is a field here (the README's configuration
table lists them). Library code takes a `Settings`; only entry points (the composition root
in `neuralgentics.app` and the command modules, `*/cli.py`) call `get_settings()`, the
process's settings read once. tests/test_layers.py keeps that true.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

import platformdirs
from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="NEURALGENTICS_", extra="ignore")

    home: Path = Field(default_factory=lambda: Path(platformdirs.user_data_dir("neuralgentics")))
    config_dir: Path = Field(
        default_factory=lambda: Path(platformdirs.user_config_dir("neuralgentics"))
    )
    # None: the embedded SQLite file under `home`. Set to a postgresql:// URL for teams.
    database_url: str | None = None
    host: str = "127.0.0.1"
    port: int = 8900
    broker_port: int = 8901
    # Required when a service binds to anything but loopback.
    token: str | None = None
    # auto | onnx | onnx-int8 | onnx-reference | torch (neuralgentics.embeddings.model)
    embedding_backend: str = "auto"
    # onnxruntime intra-op threads; None: the CPUs this process may use, at most 4
    embedding_threads: int | None = Field(default=None, ge=1)
    # where the model's ONNX graph is built; None: the user's cache dir (never under `home`)
    model_cache: Path | None = None
    # the broker's intents through another backend than its tools' (e.g. onnx-int8)
    intent_query_backend: str | None = None
    max_content_chars: int = 32_000
    # cosine at or above which an added memory reports an existing one as `similar`
    similar_threshold: float = 0.90
    # update detection on add: auto (supersede / link when confident, report when unsure),
    # report (never link on its own, only report), off (docs/memini.md, "Update detection")
    update_detection: Literal["auto", "report", "off"] = "auto"
    # a task waiting for its verification longer than this is stalled (task list, doctor)
    task_stall_seconds: float = Field(default=300.0, ge=0)
    # where clients reach memini-core and the broker (default: host and port above)
    service_url: str | None = None
    broker_url: str | None = None
    # the broker's downstream HTTP calls through an egress gateway (an unprefixed name, as
    # gateways and sandboxes set it)
    egress_gateway_url: str | None = Field(
        default=None, validation_alias=AliasChoices("EGRESS_GATEWAY_URL")
    )
    # The release feed `neuralgentics update` reads (NEURALGENTICS_RELEASES_URL): a release.json
    # as scripts/release.sh writes it (or a list of them, or a GitHub releases API URL), over
    # http(s) or as a local path. None: no feed configured (`update --index` still works).
    releases_url: str | None = None
    # an OpenCode source checkout `update` checks the patches against
    opencode_checkout: Path | None = None
    # OpenCode's own config dir is under it (`opencode install`); None: ~/.config
    xdg_config_home: Path | None = Field(
        default=None, validation_alias=AliasChoices("XDG_CONFIG_HOME")
    )
    # OpenCode keeps `opencode auth login` credentials under it (`doctor`); None: ~/.local/share
    xdg_data_home: Path | None = Field(default=None, validation_alias=AliasChoices("XDG_DATA_HOME"))

    @property
    def sqlite_path(self) -> Path:
        return self.home / "memini.db"

    # The two services' URLs, as every client derives them (service_client.py builds the
    # authenticated client; the installers write them into the plugin's options).
    @property
    def url(self) -> str:
        """memini-core: NEURALGENTICS_SERVICE_URL, else the host and port it is served on."""
        return self.service_url or f"http://{self.host}:{self.port}"

    @property
    def broker_base_url(self) -> str:
        """The broker's HTTP front: NEURALGENTICS_BROKER_URL (without a trailing slash), else
        memini-core's host (`neuralgentics up` serves both there) on the broker port. A
        wildcard bind is reached on loopback; an IPv6 address gets its brackets."""
        if self.broker_url:
            return self.broker_url.rstrip("/")
        host = self.host if self.host not in ("0.0.0.0", "::", "") else "127.0.0.1"
        if ":" in host and not host.startswith("["):
            host = f"[{host}]"
        return f"http://{host}:{self.broker_port}"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process's settings, read once. Entry points only (see the module docstring)."""
    return Settings()
