"""Built-in rewards and combinators, registered like any plugin's (the plugin manager loads this module by
name as the built-in plugin ``rewardkit.rewards.builtin``).

The verifier-backed rewards (``verifier_accuracy`` wraps any registered verifier) are factories: making one
checks its parameters, and the verifier itself is created on the reward's first call (shared per process by
verifier name and parameters). The format, length and repetition rewards need no verifier; ``length_budget``
(L1) and ``group_length`` (Kimi k1.5) wrap a correctness reward. Combinators
(``sum``, ``product``, ``min``, ``max``, ``gate``, ``clip``, ``scale``) are a spec's ``combine:``. The names
of open-r1's recipes (``accuracy``, ``format``, ``cosine``, ``code``) are aliases of ours (``open_r1_aliases``).
"""

from __future__ import annotations

from rewardkit.plugins import hookimpl
from rewardkit.plugins.hookspecs import Register


@hookimpl
def register_rewards(register: Register) -> None:
    from rewardkit.rewards import code_rewards, ifeval_rewards, judge_rewards
    from rewardkit.rewards import verifier_rewards as vr
    from rewardkit.rewards.environment_reward import EnvironmentReward
    from rewardkit.rewards.format_rewards import (
        ReasoningSteps,
        RepetitionPenalty,
        TagCount,
        TagFormat,
        ThinkFormat,
    )
    from rewardkit.rewards.group_judge import GroupJudgeReward
    from rewardkit.rewards.group_length import GroupLength
    from rewardkit.rewards.length_budget import LengthBudget
    from rewardkit.rewards.length_rewards import CosineLength, SoftOverlong
    from rewardkit.rewards.spec import reward_factory
    from rewardkit.rewards.tool_call_rewards import tool_call_accuracy
    from rewardkit.rewards.verifier_accuracy import verifier_accuracy

    for factory in (
        vr.math_accuracy,
        vr.mcq_accuracy,
        code_rewards.code_pass_rate,
        code_rewards.code_all_pass,
        ifeval_rewards.ifeval_accuracy,
        verifier_accuracy,
        judge_rewards.judge_accuracy,
        judge_rewards.hybrid_accuracy,
        judge_rewards.rubric_score,
        tool_call_accuracy,
    ):
        register(factory.__name__, reward_factory(factory))
    register("think_format", ThinkFormat)
    register("reasoning_steps", ReasoningSteps)
    register("tag_count", TagCount)
    register("tag_format", TagFormat)
    register("soft_overlong", SoftOverlong)
    register("cosine_length", CosineLength)
    register("repetition_penalty", RepetitionPenalty)
    register("length_budget", LengthBudget)
    register("group_length", GroupLength)
    register("group_judge", GroupJudgeReward)
    register("environment_reward", EnvironmentReward)

    from rewardkit.rewards.open_r1_aliases import OPEN_R1_ALIASES

    for name, alias in OPEN_R1_ALIASES.items():
        register(name, alias)


@hookimpl
def register_combinators(register: Register) -> None:
    from rewardkit.rewards.combinators import BUILTIN_COMBINATORS

    for name, combinator in BUILTIN_COMBINATORS.items():
        register(name, combinator)
