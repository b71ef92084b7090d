"""GRPO with TRL and a composed rewardkit reward, on a real model (see docs/trl.md).

    pip install -e '.[train]'   # in a rewardkit checkout
    python examples/train_trl.py --model Qwen/Qwen2.5-0.5B-Instruct --steps 200
    python examples/train_trl.py --cpu --model path/to/small-model --steps 2 --max-completion-length 64

On a GPU it trains in bf16 when the GPU supports it (fp32 otherwise); ``--cpu`` trains on the CPU in fp32
(slow: for trying the pipeline, not for learning). The test suite runs it with ``--cpu`` on a tiny local model.

The dataset is the bundled math questions (examples/math.jsonl, prompts and answers only); swap in your
own with a `prompt` column (string or chat messages) and an `answer` column. The reward is the same
spec the test suite trains a tiny local model with: accuracy + format + soft overlong penalty, with each
component logged by TRL as rewards/math_reward/<component>/mean, and each completion's component values and
verdict status as columns of TRL's completions table (``log_completions``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import rewardkit as rk

HERE = Path(__file__).resolve().parent
SYSTEM = (
    "Think step by step inside <think></think>, then give the final answer inside <answer></answer> as \\boxed{...}."
)
SPEC = {
    "name": "math_reward",
    "combine": "sum",
    "terms": [
        {"reward": "math_accuracy", "weight": 1.0},
        {"reward": "tag_format", "weight": 0.5, "params": {"tags": ["think", "answer"]}},
        {"reward": "soft_overlong", "params": {"max_length": 512, "cache": 128}},  # tokens (completion_ids)
    ],
}


def load_dataset(conversational: bool):
    from datasets import Dataset

    rows, seen = [], set()
    for line in (HERE / "math.jsonl").read_text().splitlines():
        row = json.loads(line)
        question = row["prompt"] if isinstance(row["prompt"], str) else row["prompt"][-1]["content"]
        if question in seen:
            continue
        seen.add(question)
        prompt = (
            [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}]
            if conversational
            else f"{SYSTEM}\n\n{question}\n"
        )
        rows.append({"prompt": prompt, "answer": row["answer"]})
    return Dataset.from_list(rows)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="Qwen/Qwen2.5-0.5B-Instruct", help="a hub name or a local path")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--output-dir", default="grpo-rewardkit")
    parser.add_argument("--plain", action="store_true", help="plain-text prompts instead of chat messages")
    parser.add_argument("--async-reward", action="store_true", help="pass the reward's async variant")
    parser.add_argument("--cpu", action="store_true", help="train on the CPU in fp32 (no GPU, no bf16)")
    parser.add_argument("--batch-size", type=int, default=8, help="per-device batch size (completions)")
    parser.add_argument("--num-generations", type=int, default=8, help="completions per prompt (GRPO group)")
    parser.add_argument("--max-completion-length", type=int, default=512)
    return parser.parse_args(argv)


def use_bf16(cpu: bool) -> bool:
    if cpu:
        return False
    import torch

    return bool(torch.cuda.is_available() and torch.cuda.is_bf16_supported())


def main(argv: list[str] | None = None):
    args = parse_args(argv)
    from trl import GRPOConfig, GRPOTrainer

    reward = rk.build_reward(SPEC)
    config = GRPOConfig(
        output_dir=args.output_dir,
        max_steps=args.steps,
        per_device_train_batch_size=args.batch_size,
        num_generations=args.num_generations,
        max_completion_length=args.max_completion_length,
        learning_rate=1e-6,
        logging_steps=min(5, args.steps),
        use_cpu=args.cpu,
        bf16=use_bf16(args.cpu),
        report_to="none",
        save_strategy="no",
    )
    trainer = GRPOTrainer(
        model=args.model,
        reward_funcs=[reward.as_async() if args.async_reward else reward],
        args=config,
        train_dataset=load_dataset(conversational=not args.plain),
    )
    try:
        trainer.train()
    finally:
        reward.close()
    trainer.save_model(args.output_dir)
    return trainer


if __name__ == "__main__":
    main()
