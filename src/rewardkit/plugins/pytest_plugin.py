"""Old home of rewardkit's pytest plugin, now :mod:`rewardkit.testing.pytest_plugin`.

An install made before the move names this module in its ``pytest11`` entry point until it is
reinstalled; this module keeps such an install working. Remove it one release after the move.
"""

from rewardkit.testing.pytest_plugin import (
    assert_verdicts,
    call_reward,
    rewardkit_assert_verdicts,
    rewardkit_call_reward,
    rewardkit_register,
)

__all__ = [
    "assert_verdicts",
    "call_reward",
    "rewardkit_assert_verdicts",
    "rewardkit_call_reward",
    "rewardkit_register",
]
