"""The docker sandbox's in-container zygote (stdlib only; the entry point of the supervisor source when
the sandbox runs with ``zygote=True``).

One root server per container, started once with ``docker exec`` and spoken to over that exec's
stdin/stdout, each message an 8-byte big-endian length and JSON. Its first message (``init``) carries
the run uid and the code harness's modules, which it imports once from memory. Then it forks the
**template**, which never reads a request, and serves runs:

1. before it reads a request, it asks the template for the run's processes: the template forks the harness
   supervisor, which forks the first candidate process (``prestart.py``); neither holds anything of
   this run or an earlier one. The template hands the server the supervisor's pipes (``SCM_RIGHTS``) and
   later its exit status (the supervisor is the template's child);
2. it reads the request, writes the run's files (the harness's own from its copy), and either hands the
   pre-forked supervisor its setup and the job (a harness run) or kills the pair and forks and execs the
   command (any other run, as the exec path does);
3. after the run: if anything of the run is still alive (or files are to be collected), a helper that can
   signal the run's uid and nothing else (real and saved uid ``KILLER_UID``, effective uid the run's: the
   run's processes cannot signal it back) SIGKILLs every process of that uid until none is left, collects
   and wipes as that uid; then the server, as root, empties every writable place and checks that no
   process, file, IPC object or network state is left, and answers with ``clean`` false if it cannot show it.

A failure in the server answers ``supervisor_error`` once and ends it: the host replaces the container.
"""

import base64
import gc
import importlib.util
import json
import os
import resource
import signal
import socket
import struct
import sys
import time

