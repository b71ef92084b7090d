"""The docker sandbox's in-container zygote (stdlib only; the entry point of the supervisor source when
the sandbox runs with ``zygote=True``).

One root server per container, started once with ``docker exec`` and spoken to over that exec's
stdin/stdout, each message an 8-byte big-endian length and JSON. Its first message (``init``) carries
the run uid and the code harness's modules, which it imports once from memory; it then never reads a
request. For each run it forks a handler, and the handler:

1. forks the run's harness supervisor and first candidate process (``docker_prestart``) before it reads
   the request, so neither holds anything of this run or an earlier one;
2. reads one request, writes the run's files (the harness's own from the server's copy), and either
   hands the pre-forked supervisor its setup and the job (a harness run) or forks and execs the command
   (any other run, exactly as the per-run exec path does);
3. after the run: a helper that can signal the run's uid and nothing else (real and saved uid
   ``KILLER_UID``, effective uid the run's; the run's processes cannot signal it back) SIGKILLs every
   process of that uid until none is left, collects the requested files and empties every writable
   place; the handler, as root, removes what the run's uid could not and checks that no process, file,
   IPC object or network state is left; it answers, with ``clean`` false if it cannot show that, and exits.

The server waits for each handler; a handler that ends any other way than after its answer (or on the
end of the stream) ends the server, so the host sees the stream close and replaces the container.
"""

import base64
import gc
import importlib.util
import json
import os
import resource
import signal
import struct
import sys
import time

if "prestart_harness" not in globals():  # on the host; in a container the other modules are prepended
    from rewardkit.sandbox.docker_netstate import network_state
    from rewardkit.sandbox.docker_prestart import HARNESS_MODULES, prestart_harness
    from rewardkit.sandbox.docker_seccomp import guard_program_for, prctl_function
    from rewardkit.sandbox.docker_supervisor import (
        GUARD_AVAILABLE,
        drain,
        oom_kills,
        pump,
        read_exact,
        start_program,
        write_files,
    )
    from rewardkit.sandbox.docker_wipe import (
        NETWORK_BASELINE,
        kill_everything,
        leftovers,
        other_pids,
        reap,
        send_collected,
        wipe_all,
    )
    from rewardkit.sandbox.seccomp_bpf import AUDIT_ARCH

# A uid no run has: the after-run helper's real and saved uid, so that the run's processes cannot signal it.
KILLER_UID = 1_999_999
ZYGOTE = {"uid": None, "scratch": "/tmp/run", "sources": {}}
PRELOAD = ("ctypes", "math", "re", "collections", "itertools", "functools", "string", "heapq", "bisect")
EXIT_EOF = 3


def read_message(fd):
    return json.loads(read_exact(fd, struct.unpack(">Q", read_exact(fd, 8))[0]))


