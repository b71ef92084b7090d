"""The verl adapter, called the way verl calls a custom reward function.

verl (``verl.trainer.ppo.reward.get_custom_reward_fn``) loads ``custom_reward_function.path`` as a file with
``importlib.util.spec_from_file_location`` and calls ``custom_reward_function.name`` with
``custom_reward_function.reward_kwargs`` bound. Its naive reward manager then calls, per response,
``compute_score(data_source=..., solution_str=..., ground_truth=..., extra_info=...)`` (extra_info carries the
parquet's ``extra_info`` plus ``num_turns``) and takes a float, or a dict's ``"score"`` (its other keys go to
``reward_extra_info``, one list per key). Its batch reward manager calls ``compute_score(data_sources=...,
solution_strs=..., ground_truths=..., extra_infos=..., **reward_kwargs)`` once per step.
"""

from __future__ import annotations

import functools
import importlib.util
import textwrap
from collections import defaultdict

import pytest

import rewardkit as rk
from rewardkit.integrations import verl

MATH_SPEC = {
    "name": "gsm8k_reward",
    "combine": "sum",
    "terms": [{"reward": "math_accuracy"}, {"reward": "think_format", "weight": 0.5}],
}


@pytest.fixture(autouse=True)
def _clean(monkeypatch):
    for var in (verl.SPECS_ENV, verl.SPEC_ENV, verl.DETAILS_ENV):
        monkeypatch.delenv(var, raising=False)
    verl.reset()
    yield
    verl.reset()


def load_like_verl(path: str, name: str, reward_kwargs: dict | None = None):
    """What verl's get_custom_reward_fn does with custom_reward_function.path/name/reward_kwargs."""
    spec = importlib.util.spec_from_file_location("custom_module", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    raw_fn = getattr(module, name)

    def _call_with_kwargs(raw_fn, extra_kwargs, *args, **kwargs):
        return raw_fn(*args, **kwargs, **extra_kwargs)

    return functools.partial(_call_with_kwargs, raw_fn, dict(reward_kwargs or {}))


def naive_manager(compute_score, rows):
    """verl's NaiveRewardManager loop: one call per response; a dict's keys become reward_extra_info."""
    rewards, extra = [], defaultdict(list)
    for row in rows:
        info = dict(row.get("extra_info") or {})
        info["num_turns"] = None
        score = compute_score(
            data_source=row["data_source"],
            solution_str=row["response"],
            ground_truth=row["reward_model"]["ground_truth"],
            extra_info=info,
        )
        if isinstance(score, dict):
            for key, value in score.items():
                extra[key].append(value)
            score = score["score"]
        assert isinstance(score, float)
        rewards.append(score)
    return rewards, dict(extra)


GSM8K_ROWS = [  # the layout of verl's examples/data_preprocess/gsm8k.py
    {
        "data_source": "openai/gsm8k",
        "response": "<think>6*12=72</think>\n#### The answer is \\boxed{72}",
        "reward_model": {"style": "rule", "ground_truth": "72"},
        "extra_info": {"split": "train", "index": 0, "answer": "Natalia sold ... #### 72", "question": "..."},
    },
    {
        "data_source": "openai/gsm8k",
        "response": "It is \\boxed{71}",
        "reward_model": {"style": "rule", "ground_truth": "72"},
        "extra_info": {"split": "train", "index": 1},
    },
    {
        "data_source": "openai/gsm8k",
        "response": "\\boxed{72} or \\boxed{73}",
        "reward_model": {"style": "rule", "ground_truth": "72"},
        "extra_info": None,
    },
]


def test_verl_loads_the_module_by_path_and_scores_with_an_env_configured_spec(tmp_path, monkeypatch):
    spec = tmp_path / "gsm8k.yaml"
    import yaml

    spec.write_text(yaml.safe_dump(MATH_SPEC))
    monkeypatch.setenv(verl.SPEC_ENV, str(spec))
    compute_score = load_like_verl(verl.__file__, "compute_score")
    rewards, extra = naive_manager(compute_score, GSM8K_ROWS)
    # ground_truth, not extra_info's full "answer" text, is the reference
    assert rewards == [1.5, 0.0, 0.0]
    assert extra == {}


def test_a_routes_files_spec_paths_follow_the_one_path_rule_relative_to_the_file(tmp_path, monkeypatch):
    # A spec file with no suffix is a path where it exists beside the routes file; a name that is no file
    # there stays a registered reward's name (is_spec_path, as everywhere else).
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "math_spec").write_text("reward: math_accuracy\n")
    routes = tmp_path / "routes.yaml"
    routes.write_text("openai/gsm8k: specs/math_spec\n'*': think_format\n")
    monkeypatch.chdir(tmp_path / "specs")  # not where the routes file is
    verl.configure(str(routes))
    assert verl.routes() == {"openai/gsm8k": str(tmp_path / "specs" / "math_spec"), "*": "think_format"}
    assert verl.compute_score("openai/gsm8k", "\\boxed{4}", "4") == 1.0


