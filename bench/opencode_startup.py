"""Offline start-up of `opencode run` in a project with our install vs the same run without it.

Issue 16, item 7: OpenCode 1.18.33 npm-installs `@opencode-ai/plugin` into every config dir it
reads and, when a plugin is configured, waits for it; with no network that wait was ~70 s
(npm's retry back-off). `neuralgentics opencode install` pre-creates OpenCode's lock, so an
offline start should cost about what a start without our install costs. Target: <= 1.3x.

One command, both sides measured in the same run, with the network cut: the script re-executes
itself under `unshare -n` (a network namespace with only `lo` up; needs root or user
namespaces) unless `--online` is given.

    .venv/bin/python bench/opencode_startup.py [--runs 5] [--online] [--stall]

Two fresh sandboxes (HOME, XDG dirs, project: bench/opencode_harness.py), the same scripted
model (the only fake): "plain" has only the provider in opencode.json; "installed" also has
`neuralgentics up` running (custom ports) and `neuralgentics opencode install --broker http`
(nothing else prepared: the lock is the installer's). One untimed warm-up run each, then
`--runs` alternating timed runs of `opencode run "say hi"`, wall clock to exit. Prints medians,
the ratio, what the install left in the project and in OpenCode's config dir; `--stall` adds
one run with the installer's lock removed, to show the wait it saves.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests" / "opencode"))

from fake_llm import FakeLLM, Reply  # noqa: E402
from opencode_harness import NEURALGENTICS, OPENCODE, OPENCODE_VERSION, Sandbox  # noqa: E402

TARGET = 1.3
IN_NETNS = "NEURALGENTICS_BENCH_NETNS"


def _reexec_offline() -> None:
    """Run this script again in a new network namespace with only the loopback up."""
    if not shutil.which("unshare") or not shutil.which("ip"):
        sys.exit("opencode_startup: needs unshare and ip (util-linux, iproute2), or --online")
    argv = [sys.executable, *sys.argv]
    inner = 'ip link set lo up && exec "$@"'
    env = {**os.environ, IN_NETNS: "1"}
    proc = subprocess.run(["unshare", "-n", "sh", "-c", inner, "sh", *argv], env=env)
    if proc.returncode and not os.environ.get(IN_NETNS):
        print(
            "opencode_startup: `unshare -n` failed (root or user namespaces needed)",
            file=sys.stderr,
        )
    sys.exit(proc.returncode)


def _offline() -> bool:
    try:
        socket.create_connection(("registry.npmjs.org", 443), timeout=3).close()
    except OSError:
        return True
    return False


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_health(port: int, proc: subprocess.Popen[bytes], deadline: float) -> None:
    import httpx

    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"neuralgentics up exited ({proc.returncode}); see its log")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise SystemExit(f"nothing answered on :{port} in time")


def _du(path: Path) -> int:
    if not path.exists():
        return 0
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="timed runs per side (default 5)")
    ap.add_argument("--online", action="store_true", help="do not cut the network")
    ap.add_argument("--keep", action="store_true", help="keep the sandboxes (path printed)")
    ap.add_argument(
        "--stall",
        action="store_true",
        help="then one more installed run with the pre-created lock removed (the stall it avoids)",
    )
    args = ap.parse_args()
    if not args.online and not os.environ.get(IN_NETNS):
        _reexec_offline()
    if not OPENCODE.exists():
        sys.exit(f"{OPENCODE} is missing: run scripts/install.sh --test")
    offline = _offline()
    if not args.online and not offline:
        sys.exit("opencode_startup: the network is still reachable inside the namespace")

    root = Path(tempfile.mkdtemp(prefix="ng-startup-"))
    up: subprocess.Popen[bytes] | None = None
    try:
        with FakeLLM(lambda req: Reply(text="hi")) as llm:
            plain = Sandbox.create(root / "plain")
            plain.write_opencode_json(llm.base_url)
            port, broker_port = _free_port(), _free_port()
            installed = Sandbox.create(
                root / "installed",
                {"NEURALGENTICS_PORT": str(port), "NEURALGENTICS_BROKER_PORT": str(broker_port)},
            )
            installed.write_opencode_json(llm.base_url)
            env = installed.full_env()
            with (root / "up.log").open("wb") as log:
                up = subprocess.Popen(
                    [str(NEURALGENTICS), "up"],
                    env=env,
                    stdout=log,
                    stderr=log,
                    start_new_session=True,
                )
            deadline = time.monotonic() + 180
            _wait_health(port, up, deadline)
            _wait_health(broker_port, up, deadline)
            before = _du(installed.project)
            subprocess.run(
                [
                    str(NEURALGENTICS),
                    "opencode",
                    "install",
                    "--broker",
                    "http",
                    "--project",
                    str(installed.project),
                ],
                env=env,
                check=True,
                capture_output=True,
                timeout=120,
            )
            added = _du(installed.project) - before

            times: dict[str, list[float]] = {"plain": [], "installed": []}
            for sb in (plain, installed):  # warm-up: OpenCode's first start makes its database
                r = sb.run("say hi", llm.requests, None, timeout=300)
                if r.failure():
                    sys.exit(f"warm-up failed ({r.failure()}): {r.stderr[-2000:]}")
            for _ in range(args.runs):
                for name, sb in (("plain", plain), ("installed", installed)):
                    r = sb.run("say hi", llm.requests, None, timeout=300)
                    if r.failure():
                        sys.exit(f"{name}: {r.failure()}: {r.stderr[-2000:]}")
                    times[name].append(r.seconds)

            stall = None
            if args.stall:
                nm = installed.opencode_config_dir / "node_modules"
                shutil.rmtree(nm, ignore_errors=True)
                (installed.opencode_config_dir / "package-lock.json").unlink(missing_ok=True)
                r = installed.run("say hi", llm.requests, None, timeout=600)
                stall = r.seconds

        med = {k: statistics.median(v) for k, v in times.items()}
        ratio = med["installed"] / med["plain"]
        nm = installed.opencode_config_dir / "node_modules"
        print(
            f"opencode run start-up, {'offline (unshare -n)' if offline else 'online'}, "
            f"{args.runs} runs each, opencode-ai {OPENCODE_VERSION}"
        )
        print(f"{'project':<10} {'median s':>8} {'min s':>6} {'max s':>6}  runs")
        for k, v in times.items():
            runs = " ".join(f"{x:.2f}" for x in v)
            print(f"{k:<10} {med[k]:>8.2f} {min(v):>6.2f} {max(v):>6.2f}  {runs}")
        print(
            f"ratio installed/plain: {ratio:.2f}x (target <= {TARGET}x): "
            f"{'PASS' if ratio <= TARGET else 'FAIL'}"
        )
        print(f"left in the project by the install: {added / 1024:.1f} KiB; {nm}: {_du(nm)} bytes")
        if stall is not None:
            print(
                f"installed, lock removed (one run): {stall:.2f} s = {stall / med['plain']:.1f}x plain"
            )
        if ratio > TARGET:
            sys.exit(1)
    finally:
        if up is not None and up.poll() is None:
            up.send_signal(2)  # Ctrl-C: `up` stops both services
            try:
                up.wait(timeout=30)
            except subprocess.TimeoutExpired:
                up.kill()
        if args.keep:
            print(f"sandboxes kept in {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
