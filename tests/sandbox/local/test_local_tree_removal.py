"""The host-side removal of a run's scratch dir (local backend): deep, looped, locked-down trees."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from rewardkit.sandbox.local.tree_removal import remove_tree


def _deep_chain(top: str, depth: int) -> None:
    home = os.open(".", os.O_RDONLY)
    try:
        os.chdir(top)
        for _ in range(depth):  # relative steps: the full path is far past PATH_MAX
            os.mkdir("d")
            os.chdir("d")
        with open("leaf", "w") as fh:
            fh.write("x")
    finally:
        os.fchdir(home)
        os.close(home)


def test_a_chain_deeper_than_the_recursion_limit_is_removed(tmp_path) -> None:
    top = tmp_path / "scratch"
    top.mkdir()
    depth = max(5000, sys.getrecursionlimit() + 100)
    _deep_chain(str(top), depth)
    assert remove_tree(str(top)) is True
    assert not top.exists()


def test_symlinks_are_removed_never_followed(tmp_path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("host data")
    top = tmp_path / "scratch"
    (top / "a" / "b").mkdir(parents=True)
    os.symlink("..", top / "a" / "b" / "loop")  # a loop back up
    os.symlink(str(top), top / "a" / "self")
    os.symlink(str(outside), top / "to_outside")
    os.symlink(str(outside / "keep.txt"), top / "file_link")
    assert remove_tree(str(top)) is True
    assert not top.exists()
    assert (outside / "keep.txt").read_text() == "host data"


def _as_unprivileged(work, tmp_path) -> None:
    """Run ``work`` where permissions bind: in a child as nobody when we are root (root bypasses them)."""
    if os.geteuid() != 0:
        work(tmp_path)
        return
    base = tempfile.mkdtemp(prefix="rk-tree-test-")  # tmp_path's parents are root's 0700 dirs
    os.chmod(base, 0o755)
    os.chown(base, 65534, 65534)
    try:
        _fork_as_nobody(work, Path(base))
        assert os.listdir(base) == []
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _fork_as_nobody(work, where: Path) -> None:
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setgid(65534)
            os.setuid(65534)
            work(where)
            code = 0
        except BaseException as exc:  # noqa: BLE001 - reported through the exit status
            sys.stderr.write(f"{exc!r}\n")
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status


def test_dirs_made_unreadable_or_unwritable_are_taken_back(tmp_path) -> None:
    _as_unprivileged(_locked_down_tree_is_removed, tmp_path)
    assert os.listdir(tmp_path) == []


def _locked_down_tree_is_removed(tmp_path) -> None:
    top = tmp_path / "scratch"
    (top / "locked" / "inner").mkdir(parents=True)
    (top / "locked" / "inner" / "f").write_text("x")
    (top / "readonly").mkdir()
    (top / "readonly" / "f").write_text("x")
    os.chmod(top / "readonly", 0o500)
    os.chmod(top / "locked" / "inner", 0o000)
    os.chmod(top / "locked", 0o000)
    assert remove_tree(str(top)) is True
    assert not top.exists()


def test_a_wide_tree_a_plain_file_and_a_missing_path(tmp_path) -> None:
    top = tmp_path / "scratch"
    for i in range(300):
        (top / f"d{i}" / "sub").mkdir(parents=True)
        (top / f"d{i}" / "sub" / "f").write_text("x")
    assert remove_tree(str(top)) is True and not top.exists()
    plain = tmp_path / "plain"
    plain.write_text("x")
    assert remove_tree(str(plain)) is True and not plain.exists()
    assert remove_tree(str(tmp_path / "never-there")) is True
