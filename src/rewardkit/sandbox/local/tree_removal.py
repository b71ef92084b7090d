"""Remove a run's host scratch dir, whatever the program left in it.

``shutil.rmtree`` recurses once per level (RecursionError on a few thousand nested dirs, which a
program makes with mkdir + chdir in a loop) and its fd-safe walk holds one fd per level. This walk is
a loop that holds one directory fd at a time, goes down by name relative to it (``O_NOFOLLOW``: a
symlink is unlinked, never followed) and up through ``..``, checked against the identity it recorded
on the way down, so that nothing swapped in by a process still alive can redirect it. A dir the
program made unreadable or unwritable is chmod'ed back (we own it, or are root) and tried again.

The docker backend needs no walk: each run's scratch dir is on a tmpfs of the run's own mount namespace
(``sandbox/docker/container/run_init.py``), gone with it.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass
class _Level:
    name: str  # its name in its parent
    ident: tuple[int, int]  # (st_dev, st_ino), to check the way back up
    subdirs: list[str] = field(default_factory=list)  # still to remove


def remove_tree(path: str) -> bool:
    """Remove ``path`` and everything under it, never raising; whether it is gone afterwards."""
    path = os.path.abspath(path)
    try:
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            os.unlink(path)
            return True
        parent = os.open(os.path.dirname(path), _DIR_FLAGS)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        _remove_dir(parent, os.path.basename(path))
    except OSError:
        pass
    finally:
        os.close(parent)
    return not os.path.lexists(path)


def _remove_dir(top_parent: int, top_name: str) -> None:
    fd = _open_dir(top_parent, top_name)
    levels = [_enter(fd, top_name)]
    try:
        while levels:
            level = levels[-1]
            if level.subdirs:
                name = level.subdirs.pop()
                try:
                    child = _open_dir(fd, name)
                except OSError:
                    continue  # gone, or not ours to open: left in place, and so is its parent
                os.close(fd)
                fd = child
                levels.append(_enter(fd, name))
                continue
            levels.pop()
            if levels:
                up = os.open("..", _DIR_FLAGS, dir_fd=fd)
                if _ident(os.fstat(up)) != levels[-1].ident:
                    os.close(up)
                    return  # the tree was moved under us: stop rather than remove elsewhere
                os.close(fd)
                fd = up
            _rmdir(level.name, fd if levels else top_parent)  # each dir was made writable in _enter
    finally:
        os.close(fd)


def _enter(fd: int, name: str) -> _Level:
    """Make the dir open at ``fd`` writable, unlink all but its subdirs, and list those."""
    try:
        os.fchmod(fd, 0o700)
    except OSError:
        pass
    level = _Level(name, _ident(os.fstat(fd)))
    try:
        with os.scandir(fd) as entries:
            listed = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries]
    except OSError:
        return level
    for entry_name, is_dir in listed:
        if is_dir:
            level.subdirs.append(entry_name)
        else:
            try:
                os.unlink(entry_name, dir_fd=fd)
            except OSError:
                pass
    return level


def _open_dir(parent: int, name: str) -> int:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent)
    except PermissionError:
        # made unreadable (chmod 000): chmod follows symlinks, so only after lstat shows a real dir
        if not stat.S_ISDIR(os.lstat(name, dir_fd=parent).st_mode):
            raise
        os.chmod(name, 0o700, dir_fd=parent)
        return os.open(name, _DIR_FLAGS, dir_fd=parent)


def _rmdir(name: str, parent: int) -> None:
    try:
        os.rmdir(name, dir_fd=parent)
    except OSError:
        pass  # not empty: something in it could not be removed, and stays


def _ident(st: os.stat_result) -> tuple[int, int]:
    return st.st_dev, st.st_ino
