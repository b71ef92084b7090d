"""Built-in rewards, registered like any plugin's.

The verifier-backed rewards (``verifier_accuracy`` wraps any registered verifier) are factories: making one checks its parameters, and the verifier itself is
created on the reward's first call (shared per process by verifier name and parameters). The reasoning-format
rewards (``think_format``, ``reasoning_steps``, ``tag_count``) need no verifier.
"""

from __future__ import annotations

from rewardkit.plugins import hookimpl
from rewardkit.plugins.hookspecs import Register


@hookimpl
def register_rewards(register: Register) -> None:
    from rewardkit.rewards import verifier_rewards as vr
    from rewardkit.rewards.spec import reward_factory

    for factory in (vr.math_accuracy, vr.mcq_accuracy, vr.code_pass_rate, vr.code_all_pass, vr.verifier_accuracy):
        register(factory.__name__, reward_factory(factory))

    from rewardkit.rewards.format_rewards import ReasoningSteps, TagCount, ThinkFormat

    register("think_format", ThinkFormat)
    register("reasoning_steps", ReasoningSteps)
    register("tag_count", TagCount)
