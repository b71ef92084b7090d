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


@pytest.fixture(scope="module")
def ray_cluster():
    """A local Ray of 2 CPUs for one test module (None where ray is not installed)."""
    try:
        import ray
    except ImportError:
        yield None
        return
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield ray
    ray.shutdown()


@pytest.fixture
def ray(ray_cluster, ci_require):
    ci_require(ray_cluster is not None, "ray is not installed (pip install 'rewardkit[ray]')")
    return ray_cluster
