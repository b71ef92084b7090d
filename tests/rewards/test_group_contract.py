"""The group contract: a reward that compares a prompt's completions (``whole_groups``) gets whole groups from
every place that cuts or merges calls: the Ray executor's chunks, the micro-batcher, row isolation and
``rewardkit score``'s chunks; ``score --ray`` refuses it."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from click.testing import CliRunner

import rewardkit as rk
from rewardkit.cli import main
from rewardkit.rewards.base import Reward, Scored
from rewardkit.rewards.groups import group_columns, group_spans, prompt_groups
from rewardkit.rewards.inputs import Batch
from rewardkit.scoring.micro_batch import MicroBatcher

GROUP_SPEC = {
    "combine": "sum",
    "terms": [{"reward": "math_accuracy"}, {"reward": "group_length", "params": {"num_generations": 4}}],
}


def words(n: int, answer: str = "4") -> str:
    return " ".join(["step"] * (n - 1) + [rf"\boxed{{{answer}}}"])


def group_rows(prompts: int = 4, size: int = 4) -> list[dict]:
    return [
        {"prompt": f"What is 2+2? ({p})", "completion": words(5 + 7 * g + p), "answer": "4"}
        for p in range(prompts)
        for g in range(size)
    ]


class GroupSizes(Reward):
    """Each row's value is the size of its group in the call; raises for a group holding 'BOOM'."""

    whole_groups = True

    def __init__(self) -> None:
        super().__init__("group_sizes")
        self.calls: list[int] = []
        self.lock = threading.Lock()

    def score(self, batch: Batch) -> Scored:
        with self.lock:
            self.calls.append(len(batch))
        if "BOOM" in batch.texts:
            raise RuntimeError("a group broke")
        values: list[float | None] = [None] * len(batch)
        for rows in prompt_groups(batch):
            for i in rows:
                values[i] = float(len(rows))
        return Scored.leaf(self.name, values)


def batch_of(prompts: list[str], texts: list[str]) -> Batch:
    return Batch.from_call(prompts, texts, {})


def test_a_spec_with_a_group_term_needs_whole_groups_and_names_its_group_column():
    with rk.build_reward(GROUP_SPEC) as reward:
        assert group_columns(reward) == [None]
    keyed = {"combine": "sum", "terms": ["math_accuracy", {"reward": "group_length", "params": {"group_key": "uid"}}]}
    with rk.build_reward(keyed) as reward:
        assert group_columns(reward) == ["uid"]
    with rk.build_reward({"reward": "math_accuracy"}) as reward:
        assert group_columns(reward) is None


def test_spans_cut_only_between_groups_and_scattered_groups_stay_in_one_chunk():
    batch = batch_of(["a"] * 4 + ["b"] * 4 + ["c"] * 4, ["x"] * 12)
    assert group_spans(batch, 3) == [(0, 4), (4, 8), (8, 12)]
    assert group_spans(batch, 6) == [(0, 8), (8, 12)]
    scattered = batch_of(["a", "b", "a", "b"], ["x"] * 4)
    assert group_spans(scattered, 1) == [(0, 4)]
    keyed = Batch.from_call(["p"] * 4, ["x"] * 4, {"uid": [1, 1, 2, 2]})
    assert group_spans(keyed, 1, ["uid"]) == [(0, 2), (2, 4)]


def test_the_micro_batcher_scores_a_group_rewards_calls_alone():
    reward = GroupSizes()
    batcher = MicroBatcher(reward, max_wait=0.05, concurrency=1)
    calls = [batch_of(["p", "p"], ["a", "b"]) for _ in range(6)]
    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(batcher, calls))
    batcher.close()
    assert [r.values for r in results] == [[2.0, 2.0]] * 6  # merged, they would be one group of 12
    assert reward.calls == [2] * 6


def test_row_isolation_fails_the_broken_group_whole_and_scores_the_others_whole():
    reward = GroupSizes()
    batcher = MicroBatcher(reward, max_wait=0.0, concurrency=1, isolate_rows=True)
    prompts = ["p", "q", "p", "r", "q", "r", "r"]
    texts = ["a", "b", "c", "BOOM", "d", "e", "f"]
    result = batcher(batch_of(prompts, texts))
    batcher.close()
    assert result.values == [2.0, 2.0, 2.0, None, 2.0, None, None]
    assert sorted(result.errors) == [3, 5, 6]


def test_rewardkit_score_extends_a_chunk_to_the_end_of_its_group(tmp_path):
    data, spec = tmp_path / "in.jsonl", tmp_path / "spec.json"
    data.write_text("".join(json.dumps(r) + "\n" for r in group_rows()))
    spec.write_text(json.dumps(GROUP_SPEC))
    out = tmp_path / "out.jsonl"
    args = ["score", "--no-progress", "-r", str(spec), "-i", str(data), "-o", str(out), "--batch-size", "3"]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    written = [json.loads(line) for line in out.read_text().splitlines()]
    with rk.build_reward(GROUP_SPEC) as reward:
        rows = group_rows()
        expected = reward(
            prompts=[r["prompt"] for r in rows], completions=[r["completion"] for r in rows], answer=["4"] * 16
        )
    assert [w["reward"] for w in written] == pytest.approx(expected)
    assert "incomplete_group" not in out.read_text()


def test_score_on_ray_data_refuses_a_group_reward(tmp_path):
    from rewardkit.scoring.ray_data_scoring import spec_of

    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(GROUP_SPEC))
    with pytest.raises(rk.ConfigError, match="Ray Data's blocks cut groups apart"):
        spec_of(str(spec))


@pytest.mark.slow
def test_the_ray_executor_never_cuts_a_group_between_chunks(ray):
    rows = group_rows()
    call = {
        "prompts": [r["prompt"] for r in rows],
        "completions": [r["completion"] for r in rows],
        "answer": ["4"] * 16,
    }
    with rk.build_reward(GROUP_SPEC) as local:
        expected = local(**call)
    with rk.build_reward(GROUP_SPEC, executor="ray", actors=2, chunk_size=3) as remote:
        assert remote.whole_groups
        assert remote(**call) == pytest.approx(expected)
    assert all(v is not None for v in expected)


def test_metrics_of_a_call_scored_in_parts_add_up_and_shares_are_weighted_by_rows():
    from rewardkit.rewards.base import merge_metrics
    from rewardkit.scoring.ray_executor import merge

    first = Scored.leaf("j", [1.0, 0.0, 1.0], metrics={"judge_prompt_tokens": 30.0, "criterion/units": 2 / 3})
    second = Scored.leaf("j", [1.0], metrics={"judge_prompt_tokens": 12.0, "criterion/units": 0.0})
    merged, _ = merge("j", [(first, 3), (second, 1), (None, 2)], [None, None, "actor died"])
    assert merged.metrics == {"j": {"judge_prompt_tokens": 42.0, "criterion/units": pytest.approx(0.5)}}
    assert merge_metrics([]) == {}
