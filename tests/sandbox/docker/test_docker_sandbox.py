"""The docker sandbox backend against a real engine and the real rewardkit-sandbox image.

Hostile programs here run only inside the sandbox containers, which are the boundary under test (no
network, pids/memory caps, read-only root, unprivileged user). Missing engine or image: a skip on a
user's machine, a failure in CI (CI=true).
"""

from __future__ import annotations

import os
import threading
import time

import pytest

import rewardkit as rk
from rewardkit._errors import SandboxError
from rewardkit.sandbox.base import Limits
from rewardkit.sandbox.docker.image_build import DEFAULT_IMAGE
from rewardkit.sandbox.docker.pool import LABEL, POOL_LABEL
from rewardkit.verifiers.code_tests.job import warm_program
from rk_testing import docker_problem, require

pytestmark = pytest.mark.docker

FAST = Limits(wall_time=3.0, cpu_time=3.0)


def need_docker() -> None:
    problem = docker_problem()
    require(problem is None, problem or "")


@pytest.fixture(scope="module", params=[True, False], ids=["zygote", "exec"])
def sandbox(request):
    """Both supervisors: the zygote (the default) and the per-run exec path (``zygote=False``)."""
    need_docker()
    sb = rk.get_sandbox("docker", pool_size=2, limits=FAST, zygote=request.param, warm=warm_program())
    yield sb
    sb.close()


def py(sb, source: str, **kwargs):
    return sb.run(["python3", "main.py"], {"main.py": source}, **kwargs)


def pool_containers(client, pool_id: str) -> list:
    return client.containers.list(all=True, filters={"label": f"{POOL_LABEL}={pool_id}"})


# -- the plain contract -------------------------------------------------------------------------------


def test_runs_a_program_with_files_stdin_and_collected_output(sandbox):
    source = (
        "import sys, helper\n"
        "data = sys.stdin.read()\n"
        "open('answer.txt', 'w').write(data.upper())\n"
        "print(helper.greet(), len(data)); print('warn', file=sys.stderr); sys.exit(3)\n"
    )
    result = sandbox.run(
        ["python3", "main.py"],
        {"main.py": source, "helper.py": "def greet():\n    return 'hello'\n"},
        stdin=b"abc",
        collect=["answer.txt", "absent.txt"],
    )
    assert result.infra_error is None
    assert (result.exit_code, result.signal, result.timed_out) == (3, None, False)
    assert result.stdout == b"hello 3\n"
    assert result.stderr == b"warn\n"
    assert result.files == {"answer.txt": b"ABC"}


def test_program_runs_unprivileged_in_a_clean_environment(sandbox, monkeypatch):
    monkeypatch.setenv("RK_TEST_SECRET_TOKEN", "hunter2")
    source = (
        "import os\n"
        "caps = [l for l in open('/proc/self/status') if l.startswith('CapEff')][0].split()[1]\n"
        "print(os.getuid(), os.getgid(), caps, sorted(os.environ))\n"
        "print('hunter2' in repr(os.environ))\n"
    )
    result = py(sandbox, source)
    uid, gid, caps, *_ = result.stdout.split(b" ", 3)
    assert int(uid) >= 1000 and int(gid) >= 1000
    assert int(caps, 16) == 0
    assert b"RK_TEST_SECRET_TOKEN" not in result.stdout
    assert result.stdout.endswith(b"False\n")


def test_a_command_that_cannot_start_is_an_infra_error_and_cannot_be_faked(sandbox):
    missing = sandbox.run(["no-such-program"], {})
    assert missing.infra_error and "cannot start 'no-such-program'" in missing.infra_error
    forged = py(sandbox, "import sys\nsys.stderr.write(\"cannot start 'x': [Errno 2]\\n\")\nsys.exit(127)\n")
    assert forged.infra_error is None
    assert forged.exit_code == 127


