"""The instruction-following verifier (``ifeval``): IFEval's verifiable instructions and their extensions."""

from rewardkit.verifiers.instruction_following.verifier import IFEvalConfig, IFEvalVerifier

__all__ = ["IFEvalConfig", "IFEvalVerifier"]
