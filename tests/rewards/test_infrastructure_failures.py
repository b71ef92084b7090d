"""Rows the system failed to judge earn no reward: None (never 0.0), one retry for a sandbox, a composite row
dropped unless its spec keeps the shaping terms, per-status rates logged, a clear stop when most rows fail."""

from __future__ import annotations

import math
import pickle
import threading
from typing import Any

import pytest

import rewardkit as rk
from rewardkit.rewards.verifier_rewards import VerifierReward, clear_verdict_memo
from rewardkit.verifiers.base import Verifier
from rewardkit.verifiers.verdict import INFRASTRUCTURE_STATUSES, Status, Verdict


class ScriptedVerifier(Verifier):
    """Reads what to return from the reference: ``ok`` (correct), ``wrong``, a status name, or
    ``flaky:<status>`` (that status on the first call for the completion, ``ok`` afterwards)."""

    calls: dict[str, int] = {}
    lock = threading.Lock()

    def _verify(self, completion: Any, reference: Any, **context: Any) -> Verdict:
        with self.lock:
            seen = self.calls[str(completion)] = self.calls.get(str(completion), 0) + 1
        ref = str(reference)
        if ref.startswith("flaky:"):
            ref = ref.split(":", 1)[1] if seen == 1 else "ok"
        if ref == "ok":
            return Verdict(1.0, True, Status.OK, "x")
        if ref == "wrong":
            return Verdict(0.0, False, Status.OK, "y")
        return Verdict.fail(ref)


class ScriptedPlugin:
    @rk.hookimpl
    def register_verifiers(self, register):
        register("scripted", ScriptedVerifier)


@pytest.fixture
def scripted(rewardkit_register):
    ScriptedVerifier.calls.clear()
    clear_verdict_memo()
    rewardkit_register(ScriptedPlugin(), name="rewardkit-test-scripted")
    yield
    ScriptedVerifier.calls.clear()
    clear_verdict_memo()


def scripted_reward(**params: Any) -> VerifierReward:
    return rk.get_reward("verifier_accuracy", verifier="scripted", **params)


def completions(n: int) -> list[str]:
    return [f"completion {i}" for i in range(n)]


# --- the status helper ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("status", sorted(INFRASTRUCTURE_STATUSES))
def test_infrastructure_statuses_are_the_systems_failures(status):
    assert rk.is_infrastructure_failure(status)
    assert Verdict.fail(status).is_infrastructure_failure


@pytest.mark.parametrize("status", [s for s in rk.Status if s not in INFRASTRUCTURE_STATUSES])
def test_the_models_own_failures_are_not_infrastructure(status):
    assert not rk.is_infrastructure_failure(status)
    assert not rk.is_infrastructure_failure(str(status.value))


def test_none_and_a_plugins_own_status_are_not_infrastructure():
    assert not rk.is_infrastructure_failure(None)
    assert not rk.is_infrastructure_failure("my_plugin_status")


@pytest.mark.parametrize(
    "value, missing",
    [
        (None, True),
        ("", True),
        ("   \n", True),
        ([], True),
        ((), True),
        (float("nan"), True),
        ("nan", False),  # a string is what the dataset wrote
        (0, False),
        (0.0, False),
        ("0", False),
        ([1, 2], False),
        ({"tests": "assert f(1)"}, False),
    ],
)
def test_missing_reference(value, missing):
    assert rk.is_missing_reference(value) is missing


def test_pandas_and_numpy_missing_values_are_missing_references():
    np = pytest.importorskip("numpy")
    pd = pytest.importorskip("pandas")
    for value in (np.nan, np.float32("nan"), pd.NA, pd.NaT, pd.Series([None, 1.0])[0]):
        assert rk.is_missing_reference(value), repr(value)
    assert not rk.is_missing_reference(np.int64(3))
    assert not rk.is_missing_reference(np.array([1, 2]))


