"""Settings from the environment (prefix ``NEURALGENTICS_``) and the user's directories."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import platformdirs
from pydantic import Field
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
    # auto | onnx | torch
    embedding_backend: str = "auto"
    max_content_chars: int = 32_000
    # cosine at or above which an added memory reports an existing one as `similar`
    similar_threshold: float = 0.90
    service_url: str | None = None
    # The release feed `neuralgentics update` reads (NEURALGENTICS_RELEASES_URL): a release.json
    # as scripts/release.sh writes it (or a list of them, or a GitHub releases API URL), over
    # http(s) or as a local path. None: no feed configured (`update --index` still works).
    releases_url: str | None = None

    @property
    def sqlite_path(self) -> Path:
        return self.home / "memini.db"

    @property
    def models_dir(self) -> Path:
        return self.home / "models"

    @property
    def url(self) -> str:
        return self.service_url or f"http://{self.host}:{self.port}"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
