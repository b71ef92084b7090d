"""Each public dataset's test layout, read by its own grading rule (see docs/code-verifier.md).

| dataset | test column | other columns read | rule |
| --- | --- | --- | --- |
| APPS, TACO | ``input_output`` | | ``fn_name`` inside: call-based (``apps``), else stdin by ``tolerance`` |
| MBPP | ``test_list`` | ``test_setup_code``, ``test_imports`` | one test per assert |
| LiveCodeBench | ``public_test_cases`` | ``private_test_cases`` (packed), ``metadata`` | exact values |
| CodeContests | ``public_tests`` | ``private_tests``, ``generated_tests`` | tokens, any case, 1e-5 |
| open-r1, PrimeIntellect | ``verification_info`` | | stdin exact tokens, or call-based (``apps``) |
| HumanEval | ``test`` | ``entry_point``, ``prompt`` | ``check(candidate)`` |
| KodCode | ``test`` | | pytest functions |
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rewardkit.verifiers.code_tests.formats.call_tests import call_tests
from rewardkit.verifiers.code_tests.formats.errors import InvalidReference
from rewardkit.verifiers.code_tests.formats.model import Resolved, column_value, io_spec
from rewardkit.verifiers.code_tests.formats.preludes import APPS_PRELUDE, LCB_PRELUDE
from rewardkit.verifiers.code_tests.formats.values import UnsafeData, decode_packed_tests, parse_column

CODECONTESTS_COMPARE = {"flat": True, "ignore_case": True, "relative": False}  # its tester: tokens, 1e-5 absolute
CODECONTESTS_TOLERANCE = 1e-5
PYTHON_LANGUAGES = frozenset({"python", "python3", "py", "py3", "python 3"})


def _function_name(*candidates: Any) -> str | None:
    for value in candidates:
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _arguments(value: Any) -> list[Any]:
    """A call's arguments: a list, or JSON/literal text of one; anything else is the single argument."""
    value = parse_column(value) if isinstance(value, str) else value
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _int_keyed(args: list[Any]) -> list[Any]:
    """APPS turns the string keys JSON gave a leading dict argument back into integers, where they are."""
    if args and isinstance(args[0], dict):
        try:
            return [{int(k): v for k, v in args[0].items()}, *args[1:]]
        except (TypeError, ValueError):
            return args
    return args


def apps(
    value: Mapping[str, Any], context: Mapping[str, Any], program: str, tolerance: Any, column: str | None
) -> Resolved:
    """APPS/TACO ``input_output`` (and the plain ``{"inputs", "outputs"}`` form, with no prelude)."""
    fn_name = _function_name(value.get("fn_name"), value.get("func_name"), context.get("fn_name"))
    inputs, outputs = value["inputs"], value["outputs"]
    named = column == "input_output"
    if fn_name is None:
        tol = value.get("tolerance", tolerance)
        form, prelude = ("apps_stdio", APPS_PRELUDE) if named else ("stdio", "")
        return Resolved(io_spec(inputs, outputs, tol), form, prelude)
    if not isinstance(inputs, (list, tuple)) or not isinstance(outputs, (list, tuple)) or len(inputs) != len(outputs):
        raise InvalidReference("call-based tests need 'inputs' and 'outputs' lists of the same length")
    cases = [(_int_keyed(_arguments(i)), o) for i, o in zip(inputs, outputs, strict=True)]
    return Resolved(call_tests(fn_name, cases, "apps", program), "apps_call", APPS_PRELUDE)


def mbpp(tests: Sequence[str], context: Mapping[str, Any]) -> Resolved:
    """MBPP ``test_list``: assert strings, after ``test_imports`` and ``test_setup_code``."""
    imports = column_value(dict(context), "test_imports") or []
    imports = [imports] if isinstance(imports, str) else [str(i) for i in imports]
    setup = context.get("test_setup_code") if isinstance(context.get("test_setup_code"), str) else ""
    head = "\n".join([*imports, setup or ""]).strip()
    test = "\n".join(x for x in (head, *tests) if x.strip())
    return Resolved({"mode": "function", "test": test, "entry_point": None}, "mbpp", head)


