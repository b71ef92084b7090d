"""``rewardkit.testing.FakeSandbox``: checked, recorded and answered like a backend, so a plugin author can test
what a verifier does with each kind of sandbox answer without running anything."""

from __future__ import annotations

import pytest

import rewardkit as rk
from rewardkit._errors import SandboxError
from rewardkit.sandbox.base import Limits, RunResult, Sandbox
from rewardkit.testing import FakeSandbox


def test_runs_are_checked_recorded_and_answered() -> None:
    box = FakeSandbox(lambda run: RunResult(exit_code=3, stdout=run.files["a.txt"]))
    assert isinstance(box, Sandbox)
    result = box.run(["cat", "a.txt"], {"a.txt": "hi"}, stdin=b"x", limits=Limits(wall_time=2.0))
    assert (result.exit_code, result.stdout) == (3, b"hi")
    (run,) = box.runs
    assert run.command == ("cat", "a.txt") and run.stdin == b"x" and run.limits.wall_time == 2.0
    with pytest.raises(SandboxError, match="relative paths"):
        box.run(["x"], {"../escape": b""})
    with pytest.raises(SandboxError, match="empty command"):
        box.run([], {})
    box.close()
    with pytest.raises(SandboxError, match="closed"):
        box.run(["x"], {})


def test_a_sandbox_failure_reaches_the_reward_as_an_infrastructure_failure() -> None:
    box = FakeSandbox(lambda run: RunResult(exit_code=None, infra_error="engine gone"))
    with rk.get_verifier("code", sandbox=box) as verifier:
        verdict = verifier.verify("```python\ndef f(x):\n    return x\n```", "assert f(1) == 1\n")
    assert verdict.status == "sandbox_error" and verdict.is_infrastructure_failure and verdict.score == 0.0
    assert len(box.runs) >= 1 and box.runs[0].command[0] == "python3"  # the harness job, as a backend gets it
