"""Fixtures for the reward tests: the test plugin (small rewards, a counting verifier)."""

from __future__ import annotations

import pytest
from reward_helpers import CountingVerifier, RewardTestPlugin

from rewardkit.rewards.verifier_rewards import clear_verdict_memo


@pytest.fixture
def test_plugin(rewardkit_register):
    CountingVerifier.reset()
    clear_verdict_memo()
    rewardkit_register(RewardTestPlugin(), name="rewardkit-test-rewards")
    yield
    CountingVerifier.reset()
