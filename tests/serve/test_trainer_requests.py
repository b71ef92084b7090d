"""The requests OpenRLHF and slime send, sent the way they send them (aiohttp, their payloads, their retry
and parsing), against a real server: each gets the in-process reward's values in the form it reads.

Written from what their remote-reward code does (OpenRLHF's single-turn agent executor and slime's
``remote_rm``), in our own words."""

from __future__ import annotations

import asyncio
import math

import pytest
from serve_helpers import TOKEN, running

import rewardkit as rk
from rewardkit.serve.settings import ServeSettings

aiohttp = pytest.importorskip("aiohttp")

SPEC = {
    "name": "gsm8k_reward",
    "combine": "sum",
    "terms": [
        {"reward": "math_accuracy", "params": {"workers": 1}},
        {"reward": "tag_format", "weight": 0.25, "params": {"tags": ["think", "answer"]}},
    ],
}
SYSTEM = "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
QUESTIONS = [f"What is {a} + {b}?" for a, b in [(2, 3), (10, 32), (7, 8), (1, 1), (40, 2), (9, 9)]]
LABELS = ["5", "42", "15", "2", "42", "18"]
RESPONSES = [
    "<think>2 + 3 = 5</think><answer>\\boxed{5}</answer>",
    "<think>10 + 32</think><answer>\\boxed{42}</answer>",
    "<think>7 + 8 = 16?</think><answer>\\boxed{16}</answer>",
    "The answer is \\boxed{2}.",
    "<think>forty-two</think><answer>42</answer>",
    "I am not sure.",
]


def chat_prompt(question: str) -> str:
    return f"{SYSTEM}<|im_start|>user\n{question}<|im_end|>\n<|im_start|>assistant\n"


@pytest.fixture(scope="module")
def reward():
    with rk.build_reward(SPEC) as built:
        yield built


@pytest.fixture(scope="module")
def expected(reward):
    return reward.explain(prompts=[chat_prompt(q) for q in QUESTIONS], completions=RESPONSES, answer=LABELS)


@pytest.fixture(scope="module")
def url(reward):
    with running(reward) as address:
        yield address


async def openrlhf_fetch(endpoints: list[str], queries: list[str], prompts: list[str], labels: list[str]) -> list:
    """OpenRLHF's HTTP path: shard the samples over the endpoints, one aiohttp session per try, 5 tries."""
    size = (len(queries) + len(endpoints) - 1) // len(endpoints)
    timeout = aiohttp.ClientTimeout(total=180)

    async def post(endpoint: str, payload: dict) -> dict:
        for _ in range(5):
            try:
                async with aiohttp.ClientSession(timeout=timeout) as session:
                    async with session.post(endpoint, json=payload) as response:
                        response.raise_for_status()
                        return await response.json()
            except aiohttp.ClientError:
                await asyncio.sleep(1)
        raise RuntimeError("no answer after 5 tries")

    tasks = []
    for k, endpoint in enumerate(endpoints):
        part = slice(k * size, (k + 1) * size)
        payload = {"query": queries[part], "prompts": prompts[part], "labels": labels[part]}
        tasks.append(asyncio.create_task(post(endpoint, payload)))
    return await asyncio.gather(*tasks)


def test_openrlhf_one_sample_per_request_as_its_agent_executor_sends_them(url, expected):
    async def all_samples() -> list[dict]:
        outputs = []
        for question, response, label in zip(QUESTIONS, RESPONSES, LABELS, strict=True):
            prompt = chat_prompt(question)
            query = prompt + response + "<|im_end|>"  # decoded with special tokens: the EOS stays
            (info,) = await openrlhf_fetch([url + "/get_reward"], [query], [prompt], [label])
            scores = info.get("scores")
            outputs.append(
                {
                    "reward": info.get("rewards"),
                    "scores": scores if scores is not None else info.get("rewards"),
                    "extra_logs": info.get("extra_logs") or {},
                }
            )
        return outputs

    outputs = asyncio.run(all_samples())
    assert [o["reward"] for o in outputs] == [[e["reward"]] for e in expected]
    assert [o["scores"] for o in outputs] == [[e["components"]["math_accuracy"]] for e in expected]
    keys = {tuple(o["extra_logs"]) for o in outputs}
    assert len(keys) == 1, keys  # OpenRLHF concatenates extra_logs across samples: the same keys every time
    for o in outputs:  # it builds tensors of them: numbers only, one per sample
        for value in [*o["reward"], *o["scores"], *(v for vs in o["extra_logs"].values() for v in vs)]:
            assert isinstance(value, float) and math.isfinite(value)
    assert [o["extra_logs"]["tag_format"][0] for o in outputs] == [e["components"]["tag_format"] for e in expected]