def livecodebench(
    public: Sequence[Any], context: Mapping[str, Any], program: str, public_only: bool, column: str | None
) -> Resolved:
    """LiveCodeBench: public (and, unless ``public_only``, private) cases, ``stdin`` or ``functional``."""
    sets = {"public": list(public)}
    if column == "private_test_cases":
        sets = {"private": list(public)}
    elif not public_only and context.get("private_test_cases") not in (None, ""):
        private = context["private_test_cases"]
        try:
            private = decode_packed_tests(private) if isinstance(private, str) else private
        except UnsafeData as exc:
            raise InvalidReference(f"private_test_cases cannot be read safely: {exc}") from None
        if not isinstance(private, list):
            raise InvalidReference("private_test_cases must hold a list of test cases")
        sets["private"] = private
    cases = [c for tests in sets.values() for c in tests]
    for case in cases:
        if not isinstance(case, Mapping) or "input" not in case or "output" not in case:
            raise InvalidReference("LiveCodeBench test cases are {'input', 'output', 'testtype'} objects")
    kinds = {str(c.get("testtype", "stdin")) for c in cases}
    counts = {name: len(tests) for name, tests in sets.items()}
    if kinds == {"stdin"}:
        spec = io_spec([c["input"] for c in cases], [c["output"] for c in cases], "value")
        return Resolved(spec, "livecodebench_stdio", LCB_PRELUDE, sets=counts)
    if kinds != {"functional"}:
        raise InvalidReference(f"LiveCodeBench test types must be all 'stdin' or all 'functional', got {sorted(kinds)}")
    metadata = column_value(dict(context), "metadata")
    own = cases[0].get("metadata")
    own = parse_column(own) if isinstance(own, str) else own
    fn_name = _function_name(
        metadata.get("func_name") if isinstance(metadata, Mapping) else None,
        own.get("func_name") if isinstance(own, Mapping) else None,
        context.get("func_name"),
        context.get("fn_name"),
    )
    if fn_name is None:
        raise InvalidReference("functional LiveCodeBench tests need metadata {'func_name': ...}")
    call_cases = [(_json_lines(c["input"]), _json_value(c["output"])) for c in cases]
    return Resolved(call_tests(fn_name, call_cases, "lcb", program), "livecodebench_call", LCB_PRELUDE, sets=counts)


def _json_lines(text: Any) -> list[Any]:
    if not isinstance(text, str):
        return _arguments(text)
    return [_json_value(line) for line in text.split("\n") if line.strip()]


def _json_value(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    import json

    try:
        return json.loads(text)
    except ValueError:
        raise InvalidReference(f"a functional LiveCodeBench value is not JSON: {text[:80]!r}") from None


def _codecontests_set(value: Any, name: str) -> tuple[list[Any], list[Any]]:
    value = parse_column(value)
    if value is None:
        return [], []
    if not isinstance(value, Mapping) or "input" not in value or "output" not in value:
        raise InvalidReference(f"CodeContests {name} must be {{'input': [...], 'output': [...]}}")
    inputs, outputs = value["input"], value["output"]
    inputs = [inputs] if isinstance(inputs, str) else list(inputs or [])
    outputs = [outputs] if isinstance(outputs, str) else list(outputs or [])
    if len(inputs) != len(outputs):
        raise InvalidReference(f"CodeContests {name} has {len(inputs)} inputs and {len(outputs)} outputs")
    return inputs, outputs


def codecontests(public: Any, context: Mapping[str, Any], public_only: bool, column: str | None) -> Resolved:
    """CodeContests: the named set, and (from ``public_tests``) ``private_tests`` and ``generated_tests``."""
    named = column if column in ("private_tests", "generated_tests") else "public_tests"
    sets = {named: _codecontests_set(public, named)}
    if named == "public_tests" and not public_only:
        for other in ("private_tests", "generated_tests"):
            if context.get(other) is not None:
                sets[other] = _codecontests_set(context[other], other)
    inputs = [x for ins, _ in sets.values() for x in ins]
    outputs = [y for _, outs in sets.values() for y in outs]
    spec = io_spec(inputs, outputs, CODECONTESTS_TOLERANCE, dict(CODECONTESTS_COMPARE))
    return Resolved(spec, "codecontests", sets={name: len(ins) for name, (ins, _) in sets.items()})


def verification_info(value: Mapping[str, Any], program: str) -> Resolved:
    """open-r1 / PrimeIntellect ``verification_info``: ``{"language", "test_cases": [...]}``."""
    language = value.get("language")
    if isinstance(language, str) and language.strip().lower() not in PYTHON_LANGUAGES:
        raise InvalidReference(f"verification_info is for language {language!r}; the code verifier runs Python")
    cases = parse_column(value.get("test_cases"))
    if not isinstance(cases, list) or not cases or not all(isinstance(c, Mapping) for c in cases):
        raise InvalidReference("verification_info needs 'test_cases': a non-empty list of {'input', 'output', 'type'}")
    if any("input" not in c or "output" not in c for c in cases):
        raise InvalidReference("every verification_info test case needs 'input' and 'output'")
    kinds = {str(c.get("type") or "stdin_stdout") for c in cases}
    if kinds == {"stdin_stdout"}:
        spec = io_spec([c["input"] for c in cases], [c["output"] for c in cases], None)
        return Resolved(spec, "verification_info_stdio")
    if kinds != {"function_call"}:
        raise InvalidReference(f"verification_info test types must all be 'stdin_stdout' or 'function_call': {kinds}")
    fn_name = _function_name(*(c.get("fn_name") for c in cases), value.get("fn_name"))
    call_cases = [(_int_keyed(_arguments(c["input"])), _output(c["output"])) for c in cases]
    return Resolved(call_tests(fn_name, call_cases, "apps", program), "verification_info_call", APPS_PRELUDE)


def _output(value: Any) -> Any:
    return parse_column(value) if isinstance(value, str) else value
