"""The trusted side of the code harness: run the reference tests, decide pass/fail (plain stdlib).

Copied into the sandbox with ``code_wire.py``, ``code_runner.py`` and ``program.py``, and run as
``python3 -I -S -B code_supervisor.py`` with the job (a nonce, the tests, the time budget) as JSON
on stdin. It never runs the candidate's code itself, and never imports, evaluates or looks up
anything the candidate names:

* function tests (assert strings, HumanEval ``check``) run HERE, against proxies; each call of a
  candidate function (or attribute of a candidate module or object) is sent to a separate process
  (``code_runner.py``) and the value comes back through :mod:`code_wire` as exact built-in data, so
  rigged ``__eq__``, patched builtins, early exits, atexit hooks and printed markers in the
  candidate's process decide nothing;
* stdin/stdout cases run ``program.py`` as a child per case and compare its output here.

The job is read from stdin before any candidate process exists, and this process makes itself
non-dumpable, so a candidate (same uid, no capabilities) can neither read the nonce or the tests
nor write into this process. It ignores every signal the candidate could send it (``shield_signals``)
and takes its deadline from the monotonic clock, never from a signal alone. The verdict is one line
``RKH1 <nonce> <json>`` on stdout, which no candidate process holds; a ``harness_error`` (the
infrastructure's fault) is only reported for a failure before any candidate process existed.
"""

from __future__ import annotations

import builtins
import json
import os
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import code_invariants
import code_io_cases
import code_wire as wire
from code_invariants import InvariantBroken
from code_procs import (
    PRESTARTED,
    RUN_DIR,
    STARTED,
    Child,
    Deadline,
    Events,
    nondumpable,
    shield_signals,
    spawn_python,
    sweep,
)
from code_recorder import FirstFailure, Recorder, describe

sys.path.remove(HERE)  # the candidate can write here: nothing may be imported from it from now on

RESULT_TAG = "RKH1"
PROGRAM = os.path.join(HERE, "program.py")
RUNNER = os.path.join(HERE, "code_runner.py")
MAX_RESTARTS = 20
# Modules of the standard library that a test may use under their own name, as the program's import:
# imported here by the TEST's name (never by anything the program says), for names the program binds
# to a module. Pure modules without import-time side effects; any other module stays the program's.
SAFE_MODULES = frozenset(
    (
        "abc",
        "array",
        "base64",
        "binascii",
        "bisect",
        "calendar",
        "cmath",
        "collections",
        "copy",
        "dataclasses",
        "datetime",
        "decimal",
        "difflib",
        "enum",
        "fractions",
        "functools",
        "hashlib",
        "heapq",
        "itertools",
        "json",
        "keyword",
        "math",
        "numbers",
        "operator",
        "random",
        "re",
        "statistics",
        "string",
        "struct",
        "textwrap",
        "types",
        "typing",
        "unicodedata",
        "zlib",
    )
)
# Exceptions a candidate's raise may become in the tests, by name, taken before any candidate runs.
# Not StopIteration/StopAsyncIteration: raised from a call inside ``map`` or ``zip`` they would end the
# test's loop early and quietly, and the loop would count as finished.
BUILTIN_EXCEPTIONS = {
    name: value
    for name, value in vars(builtins).items()
    if isinstance(value, type)
    and issubclass(value, Exception)
    and not issubclass(value, (StopIteration, StopAsyncIteration))
}


