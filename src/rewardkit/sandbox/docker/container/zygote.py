"""The docker sandbox's in-container zygote (stdlib only; the entry point of the supervisor source when
the sandbox runs with ``zygote=True``).

One root server per container, started once with ``docker exec`` and spoken to over that exec's
stdin/stdout, each message an 8-byte big-endian length and JSON. Its first message (``init``) carries
the run uid, the container's sizes and the code harness's modules, which it imports once from memory. Then
it forks the **template**, which never reads a request, and serves runs:

1. before it reads a request, it asks the template for the run's processes: the template forks the run's
   PID 1 into namespaces of its own (``prestart.py``, ``run_init.py``), which builds the run's world and
   forks the first candidate process; neither holds anything of this run or an earlier one. The template
   hands the server the run's pipes (``SCM_RIGHTS``) and later its exit status (PID 1 is its child);
2. it reads the request and either hands the pre-forked PID 1 its setup, the program's files and the job (a
   harness run) or kills it and forks and execs the command in a run of its own (any other run, as the exec
   path does), tells the host the run started, and pumps its pipes;
3. when the run's PID 1 has ended, every process of the run is gone with its namespace: the server checks
   that no process is left in the container, and answers with ``clean`` false if one is.

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
import sys
import time
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

if "prestart_harness" not in globals():  # on the host; in a container the other modules are prepended
    from rewardkit.sandbox.docker.container.prestart import HARNESS_MODULES, HARNESS_SOURCES, prestart_harness
    from rewardkit.sandbox.docker.container.run_init import RUN_SCRATCH
    from rewardkit.sandbox.docker.container.supervisor import (
        STARTED,
        WORLD,
        configure,
        drain,
        oom_kills,
        prepare_filter,
        pump,
        read_message,
        run,
        run_answer,
        stray_processes,
        world_problem,
        write_message,
    )

ZYGOTE: dict[str, Any] = {"uid": None}
PRELOAD = ("ctypes", "math", "re", "collections", "itertools", "functools", "string", "heapq", "bisect")


class MemoryModules:
    """Serves the harness modules from the sources sent at init, never from a file (the scratch dir,
    where they are copied for each run, is the run's to write next to)."""

    def __init__(self, sources: dict[str, str], scratch: str) -> None:
        self.sources, self.scratch = sources, scratch

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if path is None and name in self.sources:
            origin = os.path.join(self.scratch, name + ".py")
            # a loader with exec_module: typeshed's LoaderProtocol asks for the legacy load_module, never called
            return importlib.util.spec_from_loader(name, self, origin=origin)  # type: ignore[arg-type]
        return None

    def create_module(self, spec: ModuleSpec) -> None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        module.__file__ = os.path.join(self.scratch, module.__name__ + ".py")
        code = compile(self.sources[module.__name__], module.__file__, "exec", dont_inherit=True)
        exec(code, module.__dict__)


def load_harness(sources: dict[str, str], scratch: str) -> None:
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
    # what no run can change, noted once: each run checks only the rest (and what lies under its own mounts)
    HARNESS_MODULES["code_invariants"].precheck((), ("/tmp", "/dev/shm", "/dev/mqueue", "/proc", "/sys"))


def zygote_main() -> None:
    prepare_filter()
    init = read_message(0)
    configure(init)
    ZYGOTE["uid"] = int(init["uid"])
    sources = {name: text.encode() for name, text in init.get("harness", {}).items()}
    problem = world_problem()
    ready: dict[str, Any] = {"ready": problem is None, "error": problem, "guarded": WORLD["filtered"], "harness": False}
    if problem is not None:
        write_message(1, ready)
        return
    try:
        if sources:
            load_harness(init["harness"], RUN_SCRATCH)
            HARNESS_SOURCES.update(sources)
            ready["harness"] = True
    except Exception as exc:  # noqa: BLE001 - say so; runs then take the exec path
        HARNESS_MODULES.clear()
        ready["harness_error"] = f"{type(exc).__name__}: {exc}"
    gc.freeze()  # what the server holds stays out of every fork's collections: fewer pages copied per run
    template = start_template() if HARNESS_MODULES else None
    write_message(1, ready)
    serve(template)


def start_template() -> dict[str, Any]:
    """Fork the template: it never reads a request; per run, on a word from the server, it forks the run's
    PID 1 (which forks the first candidate process), hands the server the pipes, and reports PID 1's exit
    status when it has reaped it."""
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


def template_loop(sock: socket.socket) -> int:
    while True:
        if not sock.recv(16):
            return 0
        try:
            pre = prestart_harness(ZYGOTE["uid"])
        except OSError as exc:
            sock.send(json.dumps({"error": str(exc)}).encode())
            continue
        socket.send_fds(sock, [json.dumps({"pid": pre["pid"]}).encode()], [pre[key] for key in PIPES])
        for key in PIPES:
            os.close(pre[key])
        _, status = os.waitpid(pre["pid"], 0)
        sock.send(json.dumps({"status": status}).encode())


PIPES = ("in_w", "out_r", "err_r", "setup_w", "report_r")


def ask_template(template: dict[str, Any] | None) -> dict[str, Any] | None:
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


def exit_status_from(pre: dict[str, Any], block: bool) -> tuple[int, int]:
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


def serve(template: dict[str, Any] | None) -> None:
    """One run per request, until the stream ends; a failure answers once, then ends the server."""
    spare = (template["pid"],) if template else ()
    while True:
        pre = ask_template(template)
        try:
            req = read_message(0)
        except EOFError:
            return
        try:
            result = zygote_run(req, pre, spare)
        except Exception as exc:  # noqa: BLE001 - answer, and stop: the host replaces this container
            write_message(1, {"supervisor_error": f"{type(exc).__name__}: {exc}"})
            return
        write_message(1, result)


def start_prestarted(req: dict[str, Any], pre: dict[str, Any]) -> tuple[int, str | None]:
    """Give the pre-forked PID 1 its setup and the program's files; (pid, None) or (pid, why it could not
    start)."""
    setup = json.dumps({"limits": req["limits"], "env": req["env"], "files": req["files"]}).encode()
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


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def zygote_run(req: dict[str, Any], pre: dict[str, Any] | None, spare: tuple[int, ...]) -> dict[str, Any]:
    req = {**req, "uid": ZYGOTE["uid"], "gid": ZYGOTE["uid"]}
    harness = bool(req.get("harness")) and pre is not None
    if req.get("harness") and not harness:
        raise RuntimeError("a harness run, but the harness did not load in this container")
    if not harness or pre is None:  # any other command: as the exec path runs it, in a run of its own
        if pre is not None:
            close_prestarted(pre)
        return {**run(req, lambda message: write_message(1, message), spare), "zygote": False}
    begun, cpu_before = time.monotonic(), cpu_seconds()
    ooms = oom_kills()
    started = time.monotonic()
    pid, start_error = start_prestarted(req, pre)
    if start_error is None:
        write_message(1, STARTED)
    data = base64.b64decode(req.get("stdin") or "")
    status, out, err, why = pump(
        pid, pre["out_r"], pre["err_r"], pre["in_w"], data, req["limits"], started, lambda: exit_status_from(pre, False)
    )
    duration = time.monotonic() - started
    if status is None:
        try:
            os.kill(pid, signal.SIGKILL)  # the run's PID 1: its whole namespace dies with it
        except OSError:  # it ended a moment ago (the template has reaped it): its status is on the way
            pass
        status = exit_status_from(pre, True)[1]
    if why != "output":
        why = drain(pre["out_r"], out, pre["err_r"], err, req["limits"]["max_output_bytes"]) or why
    os.close(pre["out_r"])
    os.close(pre["err_r"])
    ended = time.monotonic()
    left = stray_processes(spare)
    return {
        **run_answer(status, out, err, why, duration, ooms, {}, start_error, left),
        "zygote": True,
        "phases": {
            "files": started - begun,
            "program": duration,
            "end": ended - started - duration,
            "check": time.monotonic() - ended,
            **{key: value - cpu_before[key] for key, value in cpu_seconds().items()},
        },
    }


def cpu_seconds() -> dict[str, float]:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"server_cpu": own.ru_utime + own.ru_stime, "children_cpu": children.ru_utime + children.ru_stime}


def close_prestarted(pre: dict[str, Any]) -> None:
    """An exec run: the pre-forked run is not used. Killing its PID 1 ends its namespace, candidate process
    included."""
    for key in PIPES:
        os.close(pre[key])
    try:
        os.kill(pre["pid"], signal.SIGKILL)
    except OSError:  # already gone (the template reports it all the same)
        pass
    exit_status_from(pre, True)