def test_routes_by_data_source_with_globs_and_a_fallback(tmp_path, monkeypatch):
    routes = tmp_path / "routes.yaml"
    (tmp_path / "math.yaml").write_text("reward: math_accuracy\n")
    routes.write_text(
        textwrap.dedent("""\
        openai/gsm8k: math.yaml                 # a spec file, relative to this file
        "lighteval/MATH*": {reward: math_accuracy, params: {timeout: 5}}
        mcq/*: mcq_accuracy                     # a registered reward name
        "*": {reward: think_format}
    """)
    )
    monkeypatch.setenv(verl.SPECS_ENV, str(routes))
    compute_score = load_like_verl(verl.__file__, "compute_score")
    rows = [
        {"data_source": "openai/gsm8k", "response": "\\boxed{4}", "reward_model": {"ground_truth": "4"}},
        {"data_source": "lighteval/MATH-500", "response": "\\boxed{\\frac12}", "reward_model": {"ground_truth": "0.5"}},
        {"data_source": "mcq/arc", "response": "Answer: B", "reward_model": {"ground_truth": "B"}},
        {"data_source": "chat/other", "response": "<think>x</think>y", "reward_model": {"ground_truth": None}},
    ]
    rewards, _ = naive_manager(compute_score, rows)
    assert rewards == [1.0, 1.0, 1.0, 1.0]
    assert set(verl.routes()) == {"openai/gsm8k", "lighteval/MATH*", "mcq/*", "*"}


def test_details_return_a_dict_with_score_components_and_status():
    verl.configure({"openai/gsm8k": MATH_SPEC}, details=True)
    rewards, extra = naive_manager(verl.compute_score, GSM8K_ROWS)
    assert rewards == [1.5, 0.0, 0.0]
    assert extra["score"] == rewards
    assert extra["math_accuracy"] == [1.0, 0.0, 0.0] and extra["think_format"] == [1.0, 0.0, 0.0]
    assert extra["status"] == ["ok", "ok", "hedged"]
    assert all(len(v) == len(GSM8K_ROWS) for v in extra.values())  # verl needs one value per row per key


def test_batch_reward_manager_convention_and_reward_kwargs_spec():
    compute = load_like_verl(verl.__file__, "compute_score_batch", {"spec": MATH_SPEC})
    scores = compute(
        data_sources=[r["data_source"] for r in GSM8K_ROWS],
        solution_strs=[r["response"] for r in GSM8K_ROWS],
        ground_truths=[r["reward_model"]["ground_truth"] for r in GSM8K_ROWS],
        extra_infos=[r["extra_info"] for r in GSM8K_ROWS],
    )
    assert scores == [1.5, 0.0, 0.0]


def test_data_source_is_a_column_for_where_filters():
    verl.register(
        "*",
        {
            "combine": "sum",
            "terms": [
                {"reward": "math_accuracy", "where": {"data_source": "openai/gsm8k"}},
                {"reward": "mcq_accuracy", "where": {"data_source": "allenai/ai2_arc"}},
            ],
        },
    )
    scores = verl.compute_score_batch(["openai/gsm8k", "allenai/ai2_arc"], ["\\boxed{3}", "(C)"], ["3", "C"])
    assert scores == [1.0, 1.0]


