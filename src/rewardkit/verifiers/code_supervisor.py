"""The trusted side of the code harness: run the reference tests, decide pass/fail (plain stdlib).

Copied into the sandbox with ``code_wire.py``, ``code_runner.py`` and ``program.py``, and run as
``python3 -I -S -B code_supervisor.py`` with the job (a nonce, the tests, the time budget) as JSON
on stdin. It never runs the candidate's code itself:

* function tests (assert strings, HumanEval ``check``) run HERE, against proxies; each call of a
  candidate function is sent to a separate process (``code_runner.py``) and the value comes back
  through :mod:`code_wire` as exact built-in data, so rigged ``__eq__``, patched builtins, early
  exits, atexit hooks and printed markers in the candidate's process decide nothing;
* stdin/stdout cases run ``program.py`` as a child per case and compare its output here.

The job is read from stdin before any candidate process exists, and this process makes itself
non-dumpable, so a candidate (same uid, no capabilities) can neither read the nonce or the tests
nor write into this process. The verdict is one line ``RKH1 <nonce> <json>`` on stdout, which no
candidate process holds. When this process is PID 1 of its namespace (the local sandbox), the
candidate cannot signal it, and ``kill(-1)`` from here sweeps every process the candidate left.
"""

from __future__ import annotations

import builtins
import importlib
import json
import os
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import code_io_cases
import code_wire as wire
from code_procs import Child, Deadline, Events, nondumpable, spawn_python, sweep

sys.path.remove(HERE)  # the candidate can write here: nothing may be imported from it from now on

RESULT_TAG = "RKH1"
PROGRAM = os.path.join(HERE, "program.py")
RUNNER = os.path.join(HERE, "code_runner.py")
MAX_RESTARTS = 20


