"""The local sandbox, for real: isolation, limits, timeouts, output caps, clean environment.

Only well-behaved programs here (sleeps, loops, a flood of output, a small allocation); the hostile
ones run inside the disposable boundary of tests/hostile.
"""

from __future__ import annotations

import os
import shutil
import signal
import time
import warnings

import pytest

import rewardkit as rk
from rewardkit.sandbox.base import Limits
from rewardkit.sandbox.local.launch import detect_isolation
from rewardkit.sandbox.local.sandbox import LocalSandbox
from rk_testing import require

PY = ["python3", "-I", "-S", "-c"]


@pytest.fixture(scope="module")
def sandbox(request):
    require(shutil.which("bwrap") is not None, "bubblewrap (bwrap) is not installed")
    with LocalSandbox(isolation="bwrap") as box:
        yield box


def run(box: LocalSandbox, code: str, **kwargs) -> rk.RunResult:
    return box.run([*PY, code], kwargs.pop("files", {}), **kwargs)


def test_registered_as_local_and_built_by_name() -> None:
    assert "local" in rk.plugin_host().registries.sandboxes
    with rk.get_sandbox("local") as box:
        assert isinstance(box, LocalSandbox)
        assert box.isolation in ("bwrap", "unshare")


def test_runs_files_in_a_private_scratch_dir_with_stdin(sandbox) -> None:
    files = {
        "main.py": "import sys, os\nprint(open('data/in.txt').read() + sys.stdin.read(), os.getcwd())\n",
        "data/in.txt": b"from a file,",
    }
    result = sandbox.run(["python3", "-I", "-S", "main.py"], files, stdin=b" from stdin")
    assert result.exit_code == 0, result
    assert result.stdout.decode().split() == ["from", "a", "file,", "from", "stdin", "/sandbox"]
    assert result.infra_error is None and not result.timed_out


def test_the_environment_is_built_from_scratch(sandbox, monkeypatch) -> None:
    monkeypatch.setenv("HF_TOKEN", "hf_secret_value")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-secret")
    result = run(sandbox, "import os; print(sorted(os.environ.items()))")
    out = result.stdout.decode()
    assert "hf_secret_value" not in out and "aws-secret" not in out and "HF_TOKEN" not in out
    assert "'HOME', '/sandbox'" in out


def test_no_network(sandbox) -> None:
    code = (
        "import socket\ntry:\n    socket.create_connection(('1.1.1.1', 53), timeout=2)\n    print('reached')\n"
        "except OSError as e:\n    print('blocked', e.errno)\nprint([n for _, n in socket.if_nameindex()])"
    )
    out = run(sandbox, code).stdout.decode()
    assert "blocked" in out and "reached" not in out
    assert "['lo']" in out


