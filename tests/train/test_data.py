"""Training prompts: toy tasks, JSONL files, the epoch walk that makes resuming stateless."""

from __future__ import annotations

import json

import pytest

from rewardkit import ConfigError
from rewardkit.train.config import DataConfig
from rewardkit.train.data import batch_rows, load_examples


def test_every_prompt_once_per_epoch_in_a_seeded_order():
    rows = [{"prompt": str(i)} for i in range(10)]
    first_epoch = [r["prompt"] for step in range(5) for r in batch_rows(rows, seed=1, step=step, size=2)]
    assert sorted(first_epoch) == sorted(r["prompt"] for r in rows)
    assert first_epoch != [r["prompt"] for r in rows]  # shuffled
    again = [r["prompt"] for step in range(5) for r in batch_rows(rows, seed=1, step=step, size=2)]
    assert again == first_epoch
    second_epoch = [r["prompt"] for step in range(5, 10) for r in batch_rows(rows, seed=1, step=step, size=2)]
    assert sorted(second_epoch) == sorted(first_epoch) and second_epoch != first_epoch


def test_held_out_prompts_never_reach_training():
    train, held = load_examples(DataConfig(task="addition", eval_size=7), seed=0)
    assert len(train) == 93 and len(held) == 7
    assert not {r["prompt"] for r in train} & {r["prompt"] for r in held}
    assert {"prompt": "2+3=", "answer": "5", "target": "answer:5"} in train + held


def test_jsonl_rows_keep_their_columns_and_chat_wraps_prompts(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text("\n".join(json.dumps({"question": f"q{i}", "answer": str(i)}) for i in range(3)) + "\n")
    train, _ = load_examples(DataConfig(path=str(path), prompt_field="question", chat=True), seed=0)
    assert train[0]["prompt"] == [{"role": "user", "content": "q0"}] and train[0]["answer"] == "0"
    with pytest.raises(ConfigError, match="data.prompt_field: .* has no 'prompt'; its fields: question, answer"):
        load_examples(DataConfig(path=str(path)), seed=0)
    with pytest.raises(ConfigError, match="data.task: unknown task 'sums'; built-in tasks: addition, copy"):
        load_examples(DataConfig(task="sums"), seed=0)
    with pytest.raises(ConfigError, match="data.task_params"):
        load_examples(DataConfig(task="addition", task_params={"digits": 2}), seed=0)
