"""Hostile programs against kernel state that outlives a run (local backend), judged for real.

Runs ONLY inside the disposable boundary (test_hostile_kernel_state.py starts it there): a program
that stores keys in the kernel keyring, or makes namespaces, mounts, traces, loads BPF... must be
refused (EPERM by the seccomp deny list), and a later run with the same uid must find nothing. Not
named test_*.py, so that a plain ``pytest`` never collects it; run bare it refuses at import time.
"""

from __future__ import annotations

import json
import os
import uuid
import warnings

import pytest

from boundary import inside_boundary
from kernel_state_cases import (
    ENOSYS,
    EPERM,
    FOREIGN_ABI,
    SIGSYS,
    SYSCALL,
    denied_calls,
    denied_calls_program,
    nr,
)

_why_not = inside_boundary()
if _why_not is not None:
    raise RuntimeError(f"refusing to run hostile programs outside the disposable boundary: {_why_not}")

import rewardkit as rk
from rewardkit.sandbox.local.sandbox import LocalSandbox

ISOLATIONS = ["bwrap", "unshare", "rlimits"]


def _sandbox(isolation: str, uid_base: int | None = None) -> LocalSandbox:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # rlimits warns that it has no namespaces
        return LocalSandbox(isolation=isolation, uid_base=uid_base)


def _run(box: LocalSandbox, program: str) -> dict:
    result = box.run(["python3", "-I", "-S", "main.py"], {"main.py": program})
    assert result.exit_code == 0 and result.infra_error is None, result
    return json.loads(result.stdout.decode().strip().splitlines()[-1])


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_keys_added_by_one_run_are_refused_and_a_later_run_with_the_same_uid_finds_none(isolation: str) -> None:
    name = f"rk-covert-{uuid.uuid4().hex[:8]}"
    plant = SYSCALL + (
        f"KEY = {name!r}\n"
        "found = {}\n"
        "for ring in (-4, -3, -5):  # the user, session and user-session keyrings\n"
        f"    found[str(ring)] = call({nr('add_key')}, s('user'), s(KEY), s('the answer is 42'), 16, ring)\n"
        f"found['join'] = call({nr('keyctl')}, 1, s(KEY))  # KEYCTL_JOIN_SESSION_KEYRING\n"
        "print(json.dumps(found))\n"
    )
    fetch = SYSCALL + (
        f"KEY = {name!r}\n"
        "found = {}\n"
        f"found['request_key'] = call({nr('request_key')}, s('user'), s(KEY), None, 0)\n"
        "for ring in (-4, -3, -5):\n"
        f"    found['search' + str(ring)] = call({nr('keyctl')}, 10, ring, s('user'), s(KEY), 0)  # KEYCTL_SEARCH\n"
        f"found['get_id'] = call({nr('keyctl')}, 0, -4, 1)  # KEYCTL_GET_KEYRING_ID, create: allowed unfiltered\n"
        "try:\n    found['proc_keys'] = KEY in open('/proc/keys').read()\n"
        "except OSError:\n    found['proc_keys'] = False\n"
        "print(json.dumps(found))\n"
    )
    uid_base = 3_000_000 + uuid.uuid4().int % 1000 * 100
    with _sandbox(isolation, uid_base) as first:
        planted = _run(first, plant)
    with _sandbox(isolation, uid_base) as second:  # the same uid: the first run of a sandbox gets uid_base
        fetched = _run(second, fetch)
    assert planted == {"-4": EPERM, "-3": EPERM, "-5": EPERM, "join": EPERM}
    assert fetched == {
        "request_key": EPERM,
        "search-4": EPERM,
        "search-3": EPERM,
        "search-5": EPERM,
        "get_id": EPERM,
        "proc_keys": False,
    }
    with open("/proc/keys") as fh:  # the boundary runs as root: it would see a key its own runs left
        assert name not in fh.read()


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_denied_syscalls_fail_with_eperm_and_clone3_with_enosys(isolation: str) -> None:
    program = denied_calls_program()
    with _sandbox(isolation) as box:
        out = _run(box, program)
    assert out.pop("clone3") == ENOSYS
    assert out.pop("getpid_works") is True  # the helper itself works: the errors are the filter's
    assert out == dict.fromkeys(denied_calls(), EPERM)


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="i386 and x32 ABIs exist on x86_64 only")
@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_syscall_through_a_foreign_abi_kills_the_process(isolation: str) -> None:
    with _sandbox(isolation) as box:
        result = box.run(["python3", "-I", "-S", "main.py"], {"main.py": FOREIGN_ABI})
    assert result.exit_code == 0, result
    assert result.stdout.decode().split() == [str(SIGSYS), str(SIGSYS)]


