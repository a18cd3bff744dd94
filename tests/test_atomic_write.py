"""filemodes.atomic_write, the one way the project rewrites a file: concurrent writers never
leave a partial or empty file, and an error leaves the old file and no temp file beside it."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from neuralgentics.filemodes import FILE_MODE, atomic_path, atomic_write, user_file_mode


def _installer_write(path: Path, data: bytes) -> None:
    from neuralgentics.opencode import installer

    installer._write_atomic(path, data)


def _tui_write(path: Path, data: bytes) -> None:
    from neuralgentics.opencode import tui

    tui._write_atomic(path, data)


def _plain_write(path: Path, data: bytes) -> None:
    atomic_write(path, data, mode=0o644)


@pytest.mark.parametrize("writer", [_plain_write, _installer_write, _tui_write])
def test_concurrent_writers_never_leave_a_partial_or_empty_file(tmp_path: Path, writer) -> None:
    # installer.py and tui.py used one fixed temp name: two installs at once renamed each
    # other's half-written file, or failed on a temp file the other had already renamed
    target = tmp_path / "opencode.json"
    atomic_write(target, b"{}", mode=0o644)
    # each writer's body is whole and distinct: a torn write or an empty file would not be one
    bodies = [(f'{{"writer": {i}, "pad": "' + "x" * 200_000 + '"}').encode() for i in range(4)]
    seen: set[bytes] = set()
    failures: list[BaseException] = []
    stop = threading.Event()

    def write(body: bytes) -> None:
        try:
            for _ in range(25):
                writer(target, body)
        except BaseException as exc:  # a thread's exception would otherwise be lost
            failures.append(exc)

    def read() -> None:
        while not stop.is_set():
            seen.add(target.read_bytes())

    reader = threading.Thread(target=read)
    reader.start()
    writers = [threading.Thread(target=write, args=(b,)) for b in bodies]
    for w in writers:
        w.start()
    for w in writers:
        w.join()
    stop.set()
    reader.join()
    assert failures == []
    assert target.read_bytes() in bodies
    assert seen <= {b"{}", *bodies}  # every read saw one whole file
    assert [p.name for p in tmp_path.iterdir()] == ["opencode.json"]  # no temp file left


def test_an_error_leaves_the_old_file_and_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "broker.yaml"
    atomic_write(target, "servers: {}\n", mode=FILE_MODE)
    with pytest.raises(TypeError):
        atomic_write(target, 42, mode=FILE_MODE)  # type: ignore[arg-type]
    with pytest.raises(RuntimeError), atomic_path(target, mode=FILE_MODE) as tmp:
        tmp.write_text("half a")
        raise RuntimeError("the library failed mid-write")
    assert target.read_text() == "servers: {}\n"
    assert [p.name for p in tmp_path.iterdir()] == ["broker.yaml"]


def test_the_mode_is_the_one_asked_for_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o077)
    try:
        atomic_write(tmp_path / "shared.json", "{}", mode=0o644)
        atomic_write(tmp_path / "secret", "token", mode=FILE_MODE)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "shared.json").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "secret").stat().st_mode) == 0o600
    # a user's file keeps its own mode when rewritten
    os.chmod(tmp_path / "shared.json", 0o640)
    atomic_write(tmp_path / "shared.json", "{}", mode=user_file_mode(tmp_path / "shared.json"))
    assert stat.S_IMODE((tmp_path / "shared.json").stat().st_mode) == 0o640
