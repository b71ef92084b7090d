"""What a run may leave for the next run in the same pooled container (docker backend, real engine):
network state (a TCP TIME_WAIT on a fixed loopback port, counters) and kernel keys; and the shared
seccomp deny list, which holds inside the containers on top of the engine's own profile.

The programs run only inside the sandbox containers, the boundary under test here.
"""

from __future__ import annotations

import json
import os

import pytest

import rewardkit as rk
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
from rewardkit.sandbox.base import Limits
from rewardkit.verifiers.code_tests.job import warm_program
from rk_testing import docker_problem, require

pytestmark = [pytest.mark.docker, pytest.mark.hostile]

PORT = 7411
# Server side closes first, so the fixed port itself is left in TIME_WAIT; data crosses the loopback.
LEAVE_TIME_WAIT = f"""
import socket
server = socket.socket()
server.bind(("127.0.0.1", {PORT}))
server.listen()
client = socket.create_connection(("127.0.0.1", {PORT}))
conn, _ = server.accept()
conn.sendall(b"covert bits")
client.recv(100)
conn.close()
client.close()
server.close()
print(sum(line.split()[3] == "06" for line in open("/proc/net/tcp").read().splitlines()[1:]))
"""
LOOK_FOR_IT = f"""
import json, socket
seen = {{"tcp": len(open("/proc/net/tcp").read().splitlines()) - 1,
        "tcp6": len(open("/proc/net/tcp6").read().splitlines()) - 1}}
names, values = [line.split()[1:] for line in open("/proc/net/snmp") if line.startswith("Tcp:")]
tcp = dict(zip(names, values))
seen["active_opens"] = int(tcp["ActiveOpens"])
seen["lo_rx_bytes"] = int([l for l in open("/proc/net/dev") if l.strip().startswith("lo:")][0].split()[1])
probe = socket.socket()  # no SO_REUSEADDR: a TIME_WAIT on the port would refuse the bind
try:
    probe.bind(("127.0.0.1", {PORT}))
    seen["bind"] = "ok"
except OSError as exc:
    seen["bind"] = exc.strerror
print(json.dumps(seen))
"""


@pytest.fixture(scope="module")
def sandbox():
    problem = docker_problem()
    require(problem is None, problem or "")
    box = rk.get_sandbox("docker", pool_size=1, limits=Limits(wall_time=10.0, cpu_time=5.0), warm=warm_program())
    yield box
    box.close()


def run(box, source: str) -> rk.RunResult:
    result = box.run(["python3", "main.py"], {"main.py": source})
    assert result.exit_code == 0 and result.infra_error is None, result
    return result


def test_a_run_without_network_use_keeps_its_warm_container(sandbox) -> None:
    run(sandbox, "print(1)")  # settle: the pool's first container has served a run
    replaced = sandbox.pool.replaced
    for _ in range(3):
        run(
            sandbox, "import socket\ns = socket.socket()\ns.bind(('127.0.0.1', 0))\ns.listen()\nprint(sum(range(10)))\n"
        )
    assert sandbox.pool.replaced == replaced  # a listening socket that saw no traffic leaves nothing behind


def test_network_state_a_run_leaves_never_reaches_the_next_run(sandbox) -> None:
    replaced = sandbox.pool.replaced
    left = run(sandbox, LEAVE_TIME_WAIT)
    assert int(left.stdout) >= 1  # the attack did leave a TIME_WAIT in its own namespace
    seen = json.loads(run(sandbox, LOOK_FOR_IT).stdout)  # pool_size=1: the next run the pool serves
    assert seen == {"tcp": 0, "tcp6": 0, "active_opens": 0, "lo_rx_bytes": 0, "bind": "ok"}
    assert sandbox.pool.replaced == replaced  # the run's network namespace died with it: the container stays warm


def test_udp_traffic_and_counters_do_not_reach_the_next_run(sandbox) -> None:
    send = (
        "import socket\nu = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
        "for n in range(37):\n    u.sendto(b'x' * n, ('127.0.0.1', 9))\n"
    )
    run(sandbox, send)
    seen = json.loads(run(sandbox, LOOK_FOR_IT).stdout)
    assert seen["lo_rx_bytes"] == 0 and seen["tcp"] == 0


def test_denied_syscalls_fail_inside_the_container_too(sandbox) -> None:
    """ptrace and io_uring, which the engine's default profile allows, show that our own filter is on."""
    out = json.loads(run(sandbox, denied_calls_program()).stdout.decode().strip().splitlines()[-1])
    assert out.pop("clone3") == ENOSYS
    assert out.pop("getpid_works") is True
    assert out == dict.fromkeys(denied_calls(), EPERM)


def test_keys_cannot_carry_over_between_runs_of_one_container(sandbox) -> None:
    plant = SYSCALL + (
        f"print(json.dumps([call({nr('add_key')}, s('user'), s('rk-covert'), s('42'), 2, ring)"
        " for ring in (-4, -3, -5)]))\n"
    )
    fetch = SYSCALL + (
        f"print(json.dumps([call({nr('request_key')}, s('user'), s('rk-covert'), None, 0)]"
        f" + [call({nr('keyctl')}, 10, ring, s('user'), s('rk-covert'), 0) for ring in (-4, -3, -5)]))\n"
    )
    assert json.loads(run(sandbox, plant).stdout) == [EPERM] * 3
    assert json.loads(run(sandbox, fetch).stdout) == [EPERM] * 4


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="i386 and x32 ABIs exist on x86_64 only")
def test_a_syscall_through_a_foreign_abi_kills_the_process_in_the_container(sandbox) -> None:
    assert run(sandbox, FOREIGN_ABI).stdout.decode().split() == [str(SIGSYS), str(SIGSYS)]
