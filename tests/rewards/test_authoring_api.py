"""The reward-authoring API from the package root: verifier_accuracy for any verifier, importable rewards in
specs, parameter values checked at build time, errors naming the reward, rk.score_rows / reward.explain."""

from __future__ import annotations

import math
import pickle
import re
import sys
import textwrap
import warnings

import pytest

import rewardkit as rk
from reward_helpers import CountingVerifier
from rewardkit.verifiers.verdict import Status

CHAT = [{"role": "assistant", "content": "SURE"}]


def test_the_authoring_api_is_exported_from_the_package_root():
    from rewardkit.rewards.base import Reward, Scored
    from rewardkit.rewards.combinators import Combinator
    from rewardkit.rewards.inputs import Batch, completion_text
    from rewardkit.rewards.spec import reward_factory

    assert (rk.Reward, rk.Scored, rk.Batch, rk.Combinator) == (Reward, Scored, Batch, Combinator)
    assert (rk.reward_factory, rk.completion_text) == (reward_factory, completion_text)
    assert rk.completion_text([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]) == "a"


def test_status_is_a_str_enum_that_compares_prints_and_serialises_as_its_value():
    import json

    assert Status.HEDGED == "hedged" and Status.HEDGED is Status.HEDGED and rk.Status("timeout") is Status.TIMEOUT
    verdict = rk.Verdict(0.0, False, "hedged")
    assert verdict.status is Status.HEDGED  # a known status string becomes the enum member
    assert f"{verdict.status}" == str(verdict.status) == "hedged"
    assert json.loads(json.dumps(verdict.to_dict()))["status"] == "hedged"
    assert pickle.loads(pickle.dumps(verdict)) == verdict
    assert rk.Verdict(0.0, False, "my_plugin_status").status == "my_plugin_status"  # unknown: kept as given
    assert {v.value for v in Status} >= {"ok", "no_answer", "hedged", "timeout", "sandbox_error"}


def test_verifier_accuracy_makes_a_plugin_verifier_a_reward_from_yaml(test_plugin, tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        textwrap.dedent("""\
        combine: sum
        terms:
          - reward: verifier_accuracy
            verifier: counting          # a plugin's verifier, by name
            params: {partial: 0.25, reference_key: gold}
          - reward: tag_format
            weight: 0.5
    """)
    )
    with rk.build_reward(spec) as reward:
        values = reward(completions=["<think>a</think><answer>42</answer>", "7"], gold=["42", "42"])
    assert values == [1.5, 0.25]


def test_verifier_accuracy_checks_the_verifier_and_its_params_at_build_time(test_plugin):
    with pytest.raises(rk.ConfigError, match=r"^spec.params.partial: expected a number .*verifier 'counting'.*str 'x'"):
        rk.build_reward({"reward": "verifier_accuracy", "verifier": "counting", "params": {"partial": "x"}})
    with pytest.raises(rk.ConfigError, match="unknown verifier 'countin'.*Did you mean 'counting'"):
        rk.build_reward({"reward": "verifier_accuracy", "verifier": "countin"})
    with pytest.raises(rk.ConfigError, match="give 'verifier' once"):
        rk.build_reward({"reward": "verifier_accuracy", "verifier": "math", "params": {"verifier": "mcq"}})
    with pytest.raises(rk.ConfigError, match="missing a required argument: 'verifier'"):
        rk.build_reward({"reward": "verifier_accuracy"})


def test_verifier_accuracy_passes_context_columns_and_reports_statuses():
    with rk.build_reward(
        {"reward": "verifier_accuracy", "verifier": "mcq", "params": {"context_keys": {"options": "choices"}}}
    ) as reward:
        rows = reward.explain(
            completions=["The answer is Paris", "A or B"],
            answer=["B", "B"],
            choices=[["London", "Paris"], ["London", "Paris"]],
        )
    assert [r["reward"] for r in rows] == [1.0, 0.0]
    assert [r["status"] for r in rows] == ["ok", "hedged"]
    assert rows[0]["extracted"] == "B"


MODULE = """
import rewardkit as rk

def exclaim(prompts, completions, bonus: float = 1.0, **kwargs):
    return [bonus if rk.completion_text(c).endswith("!") else 0.0 for c in completions]

@rk.reward_factory
def longer_than(limit: int = 3):
    def longer(prompts, completions, **kwargs):
        return [float(len(rk.completion_text(c)) > limit) for c in completions]
    return longer
"""


