"""Reading another client's MCP config: ``neuralgentics.jsonc`` vs ``json5`` (issue 29, item 10).

One command, both parsers on the same generated JSONC files (comments and trailing commas, the
shape `broker import` reads), each best of ``--rounds``; prints seconds and the ratio.

    .venv/bin/python bench/jsonc_parse.py [--sizes 50,200,400] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import time

import json5

from neuralgentics import jsonc


def sample(kb: int) -> str:
    entry = {"command": "npx", "args": ["-y", "some-mcp-server", "--flag", "x" * 24]}
    entry["env"] = {"TZ": "UTC", "LOG_LEVEL": "warning"}
    one = len(json.dumps({"s0000": entry}, indent=2))
    n = max(1, kb * 1024 // one)
    body = json.dumps({"servers": {f"s{i:04}": entry for i in range(n)}}, indent=2)
    return "{\n  // generated\n" + body[1:].replace('"warning"\n', '"warning", // lvl\n')


def best(fn, text: str, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        fn(text)
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="50,200,400", help="file sizes in KB")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}; best of {a.rounds}")
    print(f"{'size':>8} {'jsonc s':>9} {'json5 s':>9} {'ratio':>8}")
    for kb in (int(x) for x in a.sizes.split(",")):
        text = sample(kb)
        assert jsonc.loads(text, "bench") == json5.loads(text)
        ours = best(lambda t: jsonc.loads(t, "bench"), text, a.rounds)
        theirs = best(json5.loads, text, a.rounds)
        print(f"{len(text) // 1024:>6}KB {ours:>9.3f} {theirs:>9.2f} {theirs / ours:>7.0f}x")


if __name__ == "__main__":
    main()
