"""The host-side steps both sandbox backends share (``rewardkit.sandbox.run_checks``): request checks, the
clean environment, the rlimit encoding and the out-of-memory reading, each as both backends use it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from rewardkit import SandboxError
from rewardkit.sandbox.base import Limits
from rewardkit.sandbox.docker import sandbox as docker_sandbox
from rewardkit.sandbox.local.launch import clean_env, limit_argv, rlimits_preexec, sandbox_path
from rewardkit.sandbox.run_checks import check_run, ran_out_of_memory, rlimits

BAD_PATHS = ("", "/etc/passwd", "../x", "a/../b", "./a", "a//b", "a/", "a/.")


@pytest.mark.parametrize("backend", ["local", "docker"])
def test_a_bad_request_names_the_backend(backend):
    with pytest.raises(SandboxError, match=f"^{backend} sandbox is closed$"):
        check_run(backend, True, ["true"], [])
    with pytest.raises(SandboxError, match=f"^{backend} sandbox: empty command$"):
        check_run(backend, False, [], [])
    for path in BAD_PATHS:
        with pytest.raises(SandboxError) as raised:
            check_run(backend, False, ["true"], ["ok.py", "dir/ok.txt", path])
        assert str(raised.value) == f"{backend} sandbox: file names must be relative paths without '..', got {path!r}"
    check_run(backend, False, ["true"], ["ok.py", "dir/sub/ok.txt", "..hidden", "a.b"])


def test_each_backend_gives_a_run_only_the_clean_environment():
    common = {
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
    }
    assert clean_env("/scratch") == {
        "PATH": sandbox_path(),
        "HOME": "/scratch",
        "TMPDIR": "/scratch",
        **common,
    }
    assert docker_sandbox.CLEAN_ENV == {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "TMPDIR": "/tmp/run",
        "RK_SANDBOX_INVARIANTS": "paths,caps,pid1,netns,ipcns,oom",  # what the harness supervisor checks of itself
        **common,
    }


def test_rlimits_round_cpu_up_and_give_a_second_of_grace():
    limits = Limits(cpu_time=2.5, memory_bytes=300 << 20, max_processes=12, max_file_bytes=5 << 20, max_open_files=99)
    assert rlimits(limits) == {
        "cpu": (3, 4),
        "as": (300 << 20,) * 2,
        "nproc": (12, 12),
        "fsize": (5 << 20,) * 2,
        "nofile": (99, 99),
        "core": (0, 0),
    }
    assert rlimits(Limits(cpu_time=0.2))["cpu"] == (1, 2)
    assert limit_argv(limits) == [
        "prlimit",
        "--cpu=3:4",
        f"--as={300 << 20}",
        "--nproc=12",
        f"--fsize={5 << 20}",
        "--nofile=99",
        "--core=0",
        "--",
    ]


def test_the_rlimits_level_sets_the_same_limits_in_the_child():
    limits = Limits(cpu_time=7.2, memory_bytes=1 << 30, max_processes=4096, max_file_bytes=3 << 20, max_open_files=77)
    probe = (
        "import resource as r; print([r.getrlimit(getattr(r, 'RLIMIT_' + n)) for n in "
        "('CPU', 'AS', 'NPROC', 'FSIZE', 'NOFILE', 'CORE')])"
    )
    out = subprocess.run(
        [sys.executable, "-I", "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        preexec_fn=rlimits_preexec(limits, None),
    ).stdout
    assert out.strip() == str([tuple(v) for v in rlimits(limits).values()])


def test_memory_failure_is_read_from_the_end_of_stderr():
    assert ran_out_of_memory(b"Traceback ...\nMemoryError\n")
    assert ran_out_of_memory(b"terminate called after throwing an instance of 'std::bad_alloc'")
    assert not ran_out_of_memory(b"AssertionError: expected 3")
    assert not ran_out_of_memory(b"MemoryError\n" + b"x" * 9000)  # only the tail counts: not an old line