@pytest.fixture
def importable(tmp_path, monkeypatch):
    (tmp_path / "my_rewards_mod.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "my_rewards_mod"
    sys.modules.pop("my_rewards_mod", None)


def test_a_spec_can_name_an_importable_function_or_factory(importable):
    reward = rk.build_reward(
        {
            "combine": "sum",
            "terms": [
                {"reward": f"{importable}:exclaim", "params": {"bonus": 2.0}},
                {"reward": f"{importable}:longer_than", "params": {"limit": 4}, "name": "long"},
            ],
        }
    )
    assert reward(completions=["hi!", "hello there", [{"role": "assistant", "content": "wow!!"}]]) == [2.0, 1.0, 3.0]


@pytest.mark.parametrize(
    ("name", "params", "match"),
    [
        ("my_rewards_mod:nope", {}, "module 'my_rewards_mod' has no attribute 'nope'"),
        ("no_such_mod_xyz:f", {}, "cannot import module 'no_such_mod_xyz'"),
        ("my_rewards_mod:exclaim", {"bonus": "big"}, r"spec.params.bonus: expected a number"),
        ("my_rewards_mod:longer_than", {"limit": 2.5}, r"spec.params.limit: expected an integer"),
        ("my_rewards_mod:rk", {}, "not a reward function or factory"),
    ],
)
def test_importable_reward_errors_are_config_errors(importable, name, params, match):
    with pytest.raises(rk.ConfigError, match=match):
        rk.build_reward({"reward": name, "params": params})


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            {"reward": "math_accuracy", "params": {"timeout": "fast"}},
            "spec.params.timeout: expected a number (a parameter of verifier 'math'), got str 'fast'",
        ),
        ({"reward": "math_accuracy", "params": {"timeout": -1}}, "spec.params.timeout: math verifier: timeout must be"),
        ({"reward": "math_accuracy", "params": {"workers": 1.5}}, "spec.params.workers: expected an integer or null"),
        (
            {"reward": "mcq_accuracy", "params": {"max_chars": 5}},
            "spec.params.max_chars: mcq: max_chars must be at least",
        ),
        ({"reward": "mcq_accuracy", "params": {"lowercase": "yes"}}, "spec.params.lowercase: expected true or false"),
        ({"reward": "code_pass_rate", "params": {"wall_time": "slow"}}, "spec.params.wall_time: expected a number"),
        ({"reward": "code_pass_rate", "params": {"memory_bytes": 0}}, "spec.params.memory_bytes: code verifier"),
        ({"reward": "cosine_length", "params": {"correct_short": "1"}}, "spec.params.correct_short: expected a number"),
        ({"reward": "tag_format", "params": {"strict": "no"}}, "spec.params.strict: expected true or false"),
        (
            {"reward": "repetition_penalty", "params": {"ngram_size": 2.5}},
            "spec.params.ngram_size: expected an integer",
        ),
        (
            {"combine": "sum", "terms": [{"reward": "tag_format", "weight": math.nan}]},
            "spec.terms[0].weight: expected a finite number, got nan",
        ),
        (
            {"combine": "sum", "terms": [{"reward": "tag_format", "weight": math.inf}]},
            "spec.terms[0].weight: expected a finite number, got inf",
        ),
        ({"combine": "sum", "terms": [{"reward": "tag_format", "weight": -math.inf}]}, "expected a finite number"),
        (
            {"combine": "gate", "when": "tag_format", "then": "tag_format", "threshold": math.nan},
            "spec.threshold: expected a number (the gate passes where the `when` term is >= this), got float nan "
            "(not a finite number)",
        ),
        ({"reward": "tag_format", "where": {"task": {"a": 1}}}, "spec.where.task: expected a column value"),
        ({"reward": "tag_format", "where": {"task": []}}, "spec.where.task: expected a value or a non-empty list"),
    ],
)
def test_every_parameter_value_is_checked_at_build_time(spec, message):
    with pytest.raises(rk.ConfigError) as info:
        rk.build_reward(spec)
    assert message in str(info.value)


def test_a_yaml_nan_or_inf_weight_is_rejected(tmp_path):
    for text in (".nan", ".inf", "-.inf"):
        path = tmp_path / "s.yaml"
        path.write_text(f"combine: sum\nterms:\n  - reward: tag_format\n    weight: {text}\n")
        with pytest.raises(rk.ConfigError, match=r"spec.terms\[0\].weight: expected a finite number"):
            rk.build_reward(path)


def test_get_verifier_and_get_reward_check_values_too():
    with pytest.raises(rk.ConfigError, match="timeout: expected a number"):
        rk.get_verifier("math", timeout="abc")
    with pytest.raises(rk.ConfigError, match="strict: expected true or false"):
        rk.get_reward("tag_format", strict="false")
    assert rk.get_verifier("math", timeout=2).config.timeout == 2  # an int where a float is declared is fine


