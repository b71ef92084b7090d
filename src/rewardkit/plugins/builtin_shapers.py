"""Built-in shapers and combinators, registered like any plugin's.

Combinators (``sum``, ``product``, ``min``, ``max``, ``gate``, ``clip``, ``scale``) go to the shapers
registry (a spec's ``combine:``); the shaping rewards that need no verifier of their own (format,
length, repetition) go to the rewards registry (a spec's ``reward:``).
"""

from __future__ import annotations

from rewardkit.plugins import hookimpl
from rewardkit.plugins.hookspecs import Register


@hookimpl
def register_shapers(register: Register) -> None:
    from rewardkit.rewards.combinators import BUILTIN_COMBINATORS

    for name, combinator in BUILTIN_COMBINATORS.items():
        register(name, combinator)


@hookimpl
def register_rewards(register: Register) -> None:
    from rewardkit.rewards.format_rewards import RepetitionPenalty, TagFormat
    from rewardkit.rewards.length_rewards import CosineLength, SoftOverlong

    register("tag_format", TagFormat)
    register("soft_overlong", SoftOverlong)
    register("cosine_length", CosineLength)
    register("repetition_penalty", RepetitionPenalty)
