"""The tool-call verifier (``tool_call``): the completion's function calls against the row's reference calls.

Two stages: **extract** (:mod:`.calls`: the calls of the final assistant turn, from ``tool_calls`` or
``<tool_call>`` blocks outside ``<think>``) then **compare** (:mod:`.compare`: each call against each reference
call, the best one-to-one pairing, or position by position with ``order: strict``).

A call's score is the share of its reference call's arguments it gets right (0 for another function);
``partial`` mode pays the paired calls' total divided by the larger of the two call counts, so a missing call
and an extra call each cost a share; ``exact`` mode pays 1.0 only when every call pairs off perfectly.
With the row's ``tools`` (function schemas), a call to a function not among them, or whose arguments its
schema rejects (a required argument missing, a wrong type), scores 0. So does every call to a function the
completion calls more often than the reference does: a call repeated, or repeated with each value it might
take, is a hedge, not an answer.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from rewardkit._errors import ConfigError
from rewardkit.profiling import stage
from rewardkit.verifiers.base import Verifier
from rewardkit.verifiers.tool_calls.calls import Call, MalformedCall, completion_calls
from rewardkit.verifiers.tool_calls.compare import Rules, best_pairs, normalise, score_call
from rewardkit.verifiers.tool_calls.reference import BadReference, reference_calls
from rewardkit.verifiers.tool_calls.schemas import checker, row_tools
from rewardkit.verifiers.tool_calls.text_forms import DEFAULT_FORMATS, FORMATS
from rewardkit.verifiers.verdict import Status, Verdict


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
    ``formats``: the text forms of calls read (:mod:`.text_forms`); the default reads the forms behind a
    model's own marker, ``json`` and ``pythonic`` (no marker) only when named.
    """

    mode: Literal["exact", "partial"] = "exact"
    order: Literal["any", "strict"] = "any"
    strings: Literal["exact", "casefold", "bfcl"] = "exact"
    turns: Literal["final", "all"] = "final"
    validate: bool = True
    max_calls: int = 64
    strict_integers: bool = False
    formats: tuple[str, ...] = DEFAULT_FORMATS

    def __post_init__(self) -> None:
        formats = (self.formats,) if isinstance(self.formats, str) else tuple(self.formats)
        unknown = [f for f in formats if f not in FORMATS]
        if unknown or not formats:
            raise ConfigError(
                f"tool_call: formats must be a non-empty list of {', '.join(FORMATS)}, got {self.formats!r}"
            )
        object.__setattr__(self, "formats", formats)
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


def schema_errors(call: Call, schema_json: str, strings: str = "exact") -> list[str]:
    """What the function's parameters schema (its canonical JSON) rejects in the call's arguments (empty when
    it accepts them). Under a lenient string rule, a string outside an ``enum`` that reads as one of its
    members is let through."""
    errors = []
    for keyword, instance, value, message in checker(schema_json)(dict(call.arguments)):
        if strings != "exact" and keyword == "enum" and isinstance(instance, str):
            members = value if isinstance(value, list) else []
            wanted = normalise(instance, strings)
            if any(isinstance(m, str) and normalise(m, strings) == wanted for m in members):
                continue
        errors.append(message)
    return sorted(errors)[:5]


_text_reference = functools.lru_cache(maxsize=4096)(reference_calls)  # a row's JSON text, read once


def dotted_names(calls: list[Call], known: list[str]) -> list[Call]:
    """Calls with a dotted function's name written with underscores (``math_factorial`` for the row's
    ``math.factorial``: OpenAI-style APIs forbid dots) renamed to it, where exactly one known name reads so."""
    dotted: dict[str, list[str]] = {}
    for name in known:
        if "." in name:
            dotted.setdefault(name.replace(".", "_"), []).append(name)
    if not dotted:
        return calls
    names = set(known)
    out = []
    for call in calls:
        targets = dotted.get(call.name, [])
        if call.name not in names and len(targets) == 1:
            call = Call(targets[0], call.arguments)
        out.append(call)
    return out