class CandidateFailure(Exception):
    """The candidate raised an exception that is not a builtin one (raised into the test code)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind


class CandidateCrash(BaseException):
    """The candidate's process crashed, exited, timed out or broke the protocol during a call.

    Not an ``Exception``: ``try: f(x) except Exception: ...`` in the tests must not take a crash for
    the exception it expects (in plain execution a crash ends the tests); and the test site the crash
    reaches next fails even if the test code caught it (see ``Recorder``).
    """

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

    def __init__(  # type: ignore[no-untyped-def]
        self, deadline: float, call_timeout: float | None, events: Events, on_crash=None, checker=None
    ) -> None:
        self.checker = checker
        self.deadline = deadline
        self.call_timeout = call_timeout
        self.events = events
        self.on_crash = on_crash
        self.proc: Child | None = None
        self.gen = 0
        self.names: dict = {}
        self.load_error: dict | None = None
        self.starts = 0

    def crash(self, kind: str, message: str) -> CandidateCrash:
        if self.on_crash is not None:
            self.on_crash()
        return CandidateCrash(kind, message)

    def start(self) -> None:
        if self.load_error is not None:
            raise self.crash("unavailable", self.load_error.get("error", "the program did not load"))
        if self.starts > MAX_RESTARTS:
            raise self.crash("unavailable", "the program crashed too often")
        self.starts += 1
        if self.starts > 1:
            self.events.add("restarts")
            if self.checker is not None:
                self.checker.between_cases()  # nothing of the crashed process may answer for the fresh one
        to_child, from_parent = os.pipe()
        from_child, to_parent = os.pipe()
        devnull = os.open(os.devnull, os.O_RDONLY)
        try:
            self.proc = spawn_python(
                [RUNNER, PROGRAM, str(to_child), str(to_parent)],
                stdin=devnull,
                stdout=2,
                stderr=2,
                keep=(to_child, to_parent),
            )
        except OSError as exc:
            for fd in (to_child, from_parent, from_child, to_parent):
                os.close(fd)
            self.proc = None
            raise self.crash("unavailable", f"could not start the program: {exc}") from None
        finally:
            os.close(devnull)
        os.close(to_child)
        os.close(to_parent)
        self.wfd, self.rfd = from_parent, from_child
        self.gen += 1
        reply = self._receive(self.deadline)  # loading the program has the whole budget, not call_timeout
        if type(reply) is not dict:
            self.stop()
            raise self.crash("bad_reply", "the program's process sent garbage")
        if reply.get("op") == "error":
            kind = reply.get("kind")
            self.load_error = {
                "status": "compile_error" if kind == "compile_error" else "runtime_error",
                "error": str(reply.get("error") or f"{reply.get('raise')}: {reply.get('msg')}")[:2000],
            }
            if reply.get("raise") == "MemoryError":
                self.events.add("memory_errors")
            self.stop()
            raise self.crash("unavailable", self.load_error["error"])
        if reply.get("op") != "loaded" or type(reply.get("names")) is not dict:
            self.stop()
            raise self.crash("bad_reply", "the program's process sent garbage")
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

    def _receive(self, limit: float | None = None):  # type: ignore[no-untyped-def]
        if limit is None:
            limit = (
                self.deadline if self.call_timeout is None else min(self.deadline, time.monotonic() + self.call_timeout)
            )
        try:
            return wire.receive(self.rfd, limit)
        except wire.WireTimeout:
            self.events.add("timeouts")
            self.stop()
            if time.monotonic() >= self.deadline:
                raise Deadline() from None
            raise self.crash("timeout", "the call ran past its time limit") from None
        except wire.WireError as exc:
            proc = self.proc
            code = proc.wait(1.0) if proc is not None else None
            self.stop()
            if code in (-signal.SIGKILL, -signal.SIGXCPU):
                self.events.add("timeouts")
                raise self.crash("timeout", "the program hit its CPU time limit") from None
            self.events.add("crashes")
            raise self.crash("crash", f"the program's process ended (exit status {code}): {exc}") from None

    def request(self, remote: Remote, op: str, **fields):  # type: ignore[no-untyped-def]
        if time.monotonic() >= self.deadline:
            raise Deadline()  # also when test code swallowed the first one with a bare except
        if remote._ref[0] == "h":
            if remote._gen != self.gen or self.proc is None:
                raise self.crash("unavailable", "the object belonged to a process that has ended")
        elif self.proc is None:
            self.start()  # a name: look it up again in a fresh process
        message = {"op": op, "ref": remote._ref}
        if op == "call":
            handle_of = self._handle_of
            message["args"] = [wire.encode(a, None, 0, handle_of, True) for a in fields["args"]]
            message["kwargs"] = [[k, wire.encode(v, None, 0, handle_of, True)] for k, v in fields["kwargs"].items()]
        if op == "getattr":
            message["name"] = fields["name"]
        try:
            wire.send(self.wfd, message)
        except OSError:
            pass  # the process died: _receive reports it
        reply = self._receive()
        if type(reply) is not dict:
            raise self.crash("bad_reply", "malformed reply")
        if "raise" in reply:
            raise self._raised(reply)
        gen = self.gen
        try:
            value = wire.decode(reply.get("ok"), lambda key: Remote(self, ["h", key], gen, "candidate object"))
            if op == "call":
                wire.copy_back(fields["args"], reply.get("after"))
        except (wire.WireError, RecursionError, MemoryError) as exc:
            raise self.crash("bad_reply", str(exc)) from None
        return value

    def _raised(self, reply: dict) -> BaseException:
        """What the tests see of an exception the candidate raised: the builtin exception of that name
        (``except ValueError`` works as in plain execution), else a CandidateFailure; an exit
        (SystemExit, or any BaseException that is not an Exception) is a crash."""
        kind, message = str(reply.get("raise"))[:100], str(reply.get("msg"))[:300]
        self.events.add("memory_errors" if kind == "MemoryError" else "exceptions")
        if reply.get("base") or kind in ("SystemExit", "KeyboardInterrupt", "GeneratorExit"):
            return self.crash("exit", f"{kind}: {message}")
        cls = BUILTIN_EXCEPTIONS.get(kind)
        if cls is not None:
            try:
                return cls(message)
            except Exception:  # noqa: BLE001 - a builtin exception that takes other arguments
                pass
        return CandidateFailure("exception", f"{kind}: {message}")

    def _handle_of(self, value):  # type: ignore[no-untyped-def]
        if type(value) is Remote:
            if value._gen != self.gen or value._ref[0] != "h":
                raise self.crash("unavailable", "stale candidate object")
            return value._ref[1]
        return None


def run_function_tests(job: dict, deadline: float, events: Events, result: dict, checker=None) -> None:  # type: ignore[no-untyped-def]
    """Run the tests, already instrumented on the host (``code_instrument``), against the candidate."""
    recorder = Recorder(job["sites"], deadline, bool(job.get("stop_at_failure")))
    candidate = Candidate(deadline, job.get("call_timeout"), events, on_crash=recorder.crash, checker=checker)
    result.update(mode="function", tests=recorder.outcomes)
    timed_out = False
    try:
        try:
            candidate.start()
        except CandidateCrash as exc:
            result["load"] = candidate.load_error or {"status": "runtime_error", "error": str(exc)}
            return
        result["load"] = {"status": "ok"}
        namespace = {
            "__name__": wire.TESTS_MODULE,
            "__builtins__": builtins,
            "__rk_record__": recorder,
            "__rk_commit__": recorder.commit,
            "__rk_Deadline__": Deadline,
        }
        _bind_candidate_names(namespace, candidate, job["names"])
        _bind_program_imports(namespace, candidate, job.get("imports") or [])
        errors: list[str] = []
        try:
            _run_tests(job, namespace, candidate, errors, recorder)
        except FirstFailure:
            result["stopped"] = "first failure"
        result["errors"] = errors[:10]
    except Deadline:
        timed_out = True
        raise
    finally:
        recorder.finalize(timed_out)
        candidate.stop()


def _run_tests(job: dict, namespace: dict, candidate: Candidate, errors: list[str], recorder: Recorder) -> None:
    """The top-level statements of the tests, then ``check(entry point)`` when the reference names one."""
    for statement in job["statements"]:
        _run_statement(statement, namespace, errors, recorder)
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
            finished = _run_statement("check(__rk_entry__)", namespace, errors, recorder)
            if not recorder.outcomes:
                recorder.outcomes.append(
                    {
                        "line": 0,
                        "source": f"check({entry})",
                        "outcome": "pass" if finished and len(errors) == before else "fail",
                    }
                )


def _run_statement(source: str, namespace: dict, errors: list[str], recorder: Recorder) -> bool:
    """Run one top-level statement of the tests; whether it ran to its end (then its loops are credited)."""
    try:
        exec(compile(source, "<tests>", "exec", dont_inherit=True), namespace)  # trusted tests
    except Deadline:
        recorder.cut_short(True)
        raise
    except FirstFailure:
        recorder.cut_short(False)
        raise
    except BaseException as exc:  # noqa: BLE001 - a test that errors outside an assert
        recorder.cut_short(False)
        errors.append(describe(exc))
        return False
    return recorder.finished()


def _bind_candidate_names(namespace: dict, candidate: Candidate, used: list[str]) -> None:
    """Bind the names the tests use and the program defines (never a builtin).

    Plain data is bound as its value; a module under the name of a SAFE_MODULES module (``import math``)
    as that module of our own; everything else as a proxy whose calls and attributes the candidate's
    process answers. Nothing the program names is ever imported or looked up here: importing the
    module a program named (``unittest.__main__``) would run test discovery in the writable scratch dir.
    """
    builtin_names = set(dir(builtins))
    for name in sorted(used):
        info = candidate.names.get(name)
        if name in builtin_names or type(info) is not dict:
            continue
        kind = info.get("kind")
        if kind == "value":
            try:
                namespace[name] = wire.decode(info.get("value"))
            except (wire.WireError, RecursionError):
                pass
        elif kind == "module" and name in SAFE_MODULES:
            try:
                namespace[name] = __import__(name)
            except BaseException:  # noqa: BLE001 - this Python lacks it: the test sees a NameError
                pass
        else:
            namespace[name] = Remote(candidate, ["n", name], candidate.gen, f"candidate {name}")


def _bind_program_imports(namespace: dict, candidate: Candidate, imported: list) -> None:
    """Bind the names the tests import from the program itself (``from solution import pow``, a row's
    ``fn_name``) as the program's, even where one is also a builtin's name: the tests name them as the
    program's. The names come from the tests, never from the program; one the program lacks is still the
    program's (calling it fails there), so a builtin of that name can never stand in for it."""
    for name in imported:
        if type(name) is not str or not name.isidentifier():
            continue
        info = candidate.names.get(name)
        if type(info) is dict and info.get("kind") == "value":
            try:
                namespace[name] = wire.decode(info.get("value"))
                continue
            except (wire.WireError, RecursionError):
                pass
        namespace[name] = Remote(candidate, ["n", name], candidate.gen, f"candidate {name}")