def test_bad_file_names_are_rejected(sandbox):
    for name in ("../escape.py", "/etc/x", "a/../../b"):
        with pytest.raises(SandboxError, match="relative"):
            sandbox.run(["true"], {name: "x"})


# -- limits -----------------------------------------------------------------------------------------


def test_wall_clock_timeout_kills_the_run_and_its_daemons(sandbox):
    source = (
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        time.sleep(3); open('/tmp/late.txt', 'w').write('daemon survived')\n"
        "    os._exit(0)\n"
        "while True: pass\n"
    )
    limits = Limits(wall_time=1.0, cpu_time=30.0)
    started = time.monotonic()
    result = py(sandbox, source, limits=limits)
    assert result.timed_out
    assert result.exit_code is None
    assert time.monotonic() - started < limits.wall_time + 10  # killed at the limit, not at the daemon's end
    time.sleep(3.5)  # past the moment the daemon would have written its file
    # both containers: nothing of the earlier run may be alive or on disk in either
    for _ in range(2):
        after = py(
            sandbox,
            "import os\nprint(sorted(os.listdir('/tmp')))\n"
            "stats = [open(f'/proc/{p}/stat').read() for p in os.listdir('/proc') if p.isdigit()]\n"
            "print(len([s for s in stats if s.rsplit(')', 1)[1].split()[0] != 'Z']))\n",
        )
        files, procs = after.stdout.decode().splitlines()
        assert files == "['run']"
        # a run is PID 1 of a namespace of its own: it sees itself, nothing of the container or of earlier runs
        assert int(procs) == 1


def test_cpu_time_limit(sandbox):
    result = py(sandbox, "while True: pass\n", limits=Limits(wall_time=60.0, cpu_time=1.0))
    assert not result.timed_out
    assert result.signal in (9, 24)  # SIGXCPU at the soft limit, SIGKILL at the hard one


def test_memory_limit_is_reported(sandbox):
    result = py(sandbox, "blob = bytearray(2 << 30)\nprint('allocated')\n")
    assert result.memory_exceeded
    assert result.exit_code != 0
    assert b"allocated" not in result.stdout


def test_memory_cgroup_cap_catches_many_processes():
    """Each child stays under RLIMIT_AS; together they pass the container's cgroup cap and get OOM-killed."""
    need_docker()
    limits = Limits(wall_time=20.0, cpu_time=20.0, memory_bytes=128 << 20)
    source = (
        "import os, time\n"
        "kids = []\n"
        "for _ in range(12):\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        blob = bytearray(100 << 20)\n"
        "        time.sleep(2)\n"
        "        os._exit(0)\n"
        "    kids.append(pid)\n"
        "print(sum(os.waitpid(k, 0)[1] == 9 for k in kids))\n"
    )
    with rk.get_sandbox("docker", pool_size=1, limits=limits, scratch_bytes=8 << 20, warm=warm_program()) as sb:
        result = py(sb, source)
        assert result.memory_exceeded
        assert int(result.stdout) >= 1  # children were OOM-killed (SIGKILL)
        assert py(sb, "print('ok')").stdout == b"ok\n"


def test_process_cap_stops_a_fork_bomb(sandbox):
    source = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    result = py(sandbox, source, limits=Limits(wall_time=2.0, cpu_time=2.0))
    assert result.timed_out or result.exit_code != 0
    assert py(sandbox, "print('alive')").stdout == b"alive\n"


def test_a_run_may_ask_for_more_than_the_pool_was_made_with(sandbox):
    limits = Limits(wall_time=20.0, cpu_time=20.0, memory_bytes=1200 << 20, max_processes=120)
    source = (
        "import os, time\n"
        "blob = bytearray(900 << 20)\n"
        "kids = 0\n"
        "for _ in range(100):\n"
        "    if os.fork() == 0:\n"
        "        time.sleep(5); os._exit(0)\n"
        "    kids += 1\n"
        "print(kids)\n"
    )
    result = py(sandbox, source, limits=limits)
    assert result.stdout == b"100\n", result.stderr[-500:]


