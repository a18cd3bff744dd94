"""Private files: what the services keep on disk (memories, the vector indexes, task records)
is readable by its owner only — data dir 0700, files 0600 — because other local users are not
trusted. New files are created with these modes; files and directories made by an older
version (0755 / 0644 under a usual umask) are tightened when they are opened.

Every file the project rewrites goes through `atomic_write` (or `atomic_path` for a library
that writes to a path): a reader, or a crash, sees the old file or the whole new one."""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
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


def user_file_mode(path: Path) -> int:
    """The mode to keep for a file the user owns (opencode.json, tui.json): its own when it
    exists, else what the umask gives a new file."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return new_file_mode()


def new_file_mode() -> int:
    """What the umask gives a new file (0644 under the usual 022): for files anyone may read."""
    current = os.umask(0)
    os.umask(current)
    return 0o666 & ~current


def _temp_beside(path: Path, mode: int) -> tuple[int, Path]:
    # A name no other writer picks (pid + random), created exclusively, in the same directory
    # so the rename stays on one filesystem. Not tempfile.mkstemp: `broker stdio`'s prelude
    # writes through here before anything heavy is imported, and tempfile pulls in random.
    while True:
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        # 0600 from creation (a secret is never readable on the way), then the mode asked for:
        # os.open's mode is filtered by the umask, fchmod's is not.
        os.fchmod(fd, mode)
        return fd, tmp


def _fsync_dir(directory: Path) -> None:
    # The rename is durable once the directory is synced; not every filesystem allows it.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes | str, *, mode: int) -> None:
    """Replace `path` with `data` in one rename: a unique temp file beside it (created 0600,
    then `mode`), written and fsynced, renamed over `path`, the directory fsynced. Two writers
    at once each rename a whole file (the last one wins); an error removes the temp file and
    leaves `path` as it was. `mode`: the new file's permissions (FILE_MODE for what the
    services keep; `user_file_mode(path)` for a file of the user's)."""
    body = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = _temp_beside(path, mode)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(body)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


@contextmanager
def atomic_path(path: Path, *, mode: int) -> Iterator[Path]:
    """`atomic_write` for a writer that wants a path (a library's save): yields the temp path;
    when the block ends it gets `mode`, is fsynced and renamed over `path`; on an error it is
    removed and `path` is untouched."""
    fd, tmp = _temp_beside(path, mode)
    os.close(fd)
    try:
        yield tmp
        os.chmod(tmp, mode)  # the library may have made the file again with its own mode
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


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