def main() -> None:
    checker = code_invariants.Checker((sys.executable, RUNNER, code_io_cases.CASE_RUNNER))
    checked = False  # the checks at start passed: those before the report count
    private = nondumpable()
    shield_signals()
    os.write(2, b"\n")  # the first stderr line is ours: a sandbox reads a tool's failure from that line
    RUN_DIR[0] = os.path.dirname(PROGRAM)  # candidates start in the scratch dir...
    os.chdir("/")  # ...and nothing of ours runs in a dir the run can write
    job = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    nonce = job["nonce"]
    start = time.monotonic()
    deadline = start + float(job["budget"])
    events = Events()
    fired: list[bool] = []

    def on_alarm(signum, frame):  # type: ignore[no-untyped-def]
        if fired or time.monotonic() < deadline:
            return  # a SIGALRM the candidate sent (kill, F_SETSIG): ours only comes after the deadline
        fired.append(True)
        raise Deadline()

    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, float(job["budget"]) + 0.05)
    result: dict = {"v": 1}
    try:
        if not private:  # a candidate of our uid could read the nonce and tests out of our memory
            raise RuntimeError("cannot make the supervisor non-dumpable (no ctypes or prctl): refusing to judge")
        try:
            result["invariants"] = checker.at_start(tuple(entry[2] for entry in PRESTARTED))
        except (InvariantBroken, OSError) as exc:
            raise RuntimeError(f"refusing to judge: {exc}") from None
        checked = True
        runner = code_io_cases.run_io_tests if job["mode"] == "io" else run_function_tests
        runner(job, deadline, events, result, checker)
    except Deadline:
        result["deadline_hit"] = True
    except InvariantBroken as exc:  # between cases, after candidates ran: nothing is credited
        result["refused"] = describe(exc, 1000)
    except MemoryError:  # a reply too big to hold: the candidate's doing, not a harness failure
        events.add("memory_errors")
        result["aborted"] = "MemoryError"
    except BaseException as exc:  # noqa: BLE001 - a failure is reported, never hidden
        # Once a candidate process has run, a failure here may be its doing: it fails the program
        # rather than pass as the infrastructure's fault (which would spare the sample its penalty).
        key = "aborted" if STARTED[0] else "harness_error"
        result[key] = describe(exc, 1000)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
    sweep(None)
    if checked:
        try:
            checker.before_report()
        except (InvariantBroken, OSError) as exc:
            result["refused"] = describe(exc, 1000)
    result["events"] = events.counts
    result["seconds"] = round(time.monotonic() - start, 4)
    line = f"{RESULT_TAG} {nonce} {json.dumps(result, separators=(',', ':'))}\n".encode()
    view = memoryview(line)
    while view:
        view = view[os.write(1, view) :]
    os._exit(0)


if __name__ == "__main__":
    main()
