"""Which LLM providers OpenCode can use here, and whether the models it will run on have one.

Without a provider of the user's own, OpenCode falls back to its hosted free models
(`opencode/…`): they need the internet, and offline a prompt retries "Cannot connect to API"
for ever. So `doctor` reports what OpenCode would run on, from the places OpenCode itself
reads: `provider` entries of its config files (a local OpenAI-compatible endpoint counts),
credentials saved by `opencode auth login` (`<XDG_DATA_HOME>/opencode/auth.json`), and the
API-key variables of the common providers in the environment (OpenCode's variables, not
settings of ours, so the caller passes the environment in).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

# provider id → the variables any one of which gives OpenCode a key for it (models.dev's names)
PROVIDER_ENV: dict[str, tuple[str, ...]] = {
    "anthropic": ("ANTHROPIC_API_KEY",),
    "openai": ("OPENAI_API_KEY",),
    "google": ("GOOGLE_GENERATIVE_AI_API_KEY", "GEMINI_API_KEY"),
    "openrouter": ("OPENROUTER_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "togetherai": ("TOGETHER_API_KEY",),
    "fireworks-ai": ("FIREWORKS_API_KEY",),
    "cerebras": ("CEREBRAS_API_KEY",),
    "azure": ("AZURE_API_KEY",),
    "amazon-bedrock": ("AWS_BEARER_TOKEN_BEDROCK", "AWS_ACCESS_KEY_ID", "AWS_PROFILE"),
    "vercel": ("AI_GATEWAY_API_KEY",),
    "opencode": ("OPENCODE_API_KEY",),
}
CONFIG_NAMES = ("opencode.json", "opencode.jsonc", "config.json")
HOW_TO_ADD = (
    "give OpenCode a model provider: `opencode auth login` (then pick one), or export its key "
    "(e.g. ANTHROPIC_API_KEY), or add a local OpenAI-compatible endpoint as a `provider` in "
    "opencode.json (docs/opencode.md, 'A model provider')"
)


@dataclass
class Providers:
    """What OpenCode can use: provider id → where its access comes from."""

    usable: dict[str, str] = field(default_factory=dict)
    default_model: str | None = None  # the `model` key of the config files, if any

    def has(self, provider: str) -> bool:
        return provider in self.usable


def _read(path: Path) -> dict:
    try:
        doc = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}  # a broken file is the install check's to report; here it only gives nothing
    return doc if isinstance(doc, dict) else {}


def config_files(config_home: Path, project_dir: Path | None) -> list[Path]:
    """OpenCode's config files in the order it merges them (global first, project last)."""
    dirs = [config_home] + ([project_dir] if project_dir is not None else [])
    return [d / name for d in dirs for name in CONFIG_NAMES if (d / name).is_file()]


def find(configs: Iterable[Path], auth_file: Path, environ: Mapping[str, str]) -> Providers:
    found = Providers()
    for path in configs:
        doc = _read(path)
        if isinstance(doc.get("model"), str):
            found.default_model = doc["model"]
        for pid, entry in (doc.get("provider") or {}).items():
            if not isinstance(entry, dict):
                continue
            options = entry.get("options")
            if not isinstance(options, dict):
                continue
            if options.get("baseURL") or options.get("apiKey"):
                where = options.get("baseURL") or "its apiKey"
                found.usable.setdefault(pid, f"{path.name} provider ({where})")
    for pid in _read(auth_file):
        found.usable.setdefault(pid, "opencode auth login")
    for pid, names in PROVIDER_ENV.items():
        for name in names:
            if environ.get(name):
                found.usable.setdefault(pid, name)
                break
    return found


def provider_of(model: str) -> str:
    return model.split("/", 1)[0]