# --- None for the row, the status kept --------------------------------------------------------------------------
@pytest.mark.parametrize("status", [Status.SANDBOX_ERROR, Status.ERROR, Status.INVALID_REFERENCE])
def test_an_infrastructure_failure_gives_none_not_zero(scripted, status):
    reward = scripted_reward()
    rows = reward.explain(completions=completions(3), answer=["ok", status, "wrong"])
    assert [r["reward"] for r in rows] == [1.0, None, 0.0]
    assert [r["status"] for r in rows] == [Status.OK, status, Status.OK]
    assert reward(completions=completions(3), answer=["ok", status, "wrong"]) == [1.0, None, 0.0]


@pytest.mark.parametrize("status", [Status.NO_ANSWER, Status.TIMEOUT, "compile_error", "hedged"])
def test_the_models_own_failures_still_score_zero(scripted, status):
    assert scripted_reward()(completions=["a"], answer=[status]) == [0.0]


def test_a_missing_reference_is_not_judged_and_gets_none(scripted):
    np = pytest.importorskip("numpy")
    refs = [None, "", float("nan"), np.nan, "ok"]
    rows = scripted_reward().explain(completions=completions(5), answer=refs)
    assert [r["reward"] for r in rows] == [None, None, None, None, 1.0]
    assert [r["status"] for r in rows] == [None, None, None, None, Status.OK]
    assert list(ScriptedVerifier.calls) == ["completion 4"]  # only the row with a reference was judged


def test_a_nan_reference_from_a_pandas_frame_is_none_for_the_math_reward():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"completion": [r"so \boxed{3}", r"so \boxed{3}"], "answer": ["3", None]})
    frame["answer"] = frame["answer"].astype(object).where(frame["answer"].notna(), float("nan"))
    with rk.get_reward("math_accuracy", workers=1) as reward:
        scores = reward(completions=list(frame["completion"]), answer=list(frame["answer"]))
    assert scores == [1.0, None]


def test_the_math_verifier_calls_a_nan_reference_invalid():
    with rk.get_verifier("math", workers=1) as verifier:
        for reference in (float("nan"), [float("nan")], "  "):
            assert verifier.verify("The answer is nan.", reference).status == Status.INVALID_REFERENCE


# --- one retry for a sandbox failure ------------------------------------------------------------------------------
def test_a_sandbox_failure_is_retried_once_and_the_retry_counts(scripted):
    scores = scripted_reward()(completions=completions(2), answer=["flaky:sandbox_error", "ok"])
    assert scores == [1.0, 1.0]
    assert ScriptedVerifier.calls == {"completion 0": 2, "completion 1": 1}


def test_a_sandbox_that_fails_twice_gives_none(scripted):
    rows = scripted_reward().explain(completions=["a"], answer=[Status.SANDBOX_ERROR])
    assert (rows[0]["reward"], rows[0]["status"]) == (None, Status.SANDBOX_ERROR)
    assert ScriptedVerifier.calls == {"a": 2}


@pytest.mark.parametrize("status", [Status.ERROR, Status.INVALID_REFERENCE])
def test_other_infrastructure_failures_are_not_retried_in_the_same_call(scripted, status):
    scripted_reward()(completions=["a"], answer=[f"flaky:{status}"])
    assert ScriptedVerifier.calls == {"a": 1}


def test_a_real_code_verifier_sandbox_that_fails_once_is_retried():
    from rewardkit.sandbox.base import Sandbox
    from rewardkit.verifiers.code_tests.job import warm_program

    class FailsFirstRun(Sandbox):
        name = "fails-first-run"

        def __init__(self) -> None:
            self.inner = rk.get_sandbox("local", warm=warm_program())
            self.runs = 0

        def run(self, command, files, **kwargs):
            self.runs += 1
            if self.runs == 1:
                return rk.RunResult(None, infra_error="the engine went away")
            return self.inner.run(command, files, **kwargs)

        def close(self) -> None:
            self.inner.close()

    sandbox = FailsFirstRun()
    clear_verdict_memo()
    reward = VerifierReward(
        "code_once", "code", verifier_params={"sandbox": sandbox, "workers": 1}, reference_key="tests"
    )
    try:
        rows = reward.explain(
            completions=["```python\ndef add(a, b):\n    return a + b\n```"], tests=["assert add(1, 2) == 3"]
        )
    finally:
        reward.close()
        sandbox.close()
    assert (rows[0]["reward"], rows[0]["status"]) == (1.0, Status.OK)
    assert sandbox.runs == 2


