"""Kill and wipe between runs of the docker sandbox (stdlib only; pool.py prepends it to the
in-container supervisor's source, so no ``from __future__`` import here).

After a run every process the run left is killed (double-forked daemons included), the requested files
are collected as the run's uid, and every place that uid can write (/tmp, /dev/shm, /dev/mqueue, SysV IPC)
is emptied; ``leftovers`` says what, if anything, survived (then the host replaces the container).
"""

import base64
import json
import os
import signal
import stat
import time

if "network_state" not in globals():  # on the host; in a container netstate.py is prepended
    from rewardkit.sandbox.docker.netstate import network_changes, network_state

WRITABLE_DIRS = ("/tmp", "/dev/shm", "/dev/mqueue")
NETWORK_BASELINE: dict = {}  # the container's network state when the supervisor started (see netstate.py)


def drop_privileges(uid, gid):
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)


def other_pids(spare=()):
    """Every live process but PID 1, this one and ``spare``."""
    me = os.getpid()
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            pid = int(entry)
            if pid not in (1, me) and pid not in spare and not is_zombie(pid):
                pids.append(pid)
    return pids


def is_zombie(pid):
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except (OSError, IndexError):
        return True  # gone already


def reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_everything(deadline_s=5.0, spare=()):
    """SIGKILL every process this one may signal until none is left but PID 1, this one and ``spare``
    (which must be out of its reach); orphans are reaped by PID 1."""
    end = time.monotonic() + deadline_s
    while True:
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass
        reap()
        left = other_pids(spare)
        if not left:
            return True
        if time.monotonic() > end:
            return False
        time.sleep(0.002)


def collect_and_wipe(req, result_w):
    """As the sandbox user: send the collected files, then empty every writable place."""
    pid = os.fork()
    if pid:
        return pid
    code = 0
    try:
        drop_privileges(req["uid"], req["gid"])
        send_collected(req, result_w)
        wipe_all()
    except BaseException:  # noqa: BLE001
        code = 1
    os._exit(code)


def send_collected(req, result_w):
    """Write the requested files (regular files only, no symlinks, capped) as JSON to ``result_w``."""
    files = {}
    for rel in req["collect"]:
        path = os.path.join(req["scratch"], rel)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue
        with os.fdopen(fd, "rb") as fh:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                files[rel] = base64.b64encode(fh.read(req["limits"]["max_output_bytes"])).decode()
    data = json.dumps(files).encode()
    view = memoryview(data)
    while view:
        view = view[os.write(result_w, view) :]
    os.close(result_w)


def wipe_all():
    for top in WRITABLE_DIRS:
        wipe(top)
    if any_sysv_ipc():
        os.system("ipcrm --all >/dev/null 2>&1")


def any_sysv_ipc():
    for kind in ("shm", "sem", "msg"):
        try:
            with open("/proc/sysvipc/" + kind) as fh:
                if len(fh.read().splitlines()) > 1:
                    return True
        except OSError:
            return True
    return False


def wipe(top):
    try:
        entries = os.listdir(top)
    except OSError:
        return
    for name in entries:
        remove_tree(os.path.join(top, name))


def remove_tree(path):
    """Remove ``path`` and all under it, never following a symlink and never raising.

    Iterative, walking with relative ``chdir``: a program can nest directories deeper than Python's
    recursion limit and than PATH_MAX (mkdir + chdir in a loop). Runs only once every process of the
    run is dead, so nothing swaps a directory for a symlink under it. Restores the working dir.
    """
    try:
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            os.unlink(path)
            return
        home = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.chmod(path, 0o700)
        os.chdir(path)
    except OSError:
        os.close(home)
        return
    names, skipped = [], [set()]  # the dirs we went down through; per level, entries we cannot remove
    try:
        while True:
            try:
                child = _next_dir(skipped[-1])
            except OSError:  # an unreadable dir: leave what is left in it
                child = None
            if child is not None:
                names.append(child)
                skipped.append(set())
                continue
            if not names:
                break
            os.chdir("..")
            skipped.pop()
            name = names.pop()
            try:
                os.rmdir(name)
            except OSError:
                skipped[-1].add(name)
    except OSError:
        pass
    finally:
        os.fchdir(home)
        os.close(home)
    try:
        os.rmdir(path)
    except OSError:
        pass


def _next_dir(skip):
    """Unlink the files of the current dir; chdir into one subdir (returning its name), or None."""
    for name in os.listdir("."):
        if name in skip:
            continue
        try:
            if not stat.S_ISDIR(os.lstat(name).st_mode):
                os.unlink(name)
                continue
            try:
                os.chmod(name, 0o700)
            except OSError:
                pass
            os.chdir(name)
            return name
        except OSError:
            skip.add(name)
    return None


def leftovers(spare=None, network=True):
    """What a run left: files in writable places, IPC objects, network state (unless ``network`` is false),
    and (with ``spare``, the pids that may live) processes."""
    left = [] if spare is None else [f"pid:{pid}" for pid in other_pids(spare)]
    for top in WRITABLE_DIRS:
        try:
            left += [os.path.join(top, n) for n in os.listdir(top)]
        except OSError:
            pass
    if any_sysv_ipc():
        left.append("sysv-ipc")
    if network:
        left += ["network:" + name for name in network_changes(NETWORK_BASELINE, network_state())]
    return left