def test_the_system_is_read_only_and_the_host_invisible(sandbox, tmp_path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("host data")
    code = (
        "import os\n"
        f"for p in ['/usr/rk-test', '/sandbox/../usr/x', {str(secret)!r}, '/etc/passwd']:\n"
        "    try:\n        open(p, 'a').write('x'); print('WROTE', p)\n"
        "    except OSError as e:\n        print('denied', p, e.errno)\n"
        f"print('host visible' if os.path.exists({str(tmp_path)!r}) else 'host invisible')\n"
        "print('root' if os.getuid() == 0 else 'unprivileged')\n"
    )
    out = run(sandbox, code).stdout.decode()
    assert "WROTE" not in out
    assert "host invisible" in out
    assert secret.read_text() == "host data"
    if os.geteuid() == 0:
        assert "unprivileged" in out


def test_scratch_is_writable_but_size_capped(sandbox) -> None:
    code = (
        "import os\nopen('small.txt', 'w').write('ok')\nprint(open('small.txt').read())\n"
        "try:\n    open('big.bin', 'wb').write(b'x' * (3 << 20)); print('big written')\n"
        "except OSError as e:\n    print('full', e.errno)\n"
    )
    out = run(sandbox, code, limits=Limits(max_scratch_bytes=1 << 20)).stdout.decode()
    assert out.splitlines()[0] == "ok"
    assert "full" in out and "big written" not in out


def test_wall_clock_timeout_kills_the_whole_tree(sandbox) -> None:
    code = "import os, time\nfor _ in range(3):\n    os.fork()\ntime.sleep(60)"
    started = time.monotonic()
    result = run(sandbox, code, limits=Limits(wall_time=1.0))
    assert time.monotonic() - started < 3.0
    assert result.timed_out and result.exit_code is None
    time.sleep(0.2)
    assert not [
        p for p in os.listdir("/proc") if p.isdigit() and _cmdline(p).startswith("python3 -I -S -c import os, time")
    ]


def _cmdline(pid: str) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode("latin-1")
    except OSError:
        return ""


def test_output_is_capped_and_the_run_stopped(sandbox) -> None:
    result = run(sandbox, "while True:\n    print('y' * 1000)", limits=Limits(max_output_bytes=10_000, wall_time=5))
    assert result.output_truncated
    assert len(result.stdout) == 10_000
    assert result.duration < 4


def test_memory_limit(sandbox) -> None:
    result = run(sandbox, "x = bytearray(200 << 20)\nprint('allocated')", limits=Limits(memory_bytes=100 << 20))
    assert b"allocated" not in result.stdout
    assert result.memory_exceeded and result.exit_code != 0


def test_cpu_time_limit(sandbox) -> None:
    result = run(sandbox, "while True:\n    pass", limits=Limits(cpu_time=1, wall_time=60))
    assert not result.timed_out
    assert result.signal in (signal.SIGXCPU, signal.SIGKILL), result


@pytest.mark.parametrize("isolation", ["bwrap", "unshare"])
def test_a_run_killed_by_the_hard_cpu_limit_is_a_kill_not_a_sandbox_failure(isolation, ci_require) -> None:
    # PID 1 ignores SIGXCPU, so the kernel's SIGKILL at the hard limit ends it; util-linux unshare then fails
    # to re-raise SIGKILL on itself and exits 1 with a message: the program was killed, the tool did not fail.
    ci_require(shutil.which(isolation) is not None and os.geteuid() == 0, f"{isolation} as root is needed")
    with LocalSandbox(isolation=isolation, zygote=False) as box:
        result = box.run(["sh", "-c", 'trap "" XCPU; while :; do :; done'], {}, limits=Limits(cpu_time=1, wall_time=30))
    assert result.infra_error is None, result
    assert result.signal == signal.SIGKILL and not result.timed_out, result


def test_exit_status_and_collected_files(sandbox) -> None:
    result = run(sandbox, "open('out.txt', 'w').write('made'); raise SystemExit(3)", collect=["out.txt", "none.txt"])
    assert result.exit_code == 3
    assert result.files == {"out.txt": b"made"}


def test_bad_file_names_are_refused(sandbox) -> None:
    for name in ("../escape.py", "/abs.py", "a/../../b"):
        with pytest.raises(rk.SandboxError, match="relative paths"):
            sandbox.run(["true"], {name: "x"})


def test_missing_isolation_tools_fail_clearly_or_warn_on_opt_in(monkeypatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(rk.SandboxError, match="bubblewrap"):
        detect_isolation("auto")
    with pytest.raises(rk.SandboxError, match="isolation must be one of"):
        detect_isolation("chroot")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        box = LocalSandbox(isolation="rlimits")
    assert any("WITHOUT namespaces" in str(w.message) for w in caught)
    result = box.run([*PY, "import os; print(os.getcwd() != '/', sorted(os.environ)[:1])"], {})
    assert result.stdout.startswith(b"True")


def test_unshare_fallback_runs_isolated(ci_require) -> None:
    ci_require(os.geteuid() == 0 and shutil.which("unshare") is not None, "unshare fallback needs root")
    with LocalSandbox(isolation="unshare") as box:
        result = box.run(
            ["python3", "-I", "-S", "main.py"],
            {
                "main.py": (
                    "import os, socket\n"
                    "print(os.getpid(), [n for _, n in socket.if_nameindex()], sorted(os.listdir('.')))"
                )
            },
        )
    assert result.exit_code == 0, result
    pid, rest = result.stdout.decode().split(" ", 1)
    assert int(pid) < 10 and "['lo']" in rest and "'main.py'" in rest


def test_close_kills_runs_in_flight(sandbox) -> None:
    import threading

    box = LocalSandbox(isolation="bwrap")
    results = []
    thread = threading.Thread(target=lambda: results.append(run(box, "import time; time.sleep(30)")))
    thread.start()
    time.sleep(0.5)
    box.close()
    thread.join(5)
    assert not thread.is_alive() and results and results[0].exit_code != 0
    with pytest.raises(rk.SandboxError, match="closed"):
        run(box, "print(1)")


def world_readable_copy(packages: list[str]) -> str:
    """A temporary folder `nobody` can read, holding copies of ``packages`` (package directories).

    The checkout or the virtual environment may live under a directory only its owner can enter (root's home).
    """
    import tempfile

    root = tempfile.mkdtemp(prefix="rk-nobody-")
    for package in packages:
        shutil.copytree(
            package, os.path.join(root, os.path.basename(package)), ignore=shutil.ignore_patterns("__pycache__")
        )
    for folder, _, files in os.walk(root):
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)
    return root


def test_as_an_ordinary_user_bubblewrap_uses_a_user_namespace() -> None:
    """The non-root path (--unshare-user, no setpriv), run as `nobody` with the system Python."""
    import subprocess
    import sys

    system_python = "/usr/bin/python3"
    same_version = os.path.exists(system_python) and subprocess.run(
        [system_python, "-c", "import sys; print(sys.version_info[:2])"], capture_output=True, text=True, check=False
    ).stdout.strip() == str(sys.version_info[:2])
    require(
        bool(os.geteuid() == 0 and shutil.which("setpriv") and shutil.which("bwrap") and same_version),
        "needs root (to become nobody), setpriv, bwrap and a system python3 of our version",
    )
    import pluggy

    import rewardkit

    paths = [os.path.dirname(os.path.dirname(rewardkit.__file__)), os.path.dirname(os.path.dirname(pluggy.__file__))]
    code = (
        "from rewardkit.sandbox.local.sandbox import LocalSandbox\n"
        "r = LocalSandbox().run(['python3', '-I', '-S', '-c', "
        "'import os, socket; print(os.getuid(), os.getpid(), [n for _, n in socket.if_nameindex()])'], {})\n"
        "print(r.stdout.decode().strip(), r.infra_error)\n"
    )
    packages = [os.path.join(path, name) for path, name in zip(paths, ("rewardkit", "pluggy"), strict=True)]
    readable = world_readable_copy(packages)
    try:
        done = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", system_python, "-c", code],
            env={"PATH": "/usr/bin:/bin", "HOME": "/tmp", "PYTHONPATH": readable},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            cwd="/",
        )
    finally:
        shutil.rmtree(readable, ignore_errors=True)
    require(
        "unprivileged user namespaces" not in done.stderr and "Operation not permitted" not in done.stdout,
        "unprivileged user namespaces are disabled here",
    )
    assert done.stdout.strip() == "65534 1 ['lo'] None", (done.stdout, done.stderr[-2000:])


