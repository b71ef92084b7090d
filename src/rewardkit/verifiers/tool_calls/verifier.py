"""The tool-call verifier (``tool_call``): the completion's function calls against the row's reference calls.

Two stages: **extract** (:mod:`.calls`: the calls of the final assistant turn, from ``tool_calls`` or
``<tool_call>`` blocks outside ``<think>``) then **compare** (:mod:`.compare`: each call against each reference
call, the best one-to-one pairing, or position by position with ``order: strict``).

A call's score is the share of its reference call's arguments it gets right (0 for another function);
``partial`` mode pays the paired calls' total divided by the larger of the two call counts, so a missing call
and an extra call each cost a share; ``exact`` mode pays 1.0 only when every call pairs off perfectly.
With the row's ``tools`` (function schemas), a call to a function not among them, or whose arguments its
schema rejects (a required argument missing, a wrong type), scores 0.
"""

from __future__ import annotations

import functools
import importlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from rewardkit._errors import ConfigError, VerifierError
from rewardkit.profiling import stage
from rewardkit.verifiers.base import Verifier
from rewardkit.verifiers.tool_calls.calls import Call, MalformedCall, completion_calls
from rewardkit.verifiers.tool_calls.compare import Rules, best_pairs, normalise, score_call
from rewardkit.verifiers.tool_calls.reference import BadReference, reference_calls, tool_schemas
from rewardkit.verifiers.verdict import (
    INVALID_REFERENCE,
    MALFORMED_CALL,
    NO_ANSWER,
    OK,
    SCHEMA_VIOLATION,
    TOO_MANY_CALLS,
    UNKNOWN_FUNCTION,
    Verdict,
)


@dataclass(frozen=True)
class ToolCallConfig:
    """Settings of :class:`ToolCallVerifier`.

    ``mode``: ``exact`` (1.0 or 0.0) or ``partial`` (per call and per argument). ``order``: ``any`` pairs calls
    whatever their order, ``strict`` pairs them by position. ``strings``: ``exact``, ``casefold`` or ``bfcl``
    (see :mod:`.compare`). ``turns``: read the ``final`` assistant turn or ``all`` of them.
    ``validate``: check arguments against the row's tool schemas (needs ``jsonschema``: ``rewardkit[tools]``).
    ``max_calls``: more calls than this in one completion earn 0 (``too_many_calls``) without being compared.
    ``strict_integers``: an ``integer`` parameter refuses every float, ``5.0`` too (BFCL's rule; JSON Schema
    takes ``5.0`` for an integer).
    """

    mode: Literal["exact", "partial"] = "exact"
    order: Literal["any", "strict"] = "any"
    strings: Literal["exact", "casefold", "bfcl"] = "exact"
    turns: Literal["final", "all"] = "final"
    validate: bool = True
    max_calls: int = 64
    strict_integers: bool = False

    def __post_init__(self) -> None:
        for name, allowed in (
            ("mode", ("exact", "partial")),
            ("order", ("any", "strict")),
            ("strings", ("exact", "casefold", "bfcl")),
            ("turns", ("final", "all")),
        ):
            if getattr(self, name) not in allowed:
                raise ConfigError(f"tool_call: {name} must be one of {', '.join(allowed)}, got {getattr(self, name)!r}")
        if not 1 <= self.max_calls <= 10_000:
            raise ConfigError(f"tool_call: max_calls must lie in [1, 10000], got {self.max_calls!r}")


@functools.lru_cache(maxsize=1024)
def _validator(schema_json: str) -> Any:
    try:  # imported by name: the optional dependency ships no type stubs
        jsonschema: Any = importlib.import_module("jsonschema")
    except ImportError:
        raise VerifierError(
            "tool_call: checking arguments against the tools' schemas needs jsonschema: "
            "pip install 'rewardkit[tools]' (or set validate: false)"
        ) from None
    schema = json.loads(schema_json)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise BadReference(f"a tool's parameters are not a valid JSON Schema: {exc.message}") from None
    return cls(schema)


def schema_errors(call: Call, schema: Mapping[str, Any], strings: str = "exact") -> list[str]:
    """What the function's parameters schema rejects in the call's arguments (empty when it accepts them).

    Under a lenient string rule, a string outside an ``enum`` that reads as one of its members is let through."""
    validator = _validator(json.dumps(schema, sort_keys=True, default=repr))
    errors = []
    for error in validator.iter_errors(dict(call.arguments)):
        if strings != "exact" and error.validator == "enum" and isinstance(error.instance, str):
            members = error.validator_value if isinstance(error.validator_value, list) else []
            wanted = normalise(error.instance, strings)
            if any(isinstance(m, str) and normalise(m, strings) == wanted for m in members):
                continue
        errors.append(error.message)
    return sorted(errors)[:5]