class CandidateFailure(Exception):
    """A call of the candidate's code did not return a value (raised into the test code)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind


class Remote:
    """A candidate object seen from here: call it, get attributes, iterate; nothing else."""

    __slots__ = ("_gen", "_label", "_owner", "_ref")

    def __init__(self, owner: Candidate, ref: list, gen: int, label: str) -> None:
        object.__setattr__(self, "_owner", owner)
        object.__setattr__(self, "_ref", ref)
        object.__setattr__(self, "_gen", gen)
        object.__setattr__(self, "_label", label)

    def __call__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return self._owner.request(self, "call", args=args, kwargs=kwargs)

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        if name.startswith("__"):
            raise AttributeError(name)
        return self._owner.request(self, "getattr", name=name)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._owner.request(self, "iter"))

    def __bool__(self) -> bool:
        raise TypeError(f"the truth value of {self._label} (not plain data) is not trusted")

    def __repr__(self) -> str:
        return f"<{self._label}>"


class Candidate:
    """The candidate's process: started lazily, restarted after a crash or a timeout."""

    def __init__(self, deadline: float, call_timeout: float | None, events: Events) -> None:
        self.deadline = deadline
        self.call_timeout = call_timeout
        self.events = events
        self.proc: Child | None = None
        self.gen = 0
        self.names: dict = {}
        self.load_error: dict | None = None
        self.starts = 0

    def start(self) -> None:
        if self.load_error is not None:
            raise CandidateFailure("unavailable", self.load_error.get("error", "the program did not load"))
        if self.starts > MAX_RESTARTS:
            raise CandidateFailure("unavailable", "the program crashed too often")
        self.starts += 1
        if self.starts > 1:
            self.events.add("restarts")
        to_child, from_parent = os.pipe()
        from_child, to_parent = os.pipe()
        devnull = os.open(os.devnull, os.O_RDONLY)
        try:
            self.proc = spawn_python([RUNNER, PROGRAM, str(to_child), str(to_parent)], stdin=devnull, stdout=2,
                                     stderr=2, keep=(to_child, to_parent))
        except OSError as exc:
            for fd in (to_child, from_parent, from_child, to_parent):
                os.close(fd)
            self.proc = None
            raise CandidateFailure("unavailable", f"could not start the program: {exc}") from None
        finally:
            os.close(devnull)
        os.close(to_child)
        os.close(to_parent)
        self.wfd, self.rfd = from_parent, from_child
        self.gen += 1
        reply = self._receive()
        if type(reply) is not dict:
            self.stop()
            raise CandidateFailure("bad_reply", "the program's process sent garbage")
        if reply.get("op") == "error":
            kind = reply.get("kind")
            self.load_error = {"status": kind if kind in ("compile_error",) else "runtime_error",
                               "error": str(reply.get("error") or f"{reply.get('raise')}: {reply.get('msg')}")[:2000]}
            if reply.get("raise") == "MemoryError":
                self.events.add("memory_errors")
            self.stop()
            raise CandidateFailure("unavailable", self.load_error["error"])
        if reply.get("op") != "loaded" or type(reply.get("names")) is not dict:
            self.stop()
            raise CandidateFailure("bad_reply", "the program's process sent garbage")
        self.names = reply["names"]

    def stop(self) -> None:
        sweep(self.proc)
        for fd in ("wfd", "rfd"):
            if hasattr(self, fd):
                try:
                    os.close(getattr(self, fd))
                except OSError:
                    pass
                delattr(self, fd)
        self.proc = None

    def _receive(self):  # type: ignore[no-untyped-def]
        limit = self.deadline if self.call_timeout is None else min(self.deadline, time.monotonic() + self.call_timeout)
        try:
            return wire.receive(self.rfd, limit)
        except wire.WireTimeout:
            self.events.add("timeouts")
            self.stop()
            if time.monotonic() >= self.deadline:
                raise Deadline() from None
            raise CandidateFailure("timeout", "the call ran past its time limit") from None
        except wire.WireError as exc:
            proc = self.proc
            code = proc.wait(1.0) if proc is not None else None
            self.stop()
            if code in (-signal.SIGKILL, -signal.SIGXCPU):
                self.events.add("timeouts")
                raise CandidateFailure("timeout", "the program hit its CPU time limit") from None
            self.events.add("crashes")
            raise CandidateFailure("crash", f"the program's process ended (exit status {code}): {exc}") from None

    def request(self, remote: Remote, op: str, **fields):  # type: ignore[no-untyped-def]
        if remote._ref[0] == "h":
            if remote._gen != self.gen or self.proc is None:
                raise CandidateFailure("unavailable", "the object belonged to a process that has ended")
        elif self.proc is None:
            self.start()  # a name: look it up again in a fresh process
        message = {"op": op, "ref": remote._ref}
        if op == "call":
            handle_of = self._handle_of
            message["args"] = [wire.encode(a, None, 0, handle_of) for a in fields["args"]]
            message["kwargs"] = [[k, wire.encode(v, None, 0, handle_of)] for k, v in fields["kwargs"].items()]
        if op == "getattr":
            message["name"] = fields["name"]
        try:
            wire.send(self.wfd, message)
        except OSError:
            pass  # the process died: _receive reports it
        reply = self._receive()
        if type(reply) is not dict:
            raise CandidateFailure("bad_reply", "malformed reply")
        if "raise" in reply:
            kind = str(reply.get("raise"))[:100]
            self.events.add("memory_errors" if kind == "MemoryError" else "exceptions")
            raise CandidateFailure("exception", f"{kind}: {str(reply.get('msg'))[:300]}")
        gen = self.gen
        try:
            value = wire.decode(reply.get("ok"), lambda key: Remote(self, ["h", key], gen, "candidate object"))
            if op == "call":
                _copy_back(fields["args"], reply.get("after"))
        except (wire.WireError, RecursionError, MemoryError) as exc:
            raise CandidateFailure("bad_reply", str(exc)) from None
        return value

    def _handle_of(self, value):  # type: ignore[no-untyped-def]
        if type(value) is Remote:
            if value._gen != self.gen or value._ref[0] != "h":
                raise CandidateFailure("unavailable", "stale candidate object")
            return value._ref[1]
        return None


def _copy_back(args, after) -> None:  # type: ignore[no-untyped-def]
    """In-place changes the candidate made to list/dict/set arguments, applied to the caller's objects."""
    if type(after) is not list or len(after) != len(args):
        return
    for arg, node in zip(args, after):
        if node is None or type(arg) not in (list, dict, set):
            continue
        new = wire.decode(node)
        if type(new) is not type(arg):
            continue
        if type(arg) is list:
            arg[:] = new
        else:
            arg.clear()
            arg.update(new)


class Recorder:
    def __init__(self, sites: list[dict]) -> None:
        self.outcomes = [{"line": s["line"], "source": s["source"], "outcome": "not_run"} for s in sites]

    def __call__(self, index: int, value, exc) -> None:  # type: ignore[no-untyped-def]
        entry = self.outcomes[index]
        if entry["outcome"] == "fail":
            return
        if exc is None:
            try:
                ok = bool(value)
            except Exception as bad:  # noqa: BLE001 - a candidate object's truth value
                ok, exc = False, bad
        else:
            ok = False
        entry["outcome"] = "pass" if ok else "fail"
        if not ok:
            entry["error"] = "assertion failed" if exc is None else f"{type(exc).__name__}: {exc}"[:300]


