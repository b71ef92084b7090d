"""What reading a reference gives: the harness test spec, and what goes before the program."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rewardkit.verifiers.code_tests.formats.errors import InvalidReference
from rewardkit.verifiers.code_tests.formats.values import parse_column


@dataclass(frozen=True)
class Resolved:
    """A reference read in one form.

    ``spec`` is the harness's test spec before instrumentation: ``{"mode": "function", "test", "entry_point",
    ...}`` or ``{"mode": "io", "inputs", "outputs", "tolerance", "compare"}``. ``prefix`` is code put before the
    program (HumanEval's prompt), ``prelude`` the dataset grader's imports (after the program's ``__future__``
    imports); ``form`` names the reading (``"apps_call"``, ``"codecontests"``, ...), shown in the verdict.
    """

    spec: dict[str, Any]
    form: str
    prelude: str = ""
    prefix: str = ""
    sets: dict[str, int] = field(default_factory=dict)  # tests per test set, where a row has several


def as_text(value: Any) -> str:
    """One stdin or expected stdout: a string, or a list of lines."""
    if isinstance(value, (list, tuple)):
        return "\n".join(str(v) for v in value) + "\n"
    return str(value)


def io_spec(
    inputs: Sequence[Any], outputs: Sequence[Any], tolerance: Any, compare: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A stdin/stdout spec; raises InvalidReference unless there is one output per input (at least one)."""
    if not isinstance(inputs, (list, tuple)) or not isinstance(outputs, (list, tuple)):
        raise InvalidReference("stdin/stdout tests need 'inputs' and 'outputs' as lists of strings")
    if len(inputs) != len(outputs) or not inputs:
        raise InvalidReference(
            f"stdin/stdout tests need as many outputs as inputs (at least one): got {len(inputs)} and {len(outputs)}"
        )
    for value in (*inputs, *outputs):
        if not _is_text(value):
            raise InvalidReference(
                f"a stdin/stdout test value must be text (or a list of lines), got {_shown(value)}: "
                "call arguments and return values need a function name ('fn_name') to call"
            )
    spec: dict[str, Any] = {
        "mode": "io",
        "inputs": [as_text(x) for x in inputs],
        "outputs": [as_text(x) for x in outputs],
        "tolerance": tolerance,
    }
    if compare:
        spec["compare"] = compare
    return spec


def _is_text(value: Any) -> bool:
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return True
    return isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def column_value(context: dict[str, Any], name: str) -> Any:
    """A context column read as data (JSON or literal text parsed), None when absent or empty."""
    value = context.get(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return parse_column(value)
