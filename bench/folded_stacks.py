"""Top frames of a py-spy raw (folded) profile: inclusive and own share of the samples.

    .venv/bin/python bench/folded_stacks.py PROFILE.txt [--top 30] [--under FUNCTION]

py-spy `record -f raw` writes one line per distinct stack, `frame;frame;...;leaf COUNT`, each
frame `function (file:line)`. Frames are grouped by function and file (lines dropped), so a
function's inclusive share counts every sample it is on the stack for, once.
`--under FUNCTION` restricts the report to samples whose stack contains FUNCTION (and gives
shares of those samples), e.g. `--under handle_post_request`.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

_FRAME = re.compile(r"^(?P<fn>.*?) \((?P<file>[^():]*)(?::\d+)?\)$")


def frame_key(frame: str) -> str:
    """`function (path/to/site-packages/pkg/mod.py:12)` -> `function (pkg/mod.py)`."""
    m = _FRAME.match(frame.strip())
    if not m:
        return frame.strip()
    file = m.group("file")
    for marker in ("site-packages/", "/src/", "lib/python3.11/"):
        if marker in file:
            file = file.split(marker, 1)[1]
            break
    return f"{m.group('fn')} ({file})"


def read_folded(path: Path) -> list[tuple[list[str], int]]:
    stacks = []
    for line in path.read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            stacks.append(([frame_key(f) for f in stack.split(";")], int(count)))
    return stacks


def summarize(stacks: list[tuple[list[str], int]], top: int = 30, under: str | None = None) -> str:
    if under:
        stacks = [(s, n) for s, n in stacks if any(under in f for f in s)]
    total = sum(n for _, n in stacks)
    if not total:
        return "(no samples)"
    inclusive: Counter[str] = Counter()
    own: Counter[str] = Counter()
    for frames, n in stacks:
        for f in set(frames):
            inclusive[f] += n
        own[frames[-1]] += n
    lines = [
        f"{total} samples" + (f" with {under!r} on the stack" if under else ""),
        "",
        "inclusive %  function",
    ]
    # Thread entry points are ~100 % inclusive and say nothing: skip frames on every stack.
    lines += [
        f"{inclusive[f] / total:10.1%}  {f}"
        for f, _ in inclusive.most_common(top * 3)
        if inclusive[f] < total
    ][:top]
    lines += ["", "      own %  function"]
    lines += [f"{n / total:10.1%}  {f}" for f, n in own.most_common(top)]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("profile", type=Path)
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--under", help="only samples with this function on the stack")
    opts = ap.parse_args()
    print(summarize(read_folded(opts.profile), opts.top, opts.under))


if __name__ == "__main__":
    main()