class ToolCallVerifier(Verifier):
    """Function calls against reference calls. The reference is the row's expected calls
    (:mod:`.reference` lists the forms read); context ``tools``: the function schemas (optional)."""

    name = "tool_call"
    batch_threads = 1  # pure Python, microseconds per sample
    reads_messages = True  # OpenAI tool_calls live in the chat messages, not in their text
    params_schema = ToolCallConfig

    def __init__(
        self,
        *,
        mode: str = ToolCallConfig.mode,
        order: str = ToolCallConfig.order,
        strings: str = ToolCallConfig.strings,
        turns: str = ToolCallConfig.turns,
        validate: bool = ToolCallConfig.validate,
        max_calls: int = ToolCallConfig.max_calls,
        strict_integers: bool = ToolCallConfig.strict_integers,
    ) -> None:
        self.config = ToolCallConfig(
            mode,  # type: ignore[arg-type]
            order,  # type: ignore[arg-type]
            strings,  # type: ignore[arg-type]
            turns,  # type: ignore[arg-type]
            validate,
            max_calls,
            strict_integers,
        )
        self.rules = Rules(self.config.strings, self.config.strict_integers)

    def _verify(self, completion: Any, reference: Any, **context: Any) -> Verdict:
        try:
            expected = reference_calls(reference)
            tools = context.get("tools")
            schemas = tool_schemas(tools) if tools is not None and tools != "" else None
        except BadReference as exc:
            return Verdict.fail(INVALID_REFERENCE, reason=str(exc)[:500])
        with stage("tool_call: extract"):
            try:
                calls = completion_calls(completion, self.config.turns)
            except MalformedCall as exc:
                return Verdict.fail(MALFORMED_CALL, reason=str(exc)[:500])
        if not calls:
            return Verdict.fail(NO_ANSWER, expected=len(expected))
        extracted = json.dumps([c.to_dict() for c in calls], default=repr)[:1000]
        if len(calls) > self.config.max_calls:
            return Verdict.fail(TOO_MANY_CALLS, extracted, calls=len(calls), max_calls=self.config.max_calls)
        with stage("tool_call: compare"):
            try:
                return self._compare(calls, expected, schemas, extracted)
            except BadReference as exc:
                return Verdict.fail(INVALID_REFERENCE, extracted, reason=str(exc)[:500])

    def _compare(
        self,
        calls: list[Call],
        expected: list[Any],
        schemas: dict[str, Mapping[str, Any]] | None,
        extracted: str,
    ) -> Verdict:
        status = OK
        problems: dict[int, list[str]] = {}
        rejected: set[int] = set()
        if schemas is not None:
            for i, call in enumerate(calls):
                if call.name not in schemas:
                    problems[i] = [f"unknown function {call.name!r}"]
                    rejected.add(i)
                    status = UNKNOWN_FUNCTION
                elif self.config.validate:
                    errors = schema_errors(call, schemas[call.name], self.config.strings)
                    if errors:
                        problems[i] = errors
                        rejected.add(i)
                        status = status if status != OK else SCHEMA_VIOLATION
        table = [
            [0.0 if i in rejected else score_call(c, r, (schemas or {}).get(r.name), self.rules)[0] for r in expected]
            for i, c in enumerate(calls)
        ]
        if self.config.order == "strict":
            pairs = [(i, i) for i in range(min(len(calls), len(expected)))]
        else:
            pairs = best_pairs(table)
        for i, j in pairs:
            if i not in rejected and table[i][j] < 1.0:
                problems[i] = score_call(calls[i], expected[j], (schemas or {}).get(expected[j].name), self.rules)[1]
        paired = {i for i, _ in pairs}
        for i in range(len(calls)):
            if i not in paired:
                problems.setdefault(i, []).append("no reference call left for it")
        total = sum(table[i][j] for i, j in pairs)
        share = total / max(len(calls), len(expected))
        perfect = len(calls) == len(expected) and all(table[i][j] == 1.0 for i, j in pairs) and status == OK
        score = share if self.config.mode == "partial" else float(perfect)
        details: dict[str, Any] = {
            "calls": len(calls),
            "expected": len(expected),
            "pairs": [[i, j, round(table[i][j], 4)] for i, j in pairs],
        }
        missed = sorted(set(range(len(expected))) - {j for _, j in pairs})
        if missed:
            details["missed"] = [expected[j].name for j in missed]
        if problems:
            details["problems"] = {str(i): p for i, p in sorted(problems.items())}
        return Verdict(min(1.0, score), perfect, status, extracted, details)
