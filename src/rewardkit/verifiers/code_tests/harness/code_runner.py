"""The candidate's side of the code harness: load the program, then answer calls (plain stdlib).

Copied into the sandbox and started by ``code_supervisor.py`` as
``python3 -I -S -B code_runner.py PROGRAM READ_FD WRITE_FD``. Everything in this process is
untrusted: the candidate's code runs here and may rewrite any of it. The supervisor trusts nothing
this process says beyond "here is a value", and decodes values into exact built-in types.
"""

from __future__ import annotations

import builtins
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import code_wire as wire


def _describe(name, value, handles):  # type: ignore[no-untyped-def]
    if type(value).__name__ == "module":
        return {"kind": "module"}
    if callable(value):
        return {"kind": "callable"}
    try:
        return {"kind": "value", "value": wire.encode(value)}
    except (wire.WireError, RecursionError):
        return {"kind": "object"}


def _failure(exc):  # type: ignore[no-untyped-def]
    try:
        text = str(exc)[:500]
    except BaseException:  # noqa: BLE001 - a candidate's exception with a broken __str__
        text = "<unprintable>"
    return {"raise": type(exc).__name__, "msg": text, "base": not isinstance(exc, Exception)}


def main() -> None:
    program_path, read_fd, write_fd = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    with open(program_path, encoding="utf-8", errors="replace") as fh:
        source = fh.read()
    try:
        code = compile(source, "program.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        wire.send(write_fd, {"op": "error", "kind": "compile_error", "error": f"{type(exc).__name__}: {exc}"})
        return
    namespace = {"__name__": "__rk_candidate__", "__builtins__": builtins}
    try:
        exec(code, namespace)  # running the candidate is this process's job
    except BaseException as exc:  # noqa: BLE001 - SystemExit at import time is a failure too
        wire.send(write_fd, {"op": "error", "kind": "runtime_error", **_failure(exc)})
        return
    handles: dict = {}
    names = {}
    for name, value in list(namespace.items()):
        if isinstance(name, str) and not name.startswith("__"):
            names[name] = _describe(name, value, handles)
    wire.send(write_fd, {"op": "loaded", "names": names})
    while True:
        try:
            message = wire.receive(read_fd)
        except wire.WireError:
            return
        wire.send(write_fd, _answer(message, namespace, handles))


def _object_maker(namespace):  # type: ignore[no-untyped-def]
    """Rebuilds a test object the supervisor sent: as the program's class of that name, or an empty one."""
    made: dict = {}

    def make(name, attrs):  # type: ignore[no-untyped-def]
        cls = namespace.get(name)
        if not isinstance(cls, type):
            cls = made.setdefault(name, type(name, (), {}))
        obj = cls.__new__(cls)
        obj.__dict__.update(attrs)
        return obj

    return make


def _sent_back(arg):  # type: ignore[no-untyped-def]
    try:
        return wire.encode(arg) if type(arg) in (list, dict, set) else None
    except (wire.WireError, RecursionError):
        return None  # holds objects: not copied back


def _resolve(ref, namespace, handles):  # type: ignore[no-untyped-def]
    if ref[0] == "n":
        return namespace[ref[1]]
    return handles[ref[1]]


def _answer(message, namespace, handles):  # type: ignore[no-untyped-def]
    try:
        target = _resolve(message["ref"], namespace, handles)
        op = message["op"]
        if op == "call":
            make = _object_maker(namespace)
            args = [wire.decode(a, handles.__getitem__, 0, make) for a in message["args"]]
            kwargs = {k: wire.decode(v, handles.__getitem__, 0, make) for k, v in message["kwargs"]}
            value = target(*args, **kwargs)
            after = [_sent_back(a) for a in args]
            return {"ok": wire.encode(value, handles), "after": after}
        if op == "getattr":
            return {"ok": wire.encode(getattr(target, message["name"]), handles)}
        if op == "iter":
            return {"ok": wire.encode(list(target), handles)}
        return {"raise": "ProtocolError", "msg": f"unknown op {op!r}"}
    except BaseException as exc:  # noqa: BLE001 - report everything, SystemExit included
        return _failure(exc)


if __name__ == "__main__":
    main()