if "prestart_harness" not in globals():  # on the host; in a container the other modules are prepended
    from rewardkit.sandbox.docker.netstate import network_state
    from rewardkit.sandbox.docker.prestart import HARNESS_MODULES, prestart_harness
    from rewardkit.sandbox.docker.seccomp import guard_program_for, prctl_function
    from rewardkit.sandbox.docker.supervisor import (
        GUARD_AVAILABLE,
        drain,
        oom_kills,
        pump,
        read_exact,
        read_to_end,
        run_answer,
        start_program,
        write_files,
    )
    from rewardkit.sandbox.docker.wipe import (
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


def read_message(fd):
    return json.loads(read_exact(fd, struct.unpack(">Q", read_exact(fd, 8))[0]))


def write_message(fd, message):
    data = json.dumps(message).encode()
    view = memoryview(struct.pack(">Q", len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


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
        code = compile(self.sources[module.__name__], module.__file__, "exec", dont_inherit=True)
        exec(code, module.__dict__)


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
    gc.freeze()  # what the server holds stays out of every fork's collections: fewer pages copied per run
    template = start_template() if HARNESS_MODULES else None
    NETWORK_BASELINE.update(network_state())  # the template's socket is part of it, as ours is left out
    write_message(1, ready)
    serve(template)


def start_template():
    """Fork the template: it never reads a request; per run, on a word from the server, it forks the run's
    harness supervisor (which forks the first candidate process), hands the server the pipes, and reports
    the supervisor's exit status when it has reaped it."""
    server_end, template_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    pid = os.fork()
    if pid == 0:
        server_end.close()
        code = 1
        try:
            for fd in (0, 1):  # the exec stream is the server's alone
                os.dup2(os.open("/dev/null", os.O_RDWR), fd)
            code = template_loop(template_end)
        finally:
            os._exit(code)
    template_end.close()
    return {"pid": pid, "sock": server_end}


def template_loop(sock):
    while True:
        if not sock.recv(16):
            return 0
        try:
            pre = prestart_harness(ZYGOTE["uid"], ZYGOTE["scratch"])
        except OSError as exc:
            sock.send(json.dumps({"error": str(exc)}).encode())
            continue
        socket.send_fds(sock, [json.dumps({"pid": pre["pid"]}).encode()], [pre[key] for key in PIPES])
        for key in PIPES:
            os.close(pre[key])
        _, status = os.waitpid(pre["pid"], 0)
        sock.send(json.dumps({"status": status}).encode())


PIPES = ("in_w", "out_r", "err_r", "setup_w", "report_r")


def ask_template(template):
    """The pre-forked pair for the next run (pipes and the supervisor's pid), or None."""
    if template is None:
        return None
    try:
        template["sock"].send(b"go")
        message, fds, _flags, _addr = socket.recv_fds(template["sock"], 4096, len(PIPES))
        answer = json.loads(message)
    except (OSError, ValueError):
        return None
    if "pid" not in answer or len(fds) != len(PIPES):
        for fd in fds:
            os.close(fd)
        return None
    return {"pid": answer["pid"], "template": template, **dict(zip(PIPES, fds, strict=False))}


def exit_status_from(pre, block):
    """(pid, wait status) of the pre-forked supervisor once the template reports it; (0, 0) before."""
    sock = pre["template"]["sock"]
    sock.setblocking(block)
    try:
        message = sock.recv(4096)
    except BlockingIOError:
        return 0, 0
    finally:
        sock.setblocking(True)
    if not message:
        raise RuntimeError("the template ended")
    return pre["pid"], json.loads(message)["status"]


def serve(template):
    """One run per request, until the stream ends; a failure answers once, then ends the server."""
    spare = (template["pid"],) if template else ()
    while True:
        # Nothing runs between the last run's check and this one; the network part of that check stands.
        clean_before = not leftovers(spare=set(spare), network=False)
        pre = ask_template(template)
        try:
            req = read_message(0)
        except EOFError:
            return
        try:
            result = zygote_run(req, pre, clean_before, spare)
        except Exception as exc:  # noqa: BLE001 - answer, and stop: the host replaces this container
            write_message(1, {"supervisor_error": f"{type(exc).__name__}: {exc}"})
            return
        write_message(1, result)


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
        view = view[os.write(fd, view) :]


def zygote_run(req, pre, clean_before, spare):
    uid, scratch = ZYGOTE["uid"], ZYGOTE["scratch"]
    req = {**req, "uid": uid, "gid": uid, "scratch": scratch}
    harness = bool(req.get("harness")) and pre is not None
    files = dict(req["files"])
    if harness:
        files.update(ZYGOTE["sources"])
    elif req.get("harness"):
        raise RuntimeError("a harness run, but the harness did not load in this container")
    begun, cpu_before = time.monotonic(), cpu_seconds()
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
    poll = (lambda: exit_status_from(pre, False)) if harness else None
    status, out, err, why = pump(pid, out_r, err_r, in_w, data, req["limits"], started, poll)
    duration = time.monotonic() - started
    if status is None:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:  # it ended a moment ago (the template has reaped it): its status is on the way
            pass
        status = exit_status_from(pre, True)[1] if harness else os.waitpid(pid, 0)[1]
    if harness:  # a pre-forked runner the harness never started (stdin/stdout tests) is still in its group
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
    if not req["collect"] and not other_pids(spare=spare):
        # Nothing of the run is alive (so nothing can start again) and nothing is to be collected: the
        # root wipe below is all that is left to do.
        killed_all, raw = True, b""
    else:
        result_r, result_w = os.pipe()
        killed_all, helper = False, None
        try:
            helper = end_run(req, result_w, spare)
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
    reap()
    wipe_all()  # as root: the run's own root-owned files and dirs, and what the helper could not remove
    wiped = time.monotonic()
    left = leftovers(spare=set(spare))
    return {
        **run_answer(status, out, err, why, duration, ooms, raw, clean_before and killed_all, start_error, left),
        "zygote": harness,
        "phases": {
            "files": started - begun,
            "program": duration,
            "end": wiped - started - duration,
            "check": time.monotonic() - wiped,
            **{key: value - cpu_before[key] for key, value in cpu_seconds().items()},
        },
    }


def cpu_seconds():
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"server_cpu": own.ru_utime + own.ru_stime, "children_cpu": children.ru_utime + children.ru_stime}


def close_prestarted(pre):
    """An exec run: the pre-forked pair is not used. Both are in the supervisor's process group (the runner
    only leaves it when it is handed its start)."""
    for key in PIPES:
        os.close(pre[key])
    for kill in (os.kill, os.killpg):  # the process first: one not yet in its own session has no runner yet
        try:
            kill(pre["pid"], signal.SIGKILL)
        except OSError:  # already gone (the template reports it all the same)
            pass
    exit_status_from(pre, True)


def end_run(req, result_w, spare):
    """Fork the after-run helper: it may signal the run's uid and nothing else, and the run's processes
    cannot signal it. It kills every process of the run, sends the collected files, and wipes as that uid."""
    server = os.getpid()
    pid = os.fork()
    if pid:
        return pid
    code = 0
    try:
        os.setgroups([])
        os.setresgid(req["gid"], req["gid"], req["gid"])
        os.setresuid(KILLER_UID, req["uid"], KILLER_UID)
        if not kill_everything(spare=(server, *spare)):
            code = 2
        send_collected(req, result_w)
        wipe_all()
    except BaseException:  # noqa: BLE001
        code = 1
    os._exit(code)