def test_a_runs_scratch_dir_is_as_large_as_its_own_limits_say(sandbox):
    """As on the local backend: a compile step's 512 MB scratch, or a judged program's few MB, per run."""
    fill = (
        "written = 0\ntry:\n    with open('fill', 'wb') as fh:\n"
        "        for _ in range(200):\n"
        "            fh.write(b'x' * (1 << 20)); fh.flush(); written += 1\n"
        "except OSError as exc:\n    print(exc.errno)\nprint(written)\n"
    )
    default = Limits(wall_time=20.0, cpu_time=20.0, max_file_bytes=256 << 20)  # the pool's scratch size: 64 MB
    big = Limits(wall_time=20.0, cpu_time=20.0, max_scratch_bytes=256 << 20, max_file_bytes=256 << 20)
    small = Limits(wall_time=20.0, cpu_time=20.0, max_scratch_bytes=4 << 20, max_file_bytes=256 << 20)
    assert sandbox.limits.max_scratch_bytes == default.max_scratch_bytes < 200 << 20
    assert py(sandbox, fill, limits=big).stdout.split() == [b"200"]  # past the container's own 64 MB tmpfs
    errno, written = py(sandbox, fill, limits=small).stdout.split()
    assert errno == b"28" and int(written) < 4  # ENOSPC: the run's own 4 MB
    errno, written = py(sandbox, fill, limits=default).stdout.split()
    assert errno == b"28" and 56 <= int(written) < 64  # and the default again


def test_process_cap_counts(sandbox):
    source = (
        "import os, time\n"
        "n = 0\n"
        "try:\n"
        "    while n < 500:\n"
        "        if os.fork() == 0:\n"
        "            time.sleep(10); os._exit(0)\n"
        "        n += 1\n"
        "except OSError:\n"
        "    pass\n"
        "print(n)\n"
    )
    result = py(sandbox, source, limits=Limits(max_processes=20))
    assert result.exit_code == 0
    assert int(result.stdout) == 19  # RLIMIT_NPROC counts the parent too: 20 processes of the run's uid


def test_output_cap_truncates_and_stops_a_flood(sandbox):
    limits = Limits(wall_time=60.0, cpu_time=60.0, max_output_bytes=64 << 10)
    result = py(sandbox, "import sys\nwhile True: sys.stdout.write('x' * 4096)\n", limits=limits)
    assert result.output_truncated
    assert len(result.stdout) == limits.max_output_bytes
    assert not result.timed_out  # stopped at the cap, not left to run into the wall clock


def test_file_size_limit(sandbox):
    limits = Limits(max_file_bytes=1 << 20)
    result = py(sandbox, "open('big', 'wb').write(b'x' * (4 << 20))\nprint('wrote')\n", limits=limits)
    assert b"wrote" not in result.stdout
    assert result.exit_code != 0


# -- the boundary -----------------------------------------------------------------------------------


def test_no_network(sandbox):
    source = (
        "import os, socket\n"
        "print(sorted(os.listdir('/sys/class/net')))\n"
        "for host, port in (('1.1.1.1', 53), ('172.17.0.1', 2375), ('deb.debian.org', 80)):\n"
        "    try:\n"
        "        socket.create_connection((host, port), timeout=2); print('CONNECTED', host)\n"
        "    except OSError as exc:\n"
        "        print('blocked', type(exc).__name__)\n"
    )
    result = py(sandbox, source)
    lines = result.stdout.decode().splitlines()
    assert lines[0] == "['lo']"
    assert len(lines) == 4 and all(line.startswith("blocked") for line in lines[1:])


