"""Programs that leave a tree in their scratch dir the host must still remove (local backend).

Runs ONLY inside the disposable boundary (test_hostile_deep_trees.py starts it there): a 5,000-deep
directory chain (past Python's recursion limit and PATH_MAX), symlink loops, links out to host dirs and
dirs made unreadable. On every isolation level the run's result is the program's own (never an error of
the sandbox), the host keeps its own files, and no scratch dir is left behind. Not named test_*.py, so
that a plain ``pytest`` never collects it; run bare it refuses at import time.
"""

from __future__ import annotations

import json
import os
import tempfile
import warnings

import pytest

from boundary import inside_boundary

_why_not = inside_boundary()
if _why_not is not None:
    raise RuntimeError(f"refusing to run hostile programs outside the disposable boundary: {_why_not}")

import rewardkit as rk
from rewardkit.sandbox.local.sandbox import LocalSandbox

DEPTH = 5000
BAIT_DIR = "/tmp/rk-deep-tree-bait"  # a host dir (the boundary's /tmp) the program links to: never followed
# mkdir + chdir in a loop: each step is relative, so the depth is not bounded by PATH_MAX
DEEP_TREE = (
    f"DEPTH, BAIT = {DEPTH}, {BAIT_DIR!r}\n"
    + r"""
import json, os
top = os.getcwd()
os.mkdir("deep")
os.chdir("deep")
for _ in range(DEPTH):
    os.mkdir("d")
    os.chdir("d")
open("leaf", "w").write("x")
os.symlink(".", "loop")
os.symlink(top, "to_top")
os.chdir(top)
os.symlink(".", "self_loop")
os.symlink("ping", "pong")
os.symlink("pong", "ping")
os.symlink(BAIT, "to_host")
os.symlink("/", "to_root")
os.makedirs("locked/inner")
open("locked/inner/f", "w").write("x")
os.chmod("locked/inner", 0)
os.chmod("locked", 0)
os.mkdir("readonly")
open("readonly/f", "w").write("x")
os.chmod("readonly", 0o500)
open("out.txt", "w").write("collected")
print(json.dumps({"depth": DEPTH}))
"""
)
ANSWER = "\ndef f(x):\n    return 2 * x + 1\n"
WRONG = "\ndef f(x):\n    return 2 * x\n"
REFERENCE = "assert f(2) == 5\nassert f(10) == 21\n"
LEVELS = [("bwrap", ()), ("bwrap", ("out.txt",)), ("unshare", ()), ("rlimits", ("out.txt",))]


def _scratch_dirs() -> set[str]:
    found = set()
    for parent in {tempfile.gettempdir(), "/var/tmp", "/tmp"}:
        if os.path.isdir(parent):
            found.update(os.path.join(parent, n) for n in os.listdir(parent) if n.startswith("rk-local-"))
    return found


@pytest.fixture(autouse=True)
def bait() -> None:
    os.makedirs(BAIT_DIR, exist_ok=True)
    with open(os.path.join(BAIT_DIR, "keep.txt"), "w") as fh:
        fh.write("host data")
    before = _scratch_dirs()
    yield
    assert _scratch_dirs() - before == set()  # nothing of the run's scratch dir is left on the host
    with open(os.path.join(BAIT_DIR, "keep.txt")) as fh:
        assert fh.read() == "host data"


def _sandbox(isolation: str) -> LocalSandbox:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # rlimits warns that it has no namespaces
        return LocalSandbox(isolation=isolation)


@pytest.mark.parametrize(("isolation", "collect"), LEVELS, ids=[f"{i}-{len(c)}" for i, c in LEVELS])
def test_a_deep_looped_locked_tree_leaves_the_run_its_own_result(isolation: str, collect: tuple[str, ...]) -> None:
    with _sandbox(isolation) as box:
        result = box.run(["python3", "-I", "-S", "main.py"], {"main.py": DEEP_TREE}, collect=collect)
    assert result.exit_code == 0 and result.infra_error is None, result
    assert json.loads(result.stdout) == {"depth": DEPTH}
    assert result.files == ({"out.txt": b"collected"} if collect else {})


@pytest.mark.parametrize("isolation", ["bwrap", "unshare", "rlimits"])
def test_the_verdict_is_the_programs_own_and_a_clean_program_after_scores_right(isolation: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        verifier = rk.get_verifier("code", sandbox="local", sandbox_options={"isolation": isolation}, wall_time=20)
    with verifier as v:
        right = v.verify(f"```python\n{DEEP_TREE}{ANSWER}```", REFERENCE)
        wrong = v.verify(f"```python\n{DEEP_TREE}{WRONG}```", REFERENCE)
        clean = v.verify(f"```python{ANSWER}```", REFERENCE)
    assert (right.score, right.status) == (1.0, "ok"), right
    assert (wrong.score, wrong.correct) == (0.0, False) and wrong.status not in ("error", "sandbox_error"), wrong
    assert (clean.score, clean.status) == (1.0, "ok"), clean
