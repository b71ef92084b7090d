"""The judge against a real tiny transformers model served on loopback: guided decoding under the verdict
schema gives a verdict the judge reads; the model's free text (no response_format) is a judge_error."""

from __future__ import annotations

import pytest
from judge_server import SAFE_REASON_CHARS, JudgeServer, TinyModelBackend, serving

import rewardkit as rk
from rewardkit.verifiers.judge.chat_client import forget_format_refusals

pytestmark = pytest.mark.filterwarnings("ignore:`past_key_values` is deprecated:FutureWarning")


@pytest.fixture(scope="module")
def model_server(tiny_model_dir):
    forget_format_refusals()
    with serving(JudgeServer(TinyModelBackend(tiny_model_dir))) as server:
        yield server


def test_guided_decoding_of_a_real_model_gives_a_readable_verdict(model_server):
    before = model_server.log.requests
    with rk.get_verifier("judge", base_url=model_server.base_url, model="tiny-judge") as verifier:
        verdicts = verifier.verify_batch(["The answer is 4", "The answer is 4", "It is 7"], ["4", "4", "4"])
    assert all(v.status == "ok" for v in verdicts)
    assert verdicts[0].extracted in ("correct", "incorrect") and verdicts[0].score == float(verdicts[0].correct)
    assert verdicts[0].to_dict() == verdicts[1].to_dict()  # greedy: the same prompt, the same verdict
    reason = verdicts[0].details["reason"]
    assert reason and set(reason) <= set(SAFE_REASON_CHARS)
    usage = verdicts[0].details["usage"]
    assert usage["prompt_tokens"] > 300 and usage["completion_tokens"] > len('{"verdict": "correct", "reason": ""}')
    assert model_server.log.requests == before + 3


def test_a_real_models_free_text_is_a_judge_error_and_no_reward(model_server):
    spec = {
        "reward": "judge_accuracy",
        "params": {
            "base_url": model_server.base_url,
            "model": "tiny-judge",
            "response_format": False,
            "max_tokens": 16,
        },
    }
    with rk.build_reward(spec) as reward:
        rows = reward.explain(prompts=["What is 2+2?"], completions=["4"], answer=["4"])
        assert reward(prompts=["What is 2+2?"], completions=["4"], answer=["4"]) == [None]
    assert rows[0]["status"] == "judge_error" and rows[0]["reward"] is None
    assert "response_format" not in model_server.log.bodies[-1]