def run_function_tests(job: dict, deadline: float, events: Events, result: dict) -> None:
    """Run the tests, already instrumented on the host (``code_instrument``), against the candidate."""
    recorder = Recorder(job["sites"])
    candidate = Candidate(deadline, job.get("call_timeout"), events)
    result.update(mode="function", tests=recorder.outcomes)
    try:
        try:
            candidate.start()
        except CandidateFailure as exc:
            result["load"] = candidate.load_error or {"status": "runtime_error", "error": str(exc)}
            return
        result["load"] = {"status": "ok"}
        namespace = {"__name__": "__rk_tests__", "__builtins__": builtins,
                     "__rk_record__": recorder, "__rk_Deadline__": Deadline}
        _bind_candidate_names(namespace, candidate, job["names"])
        errors: list[str] = []
        for statement in job["statements"]:
            _run_statement(statement, namespace, errors)
        entry = job.get("entry_point")
        if entry:
            check = namespace.get("check")
            namespace["__rk_entry__"] = Remote(candidate, ["n", entry], candidate.gen, f"candidate {entry}")
            if not callable(check):
                errors.append("the reference defines no check(candidate) function")
            elif entry not in candidate.names:
                errors.append(f"the program defines no {entry!r}")
            else:
                before = len(errors)
                _run_statement("check(__rk_entry__)", namespace, errors)
                if not recorder.outcomes:
                    recorder.outcomes.append({"line": 0, "source": f"check({entry})",
                                              "outcome": "pass" if len(errors) == before else "fail"})
        result["errors"] = errors[:10]
    finally:
        candidate.stop()


def _run_statement(source: str, namespace: dict, errors: list[str]) -> None:
    try:
        exec(compile(source, "<tests>", "exec", dont_inherit=True), namespace)  # noqa: S102 - trusted tests
    except Deadline:
        raise
    except BaseException as exc:  # noqa: BLE001 - a test that errors outside an assert
        errors.append(f"{type(exc).__name__}: {exc}"[:300])


def _bind_candidate_names(namespace: dict, candidate: Candidate, used: list[str]) -> None:
    """Bind the names the tests use and the program defines (never a builtin, never a foreign module)."""
    builtin_names = set(dir(builtins))
    for name in sorted(used):
        info = candidate.names.get(name)
        if name in builtin_names or type(info) is not dict:
            continue
        kind = info.get("kind")
        if kind == "module":
            module = str(info.get("module"))
            if module.split(".")[0] not in getattr(sys, "stdlib_module_names", ()):
                continue  # never import a module the candidate may have written
            try:
                namespace[name] = importlib.import_module(module)
            except Exception:  # noqa: BLE001, S110 - a module this Python lacks: the test sees a NameError
                pass
        elif kind == "value":
            try:
                namespace[name] = wire.decode(info.get("value"))
            except (wire.WireError, RecursionError):
                pass
        else:
            namespace[name] = Remote(candidate, ["n", name], candidate.gen, f"candidate {name}")


def _on_alarm(signum, frame):  # type: ignore[no-untyped-def]
    raise Deadline()


def main() -> None:
    nondumpable()
    os.chdir(HERE)
    job = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    nonce = job["nonce"]
    start = time.monotonic()
    deadline = start + float(job["budget"])
    events = Events()
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, float(job["budget"]) + 0.05)
    result: dict = {"v": 1}
    try:
        runner = code_io_cases.run_io_tests if job["mode"] == "io" else run_function_tests
        runner(job, deadline, events, result)
    except Deadline:
        result["deadline_hit"] = True
    except MemoryError:  # a reply too big to hold: the candidate's doing, not a harness failure
        events.add("memory_errors")
        result["aborted"] = "MemoryError"
    except BaseException as exc:  # noqa: BLE001 - a harness failure is reported, never hidden
        result["harness_error"] = f"{type(exc).__name__}: {exc}"[:1000]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    sweep(None)
    result["events"] = events.counts
    result["seconds"] = round(time.monotonic() - start, 4)
    line = f"{RESULT_TAG} {nonce} {json.dumps(result, separators=(',', ':'))}\n".encode()
    view = memoryview(line)
    while view:
        view = view[os.write(1, view):]
    os._exit(0)


if __name__ == "__main__":
    main()
