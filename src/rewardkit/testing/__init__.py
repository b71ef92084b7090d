"""Test helpers for users of rewardkit: the pytest plugin (fixtures for testing a reward or a verifier) and
:class:`FakeSandbox`, a sandbox backend that runs nothing.

The top layer beside the CLI: may import every other part of rewardkit.
"""

from rewardkit.testing.fake_sandbox import FakeRun, FakeSandbox

__all__ = ["FakeRun", "FakeSandbox"]