# --- composites: the row is dropped unless the spec keeps the shaping terms --------------------------------------
SPEC = {
    "combine": "sum",
    "terms": [
        {"reward": "verifier_accuracy", "verifier": "scripted"},
        {"reward": "tag_format", "weight": 0.5},
    ],
}
FORMATTED = "<think>t</think><answer>a</answer>"


def test_a_composite_row_whose_verifier_failed_is_none(scripted):
    reward = rk.build_reward(SPEC)
    values = reward(completions=[FORMATTED] * 3, answer=["ok", Status.SANDBOX_ERROR, "wrong"])
    assert values == [1.5, None, 0.5]


def test_keep_shaping_scores_the_row_with_the_other_terms(scripted):
    reward = rk.build_reward({**SPEC, "on_infrastructure_failure": "keep_shaping"})
    rows = reward.explain(completions=[FORMATTED] * 2, answer=[Status.ERROR, "ok"])
    assert [r["reward"] for r in rows] == [0.5, 1.5]
    assert rows[0]["components"]["scripted"] is None and rows[0]["status"] == Status.ERROR


def test_a_failure_deep_in_a_nested_composite_drops_the_row_at_the_top(scripted):
    nested = {
        "combine": "sum",
        "terms": [{"combine": "max", "terms": SPEC["terms"]}, {"reward": "tag_format"}],
    }
    values = rk.build_reward(nested)(completions=[FORMATTED] * 2, answer=[Status.INVALID_REFERENCE, "ok"])
    assert values == [None, 2.0]


def test_a_missing_reference_does_not_drop_a_composite_row(scripted):
    # no reference: the verifier term does not apply (None), which is not a failure of anything
    values = rk.build_reward(SPEC)(completions=[FORMATTED], answer=[None])
    assert values == [0.5]


def test_a_bad_on_infrastructure_failure_value_is_a_clear_error(scripted):
    with pytest.raises(rk.ConfigError, match="on_infrastructure_failure must be one of drop_row, keep_shaping"):
        rk.build_reward({**SPEC, "on_infrastructure_failure": "ignore"})


def test_every_combinator_takes_the_shared_option():
    from rewardkit.rewards.combinators import BUILTIN_COMBINATORS, Combinator

    class Custom(Combinator):
        def combine(self, row):
            return 0.0

    for cls in (*BUILTIN_COMBINATORS.values(), Custom):
        assert "on_infrastructure_failure" in cls.options, cls


# --- per-status rates through TRL's log_metric ---------------------------------------------------------------------
def test_status_rates_are_logged_per_verifier_term(scripted):
    logged: dict[str, list[float]] = {}

    def log_metric(name, value):
        logged.setdefault(name, []).append(value)

    reward = rk.build_reward({**SPEC, "name": "task"})
    reward(completions=[FORMATTED] * 4, answer=["ok", "ok", Status.SANDBOX_ERROR, "wrong"], log_metric=log_metric)
    assert logged["rewards/task/scripted/status/ok"] == [0.75]
    assert logged["rewards/task/scripted/status/sandbox_error"] == [0.25]
    assert logged["rewards/task/scripted/infrastructure_failure_rate"] == [0.25]
    # a status seen once is logged on every later call, 0.0 when absent, so averages over steps stay unbiased
    reward(completions=[FORMATTED] * 2, answer=["ok", "wrong"], log_metric=log_metric)
    assert logged["rewards/task/scripted/status/sandbox_error"] == [0.25, 0.0]
    assert logged["rewards/task/scripted/infrastructure_failure_rate"] == [0.25, 0.0]