def _given(tools: Any) -> bool:
    return tools is not None and not (isinstance(tools, str) and not tools.strip())


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
        formats: Sequence[str] = DEFAULT_FORMATS,
    ) -> None:
        self.config = ToolCallConfig(
            mode,  # type: ignore[arg-type]
            order,  # type: ignore[arg-type]
            strings,  # type: ignore[arg-type]
            turns,  # type: ignore[arg-type]
            validate,
            max_calls,
            strict_integers,
            tuple(formats) if not isinstance(formats, str) else (formats,),
        )
        self.rules = Rules(self.config.strings, self.config.strict_integers)

    def _verify(self, completion: Any, reference: Any, **context: Any) -> Verdict:
        try:
            expected = _text_reference(reference) if isinstance(reference, str) else reference_calls(reference)
            tools = next((t for t in (context.get("tools"), context.get("functions")) if _given(t)), None)
            compiled = row_tools(tools) if tools is not None else None
        except BadReference as exc:
            return Verdict.fail(Status.INVALID_REFERENCE, reason=str(exc)[:500])
        with stage("tool_call: extract"):
            try:
                calls = completion_calls(completion, self.config.turns, self.config.formats)
            except MalformedCall as exc:
                return Verdict.fail(Status.MALFORMED_CALL, reason=str(exc)[:500])
        if not expected:  # the row expects no call: right when none is made
            if not calls:
                return Verdict(1.0, True, Status.OK, "", {"calls": 0, "expected": 0})
            extracted = json.dumps([c.to_dict() for c in calls], default=repr)[:1000]
            details = {"calls": len(calls), "expected": 0, "problems": {"0": ["no call was expected"]}}
            return Verdict(0.0, False, Status.OK, extracted, details)
        if not calls:
            return Verdict.fail(Status.NO_ANSWER, expected=len(expected))
        calls = dotted_names(calls, list(compiled) if compiled is not None else [r.name for r in expected])
        extracted = json.dumps([c.to_dict() for c in calls], default=repr)[:1000]
        if len(calls) > self.config.max_calls:
            return Verdict.fail(Status.TOO_MANY_CALLS, extracted, calls=len(calls), max_calls=self.config.max_calls)
        with stage("tool_call: compare"):
            try:
                return self._compare(calls, expected, compiled, extracted)
            except BadReference as exc:
                return Verdict.fail(Status.INVALID_REFERENCE, extracted, reason=str(exc)[:500])

    def _compare(
        self,
        calls: list[Call],
        expected: list[Any],
        compiled: dict[str, tuple[Mapping[str, Any], str]] | None,
        extracted: str,
    ) -> Verdict:
        schemas = None if compiled is None else {name: schema for name, (schema, _) in compiled.items()}
        status = Status.OK
        problems: dict[int, list[str]] = {}
        rejected: set[int] = set()
        if compiled is not None and schemas is not None:
            for i, call in enumerate(calls):
                if call.name not in schemas:
                    problems[i] = [f"unknown function {call.name!r}"]
                    rejected.add(i)
                    status = Status.UNKNOWN_FUNCTION
                elif self.config.validate:
                    errors = schema_errors(call, compiled[call.name][1], self.config.strings)
                    if errors:
                        problems[i] = errors
                        rejected.add(i)
                        status = status if status != Status.OK else Status.SCHEMA_VIOLATION
        wanted = Counter(r.name for r in expected)
        made = Counter(c.name for c in calls)
        for i, call in enumerate(calls):
            if 0 < wanted[call.name] < made[call.name] and i not in rejected:
                times = f"{made[call.name]} times, the reference {wanted[call.name]}"
                problems[i] = [f"{call.name!r} called {times}: a hedge or a repeat earns nothing"]
                rejected.add(i)
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
        perfect = len(calls) == len(expected) and all(table[i][j] == 1.0 for i, j in pairs) and status == Status.OK
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
