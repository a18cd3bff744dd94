"""Model tiers: which OpenCode model the roster's `model: primary | secondary` agents run on.

The user sets them once in ``<config_dir>/models.yaml``::

    models:
      primary: anthropic/claude-sonnet-4-5     # orchestrator, architect, reviewer
      secondary: anthropic/claude-haiku-4-5    # coder, explorer, tester, linter, git, writer, general

or for one install with ``neuralgentics opencode install --primary-model P --secondary-model S``
(the flags win over the file). The installer writes the tier's model into each agent's
``model`` field. A tier left unset writes no ``model``: the agent runs on OpenCode's default,
as without tiers. Model names are OpenCode's ``provider/model``, split at the first ``/``
(``openrouter/anthropic/claude-x`` is provider ``openrouter``, model ``anthropic/claude-x``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml

from neuralgentics import errors

MODELS_FILE = "models.yaml"
Tier = Literal["primary", "secondary"]
TIERS: tuple[Tier, ...] = ("primary", "secondary")


class ModelTierError(errors.InvalidInput, ValueError):
    """A tier's model is not usable; the message names where it came from and what is expected."""


@dataclass(frozen=True)
class ModelTiers:
    primary: str | None = None
    secondary: str | None = None

    def model_for(self, tier: str) -> str | None:
        return (
            self.primary if tier == "primary" else self.secondary if tier == "secondary" else None
        )

    def to_json(self) -> dict[str, str | None]:
        return {"primary": self.primary, "secondary": self.secondary}


def split_model(name: str) -> tuple[str, str]:
    """OpenCode's split: provider before the first ``/``, the model id after it."""
    provider, _, model = name.partition("/")
    return provider, model


def check_model(name: object, where: str) -> str:
    if not isinstance(name, str):
        raise ModelTierError(
            f'{where}: expected a string "provider/model", got {type(name).__name__}'
        )
    provider, model = split_model(name.strip())
    if not provider or not model or any(c.isspace() for c in name.strip()):
        raise ModelTierError(
            f'{where}: {name!r} is not "provider/model" (for example anthropic/claude-sonnet-4-5)'
        )
    return name.strip()


def models_file(config_dir: Path) -> Path:
    """models.yaml in the config dir (`Settings.config_dir`)."""
    return config_dir / MODELS_FILE


def load_tiers(path: Path) -> ModelTiers:
    """The tiers in models.yaml (`models_file(...)`); both unset when the file does not exist."""
    if not path.exists():
        return ModelTiers()
    try:
        data = yaml.safe_load(path.read_text("utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ModelTierError(f"{path}: not valid YAML ({exc})") from None
    models = data.get("models") if isinstance(data, dict) else None
    if not isinstance(data, dict) or set(data) - {"models"} or not isinstance(models, dict | None):
        raise ModelTierError(
            f"{path}: expected `models: {{primary: provider/model, secondary: provider/model}}`"
        )
    models = models or {}
    unknown = set(models) - set(TIERS)
    if unknown:
        raise ModelTierError(
            f"{path}: unknown tier(s) {', '.join(sorted(map(str, unknown)))} (use primary, secondary)"
        )
    return ModelTiers(
        **{
            t: check_model(models[t], f"{path}: models.{t}")
            for t in TIERS
            if models.get(t) is not None
        }
    )


def resolve_tiers(primary: str | None, secondary: str | None, path: Path) -> ModelTiers:
    """models.yaml with the command-line flags on top."""
    base = load_tiers(path)
    return ModelTiers(
        primary=check_model(primary, "--primary-model") if primary is not None else base.primary,
        secondary=check_model(secondary, "--secondary-model")
        if secondary is not None
        else base.secondary,
    )