def test_where_matching_no_row_warns_once_with_the_values_seen():
    reward = rk.build_reward(
        {"combine": "sum", "terms": [{"reward": "tag_format", "where": {"task": "Math"}}, "repetition_penalty"]}
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reward(completions=["a", "b"], task=["math", "code"])
        reward(completions=["a", "b"], task=["math", "code"])
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1
    assert "task in ['Math']" in messages[0] and "'math'" in messages[0] and "'code'" in messages[0]


def test_where_that_matched_before_does_not_warn_on_a_batch_without_its_rows():
    reward = rk.build_reward({"reward": "tag_format", "where": {"task": "math"}})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reward(completions=["a"], task=["math"])
        assert reward(completions=["a"], task=["code"]) == [None]


def shouting_readme(prompts, completions, **kwargs):
    return [1.0 if c.isupper() else 0.0 for c in completions]


def test_a_plain_reward_gets_chat_completions_as_is_and_its_errors_name_it():
    reward = rk.build_reward(
        {
            "combine": "sum",
            "terms": [{"reward": "tag_format"}, {"reward": f"{__name__}:shouting_readme", "name": "shout"}],
        }
    )
    assert reward(completions=["HI", "hi"]) == [1.0, 0.0]
    with pytest.raises(
        rk.RewardError, match=r"reward 'shout' raised AttributeError: .*isupper.*completion_text"
    ) as info:
        reward(completions=[CHAT])
    assert isinstance(info.value.__cause__, AttributeError)


def test_errors_raised_inside_a_reward_subclass_name_the_reward():
    class Broken(rk.Reward):
        def score(self, batch):
            raise KeyError("boom")

    with pytest.raises(rk.RewardError, match=r"reward 'broken' raised KeyError: 'boom'"):
        Broken("broken")(completions=["x"])


def test_a_reward_returning_non_numbers_is_named():
    reward = rk.rewards.base.as_reward(lambda prompts, completions, **kw: ["high"] * len(completions), "wordy")
    with pytest.raises(rk.RewardError, match=r"reward 'wordy' raised ValueError"):
        reward(completions=["x"])


README = __import__("pathlib").Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_plugin_example_works_on_plain_and_chat_completions(rewardkit_register):
    block = re.search(r"A plugin in ten lines.*?```python\n(.*?)```", README.read_text(), re.DOTALL)
    assert block, "README plugin example not found"
    namespace: dict = {}
    exec(compile(block.group(1), "README.md", "exec"), namespace)  # our own README
    plugin = type(sys)("readme_plugin")
    plugin.register_rewards = namespace["register_rewards"]
    rewardkit_register(plugin, name="readme-plugin")
    shouting = rk.get_reward("shouting")
    assert shouting(prompts=["q", "q"], completions=["LOUD", "quiet"]) == [1.0, 0.0]
    chat = [[{"role": "assistant", "content": "LOUD"}], [{"role": "assistant", "content": "quiet"}]]
    assert shouting(prompts=[[{"role": "user", "content": "q"}]] * 2, completions=chat) == [1.0, 0.0]
    with rk.build_reward({"combine": "sum", "terms": ["shouting", "tag_format"]}) as reward:
        assert reward(completions=chat) == [1.0, 0.0]


def test_score_rows_returns_components_and_verdicts_per_row():
    rows = [
        {"completion": r"<think>1+1</think><answer>\boxed{2}</answer>", "answer": "2"},
        {"completion": [{"role": "assistant", "content": r"\boxed{2} or \boxed{3}"}], "answer": "3"},
        {"completion": "no reference here", "answer": None},
    ]
    spec = {"combine": "sum", "terms": [{"reward": "math_accuracy"}, {"reward": "tag_format", "weight": 0.5}]}
    out = rk.score_rows(spec, rows)
    assert [r["reward"] for r in out] == [1.5, 0.0, 0.0]
    assert out[0]["components"] == {"math_accuracy": 1.0, "tag_format": 1.0}
    assert out[1]["verdicts"]["math_accuracy"]["status"] == "hedged"
    assert out[2]["components"]["math_accuracy"] is None and out[2]["status"] is None


def test_explain_equals_the_call_and_logs_nothing(test_plugin):
    logged: list = []
    reward = rk.build_reward({"reward": "contains"})
    rows = reward.explain(completions=["a4", "b"], answer=["4", "4"], log_metric=logged.append)
    assert [r["reward"] for r in rows] == reward(completions=["a4", "b"], answer=["4", "4"]) == [1.0, 0.0]
    assert rows[0]["verdicts"] == {"contains": {"status": "ok", "extracted": "4"}}
    assert logged == [] and CountingVerifier.instances == 1
    reward.close()


DOCS = README.parent / "docs"


def python_block_after(path, heading: str) -> str:
    match = re.search(re.escape(heading) + r".*?```python\n(.*?)```", path.read_text(), re.DOTALL)
    assert match, f"no python block after {heading!r} in {path.name}"
    return match.group(1)


def test_the_documented_reward_subclass_example_runs(rewardkit_register):
    namespace: dict = {}
    exec(python_block_after(DOCS / "rewards.md", "## Writing a reward"), namespace)  # our docs
    shouting = namespace["Shouting"]

    class Plugin:
        @rk.hookimpl
        def register_rewards(self, register):
            register("shouting", shouting)

    rewardkit_register(Plugin(), name="doc-shouting")
    reward = rk.get_reward("shouting", bonus=2.0)
    assert reward(completions=["HEY", [{"role": "assistant", "content": "HEY"}], "hey"]) == [2.0, 2.0, 0.0]
    with pytest.raises(rk.ConfigError, match="bonus: expected a number"):
        rk.get_reward("shouting", bonus="lots")


def test_the_documented_params_schema_checks_a_kwargs_verifier_at_build_time(rewardkit_register):
    source = "import rewardkit as rk\nfrom dataclasses import dataclass\n" + python_block_after(
        DOCS / "plugins.md", "## Hooks"
    )
    namespace: dict = {}
    exec(source, namespace)  # our docs
    verifier = namespace["ShoutVerifier"]

    class Plugin:
        @rk.hookimpl
        def register_verifiers(self, register):
            register("shout", verifier)

    rewardkit_register(Plugin(), name="doc-shout")
    with pytest.raises(rk.ConfigError, match=r"spec.params.min_length: expected an integer .*verifier 'shout'"):
        rk.build_reward({"reward": "verifier_accuracy", "verifier": "shout", "params": {"min_length": "2"}})
    with pytest.raises(rk.ConfigError, match=r"spec.params.min_length: shout: min_length must be >= 1, got 0"):
        rk.build_reward({"reward": "verifier_accuracy", "verifier": "shout", "params": {"min_length": 0}})
    rk.build_reward({"reward": "verifier_accuracy", "verifier": "shout", "params": {"min_length": 3}}).close()
    with rk.build_reward({"reward": "verifier_accuracy", "verifier": "shout", "params": {"min_length": 2}}) as r:
        assert r(completions=["HI", "hi"], answer=["hi", "hi"]) == [1.0, 0.0]


def test_status_lists_every_status_the_builtin_verifiers_produce():
    from rewardkit.verifiers.multiple_choice import verifier as mcq_verifier

    produced = {mcq_verifier.INVALID_OPTION, mcq_verifier.OPTION_MISMATCH}
    assert produced <= {s.value for s in Status}
    with rk.get_verifier("mcq") as mcq:
        verdict = mcq.verify("Answer: B) Paris", "B", options=["Paris", "London"])
    assert verdict.status == "option_mismatch" and verdict.status is Status.OPTION_MISMATCH


def test_score_rows_takes_a_reward_name_or_a_plain_function():
    rows = [{"completion": "<think>a</think>b"}, {"completion": [{"role": "assistant", "content": "b"}]}]
    assert [r["reward"] for r in rk.score_rows("think_format", rows)] == [1.0, 0.0]
    out = rk.score_rows(shouting_readme, [{"completion": "HI"}, {"completion": "hi"}])
    assert [r["components"] for r in out] == [{"shouting_readme": 1.0}, {"shouting_readme": 0.0}]


def test_the_plugins_page_example_passes_the_reward_fixture_on_plain_and_chat(
    rewardkit_register, rewardkit_call_reward
):
    namespace: dict = {}
    exec(python_block_after(DOCS / "plugins.md", "## A plugin in ten lines"), namespace)  # our docs
    plugin = type(sys)("plugins_page_plugin")
    plugin.register_rewards = namespace["register_rewards"]
    rewardkit_register(plugin, name="plugins-page")
    # the fixture scores strings both as plain text and as chat messages, and the two must agree
    call = rewardkit_call_reward("shortness", ["", "abc", "abcdefg"], expected=[1.0, 0.25, 0.125])
    assert call.values == [1.0, 0.25, 0.125]