def test_root_filesystem_is_read_only_and_inputs_immutable(sandbox):
    source = (
        "import os\n"
        "for path in ('/usr/lib/python3.11/os.py', '/etc/passwd', '/newfile', '/var/tmp/x', 'main.py'):\n"
        "    try:\n"
        "        open(path, 'a').write('#'); print('WROTE', path)\n"
        "    except OSError as exc:\n"
        "        print('denied', exc.errno)\n"
        "for op in (lambda: os.unlink('main.py'), lambda: os.rename('main.py', 'x.py')):\n"
        "    try:\n"
        "        op(); print('CHANGED main.py')\n"
        "    except OSError:\n"
        "        print('denied')\n"
        "open('scratch.txt', 'w').write('ok'); print(open('scratch.txt').read())\n"
    )
    result = py(sandbox, source, collect=["main.py"])
    lines = result.stdout.decode().splitlines()
    assert all(line.startswith("denied") for line in lines[:-1]), lines
    assert lines[-1] == "ok"
    assert result.files["main.py"] == source.encode()


@pytest.mark.parametrize("target", ["getppid", "-1", "1"])
def test_signalling_outside_the_run_does_not_break_the_sandbox(sandbox, target):
    pid = {"getppid": "os.getppid()", "-1": "-1", "1": "1"}[target]
    source = f"import os, signal\ntry:\n    os.kill({pid}, signal.SIGKILL)\nexcept OSError as e:\n    print('denied')\n"
    result = py(sandbox, source)
    assert result.infra_error is None
    assert py(sandbox, "print('alive')").stdout == b"alive\n"


def test_children_cannot_kill_the_commands_first_process(sandbox):
    """Like PID 1 of the local backend's namespace: a signal to it is dropped; to its group or -1, ESRCH."""
    child = (
        "import os, signal\n"
        "p = os.getppid()\n"
        "print(os.kill(p, signal.SIGKILL))\n"
        "for target in (-p, -1):\n"
        "    try:\n"
        "        os.kill(target, signal.SIGKILL)\n"
        "    except ProcessLookupError:\n"
        "        print('esrch')\n"
    )
    parent = (
        "import subprocess, sys, signal\n"
        "out = subprocess.run([sys.executable, 'child.py'], capture_output=True, text=True,\n"
        "                     start_new_session=True).stdout\n"
        "print(out.split())\n"
        "victim = subprocess.Popen(['sleep', '30'])\n"
        "victim.send_signal(signal.SIGKILL)\n"
        "print('survived; my children are still mine to kill:', victim.wait())\n"
    )
    result = sandbox.run(["python3", "main.py"], {"main.py": parent, "child.py": child})
    assert result.stdout.decode().splitlines() == [
        "['None', 'esrch', 'esrch']",
        "survived; my children are still mine to kill: -9",
    ]


# -- isolation between runs ---------------------------------------------------------------------------


def test_runs_leave_nothing_for_the_next_run(sandbox):
    plant = (
        "import os, subprocess\n"
        "open('/tmp/planted', 'w').write('secret')\n"
        "os.makedirs('/tmp/deep/er'); open('/tmp/deep/er/f', 'w').write('x'); os.chmod('/tmp/deep', 0)\n"
        "open('/dev/shm/planted', 'w').write('secret')\n"
        "from multiprocessing import shared_memory\n"
        "shared_memory.SharedMemory(name='rkplant', create=True, size=4096)\n"
        "import ctypes\n"
        "libc = ctypes.CDLL(None)\n"
        "print(libc.shmget(0x52B0, 4096, 0o1666))\n"  # IPC_CREAT | 0666: a SysV segment outliving us
        "subprocess.Popen(['sleep', '60'], start_new_session=True)\n"
        "print('planted')\n"
    )
    look = (
        "import os\n"
        "print(sorted(os.listdir('/tmp')), sorted(os.listdir('/dev/shm')))\n"
        "print(open('/proc/sysvipc/shm').read().count(chr(10)))\n"
        "print([open(f'/proc/{p}/cmdline').read() for p in os.listdir('/proc') if p.isdigit()])\n"
    )
    for _ in range(2):  # the pool has two containers; plant in both
        planted = py(sandbox, plant)
        assert planted.stdout.endswith(b"planted\n"), planted.stderr
    for _ in range(4):
        seen = py(sandbox, look).stdout.decode().splitlines()
        assert seen[0] == "['run'] []"
        assert seen[1] == "1"  # the header line only
        assert "sleep\\x0060" not in seen[2]  # the planted `sleep 60`, by its exact command line


