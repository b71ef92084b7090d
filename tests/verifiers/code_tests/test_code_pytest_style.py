"""Pytest-style references (KodCode): one test per test function, the pytest the files use, the program as
``solution``. Run in the local sandbox; each test builds one file and a few programs against it."""

from __future__ import annotations

import os
import shutil

import pytest

import rewardkit as rk
from rk_testing import require

FILE = """
import pytest
from solution import scale as times
import solution


@pytest.fixture
def numbers():
    data = [1, 2, 3]
    yield data
    data.clear()


def test_plain():
    assert times(2, 3) == 6


def test_with_fixture(numbers):
    assert [times(n, 2) for n in numbers] == [2, 4, 6]


@pytest.mark.parametrize("x", [0, 1, -4])
@pytest.mark.parametrize("k", [1, 10])
def test_grid(x, k):
    assert solution.scale(x, k) == x * k


def test_raises_with_match():
    with pytest.raises(ValueError, match="negative"):
        times(1, -1)


def test_approx():
    assert solution.ratio(1, 3) == pytest.approx(0.333333, rel=1e-5)
    assert [solution.ratio(1, 4), 0.5] == pytest.approx([0.25, 0.5])


def test_own_exception_class():
    with pytest.raises(solution.Refused):
        solution.refuse()


class TestGroup:
    def setup_method(self, method):
        self.base = 5

    def test_method(self):
        assert times(self.base, 2) == 10


@pytest.mark.skip(reason="not today")
def test_skipped():
    assert False


@pytest.mark.xfail
def test_expected_to_fail():
    assert times(1, 1) == 2


def test_tmp_path(tmp_path):
    target = tmp_path / "n.txt"
    target.write_text("7")
    assert solution.read_number(str(target)) == 7


def test_needs_monkeypatch(monkeypatch):
    monkeypatch.setattr("solution.scale", lambda a, b: 0)
"""
GOOD = """
class Refused(Exception):
    pass

def scale(x, k):
    if k < 0:
        raise ValueError("k is negative")
    return x * k

def ratio(a, b):
    return a / b

def refuse():
    raise Refused("no")

def read_number(path):
    with open(path) as fh:
        return int(fh.read())
"""
TESTS = 9  # test functions the file counts: all but the skip-marked one and the one needing monkeypatch


@pytest.fixture(scope="module")
def verifier():
    require(shutil.which("bwrap") is not None or os.geteuid() == 0, "no isolation tool for the local sandbox")
    with rk.get_verifier("code", sandbox="local", wall_time=10, call_timeout=2) as v:
        yield v


def fenced(code: str) -> str:
    return f"```python\n{code}\n```"


def outcomes(verdict: rk.Verdict) -> dict[str, str]:
    return {t["source"]: t["outcome"] for t in verdict.details["tests"]}


def test_each_test_function_is_one_test_and_the_pytest_parts_work(verifier) -> None:
    verdict = verifier.verify(fenced(GOOD), FILE)
    assert verdict.details["format"] == "pytest"
    assert (verdict.score, verdict.status) == (1.0, "ok"), verdict.details
    assert len(verdict.details["tests"]) == TESTS
    assert {s["test"] for s in verdict.details["skipped"]} == {"test_skipped", "test_needs_monkeypatch"}
    assert "TestGroup::test_method" in outcomes(verdict)


@pytest.mark.parametrize(
    ("change", "failing"),
    [
        (
            ('if k < 0:\n        raise ValueError("k is negative")', "if k < 0:\n        raise TypeError('k')"),
            {"test_raises_with_match"},
        ),
        (('raise ValueError("k is negative")', "raise ValueError('k below zero')"), {"test_raises_with_match"}),
        (("return a / b", "return round(a / b, 2)"), {"test_approx"}),
        (('raise Refused("no")', "raise RuntimeError('no')"), {"test_own_exception_class"}),
        (("return x * k", "return x * k if x >= 0 else 0"), {"test_grid"}),
        (("return int(fh.read())", "return 0"), {"test_tmp_path"}),
    ],
)
def test_a_wrong_program_fails_exactly_the_functions_that_catch_it(verifier, change, failing) -> None:
    verdict = verifier.verify(fenced(GOOD.replace(*change)), FILE)
    got = {name for name, outcome in outcomes(verdict).items() if outcome != "pass"}
    assert got == failing
    assert verdict.score == pytest.approx((TESTS - len(failing)) / TESTS)


def test_a_program_named_like_a_builtin_is_called_not_the_builtin(verifier) -> None:
    tests = (
        "from solution import pow\n\ndef test_pow():\n    assert pow(2, 10) == 1024\n\ndef test_mod():\n"
        "    assert pow(3, 2, 5) == 4\n"
    )
    wrong = verifier.verify(fenced("def pow(a, b, m=None):\n    return 0"), tests)
    assert wrong.score == 0.0  # the builtin pow would have passed both
    missing = verifier.verify(fenced("def power(a, b, m=None):\n    return a ** b"), tests)
    assert missing.score == 0.0
    right = verifier.verify(fenced("def pow(a, b, m=None):\n    return a ** b if m is None else a ** b % m"), tests)
    assert right.score == 1.0


def test_a_crash_or_hang_in_one_function_costs_only_that_function(verifier) -> None:
    tests = (
        "from solution import f\n\ndef test_one():\n    assert f(1) == 1\n\ndef test_crash():\n    assert f(2) == 2\n\n"
        "def test_hang():\n    assert f(3) == 3\n\ndef test_after():\n    assert f(4) == 4\n"
    )
    program = "import os\ndef f(x):\n    if x == 2:\n        os._exit(1)\n    while x == 3:\n        pass\n    return x"
    verdict = verifier.verify(fenced(program), tests)
    assert outcomes(verdict) == {"test_one": "pass", "test_crash": "fail", "test_hang": "fail", "test_after": "pass"}
    assert verdict.score == 0.5 and verdict.status == "timeout"


def test_a_file_whose_tests_all_need_missing_fixtures_is_invalid_reference(verifier) -> None:
    tests = "def test_out(capsys):\n    print(1)\n    assert capsys.readouterr().out == '1\\n'\n"
    verdict = verifier.verify(fenced("def f():\n    return 1"), tests)
    assert verdict.status == "invalid_reference" and "capsys" in verdict.details["error"]
