"""The network-state check of docker_netstate, in a fresh network namespace of its own (unshare -n):
the checking process's own sockets do not count, a socket another process leaves behind or traffic does."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

from rk_testing import require

CHECK = r"""
import json, socket, subprocess, sys
from rewardkit.sandbox.docker.netstate import network_changes, network_state
base = network_state()
a, b = socket.socketpair()
own = socket.socket()
own.bind(("127.0.0.1", 0))
own.listen()
seen = {"own_sockets": network_changes(base, network_state())}
holder = subprocess.Popen([sys.executable, "-c", "import socket, time\nx, y = socket.socketpair()\ntime.sleep(30)"])
import time
while not network_changes(base, network_state()) and holder.poll() is None:
    time.sleep(0.01)
seen["held_by_another"] = network_changes(base, network_state())
holder.kill()
holder.wait()
seen["after_it_died"] = network_changes(base, network_state())
client = socket.create_connection(own.getsockname())
conn, _ = own.accept()
conn.close()
client.close()
seen["after_traffic"] = network_changes(base, network_state())
print(json.dumps(seen))
"""


def test_own_sockets_do_not_count_and_leftovers_and_traffic_do() -> None:
    require(
        os.geteuid() == 0 and shutil.which("unshare") is not None and shutil.which("ip") is not None,
        "needs root, util-linux unshare and iproute2",
    )
    done = subprocess.run(
        ["unshare", "--net", "--", "sh", "-c", 'ip link set lo up && exec "$@"', "rk-net", sys.executable, "-c", CHECK],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["own_sockets"] == []
    assert seen["held_by_another"] == ["unix"]
    assert seen["after_it_died"] == []
    assert {"tcp", "snmp", "dev"} <= set(seen["after_traffic"])  # TIME_WAIT, TCP counters, loopback bytes