def test_fresh_container_per_run_mode():
    need_docker()
    where = "print(sorted(os.listdir('/tmp'))); print(open('/proc/self/cgroup').read().split(chr(10))[0])\n"
    with rk.get_sandbox("docker", pool_size=1, limits=FAST, fresh_container_per_run=True, warm=warm_program()) as sb:
        seen = [py(sb, "import os\n" + where + "open('/tmp/x', 'w').write('1')").stdout.decode() for _ in range(3)]
        assert all(out.startswith("['run']\n") for out in seen)
        assert len({out.splitlines()[1] for out in seen}) == 3  # three different containers (cgroups)
        assert sb.pool.replaced == 3


# -- pool life --------------------------------------------------------------------------------------


def test_dead_container_is_replaced():
    need_docker()
    import docker

    client = docker.from_env()
    with rk.get_sandbox("docker", pool_size=1, limits=FAST, warm=warm_program()) as sb:
        (victim,) = pool_containers(client, sb.pool_id)
        victim.kill()
        result = py(sb, "print('still works')")
        assert result.stdout == b"still works\n"
        assert result.infra_error is None
        (fresh,) = [c for c in pool_containers(client, sb.pool_id) if c.status != "exited"]
        assert fresh.id != victim.id


def test_close_removes_every_container_and_refuses_runs():
    need_docker()
    import docker

    client = docker.from_env()
    sb = rk.get_sandbox("docker", pool_size=3, limits=FAST, warm=warm_program())
    assert len(pool_containers(client, sb.pool_id)) == 3
    assert all(c.labels.get(LABEL) == "1" for c in pool_containers(client, sb.pool_id))
    py(sb, "print(1)")
    sb.close()
    sb.close()
    assert pool_containers(client, sb.pool_id) == []
    with pytest.raises(SandboxError, match="closed"):
        py(sb, "print(1)")


def test_a_sandbox_never_closed_still_removes_its_containers_at_exit():
    need_docker()
    import subprocess
    import sys

    import docker

    script = (
        "import rewardkit as rk\n"
        "from rewardkit.verifiers.code_tests.job import warm_program\n"
        "sb = rk.get_sandbox('docker', pool_size=2, warm=warm_program())\n"
        "assert sb.run(['true'], {}).exit_code == 0\n"
        "print(sb.pool_id)\n"
    )  # exits without close()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert pool_containers(docker.from_env(), done.stdout.strip()) == []


def test_parallel_runs_from_many_threads(sandbox):
    results: dict[int, bytes] = {}

    def work(i: int) -> None:
        results[i] = py(sandbox, f"import time; time.sleep(0.05); print({i} * {i})").stdout

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert results == {i: f"{i * i}\n".encode() for i in range(8)}


# -- failures of the infrastructure ---------------------------------------------------------------------


class TcpToUnixEngine:
    """The local engine's unix socket served on 127.0.0.1 over plain TCP, as a remote engine would be."""

    def __init__(self, unix_path: str) -> None:
        import socket

        self.unix_path = unix_path
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        import socket

        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            engine = socket.socket(socket.AF_UNIX)
            engine.connect(self.unix_path)
            for src, dst in ((client, engine), (engine, client)):
                threading.Thread(target=self._pipe, args=(src, dst), daemon=True).start()

    @staticmethod
    def _pipe(src, dst) -> None:
        import socket

        try:
            while chunk := src.recv(65536):
                dst.sendall(chunk)
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def close(self) -> None:
        import socket

        try:
            self.server.shutdown(socket.SHUT_RDWR)  # wakes the accept() thread; close() alone would not
        except OSError:
            pass
        self.server.close()


