"""The pytest11 plugin's fixtures, exercised by real pytest runs (pytester)."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

SHOUT_PLUGIN = '''
import rewardkit as rk
from rewardkit.verifiers.verdict import Verdict


class ShoutVerifier(rk.Verifier):
    """Correct when the completion is the reference in capitals."""

    def _verify(self, completion, reference, **context):
        if not completion:
            return Verdict.fail("no_answer")
        ok = completion == reference.upper()
        return Verdict(float(ok), ok, "ok", completion, {"wanted": reference.upper()})


class ShoutPlugin:
    @rk.hookimpl
    def register_verifiers(self, register):
        register("shout", ShoutVerifier)
'''


@pytest.fixture(autouse=True)
def _plugin_env(monkeypatch):
    for var in ("REWARDKIT_BLOCK_PLUGINS", "REWARDKIT_ALLOW_PLUGINS"):
        monkeypatch.delenv(var, raising=False)


def test_register_fixture_adds_a_plugin_for_one_test_only(pytester):
    pytester.makeconftest(SHOUT_PLUGIN)
    pytester.makepyfile(
        """
        import pytest
        import rewardkit as rk
        from conftest import ShoutPlugin

        def test_registered(rewardkit_register):
            name = rewardkit_register(ShoutPlugin(), name="shout-plugin")
            assert name == "shout-plugin"
            assert rk.get_verifier("shout").verify("HI", "hi").correct

        def test_fails_after_registering(rewardkit_register):
            rewardkit_register(ShoutPlugin(), name="shout-plugin")
            assert False, "deliberate"

        def test_gone_afterwards():
            with pytest.raises(rk.ConfigError, match="unknown verifier 'shout'"):
                rk.get_verifier("shout")
            assert "shout-plugin" not in {row["name"] for row in rk.plugin_host().describe()}
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*AssertionError: deliberate*"])


def test_assert_verdicts_passes_a_matching_table(pytester):
    pytester.makeconftest(SHOUT_PLUGIN)
    pytester.makepyfile(
        """
        import rewardkit as rk
        from conftest import ShoutPlugin, ShoutVerifier

        OPTIONS = {"options": ["Paris", "London"]}

        def test_builtin_by_name(rewardkit_assert_verdicts):
            rewardkit_assert_verdicts("mcq", [
                ("The answer is (B).", "B", True),
                ("Answer: A or B", "B", "hedged"),
                ("Answer: B) Paris", "B", {"correct": False, "status": "option_mismatch"}, OPTIONS),
                ("The answer is London", "B", {"correct": True, "extracted": "B", "score": 1.0}, OPTIONS),
                ("no idea", "B", rk.Verdict.fail("no_answer")),
            ])

        def test_instance_of_a_plugin_verifier(rewardkit_register, rewardkit_assert_verdicts):
            rewardkit_register(ShoutPlugin())
            rows = [("HI", "hi", True), ("hi", "hi", False), ("", "hi", "no_answer")]
            rewardkit_assert_verdicts(ShoutVerifier(), rows)
            rewardkit_assert_verdicts("shout", [("OK", "ok", True)])
        """
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_assert_verdicts_reports_every_mismatch_readably(pytester):
    pytester.makepyfile(
        """
        def test_table(rewardkit_assert_verdicts):
            rewardkit_assert_verdicts("mcq", [
                ("Answer: B", "B", True),
                ("Answer: A", "B", True),
                ("I think A or C", "C", "ok"),
                ("Answer: " + "x" * 500, "C", {"status": "no_answer", "extracted": None}),
            ])
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*2 of 4 mcq cases got the wrong verdict:*",
            "*case #1",
            "*completion: 'Answer: A'",
            "*reference:  'B'",
            "*correct: expected True != got False",
            "*verdict: status='ok' correct=False score=0.0 extracted='A'",
            "*case #2",
            "*status: expected 'ok' != got 'hedged'",
        ]
    )
    assert "case #0" not in result.stdout.str() and "case #3" not in result.stdout.str()
    assert "Traceback" not in result.stdout.str()  # pytrace=False: the table, not the plugin's internals


def test_assert_verdicts_rejects_malformed_cases(pytester):
    pytester.makepyfile(
        """
        import pytest

        def test_short_case(rewardkit_assert_verdicts):
            with pytest.raises(TypeError, match="case #0 must be .completion, reference, expected"):
                rewardkit_assert_verdicts("mcq", [("Answer: B", "B")])

        def test_unknown_field(rewardkit_assert_verdicts):
            with pytest.raises(TypeError, match="unknown verdict field.s. correctness"):
                rewardkit_assert_verdicts("mcq", [("Answer: B", "B", {"correctness": True})])

        def test_bad_expected_type(rewardkit_assert_verdicts):
            with pytest.raises(TypeError, match="expected must be a bool"):
                rewardkit_assert_verdicts("mcq", [("Answer: B", "B", 1)])
        """
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=3)


def test_fixtures_load_through_the_pytest11_entry_point_in_a_fresh_process(pytester):
    pytester.makepyfile(
        """
        def test_uses_both(rewardkit_register, rewardkit_assert_verdicts):
            rewardkit_assert_verdicts("mcq", [("Answer: (C)", "C", True)])
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--fixtures")
    result.stdout.fnmatch_lines(["*rewardkit_register*", "*rewardkit_assert_verdicts*"])
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
