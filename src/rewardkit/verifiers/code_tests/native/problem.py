"""A row read as a judge's problem: its tests, limits, checker, subtasks and input mode.

Layouts read natively (``problem_from_row``), besides every stdin/stdout layout the Python harness reads:

* open-r1 Codeforces: ``official_tests`` (a list of ``{"input", "output"}``), ``generated_tests`` (more of them),
  ``generated_checker`` (a Python checker, run as ``checker.py input.txt correct_output.txt
  solution_output.txt``, accepting when its last stdout token is 1), ``time_limit`` (seconds),
  ``memory_limit`` (MB), ``input_mode`` (``stdio`` or ``file``);
* open-r1 IOI: one subtask per row (``subtask``, ``score`` points, ``test_names``, ``test_cases`` by name) or a
  ``subtasks`` list of them; ``grader_files`` may hold a CMS-style checker (``checker.cpp``: ``checker input
  answer output``, its score on stdout); ``time_limit``/``memory_limit`` as above;
* a testlib checker: ``checker`` (C++ source, ``checker input output answer``, exit status 0 accepts) with
  ``testlib.h`` from ``grader_files`` or a ``testlib`` column;
* ``verification_info`` for any language (``{"language": "cpp", "test_cases": [...]}``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rewardkit.verifiers.code_tests.formats import InvalidReference, resolve_reference
from rewardkit.verifiers.code_tests.formats.model import as_text
from rewardkit.verifiers.code_tests.formats.values import parse_column

MIB = 1 << 20
CHECKER_KINDS = ("python", "testlib", "cms")
ROW_FIELDS = ("official_tests", "generated_tests", "test_cases", "subtasks")


@dataclass(frozen=True)
class Test:
    name: str
    input: str
    answer: str


@dataclass(frozen=True)
class Subtask:
    """IOI scoring: ``points`` times the lowest score of its tests."""

    name: str
    points: float
    tests: tuple[int, ...]


@dataclass(frozen=True)
class Checker:
    """A dataset's checker: ``kind`` python (open-r1 Codeforces), testlib or cms; C++ ones come with ``headers``."""

    kind: str
    source: str
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Problem:
    tests: tuple[Test, ...]
    subtasks: tuple[Subtask, ...] = ()
    time_limit: float | None = None  # seconds, as the row gives it (before the verifier's time_scale)
    memory_limit: int | None = None  # bytes
    checker: Checker | None = None
    input_mode: str = "stdin"
    tolerance: Any = "auto"
    compare: Mapping[str, Any] | None = None
    layout: str = "stdio"
    # IOI graders: files compiled with the program (``graders/grader.cpp``, headers), the program at program_path
    sources: Mapping[str, str] = field(default_factory=dict)
    program_path: str | None = None


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)) and value > 0:
        return float(value)
    if isinstance(value, str):
        try:
            parsed = float(value.strip())
        except ValueError:
            return None
        return parsed if parsed > 0 else None
    return None


