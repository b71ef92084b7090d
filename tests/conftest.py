"""Shared fixtures: a missing part is a skip locally and a failure in CI (tests/rk_testing.py); the test plugin
(small rewards, a counting verifier; tests/reward_helpers.py) and a local Ray for the reward and scoring tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from reward_helpers import CountingVerifier, RewardTestPlugin
from rewardkit.rewards.verifier_rewards import clear_verdict_memo
from rk_testing import require

HOSTILE = Path(__file__).parent / "hostile"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Everything under tests/hostile carries the ``hostile`` marker (`make test-fast` deselects it)."""
    for item in items:
        if HOSTILE in item.path.parents:
            item.add_marker(pytest.mark.hostile)


@pytest.fixture
def ci_require():
    return require


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
