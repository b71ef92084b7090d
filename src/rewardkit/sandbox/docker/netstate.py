"""The network state a run can leave in its container for the next run (stdlib only; pool.py
prepends it to the in-container supervisor's source).

A container's network namespace (``network_mode="none"``: loopback only) lives as long as the
container, so a pooled container's next run shares it. The supervisor cannot give each run a fresh
one: that needs CAP_SYS_ADMIN, which the container does not have, and Docker's seccomp profile refuses
``unshare``/``setns`` without it. Instead the supervisor records the namespace's state when it starts
and compares it after every run: a socket left in any table (a TCP TIME_WAIT or LISTEN-turned-orphan,
an IPv6 flow label) or a changed counter (loopback bytes and packets, IP/TCP/UDP/ICMP statistics)
makes the container dirty, and the host replaces it. A run that used no network changes none of it,
so the warm pool stays warm; only runs that did use the loopback cost a container start.
"""

import os

# Per-namespace files that only a run's own network use changes (global ones, such as sockstat's
# "sockets: used" or softnet_stat, are left out: other containers move them).
NETWORK_STATE_FILES = (
    "tcp",
    "tcp6",
    "udp",
    "udp6",
    "udplite",
    "udplite6",
    "raw",
    "raw6",
    "icmp",
    "icmp6",
    "unix",
    "packet",
    "ip6_flowlabel",
    "igmp",
    "igmp6",
    "mcfilter",
    "mcfilter6",
    "snmp",
    "snmp6",
    "netstat",
    "dev",
)


# Where each socket table keeps a socket's inode (0-based field of a line), to leave out the caller's own.
INODE_FIELD = {
    "tcp": 9,
    "tcp6": 9,
    "udp": 9,
    "udp6": 9,
    "udplite": 9,
    "udplite6": 9,
    "raw": 9,
    "raw6": 9,
    "icmp": 9,
    "icmp6": 9,
    "unix": 6,
    "packet": 8,
}


def own_socket_inodes():
    """Inodes of the sockets this process holds open (the supervisor's own are no run's leftovers)."""
    inodes = set()
    try:
        fds = os.listdir("/proc/self/fd")
    except OSError:
        return inodes
    for fd in fds:
        try:
            target = os.readlink("/proc/self/fd/" + fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    return inodes


def tcp_tables_empty():
    """True when the namespace has no TCP socket in any table (no hashed v4 or v6 socket, no TIME_WAIT), from
    the per-namespace counters of sockstat: reading /proc/net/tcp walks the host's whole TCP hash, which costs
    milliseconds on a busy host, and nearly every run leaves it empty."""
    counts = {}
    for name in ("sockstat", "sockstat6"):
        try:
            with open("/proc/net/" + name) as fh:
                for line in fh:
                    proto, _, rest = line.partition(":")
                    fields = rest.split()
                    counts.update({f"{proto}.{k}": v for k, v in zip(fields[::2], fields[1::2], strict=False)})
        except OSError:
            return False
    keys = ("TCP.inuse", "TCP.tw", "TCP6.inuse")
    return all(counts.get(key) == "0" for key in keys)


def network_state():
    """The text of each per-namespace network file (None where one cannot be read), less the lines of
    sockets this process holds; socket tables without their header line."""
    own = own_socket_inodes()
    skip_tcp = tcp_tables_empty()
    state = {}
    for name in NETWORK_STATE_FILES:
        if skip_tcp and name in ("tcp", "tcp6"):
            state[name] = ""
            continue
        try:
            with open("/proc/net/" + name) as fh:
                text = fh.read()
        except OSError:
            state[name] = None
            continue
        field = INODE_FIELD.get(name)
        if field is not None:
            lines = text.splitlines()
            kept = [line for line in lines[1:] if len(line.split()) <= field or line.split()[field] not in own]
            text = "\n".join(kept)
        state[name] = text
    return state


def network_changes(baseline, now):
    """The files whose text differs between two :func:`network_state` snapshots."""
    return sorted(name for name in baseline if baseline[name] != now.get(name))
