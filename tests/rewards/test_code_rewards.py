"""code_pass_rate / code_all_pass on the real code verifier and local sandbox."""

from __future__ import annotations

import importlib.util
import pickle

import pytest

import rewardkit as rk

GOOD = "```python\ndef add(a, b):\n    return a + b\n```"
HALF = "```python\ndef add(a, b):\n    return a + b if a < 5 else 0\n```"
TESTS = "assert add(1, 2) == 3\nassert add(2, 2) == 4\nassert add(7, 1) == 8\nassert add(9, 9) == 18"
IO_REF = {"inputs": ["1 2\n", "3 4\n"], "outputs": ["3\n", "7\n"]}
IO_PROGRAM = "```python\na, b = map(int, input().split())\nprint(a + b)\n```"


@pytest.fixture
def code_rewards(ci_require):
    ci_require(
        importlib.util.find_spec("rewardkit.verifiers.code_tests.verifier") is not None,
        "rewardkit.verifiers.code_tests.verifier is not there",
    )
    pass_rate = rk.get_reward("code_pass_rate", wall_time=5)
    all_pass = rk.get_reward("code_all_pass", wall_time=5)
    probe = pass_rate(completions=[GOOD], tests=[TESTS])
    status = pass_rate.verifier.verify(GOOD, TESTS).status
    ci_require(status == "ok", f"the local sandbox does not run programs here (status {status!r})")
    assert probe == [1.0]
    yield pass_rate, all_pass
    pass_rate.close()
    all_pass.close()


def test_partial_credit_and_all_pass(code_rewards):
    pass_rate, all_pass = code_rewards
    completions = [GOOD, HALF, [{"role": "assistant", "content": GOOD}], IO_PROGRAM, "no idea", GOOD]
    tests = [TESTS, TESTS, TESTS, IO_REF, TESTS, None]
    assert pass_rate(completions=completions, tests=tests) == [1.0, 0.5, 1.0, 1.0, 0.0, None]
    assert all_pass(completions=completions, tests=tests) == [1.0, 0.0, 1.0, 1.0, 0.0, None]


def test_code_reward_pickles_and_shares_the_verifier(code_rewards):
    pass_rate, all_pass = code_rewards
    assert pass_rate.verifier is all_pass.verifier
    copy = pickle.loads(pickle.dumps(pass_rate))
    assert copy(completions=[HALF], answer=[TESTS]) == [0.5]
    copy.close()