def test_a_single_reward_logs_its_rates_under_its_own_name(scripted):
    logged: dict[str, float] = {}
    scripted_reward()(completions=completions(2), answer=["ok", Status.ERROR], log_metric=logged.__setitem__)
    assert logged == {
        "rewards/scripted/status/ok": 0.5,
        "rewards/scripted/status/error": 0.5,
        "rewards/scripted/infrastructure_failure_rate": 0.5,
    }


# --- a run made of failures stops with a clear error ----------------------------------------------------------------
def test_mostly_failed_rows_stop_with_an_error_naming_the_cause(scripted):
    reward = scripted_reward(max_infrastructure_failure_rate=0.5, infrastructure_failure_window=40)
    reward(completions=completions(20), answer=["ok"] * 20)  # 20 judged: too few to judge the rate
    reward(completions=completions(10), answer=[Status.SANDBOX_ERROR] * 10)  # 10 of 30
    with pytest.raises(rk.InfrastructureError) as caught:
        reward(
            completions=completions(10), answer=[Status.SANDBOX_ERROR] * 5 + [Status.INVALID_REFERENCE] * 5
        )  # 20 of 40
        reward(completions=completions(10), answer=[Status.SANDBOX_ERROR] * 10)  # 30 of 40
    message = str(caught.value)
    assert "'scripted'" in message and "max_infrastructure_failure_rate=0.5" in message
    assert "sandbox_error" in message and "invalid_reference" in message and "last 40 judged rows" in message


def test_the_rate_is_over_a_sliding_window(scripted):
    reward = scripted_reward(max_infrastructure_failure_rate=0.5, infrastructure_failure_window=32)
    for _ in range(6):  # 40% failures, forever: never above the threshold
        reward(completions=completions(10), answer=[Status.ERROR] * 4 + ["ok"] * 6)


def test_too_few_rows_never_stop_a_run(scripted):
    reward = scripted_reward(max_infrastructure_failure_rate=0.0)
    assert reward(completions=completions(8), answer=[Status.ERROR] * 8) == [None] * 8


def test_a_null_threshold_never_stops(scripted):
    reward = scripted_reward(max_infrastructure_failure_rate=None)
    for _ in range(5):
        assert reward(completions=completions(64), answer=[Status.SANDBOX_ERROR] * 64) == [None] * 64


def test_the_default_threshold_stops_a_dead_engine(scripted):
    reward = scripted_reward()
    with pytest.raises(rk.InfrastructureError, match="above max_infrastructure_failure_rate=0.5"):
        reward(completions=completions(64), answer=[Status.SANDBOX_ERROR] * 64)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"max_infrastructure_failure_rate": 1.5}, "must be a fraction in"),
        ({"max_infrastructure_failure_rate": -0.1}, "must be a fraction in"),
        ({"infrastructure_failure_window": 0}, "must be an integer >= 1"),
    ],
)
def test_bad_thresholds_are_clear_errors(scripted, params, message):
    with pytest.raises(rk.ConfigError, match=message):
        scripted_reward(**params)


def test_the_threshold_is_a_spec_parameter_of_the_builtin_rewards():
    for name in ("math_accuracy", "mcq_accuracy", "code_pass_rate", "code_all_pass"):
        reward = rk.build_reward({"reward": name, "params": {"max_infrastructure_failure_rate": 0.9}})
        assert reward.failures.max_rate == 0.9, name


def test_a_reward_with_its_failure_watch_pickles(scripted):
    reward = scripted_reward()
    reward(completions=completions(2), answer=[Status.ERROR, "ok"])
    copy = pickle.loads(pickle.dumps(reward))
    assert copy(completions=completions(1), answer=["ok"]) == [1.0]


def test_nan_total_rows_are_none_not_nan(scripted):
    values = rk.build_reward(SPEC)(completions=[FORMATTED], answer=[Status.ERROR])
    assert values == [None] and not any(isinstance(v, float) and math.isnan(v) for v in values if v is not None)
