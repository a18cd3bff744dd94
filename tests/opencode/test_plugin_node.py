"""Runs the plugin's Node test-runner suite against a running service (see conftest.service)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import yaml
from oc_support import HERE, REPO, node_tool, which_or_fail

from neuralgentics import project_credentials
from neuralgentics.config import Settings
from neuralgentics.orchestrator.classify import TaskClassifier, Weights
from neuralgentics.orchestrator.config import load_config
from neuralgentics.orchestrator.local_matrix import local_matrix
from neuralgentics.orchestrator.routing import Router


class _NoEmbedder:
    """Similarity is off: the classifier never embeds (it is the keyword half alone)."""

    def embed(self, texts):  # pragma: no cover - never called
        raise AssertionError("similarity is off")


def keyword_verdicts() -> list[dict]:
    """What the service's router decides with similarity off, for every labelled task text the
    keyword rules recognise and every roster agent: the plugin's local matrix must agree."""
    config = load_config()
    classifier = TaskClassifier(
        config, embedder=_NoEmbedder(), weights=Weights(use_similarity=False)
    )
    router = Router(config, classifier)
    labelled = yaml.safe_load((HERE.parent / "orchestrator" / "routing_tasks.yaml").read_text())
    cases = []
    for texts in labelled.values():
        for text in texts:
            decision = router.decide(text)
            if not decision.recognised:
                continue  # decided by similarity in the service: only the roster is checked
            for agent in config.agents:
                cases.append(
                    {"task": text, "agent": agent, "allowed": router.check(decision, agent).allowed}
                )
    return cases


def test_plugin_typechecks() -> None:
    proc = subprocess.run(
        [node_tool("tsc"), "-p", str(HERE / "tsconfig.json")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_plugin_node_suite(service: tuple[str, str, Path], tmp_path: Path) -> None:
    url, kind, token_file = service
    # the plugin as a project's agent, with the credential `opencode install` issues
    agent_token = tmp_path / "agent-token"
    settings = Settings(home=tmp_path / "home", config_dir=token_file.parent)
    project_credentials.issue(
        settings, label="plugin-test-agent", project="plugin-test", token_file=agent_token
    )
    cases = tmp_path / "routing-cases.json"
    cases.write_text(json.dumps(keyword_verdicts()))
    node_tool("tsx")
    proc = subprocess.run(
        [
            which_or_fail("node"),
            "--import",
            "tsx",
            "--test",
            "--test-reporter=spec",
            str(HERE / "plugin.test.ts"),
        ],
        cwd=REPO,
        # The suite hands the plugin the service's URL and token file as its options, as
        # `neuralgentics opencode install` does; no NEURALGENTICS_* variable is set.
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith("NEURALGENTICS_")},
            "NEURALGENTICS_TEST_SERVICE_URL": url,
            "NEURALGENTICS_TEST_CONFIG_DIR": str(token_file.parent),
            "NEURALGENTICS_TEST_AGENT_TOKEN_FILE": str(agent_token),
            # the built-in matrix as the installer writes it into the plugin options
            "NEURALGENTICS_TEST_ROUTING": json.dumps(local_matrix(load_config())),
            # too long for an environment variable: a file
            "NEURALGENTICS_TEST_ROUTING_CASES": str(cases),
        },
        capture_output=True,
        text=True,
        timeout=180,
    )
    print(f"service: {kind}\n{proc.stdout}\n{proc.stderr}")
    assert proc.returncode == 0, f"against {kind}:\n{proc.stdout}\n{proc.stderr}"


def test_plugin_helpers_without_a_service() -> None:
    """The pure helpers (failure text, the notice, the internal-request detector, the local
    matrix, the task envelope, the verdict) on their own: no service, no OpenCode."""
    node_tool("tsx")
    proc = subprocess.run(
        [
            which_or_fail("node"),
            "--import",
            "tsx",
            "--test",
            "--test-reporter=spec",
            str(HERE / "helpers.test.ts"),
        ],
        cwd=REPO,
        env={k: v for k, v in os.environ.items() if not k.startswith("NEURALGENTICS_")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ℹ fail 0" in proc.stdout and "ℹ pass 0" not in proc.stdout, proc.stdout