def test_a_reward_that_does_not_apply_scores_zero_for_verl():
    verl.register("src", "math_accuracy")
    assert verl.compute_score("src", "\\boxed{1}", None) == 0.0


def test_unrouted_data_source_and_bad_specs_are_config_errors():
    verl.register("openai/gsm8k", "math_accuracy")
    with pytest.raises(rk.ConfigError, match=r"no reward spec for data_source 'other'; routes: 'openai/gsm8k'"):
        verl.compute_score("other", "x", "1")
    with pytest.raises(rk.ConfigError, match=r"verl route 'x': spec.params.timeout: expected a number"):
        verl.register("x", {"reward": "math_accuracy", "params": {"timeout": "fast"}})
    with pytest.raises(rk.ConfigError, match="routes file .* does not exist"):
        verl.configure("/nonexistent/routes.yaml")


def test_reward_errors_reach_verl_naming_the_reward():
    verl.register("*", {"reward": f"{__name__}:explodes"})
    with pytest.raises(rk.RewardError, match=f"reward '{__name__}:explodes' raised RuntimeError: boom"):
        verl.compute_score("s", "x", "1")


def explodes(prompts, completions, **kwargs):
    raise RuntimeError("boom")


class JudgedByText(rk.Verifier):
    """Correct when the response says "right"; a sandbox failure when it says "broken"."""

    def _verify(self, completion, reference, **context):
        if "broken" in completion:
            return rk.Verdict.fail("sandbox_error")
        return rk.Verdict(float("right" in completion), "right" in completion)


class JudgedByTextPlugin:
    @rk.hookimpl
    def register_verifiers(self, register):
        register("judged_by_text", JudgedByText)


@pytest.fixture
def judged_by_text(rewardkit_register):
    from rewardkit.rewards.verifier_rewards import clear_verdict_memo

    clear_verdict_memo()
    rewardkit_register(JudgedByTextPlugin(), name="rewardkit-test-verl-judge")
    verl.register("*", {"reward": "verifier_accuracy", "params": {"verifier": "judged_by_text"}})


def test_batch_rows_with_no_reward_stand_in_at_their_prompts_mean(judged_by_text):
    responses = ["right", "wrong", "broken", "right", "broken", "broken", "wrong", "right"]
    infos = [{"index": 0, "split": "train"}] * 4 + [{"index": 1, "split": "train"}] * 4
    scores = verl.compute_score_batch(["src"] * 8, responses, ["1"] * 8, infos)
    assert scores == pytest.approx([1.0, 0.0, 2 / 3, 1.0, 0.5, 0.5, 0.0, 1.0])
    # in verl's GRPO the stand-in's advantage is 0 and the group mean is the scored rows' mean
    first = scores[:4]
    assert first[2] - sum(first) / 4 == pytest.approx(0.0)


def test_a_prompt_whose_rows_all_failed_scores_zero_for_each(judged_by_text):
    scores = verl.compute_score_batch(["src"] * 2, ["broken", "broken"], ["1", "1"], [{"index": 3}] * 2)
    assert scores == [0.0, 0.0]


def test_details_say_which_rows_had_no_reward(judged_by_text):
    verl.configure({"*": {"reward": "verifier_accuracy", "params": {"verifier": "judged_by_text"}}}, details=True)
    out = verl.compute_score_batch(["src"] * 2, ["right", "broken"], ["1", "1"], [{"index": 0}] * 2)
    assert [o["unscored"] for o in out] == [0.0, 1.0]
    assert [o["status"] for o in out] == ["ok", "sandbox_error"]
    assert out[1]["score"] == 1.0


def test_a_single_row_with_no_reward_scores_zero(judged_by_text):
    assert verl.compute_score("src", "broken", "1") == 0.0