def test_openrlhf_a_batch_sharded_over_two_endpoints(url, expected):
    prompts = [chat_prompt(q) for q in QUESTIONS]
    queries = [p + r + "<|im_end|>" for p, r in zip(prompts, RESPONSES, strict=True)]
    infos = asyncio.run(openrlhf_fetch([url + "/get_reward", url + "/get_reward"], queries, prompts, LABELS))
    assert [r for info in infos for r in info["rewards"]] == [e["reward"] for e in expected]


async def slime_remote_rm(url: str, samples: list[dict], reward_key: str) -> list:
    """slime's remote_rm: one shared session (64 connections, 120 s), one POST per sample, 10 tries with
    exponential backoff, all samples at once (batched_async_rm); the reward read with --reward-key."""
    connector = aiohttp.TCPConnector(limit=64, enable_cleanup_closed=True)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=120)) as session:

        async def one(sample: dict) -> object:
            payload = {"prompt": sample["prompt"], "response": sample["response"], "label": sample["label"]}
            for attempt in range(10):
                try:
                    async with session.post(url, json=payload) as resp:
                        resp.raise_for_status()
                        return await resp.json()
                except Exception:
                    if attempt + 1 >= 10:
                        raise
                    await asyncio.sleep(min(2**attempt, 30) * 0.01)
            raise AssertionError("unreachable")

        rewards = await asyncio.gather(*(one(s) for s in samples))
    return [r if not reward_key or r is None else r[reward_key] for r in rewards]


@pytest.mark.parametrize("chat", [False, True], ids=["templated prompt", "chat messages"])
def test_slime_samples_as_its_remote_rm_sends_them_read_with_reward_key(url, expected, chat):
    samples = [
        {
            "prompt": [{"role": "user", "content": q}] if chat else chat_prompt(q),
            "response": r,
            "label": label,
        }
        for q, r, label in zip(QUESTIONS, RESPONSES, LABELS, strict=True)
    ]
    values = asyncio.run(slime_remote_rm(url + "/reward", samples, reward_key="reward"))
    assert values == [e["reward"] for e in expected]
    whole = asyncio.run(slime_remote_rm(url + "/reward", samples[:2], reward_key=""))
    assert whole[0]["status"] == "ok" and whole[0]["math_accuracy"] == 1.0


def test_with_auth_on_openrlhf_and_slime_give_the_token_in_their_url(reward, expected):
    with running(reward, ServeSettings(port=0, token=TOKEN)) as url:
        prompt = chat_prompt(QUESTIONS[1])
        query = prompt + RESPONSES[1] + "<|im_end|>"
        with pytest.raises(aiohttp.ClientResponseError) as refused:
            asyncio.run(slime_remote_rm(url + "/reward", [{"prompt": "p", "response": "r", "label": "l"}], "reward"))
        assert refused.value.status == 401
        (info,) = asyncio.run(openrlhf_fetch([f"{url}/get_reward?token={TOKEN}"], [query], [prompt], [LABELS[1]]))
        assert info["rewards"] == [expected[1]["reward"]]
        sample = {"prompt": prompt, "response": RESPONSES[1], "label": LABELS[1]}
        assert asyncio.run(slime_remote_rm(f"{url}/reward?token={TOKEN}", [sample], "reward")) == [
            expected[1]["reward"]
        ]
