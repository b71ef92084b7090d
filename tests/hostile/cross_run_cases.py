"""Programs that try to carry a bit from one run to the next through the state a sandbox could share between
runs of one warm zygote or container: PID and inode counters, the network namespace's sockets and counters,
System V and POSIX IPC, the cgroup's memory high-water mark and counters, files in any writable place.

The writer leaves that state or not (``SIGNAL`` 1 or 0); the reader, the next run on the same zygote or
container, reports everything it can see of it on stderr. The sandbox holds when the reader sees the same
thing after a writer that signalled 1 as after one that signalled 0. Data only: tests/hostile/cross_run_programs.py
runs them on the local backend inside the disposable boundary, tests/sandbox/docker/test_docker_cross_run.py on docker.
"""

from __future__ import annotations

import json
import re
from typing import Any

WRITER = """
import ctypes, os, socket, time
SIGNAL = {signal}
if SIGNAL:
    for _ in range(60):  # the PID counter
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    for top in (os.getcwd(), '/tmp', '/dev/shm'):  # tmpfs inode counters, and files left behind
        for i in range(1500):
            try:
                open(os.path.join(top, 'w%d' % i), 'w').close()
            except OSError:
                break
    server = socket.socket()
    server.bind(('127.0.0.1', 0))
    server.listen(64)
    for _ in range(20):  # TIME_WAIT sockets and the namespace's TCP counters
        client = socket.create_connection(server.getsockname())
        conn, _ = server.accept()
        conn.close()
        client.close()
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for _ in range(20):
        udp.sendto(b'x' * 512, ('127.0.0.1', 9))
    libc = ctypes.CDLL(None, use_errno=True)
    for _ in range(3):  # System V objects (segments with no process attached, queues, semaphore sets)
        libc.shmget(0, 4096, 0o1600)
        libc.msgget(0, 0o1600)
        libc.semget(0, 1, 0o1600)
    try:
        librt = ctypes.CDLL('librt.so.1', use_errno=True)
        librt.mq_open(b'/rkchannel', os.O_CREAT | os.O_RDWR, 0o600, None)
    except OSError:
        pass
    hog = bytearray(160 << 20)  # the memory high-water mark
    for i in range(0, len(hog), 4096):
        hog[i] = 1
def f():
    return SIGNAL
"""

# Sends that find no route: no packet on lo, no socket left, only the namespace's protocol statistics move
# (Ip:OutNoRoutes, Ip6OutNoRoutes), by as many as the writer likes: a count the next run could read back.
QUIET_WRITER = """
import socket
SIGNAL = {signal}
for family, address in ((socket.AF_INET, ('10.254.254.254', 9)), (socket.AF_INET6, ('2001:db8::1', 9))):
    for kind in (socket.SOCK_DGRAM, socket.SOCK_STREAM):
        for _ in range(37 * SIGNAL):
            try:
                with socket.socket(family, kind) as sock:
                    sock.sendto(b'x', address) if kind == socket.SOCK_DGRAM else sock.connect(address)
            except OSError:  # no route (or no IPv6): what counts
                pass
def f():
    return SIGNAL
"""
WRITERS = ("everything", "no packet")

READER = r"""
import ctypes, json, os, sys

def lines(path):
    try:
        with open(path) as fh:
            return fh.read().splitlines()
    except OSError:
        return None

seen = {}
pid = os.fork()
if pid == 0:
    os._exit(0)
os.waitpid(pid, 0)
seen['pids'] = [os.getpid(), pid]
for top in (os.getcwd(), '/tmp', '/dev/shm'):
    name = os.path.join(top, 'probe-ino')
    try:
        open(name, 'w').close()
        seen['ino ' + top] = os.stat(name).st_ino
    except OSError:
        seen['ino ' + top] = None
    # not the harness's own files, nor (unshare) the zygote's read-only harness dir bound back under /tmp
    ours = ('code_', 'program', 'probe', 'rk-zygote-')
    seen['files ' + top] = sorted(n for n in os.listdir(top) if not n.startswith(ours))
dev = [l.split() for l in (lines('/proc/net/dev') or [])[2:]]
seen['lo'] = [row[1:3] + row[9:11] for row in dev if row and row[0] == 'lo:']
seen['sockets'] = {t: len((lines('/proc/net/' + t) or [''])[1:]) for t in ('tcp', 'tcp6', 'udp', 'udp6')}
snmp = lines('/proc/net/snmp') or []
seen['snmp'] = [l for l in snmp if l.startswith(('Tcp:', 'Udp:'))][1::2]
counts = {}  # every protocol statistic of the network namespace (a fresh one counts nothing)
for name in ('snmp', 'netstat', 'snmp6'):
    rows = lines('/proc/net/' + name) or []
    if name == 'snmp6':
        counts.update(row.split() for row in rows if row.strip())
    else:
        for head, body in zip(rows[0::2], rows[1::2]):
            counts.update(zip((head.split()[0] + n for n in head.split()[1:]), body.split()[1:]))
seen['net counts'] = {k: v for k, v in counts.items() if v != '0'}
seen['sysvipc'] = {k: len((lines('/proc/sysvipc/' + k) or [''])[1:]) for k in ('shm', 'msg', 'sem')}
libc = ctypes.CDLL(None, use_errno=True)
seen['new ids'] = [libc.shmget(0, 4096, 0o1600), libc.msgget(0, 0o1600), libc.semget(0, 1, 0o1600)]
seen['mqueue'] = sorted(os.listdir('/dev/mqueue')) if os.path.isdir('/dev/mqueue') else None
counters = {}
for entry in lines('/proc/self/cgroup') or []:  # every group from the hierarchy's root down to ours
    _, controllers, path = entry.split(':', 2)
    for mount in ('/sys/fs/cgroup', '/sys/fs/cgroup/memory', '/sys/fs/cgroup/pids', '/sys/fs/cgroup/unified'):
        parts = [p for p in path.split('/') if p]
        for depth in range(len(parts) + 1):
            group = os.path.join(mount, *parts[:depth])
            for name in ('memory.max_usage_in_bytes', 'memory.peak', 'memory.failcnt', 'memory.events',
                         'memory.oom_control', 'pids.events', 'pids.peak'):
                value = lines(os.path.join(group, name))
                if value is not None:
                    counters[os.path.join(group, name)] = value
seen['cgroup counters'] = counters
sys.stderr.write('RKSEEN ' + json.dumps(seen, sort_keys=True) + '\n')
def f():
    return 0
"""
REFERENCE = "assert f() in (0, 1)\n"
READER_REFERENCE = "assert f() == 0\n"


def writer(signal: int, kind: str = "everything") -> str:
    return (QUIET_WRITER if kind == "no packet" else WRITER).format(signal=signal)


def seen_by_reader(stderr_tail: str) -> dict[str, Any]:
    found = re.findall(r"^RKSEEN (.*)$", stderr_tail, re.MULTILINE)
    assert found, stderr_tail[-2000:]
    seen: dict[str, Any] = json.loads(found[-1])
    return seen