_UNIT = re.compile(r"\s*([0-9]*\.?[0-9]+)\s*([a-z]*)\s*", re.IGNORECASE)
_SECONDS = {"": 1.0, "s": 1.0, "sec": 1.0, "secs": 1.0, "second": 1.0, "seconds": 1.0, "ms": 1e-3}
_SECONDS.update({"millisecond": 1e-3, "milliseconds": 1e-3})
_BYTES = {"": MIB, "m": MIB, "mb": MIB, "mib": MIB, "megabyte": MIB, "megabytes": MIB, "k": 1024, "kb": 1024}
_BYTES.update({"kib": 1024, "kilobytes": 1024, "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30, "b": 1, "bytes": 1})


def _with_unit(value: Any, units: Mapping[str, float]) -> float | None:
    """A limit as a number, or text with a unit ("2 seconds", "256 megabytes", TACO's and judges' form)."""
    if isinstance(value, str):
        found = _UNIT.fullmatch(value)
        if found is None or found.group(2).lower() not in units:
            return None
        number = float(found.group(1)) * units[found.group(2).lower()]
        return number if number > 0 else None
    return _number(value)


def _limits(row: Mapping[str, Any]) -> tuple[float | None, int | None]:
    given = row.get("time_limit")
    if isinstance(given, Mapping):  # CodeContests: {"seconds": 2, "nanos": 500000000}
        seconds = (_number(given.get("seconds")) or 0.0) + (_number(given.get("nanos")) or 0.0) / 1e9
        given = seconds or None
    time_limit = _with_unit(given, _SECONDS)
    if time_limit is not None and not isinstance(given, str) and time_limit > 100:  # milliseconds
        time_limit /= 1000.0
    if _number(row.get("memory_limit_bytes")) is not None:  # CodeContests
        return time_limit, int(_number(row["memory_limit_bytes"]) or 0)
    memory = _with_unit(row.get("memory_limit"), _BYTES)
    if memory is not None and not isinstance(row.get("memory_limit"), str):
        memory = memory if memory > 1 << 16 else memory * MIB
    return time_limit, None if memory is None else int(memory)


def _cases(value: Any, what: str) -> list[Test]:
    value = parse_column(value)
    if value is None:
        return []
    if isinstance(value, Mapping) and "input" in value and "output" in value:  # CodeContests' columnar form
        inputs, outputs = value["input"], value["output"]
        if not isinstance(inputs, list) or not isinstance(outputs, list) or len(inputs) != len(outputs):
            raise InvalidReference(f"{what}: 'input' and 'output' must be lists of the same length")
        value = [{"input": i, "output": o} for i, o in zip(inputs, outputs, strict=True)]
    if not isinstance(value, list) or not all(isinstance(c, Mapping) and "input" in c for c in value):
        raise InvalidReference(f"{what} must be a list of {{'input', 'output'}} test cases")
    tests = []
    for i, case in enumerate(value):
        answer = case.get("output", case.get("expected_output"))
        if answer is None:
            raise InvalidReference(f"{what}[{i}] has no 'output'")
        tests.append(Test(f"{what}[{i}]", as_text(case["input"]), as_text(answer)))
    return tests


def _grader_files(row: Mapping[str, Any]) -> dict[str, str]:
    files = parse_column(row.get("grader_files"))
    found: dict[str, str] = {}
    if isinstance(files, Mapping):
        files = list(files.items())
    for entry in files or []:
        if isinstance(entry, (list, tuple)) and len(entry) == 2 and isinstance(entry[1], str):
            found[str(entry[0])] = entry[1]
        elif isinstance(entry, Mapping) and isinstance(entry.get("content"), str):
            found[str(entry.get("name"))] = entry["content"]
    return found


def _checker(row: Mapping[str, Any]) -> Checker | None:
    generated = row.get("generated_checker")
    if isinstance(generated, str) and generated.strip():
        return Checker("python", generated)
    graders = _grader_files(row)
    headers = {name.rsplit("/", 1)[-1]: text for name, text in graders.items() if name.endswith(".h")}
    if isinstance(row.get("testlib"), str) and row["testlib"].strip():
        headers["testlib.h"] = row["testlib"]
    explicit = row.get("checker")
    if isinstance(explicit, str) and explicit.strip():
        kind = str(row.get("checker_type") or ("testlib" if "testlib.h" in explicit else "python")).lower()
        if kind not in CHECKER_KINDS:
            raise InvalidReference(f"checker_type must be one of {', '.join(CHECKER_KINDS)}, got {kind!r}")
        return Checker(kind, explicit, headers)
    for name, text in graders.items():
        if name.rsplit("/", 1)[-1] in ("checker.cpp", "checker.cc"):
            return Checker("testlib" if "testlib.h" in text else "cms", text, headers)
    return None


def _graders(row: Mapping[str, Any]) -> tuple[dict[str, str], str | None]:
    """An IOI row's ``graders/`` files, and where the program goes among them (``graders/<id>.cpp``, as open-r1's
    IOI runner puts it), when the row has a grader to compile with the program."""
    graders = {name: text for name, text in _grader_files(row).items() if name.startswith("graders/")}
    if not any(name.endswith((".cpp", ".cc", ".c")) for name in graders):
        return {}, None
    problem = str(row.get("id") or row.get("problem_id") or row.get("name") or "solution").strip().lower()
    safe = "".join(c for c in problem if c.isalnum() or c in "_-") or "solution"
    return graders, f"graders/{safe}.cpp"


def _input_mode(row: Mapping[str, Any]) -> str:
    mode = str(row.get("input_mode") or "stdio").strip().lower()
    return "file" if mode in ("file", "files") else "stdin"


def _ioi_tests(row: Mapping[str, Any]) -> dict[str, Test]:
    cases = parse_column(row.get("test_cases"))
    names = row.get("test_names")
    found: dict[str, Test] = {}
    if isinstance(cases, Mapping):
        items = list(cases.items())
    elif isinstance(cases, list) and isinstance(names, list) and len(names) == len(cases):
        items = list(zip(names, cases, strict=True))
    else:
        raise InvalidReference("IOI rows need 'test_cases': by test name, or a list aligned with 'test_names'")
    for name, case in items:
        if isinstance(case, Mapping):
            given, answer = case.get("input"), case.get("output")
        elif isinstance(case, (list, tuple)) and len(case) == 2:
            given, answer = case
        else:
            raise InvalidReference(f"IOI test {name!r} must be {{'input', 'output'}} or an (input, output) pair")
        if given is None or answer is None:
            raise InvalidReference(f"IOI test {name!r} needs an input and an output")
        found[str(name)] = Test(str(name), as_text(given), as_text(answer))
    return found


def _subtasks(row: Mapping[str, Any], tests: dict[str, Test]) -> tuple[list[Test], list[Subtask]]:
    listed = parse_column(row.get("subtasks"))
    if not isinstance(listed, list):
        listed = [row]
    order: list[Test] = []
    index: dict[str, int] = {}
    subtasks = []
    for i, entry in enumerate(listed):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("test_names"), list):
            raise InvalidReference(f"subtask {i} needs 'test_names' (a list)")
        points = _number(entry.get("score", entry.get("points")))
        if points is None and entry.get("score", entry.get("points")) not in (0, 0.0):
            raise InvalidReference(f"subtask {i} needs its points as 'score' (a number)")
        members = []
        for name in entry["test_names"]:
            if str(name) not in tests:
                raise InvalidReference(f"subtask {i} names test {name!r}, which 'test_cases' lacks")
            if str(name) not in index:
                index[str(name)] = len(order)
                order.append(tests[str(name)])
            members.append(index[str(name)])
        label = entry.get("subtask", entry.get("name", i))
        subtasks.append(Subtask(str(label), float(points or 0.0), tuple(members)))
    return order, subtasks


def problem_from_row(reference: Any, context: Mapping[str, Any] | None = None, tolerance: Any = "auto") -> Problem:
    """The problem a row poses; InvalidReference when its tests are not stdin/stdout tests in a known layout."""
    context = dict(context or {})
    value = parse_column(reference)
    column = context.get("reference_column")
    row: dict[str, Any] = dict(context)
    if isinstance(column, str) and column in ROW_FIELDS:  # the reference is one field of the row
        row[column] = value
    elif isinstance(value, Mapping):  # the reference holds the row (or its tests)
        row.update(value)
    time_limit, memory = _limits(row)
    common: dict[str, Any] = {
        "time_limit": time_limit,
        "memory_limit": memory,
        "checker": _checker(row),
        "input_mode": _input_mode(row),
    }
    if row.get("official_tests") is not None:
        tests = _cases(row["official_tests"], "official_tests")
        tests += _cases(row.get("generated_tests"), "generated_tests") if row.get("generated_tests") else []
        if not tests:
            raise InvalidReference("official_tests holds no test")
        return Problem(tuple(tests), layout="codeforces", tolerance=None, **common)
    if isinstance(row.get("test_names"), list) or isinstance(parse_column(row.get("subtasks")), list):
        order, subtasks = _subtasks(row, _ioi_tests(row))
        sources, program_path = _graders(row)
        return Problem(
            tuple(order),
            tuple(subtasks),
            layout="ioi",
            tolerance=None,
            sources=sources,
            program_path=program_path,
            **common,
        )
    resolved = resolve_reference(_stdio_view(value), context, tolerance=tolerance)
    spec = resolved.spec
    if spec.get("mode") != "io":
        raise InvalidReference(f"the row's tests ({resolved.form}) call Python functions: they judge Python only")
    tests = [
        Test(f"test[{i}]", given, answer)
        for i, (given, answer) in enumerate(zip(spec["inputs"], spec["outputs"], strict=True))
    ]
    return Problem(
        tuple(tests),
        tolerance=spec.get("tolerance"),
        compare=spec.get("compare"),
        layout=resolved.form,
        **common,
    )


def _stdio_view(value: Any) -> Any:
    """``verification_info`` of any language, read as its test cases (the Python harness refuses other languages)."""
    if isinstance(value, Mapping) and "test_cases" in value and "language" in value:
        return {k: v for k, v in value.items() if k != "language"}
    return value


def needs_judge(reference: Any, context: Mapping[str, Any] | None) -> bool:
    """Whether a row asks for what only the native judge does (a checker, subtasks, file IO, official_tests)."""
    value = parse_column(reference)
    row: dict[str, Any] = {**dict(context or {}), **(value if isinstance(value, Mapping) else {})}
    if (context or {}).get("reference_column") in ROW_FIELDS:
        return True
    keys = ("official_tests", "generated_checker", "checker", "subtasks", "test_names")
    if any(row.get(key) not in (None, "", []) for key in keys):
        return True
    return _input_mode(row) == "file"