def test_an_engine_reached_over_tcp_through_docker_host(monkeypatch):
    need_docker()
    import docker

    unix_path = "/var/run/docker.sock"
    host = os.environ.get("DOCKER_HOST", f"unix://{unix_path}")
    require(
        host.startswith("unix://") and os.path.exists(host[len("unix://") :]),
        f"the TCP relay needs the engine's unix socket; DOCKER_HOST is {host}",
    )
    relay = TcpToUnixEngine(host[len("unix://") :])
    try:
        monkeypatch.setenv("DOCKER_HOST", f"tcp://127.0.0.1:{relay.port}")
        with rk.get_sandbox("docker", pool_size=1, limits=FAST, warm=warm_program()) as sb:
            assert sb.client.api.base_url == f"http://127.0.0.1:{relay.port}"
            result = sb.run(["python3", "main.py"], {"main.py": "print(input()[::-1])"}, stdin=b"abc\n")
            assert result.stdout == b"cba\n"
            assert py(sb, "while True: pass\n", limits=Limits(wall_time=1.0)).timed_out
            assert py(sb, "print('x' * 100)").stdout == b"x" * 100 + b"\n"
            pool_id = sb.pool_id
    finally:
        relay.close()
    assert pool_containers(docker.DockerClient(base_url=host), pool_id) == []


def test_unreachable_engine_is_a_clear_sandbox_error(monkeypatch, tmp_path):
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-such-docker.sock")
    with pytest.raises(SandboxError, match="cannot reach the Docker engine at unix://.*no-such-docker.sock"):
        rk.get_sandbox("docker")


def test_engine_failure_mid_run_is_a_sandbox_error_verdict():
    """The image vanishes and the containers die: runs report infra errors, verdicts say sandbox_error."""
    need_docker()
    import uuid

    import docker

    client = docker.from_env()
    tag = f"rk-test-{uuid.uuid4().hex[:8]}"
    client.images.get(DEFAULT_IMAGE).tag("rewardkit-sandbox", tag)
    image = f"rewardkit-sandbox:{tag}"
    try:
        sb = rk.get_sandbox("docker", image=image, pool_size=1, limits=FAST, warm=warm_program())
    finally:
        client.images.remove(image)
    with sb, rk.get_verifier("code", sandbox=sb, wall_time=3) as verifier:
        for container in pool_containers(client, sb.pool_id):
            container.remove(force=True)
        result = py(sb, "print(1)")
        assert result.infra_error and "docker sandbox failed" in result.infra_error
        verdict = verifier.verify("def f():\n    return 1\n", "assert f() == 1")
        assert (verdict.score, verdict.status) == (0.0, "sandbox_error")
        assert "not the model's fault" in verdict.details["error"]


def test_missing_image_names_the_build_command():
    need_docker()
    with pytest.raises(SandboxError, match="rewardkit sandbox-image"):
        rk.get_sandbox("docker", image="rewardkit-sandbox:no-such-tag")


def test_sandbox_image_command_leaves_an_existing_image_alone():
    need_docker()
    from click.testing import CliRunner

    from rewardkit.cli import main

    result = CliRunner().invoke(main, ["sandbox-image"])
    assert result.exit_code == 0, result.output
    assert "already exists" in result.output and "ready (exists" in result.output


def test_a_zygote_needs_a_warm_program() -> None:
    """Checked before the engine is asked anything: no Docker needed."""
    with pytest.raises(SandboxError, match="zygote=true needs warm="):
        rk.get_sandbox("docker", zygote=True)
    with pytest.raises(SandboxError, match="zygote must be"):
        rk.get_sandbox("docker", zygote="sometimes", warm=warm_program())