def test_each_run_gets_its_own_cgroup_capping_the_whole_run(sandbox) -> None:
    import sys
    import threading

    run_cgroup = sys.modules[LocalSandbox.__module__].RunCgroup  # the cgroup class the sandbox itself uses
    require(sandbox.cgroups != "off" and os.geteuid() == 0, "per-run cgroups need root")
    probe = run_cgroup.create(memory_bytes=1 << 30, max_processes=10)
    require(probe is not None, "no writable cgroup hierarchy with the memory and pids controllers here")
    assert probe is not None
    probe.destroy()
    v2 = probe.version == 2
    hierarchy = "/sys/fs/cgroup" if v2 else "/sys/fs/cgroup/memory"
    limit_file = "memory.max" if v2 else "memory.limit_in_bytes"
    limits = Limits(memory_bytes=96 << 20, max_scratch_bytes=8 << 20, max_processes=10, wall_time=10)
    seen: list[tuple[str, str]] = []
    thread = threading.Thread(target=lambda: run(sandbox, "import time; time.sleep(1.5)", limits=limits))
    thread.start()
    deadline = time.monotonic() + 5
    while not any(int(limit) == 104 << 20 for _, limit in seen) and time.monotonic() < deadline:
        for root, dirs, _ in os.walk(hierarchy):
            for d in dirs:
                if d.startswith("rk-local-"):
                    with open(os.path.join(root, d, limit_file)) as fh:
                        seen.append((d, fh.read().strip()))
            if root.count("/") > 6:
                dirs[:] = []
        time.sleep(0.05)
    thread.join()
    mine = [d for d, limit in seen if int(limit) == 104 << 20]  # memory_bytes + max_scratch_bytes
    assert mine
    time.sleep(0.2)
    left = [d for d in mine if any(d in dirs for _, dirs, _ in os.walk(hierarchy))]
    assert left == []


def test_bad_cgroups_option_is_refused() -> None:
    with pytest.raises(rk.SandboxError, match="cgroups must be"):
        LocalSandbox(cgroups="maybe")
