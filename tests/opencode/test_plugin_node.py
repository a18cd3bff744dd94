"""Runs the plugin's Node test-runner suite against a running service (see conftest.service)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from oc_support import HERE, REPO, node_tool, which_or_fail

from neuralgentics.orchestrator.config import load_config
from neuralgentics.orchestrator.local_matrix import local_matrix


def test_plugin_typechecks() -> None:
    proc = subprocess.run(
        [node_tool("tsc"), "-p", str(HERE / "tsconfig.json")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_plugin_node_suite(service: tuple[str, str, Path]) -> None:
    url, kind, token_file = service
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
            # the built-in matrix as the installer writes it into the plugin options
            "NEURALGENTICS_TEST_ROUTING": json.dumps(local_matrix(load_config())),
        },
        capture_output=True,
        text=True,
        timeout=180,
    )
    print(f"service: {kind}\n{proc.stdout}\n{proc.stderr}")
    assert proc.returncode == 0, f"against {kind}:\n{proc.stdout}\n{proc.stderr}"
