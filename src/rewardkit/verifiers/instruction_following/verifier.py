"""The instruction-following verifier ("ifeval"): does the response obey each verifiable instruction?

Two stages:

1. **extract** — the answer is the text after the last ``</think>``; a ``<think>`` never closed is no
   answer (the model ran out of tokens mid-thought). The row's instructions and their arguments are read
   from the reference (:mod:`.rows`); an unknown id or arguments that do not fit are ``invalid_reference``
   (the dataset's fault: no reward).
2. **compare** — each instruction's check (:mod:`.ifeval_checks`, open-instruct's in :mod:`.extended_checks`
   and :mod:`.func_name_checks`, IFBench's in :mod:`.ifbench_checks` and :mod:`.ifbench_format_checks`) runs
   on the answer. ``mode="strict"`` checks the answer as it is; ``mode="loose"`` (IFEval's loose accuracy) also
   accepts it when the check passes on the answer without its first line, without its last line, without
   both, or with every ``*`` removed (and those combined). ``aggregate="all"`` scores 1.0 only when every
   instruction is followed; ``"fraction"`` scores the share followed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit.profiling import stage
from rewardkit.verifiers.base import Verifier
from rewardkit.verifiers.instruction_following import (  # noqa: F401 - importing registers their checks
    extended_checks,
    func_name_checks,
    ifbench_checks,
    ifbench_format_checks,
    ifeval_checks,
)
from rewardkit.verifiers.instruction_following.registry import CHECKS, BadArguments, bind
from rewardkit.verifiers.instruction_following.rows import BadRow, Instruction, read_instructions
from rewardkit.verifiers.instruction_following.text import LanguageUnavailable
from rewardkit.verifiers.text import THINK_CLOSE, completion_text
from rewardkit.verifiers.verdict import Status, Verdict

THINK_OPEN = "<think>"
MODES = ("strict", "loose")
AGGREGATES = ("all", "fraction")


@dataclass(frozen=True)
class IFEvalConfig:
    """Settings of :class:`IFEvalVerifier`.

    ``mode``: ``strict`` or ``loose`` (IFEval's two accuracies). ``aggregate``: ``all`` (1.0 only when every
    instruction is followed) or ``fraction`` (the share followed). ``strip_think``: judge only the text after
    the reasoning block. ``max_chars``: a longer answer is judged on its first this many characters.
    """

    mode: str = "strict"
    aggregate: str = "all"
    strip_think: bool = True
    max_chars: int = 100_000

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ConfigError(f"ifeval: mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        if self.aggregate not in AGGREGATES:
            raise ConfigError(f"ifeval: aggregate must be one of {', '.join(AGGREGATES)}, got {self.aggregate!r}")
        if self.max_chars < 1000:
            raise ConfigError(f"ifeval: max_chars must be at least 1000, got {self.max_chars!r}")


def answer_of(text: str, strip_think: bool = True) -> str | None:
    """The answer part of a completion; None when a reasoning block was opened and never closed."""
    if not strip_think:
        return text
    close = text.rfind(THINK_CLOSE)
    if close >= 0:
        return text[close + len(THINK_CLOSE) :]
    return None if THINK_OPEN in text else text


def loose_variants(response: str) -> list[str]:
    """IFEval's loose readings of a response: as is, without its first and/or last line, each also without
    asterisks (markdown emphasis the instruction did not ask for)."""
    lines = response.split("\n")
    trimmed = [response, "\n".join(lines[1:]).strip(), "\n".join(lines[:-1]).strip(), "\n".join(lines[1:-1]).strip()]
    return trimmed + [t.replace("*", "") for t in trimmed]


class IFEvalVerifier(Verifier):
    """Verifiable instructions (IFEval and open-instruct's extended set) checked on a completion.

    The reference is the row's instruction ids (google/IFEval's ``instruction_id_list``, with context
    ``kwargs``) or open-instruct's ``ground_truth`` JSON. Context ``prompt`` (or ``question``) fills
    ``combination:repeat_prompt`` when the row's kwargs lack ``prompt_to_repeat``. The verdict's details list
    every instruction with whether it was followed.
    """

    name = "ifeval"
    batch_threads = 1  # pure Python, microseconds to milliseconds a sample: inline
    params_schema = IFEvalConfig

    def __init__(
        self,
        *,
        mode: str = IFEvalConfig.mode,
        aggregate: str = IFEvalConfig.aggregate,
        strip_think: bool = IFEvalConfig.strip_think,
        max_chars: int = IFEvalConfig.max_chars,
    ) -> None:
        self.config = IFEvalConfig(mode, aggregate, strip_think, max_chars)

    def _verify(self, completion: Any, reference: Any, **context: Any) -> Verdict:
        prompt = context.get("prompt", context.get("question"))
        prompt = prompt if isinstance(prompt, str) else None
        with stage("ifeval: extract"):
            try:
                instructions = read_instructions(reference, context.get("kwargs"))
                bound = [self._bind(instruction, prompt) for instruction in instructions]
            except (BadRow, BadArguments) as exc:
                return Verdict.fail(Status.INVALID_REFERENCE, reason=str(exc))
            answer = answer_of(completion_text(completion, turns="final", reasoning=False), self.config.strip_think)
            ids = [i.id for i in instructions]
            if answer is None or not answer.strip():
                reason = "unclosed <think>" if answer is None else "empty answer"
                return Verdict.fail(Status.NO_ANSWER, instructions=ids, reason=reason)
            answer = answer[: self.config.max_chars]
        with stage("ifeval: compare"):
            readings = loose_variants(answer) if self.config.mode == "loose" else [answer]
            readings = [r for r in readings if r.strip()]
            try:
                followed = [any(fn(r, args) for r in readings) for fn, args in bound]
            except LanguageUnavailable as exc:
                return Verdict.fail(Status.ERROR, error=str(exc))
        return self._verdict(ids, followed, answer)

    def _bind(self, instruction: Instruction, prompt: str | None) -> tuple[Any, Mapping[str, Any]]:
        spec = CHECKS.get(instruction.id)
        if spec is None:
            raise BadRow(f"unknown instruction id {instruction.id!r} (rewardkit knows {len(CHECKS)}: see docs)")
        return spec.fn, bind(spec, instruction.kwargs, prompt)

    def _verdict(self, ids: list[str], followed: list[bool], answer: str) -> Verdict:
        done = sum(followed)
        correct = done == len(followed)
        score = float(correct) if self.config.aggregate == "all" else done / len(followed)
        details = {
            "mode": self.config.mode,
            "instructions": [{"id": i, "followed": f} for i, f in zip(ids, followed, strict=True)],
            "followed": done,
            "total": len(followed),
        }
        extracted = f"{done}/{len(followed)} followed"
        return Verdict(score, correct, Status.OK, extracted, details)
