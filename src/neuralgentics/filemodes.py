"""Private files: what the services keep on disk (memories, the vector indexes, task records)
is readable by its owner only — data dir 0700, files 0600 — because other local users are not
trusted. New files are created with these modes; files and directories made by an older
version (0755 / 0644 under a usual umask) are tightened when they are opened."""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterable
from pathlib import Path

log = logging.getLogger(__name__)

DIR_MODE = 0o700
FILE_MODE = 0o600


def _tighten(path: Path) -> None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return
    current = stat.S_IMODE(st.st_mode)
    if current & 0o077 == 0 or (hasattr(os, "getuid") and st.st_uid != os.getuid()):
        return  # already private, or not ours to change
    try:
        os.chmod(path, current & ~0o077)
        log.info(
            "%s was readable by others (%o); now %o",
            path,
            current,
            stat.S_IMODE(path.stat().st_mode),
        )
    except OSError as exc:
        log.warning("cannot make %s private (%s)", path, exc)


def private_dir(path: Path) -> Path:
    """Create `path` (and parents) with 0700, or take group/other access off an existing one."""
    if not path.exists():
        path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
        os.chmod(path, DIR_MODE)  # mkdir's mode is filtered by the umask
    else:
        _tighten(path)
    return path


def private_file(path: Path) -> Path:
    """Create `path` empty with 0600 if missing (so whatever opens it next keeps that mode:
    SQLite gives its -wal and -shm files the database file's mode), or tighten it to 0600."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        _tighten(path)
    else:
        os.close(fd)
    return path


def private_files(paths: Iterable[Path]) -> None:
    """Tighten the files that exist among `paths` (companions such as -wal, -shm, indexes)."""
    for path in paths:
        _tighten(path)


def make_private(path: Path) -> None:
    """For a file just written by a library that chose its own mode (usearch's save)."""
    try:
        os.chmod(path, FILE_MODE)
    except OSError as exc:
        log.warning("cannot make %s private (%s)", path, exc)


def _owner_ok(uid: int) -> bool:
    return not hasattr(os, "geteuid") or uid in (os.geteuid(), 0)


def distrust(path: Path, what: str) -> str | None:
    """Why ``path`` (a config or token file) and its directory cannot be trusted, with the fix;
    None when they can. Refused: either owned by another user (root excepted), a file that
    group or others may write, a directory that group or others may write unless it is sticky
    (``/tmp``: there nobody replaces another's file, and the file's own owner is checked).

    Another user who can write the file or the directory can plant a token or a broker.yaml
    whose server commands then run as this user (issue 29, item 14)."""
    if not hasattr(os, "geteuid"):
        return None  # Windows: ACLs, not modes
    me = os.geteuid()
    try:
        st = path.stat()
    except FileNotFoundError:
        st = None
    directory = path.parent
    dst = directory.stat()
    dmode = stat.S_IMODE(dst.st_mode)
    if not _owner_ok(dst.st_uid):
        return (
            f"the directory {directory} of the {what} is owned by another user (uid {dst.st_uid}, "
            f"you are {me}): use a directory of your own, or `chown {me} {directory}`"
        )
    if dmode & (stat.S_IWGRP | stat.S_IWOTH) and not dmode & stat.S_ISVTX:
        return (
            f"the directory {directory} of the {what} is writable by other users (mode "
            f"{dmode:o}): anyone could plant a file there; run `chmod go-w {directory}` "
            "(or `chmod 700` it)"
        )
    if st is None:
        return None
    mode = stat.S_IMODE(st.st_mode)
    if not _owner_ok(st.st_uid):
        return (
            f"the {what} {path} is owned by another user (uid {st.st_uid}, you are {me}): "
            f"check what it holds, then `chown {me} {path}` (or delete it)"
        )
    if mode & (stat.S_IWGRP | stat.S_IWOTH):
        return (
            f"the {what} {path} is writable by other users (mode {mode:o}): check what it "
            f"holds, then `chmod go-w {path}`"
        )
    return None


def home_relative(path: Path) -> str:
    """``~/…`` for a path under the home directory (the same on every machine of a team), else
    the path itself."""
    try:
        return "~/" + str(path.resolve().relative_to(Path.home().resolve()))
    except ValueError:
        return str(path)