HUMANEVAL_LIKE = """
import threading, subprocess, multiprocessing, concurrent.futures, sys

def double_plus_one(x):
    box = []
    worker = threading.Thread(target=lambda: box.append(2 * x + 1))
    worker.start()
    worker.join()
    echoed = subprocess.run([sys.executable, "-c", "print(1)"], capture_output=True, text=True).stdout
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        pooled = list(pool.map(abs, [x]))
    with multiprocessing.get_context("fork").Pool(2) as pool:
        forked = pool.apply(abs, (x,))
    return box[0] if echoed.strip() == "1" and pooled == [abs(x)] and forked == abs(x) else None
"""


@pytest.mark.parametrize("isolation", ["bwrap", "unshare"])
def test_ordinary_programs_with_threads_subprocesses_and_forks_still_score_full(isolation: str) -> None:
    reference = {
        "test": "def check(candidate):\n    assert candidate(2) == 5\n    assert candidate(-1) == -1\n",
        "entry_point": "double_plus_one",
    }
    with rk.get_verifier("code", sandbox="local", sandbox_options={"isolation": isolation}, wall_time=20) as v:
        verdict = v.verify(f"```python\n{HUMANEVAL_LIKE}```", reference)
    assert (verdict.score, verdict.correct, verdict.status) == (1.0, True, "ok"), verdict


def test_the_covert_keyring_program_earns_nothing_through_the_verifier() -> None:
    """The issue's attack, end to end: a run stores the answer in the keyring, a later one looks it up."""
    name = f"rk-answer-{uuid.uuid4().hex[:8]}"
    store = SYSCALL + (
        f"call({nr('add_key')}, s('user'), s({name!r}), s('2*x+1'), 5, -4)\ndef f(x):\n    return 2 * x + 1\n"
    )
    cheat = SYSCALL + (
        "buf = ctypes.create_string_buffer(64)\n"
        f"key = libc.syscall(ctypes.c_long({nr('request_key')}), s('user'), s({name!r}), None, 0)\n"
        f"got = libc.syscall(ctypes.c_long({nr('keyctl')}), ctypes.c_long(11), ctypes.c_long(key), buf, 64)"
        "  # KEYCTL_READ\n"
        "formula = buf.value.decode() if key > 0 and got > 0 else '0'\n"
        "def f(x):\n    return eval(formula, {'x': x})\n"
    )
    reference = "assert f(2) == 5\nassert f(10) == 21\n"
    with rk.get_verifier("code", sandbox="local", sandbox_options={"uid_base": 3_500_000}) as first:
        assert first.verify(f"```python\n{store}```", reference).score == 1.0
    with rk.get_verifier("code", sandbox="local", sandbox_options={"uid_base": 3_500_000}) as second:
        verdict = second.verify(f"```python\n{cheat}```", reference)
    assert verdict.score == 0.0, verdict


LEAVE_FILES = r"""
import json, os, sys
seen = {d: sorted(os.listdir(d)) for d in ("/dev/shm", "/var/tmp", "/run/lock") if os.path.isdir(d)}
for d in seen:
    try:
        open(os.path.join(d, "rk-left-" + sys.argv[1]), "w").write("covert")
    except OSError:
        pass
print(json.dumps(seen))
"""


@pytest.mark.parametrize("isolation", ["bwrap", "unshare"])
def test_files_left_in_world_writable_dirs_never_reach_a_later_run_or_the_host(isolation: str) -> None:
    tag = uuid.uuid4().hex[:8]
    with _sandbox(isolation) as box:
        for _ in range(2):
            result = box.run(["python3", "-I", "-S", "main.py", tag], {"main.py": LEAVE_FILES})
            assert result.exit_code == 0 and result.infra_error is None, result
            assert all(entries == [] for entries in json.loads(result.stdout).values()), result.stdout
    host = [name for d in ("/dev/shm", "/var/tmp", "/run/lock") if os.path.isdir(d) for name in os.listdir(d)]
    assert f"rk-left-{tag}" not in host
