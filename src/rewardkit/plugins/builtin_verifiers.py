"""Built-in verifiers, registered like any plugin's."""

from __future__ import annotations

from rewardkit.plugins import hookimpl
from rewardkit.plugins.hookspecs import Register


@hookimpl
def register_verifiers(register: Register) -> None:
    from rewardkit.verifiers.code_verifier import CodeVerifier
    from rewardkit.verifiers.math_verifier import MathVerifier
    from rewardkit.verifiers.mcq_verifier import MCQVerifier

    register("code", CodeVerifier)
    register("math", MathVerifier)
    register("mcq", MCQVerifier)