def write_message(fd, message):
    data = json.dumps(message).encode()
    view = memoryview(struct.pack(">Q", len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


class MemoryModules:
    """Serves the harness modules from the sources sent at init, never from a file (the scratch dir,
    where they are copied for each run, is the run's to write next to)."""

    def __init__(self, sources, scratch):
        self.sources, self.scratch = sources, scratch

    def find_spec(self, name, path=None, target=None):
        if path is None and name in self.sources:
            return importlib.util.spec_from_loader(name, self, origin=os.path.join(self.scratch, name + ".py"))
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__file__ = os.path.join(self.scratch, module.__name__ + ".py")
        exec(compile(self.sources[module.__name__], module.__file__, "exec", dont_inherit=True), module.__dict__)  # noqa: S102 - our own harness


def load_harness(sources, scratch):
    finder = MemoryModules({name[:-3]: text for name, text in sources.items()}, scratch)
    sys.meta_path.insert(0, finder)
    try:
        for name in finder.sources:
            HARNESS_MODULES[name] = __import__(name)
    finally:
        sys.meta_path.remove(finder)
        sys.path[:] = [p for p in sys.path if p and not p.startswith(scratch)]
    for name in PRELOAD:
        try:
            __import__(name)
        except ImportError:
            continue


def zygote_main():
    init = read_message(0)
    ZYGOTE.update(uid=int(init["uid"]), scratch=init.get("scratch", ZYGOTE["scratch"]))
    ZYGOTE["sources"] = {name: text.encode() for name, text in init.get("harness", {}).items()}
    ready = {"ready": True, "guarded": GUARD_AVAILABLE, "harness": False}
    try:
        if ZYGOTE["sources"]:
            load_harness(init["harness"], ZYGOTE["scratch"])
            ready["harness"] = True
    except Exception as exc:  # noqa: BLE001 - say so; runs then take the exec path
        HARNESS_MODULES.clear()
        ready["harness_error"] = f"{type(exc).__name__}: {exc}"
    if GUARD_AVAILABLE:
        guard_program_for(AUDIT_ARCH[os.uname().machine], 1)  # assembled once, before any fork
        prctl_function()
    NETWORK_BASELINE.update(network_state())
    gc.freeze()  # what the server holds stays out of every fork's collections: fewer pages copied per run
    write_message(1, ready)
    while True:
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                code = handle_one()
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        if status != 0:  # the end of the stream, or a handler that failed: stop, the host replaces us
            return


def handle_one():
    # Nothing runs between the last run's check and this one; the network part of that check stands.
    clean_before = not leftovers(spare={os.getppid()}, network=False)
    pre = None
    if HARNESS_MODULES:
        try:
            pre = prestart_harness(ZYGOTE["uid"], ZYGOTE["scratch"])
        except OSError:
            pre = None
    try:
        req = read_message(0)
    except EOFError:
        return EXIT_EOF
    try:
        result = zygote_run(req, pre, clean_before)
    except Exception as exc:  # noqa: BLE001 - answer, and let the host replace this container
        result = {"supervisor_error": f"{type(exc).__name__}: {exc}"}
    write_message(1, result)
    return 0


def start_prestarted(req, pre):
    """Give the pre-forked supervisor its setup; (pid, None) or (pid, why it could not start)."""
    setup = json.dumps({"limits": req["limits"], "env": req["env"]}).encode()
    write_all(pre["setup_w"], len(setup).to_bytes(8, "big") + setup)
    os.close(pre["setup_w"])
    message = b""
    while True:
        chunk = os.read(pre["report_r"], 4096)
        if not chunk:
            break
        message += chunk
    os.close(pre["report_r"])
    return pre["pid"], (message.decode(errors="replace") or None)


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def zygote_run(req, pre, clean_before):
    uid, scratch = ZYGOTE["uid"], ZYGOTE["scratch"]
    req = {**req, "uid": uid, "gid": uid, "scratch": scratch}
    harness = bool(req.get("harness")) and pre is not None
    files = dict(req["files"])
    if harness:
        files.update(ZYGOTE["sources"])
    elif req.get("harness"):
        raise RuntimeError("a harness run, but the harness did not load in this container")
    begun = time.monotonic()
    write_files(scratch, files)
    ooms = oom_kills()
    started = time.monotonic()
    if harness:
        pid, start_error = start_prestarted(req, pre)
        in_w, out_r, err_r = pre["in_w"], pre["out_r"], pre["err_r"]
    else:
        if pre is not None:
            close_prestarted(pre)
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        pid, start_error = start_program(req, in_r, out_w, err_w)
        for fd in (in_r, out_w, err_w):
            os.close(fd)
    data = base64.b64decode(req.get("stdin") or "")
    status, out, err, why = pump(pid, out_r, err_r, in_w, data, req["limits"], started)
    duration = time.monotonic() - started
    if status is None:
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    server = os.getppid()
    if not req["collect"] and not other_pids(spare=(server,)):
        # Nothing of the run is alive (so nothing can start again) and nothing is to be collected: the
        # root wipe below is all that is left to do.
        killed_all, raw = True, b""
    else:
        result_r, result_w = os.pipe()
        killed_all, helper = False, None
        try:
            helper = end_run(req, result_w)
        except OSError:  # no fork: the leftover check below decides
            pass
        os.close(result_w)
        raw = read_to_end(result_r)
        if helper is not None:
            _, helper_status = os.waitpid(helper, 0)
            killed_all = helper_status == 0
    if why != "output":
        why = drain(out_r, out, err_r, err, req["limits"]["max_output_bytes"]) or why
    os.close(out_r)
    os.close(err_r)
    try:
        files_out = json.loads(raw or b"{}")
    except ValueError:
        files_out = {}
    reap()
    wipe_all()  # as root: the run's own root-owned files and dirs, and what the helper could not remove
    wiped = time.monotonic()
    left = leftovers(spare={os.getppid()})
    exit_code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    return {
        "exit_code": exit_code, "signal": sig,
        "stdout": base64.b64encode(bytes(out)).decode(), "stderr": base64.b64encode(bytes(err)).decode(),
        "duration": duration, "timed_out": why == "timeout", "output_truncated": why == "output",
        "oom_killed": oom_kills() > ooms, "files": files_out,
        "clean": bool(clean_before and killed_all and not left), "guarded": GUARD_AVAILABLE,
        "start_error": start_error, "leftovers": left[:20], "zygote": harness,
        "phases": {"files": started - begun, "program": duration, "end": wiped - started - duration,
                   "check": time.monotonic() - wiped, **cpu_seconds()},
    }


def cpu_seconds():
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"handler_cpu": own.ru_utime + own.ru_stime, "run_cpu": children.ru_utime + children.ru_stime}


def close_prestarted(pre):
    """An exec run: the pre-forked pair is not used (the after-run helper kills it with the rest)."""
    for key in ("in_w", "out_r", "err_r", "setup_w", "report_r"):
        os.close(pre[key])
    try:
        os.kill(pre["pid"], signal.SIGKILL)
        os.waitpid(pre["pid"], 0)
    except OSError:
        pass


def read_to_end(fd):
    raw = bytearray()
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            break
        raw += chunk
    os.close(fd)
    return raw


def end_run(req, result_w):
    """Fork the after-run helper: it may signal the run's uid and nothing else, and the run's processes
    cannot signal it. It kills every process of the run, sends the collected files, and wipes as that uid."""
    handler, server = os.getpid(), os.getppid()
    pid = os.fork()
    if pid:
        return pid
    code = 0
    try:
        os.setgroups([])
        os.setresgid(req["gid"], req["gid"], req["gid"])
        os.setresuid(KILLER_UID, req["uid"], KILLER_UID)
        if not kill_everything(spare=(handler, server)):
            code = 2
        send_collected(req, result_w)
        wipe_all()
    except BaseException:  # noqa: BLE001
        code = 1
    os._exit(code)

