"""Built-in rewards, registered like any plugin's.

The verifier-backed rewards are factories: making one checks its parameters, and the verifier itself is
created on the reward's first call (shared per process by verifier name and parameters).
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
