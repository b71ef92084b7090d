"""Built-in verifiers, registered like any plugin's (loaded by name as ``rewardkit.verifiers.builtin``)."""

from __future__ import annotations

from rewardkit.plugins import hookimpl
from rewardkit.plugins.hookspecs import Register


@hookimpl
def register_verifiers(register: Register) -> None:
    from rewardkit.verifiers.code_tests.verifier import CodeVerifier
    from rewardkit.verifiers.instruction_following.verifier import IFEvalVerifier
    from rewardkit.verifiers.judge.hybrid import HybridVerifier
    from rewardkit.verifiers.judge.rubric import RubricVerifier
    from rewardkit.verifiers.judge.verifier import JudgeVerifier
    from rewardkit.verifiers.math_answer.verifier import MathVerifier
    from rewardkit.verifiers.multiple_choice.verifier import MCQVerifier
    from rewardkit.verifiers.tool_calls.verifier import ToolCallVerifier

    register("code", CodeVerifier)
    register("hybrid", HybridVerifier)
    register("ifeval", IFEvalVerifier)
    register("judge", JudgeVerifier)
    register("math", MathVerifier)
    register("mcq", MCQVerifier)
    register("rubric", RubricVerifier)
    register("tool_call", ToolCallVerifier)
