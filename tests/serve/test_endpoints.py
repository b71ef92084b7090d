"""Every endpoint of a real reward server on loopback: the values are the in-process reward's, in each
trainer's shape, and /health, /metrics and the OpenAPI description answer."""

from __future__ import annotations

import httpx
import pytest
from serve_helpers import running

import rewardkit as rk
from rewardkit.serve.settings import ServeSettings

SPEC = {
    "name": "math_reward",
    "combine": "sum",
    "terms": [
        {"reward": "math_accuracy", "params": {"workers": 1}},
        {"reward": "tag_format", "weight": 0.5, "params": {"tags": ["think", "answer"]}},
    ],
}
COMPLETIONS = [
    "<think>6 * 7</think><answer>\\boxed{42}</answer>",
    "<think>guess</think><answer>\\boxed{41}</answer>",
    "the answer is \\boxed{\\frac{1}{2}}",
    "I do not know",
]
ANSWERS = ["42", "42", "0.5", "7"]


@pytest.fixture(scope="module")
def reward():
    with rk.build_reward(SPEC) as built:
        yield built


@pytest.fixture(scope="module")
def expected(reward):
    return reward.explain(completions=COMPLETIONS, answer=ANSWERS)


@pytest.fixture(scope="module")
def url(reward):
    with running(reward) as address:
        yield address


@pytest.fixture(scope="module")
def client(url):
    with httpx.Client(base_url=url, timeout=60) as c:
        yield c


def test_v1_score_returns_the_in_process_values_components_statuses_and_answers(client, expected):
    response = client.post("/v1/score", json={"completions": COMPLETIONS, "columns": {"answer": ANSWERS}})
    assert response.status_code == 200
    body = response.json()
    assert body["reward"] == "math_reward"
    assert body["values"] == [e["reward"] for e in expected]
    assert body["values"] == [1.5, 0.5, 1.0, 0.0]
    for label in ("math_accuracy", "tag_format"):
        assert body["components"][label] == [e["components"][label] for e in expected]
    assert body["statuses"] == {"math_accuracy": [e["status"] for e in expected]}
    assert body["extracted"]["math_accuracy"] == [e["extracted"] for e in expected]
    assert body["errors"] == []


def test_v1_score_takes_chat_messages_and_prompts(client):
    chat = [[{"role": "assistant", "content": "<answer>\\boxed{3}</answer>", "reasoning_content": "1+2"}]]
    body = client.post(
        "/v1/score",
        json={"completions": chat, "prompts": [[{"role": "user", "content": "1+2?"}]], "columns": {"answer": ["3"]}},
    ).json()
    assert body["values"] == [1.5]  # the reasoning is rendered as <think>, as in-process


def test_get_reward_answers_openrlhf_with_rewards_scores_and_extra_logs(client, expected):
    prompt = "<|im_start|>user\nWhat is 6 * 7?<|im_end|>\n<|im_start|>assistant\n"
    queries = [prompt + c + "<|im_end|>" for c in COMPLETIONS]
    body = client.post("/get_reward", json={"query": queries, "prompts": [prompt] * 4, "labels": ANSWERS}).json()
    assert body["rewards"] == [e["reward"] for e in expected]
    assert body["scores"] == [e["components"]["math_accuracy"] for e in expected]  # accuracy, for filtering
    logs = body["extra_logs"]
    assert set(logs) == {"math_accuracy", "tag_format", "math_accuracy/ok", "no_value"}
    assert logs["tag_format"] == [e["components"]["tag_format"] for e in expected]
    assert logs["math_accuracy/ok"] == [1.0 if e["status"] == "ok" else 0.0 for e in expected]
    assert logs["no_value"] == [0.0] * 4


def test_reward_answers_slime_with_a_reward_key_dict(client, expected):
    body = client.post("/reward", json={"prompt": "6 * 7?", "response": COMPLETIONS[0], "label": "42"}).json()
    assert body["reward"] == expected[0]["reward"]
    assert body["status"] == "ok" and body["extracted"] == "42" and body["no_value"] is False
    assert body["math_accuracy"] == 1.0 and body["tag_format"] == 1.0
    assert body["math_accuracy/status"] == "ok"


def test_verify_answers_nemo_gym_with_the_request_and_its_reward(client):
    request = {
        "responses_create_params": {"input": [{"role": "user", "content": "What is 6 * 7?"}]},
        "response": {
            "id": "resp_1",
            "object": "response",
            "output": [
                {"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "6 * 7 = 42"}]},
                {
                    "id": "msg_1",
                    "type": "message",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": "<answer>\\boxed{42}</answer>", "annotations": []}],
                },
            ],
        },
        "question": "What is 6 * 7?",
        "expected_answer": "42",
    }
    body = client.post("/verify", json=request).json()
    assert body["reward"] == 1.5  # the reasoning item is the <think> block
    assert body["extracted_answer"] == "42" and body["status"] == "ok"
    assert body["reward_components"] == {"math_accuracy": 1.0, "tag_format": 1.0}
    assert body["expected_answer"] == "42" and body["response"]["id"] == "resp_1"  # the request, echoed
    assert "_ng_failure_class" not in body


def test_health_names_the_reward_and_metrics_count_requests_rows_and_statuses(client):
    health = client.get("/health")
    assert health.status_code == 200
    assert health.json()["status"] == "ok" and health.json()["reward"] == "math_reward"
    client.post("/v1/score", json={"completions": COMPLETIONS, "columns": {"answer": ANSWERS}})
    text = client.get("/metrics").text
    assert client.get("/metrics").headers["content-type"].startswith("text/plain")
    lines = dict(line.rsplit(" ", 1) for line in text.splitlines() if line and not line.startswith("#"))
    assert int(lines['rewardkit_requests_total{endpoint="/v1/score",code="200"}']) >= 1
    assert int(lines['rewardkit_rows_total{endpoint="/v1/score"}']) >= 4
    assert int(lines['rewardkit_statuses_total{term="math_accuracy",status="ok"}']) >= 2
    assert int(lines['rewardkit_statuses_total{term="math_accuracy",status="no_answer"}']) >= 1
    assert int(lines['rewardkit_request_seconds_count{endpoint="/v1/score"}']) >= 1
    assert 'rewardkit_request_seconds_bucket{endpoint="/v1/score",le="+Inf"}' in lines
    for gauge in ("rewardkit_in_flight_requests", "rewardkit_queue_rows", "rewardkit_in_flight_rows"):
        assert gauge in lines
    assert int(lines["rewardkit_batches_total"]) >= 1


def test_the_openapi_description_lists_every_endpoint(client):
    spec = client.get("/openapi.json").json()
    assert {"/v1/score", "/get_reward", "/reward", "/verify", "/health", "/metrics"} <= set(spec["paths"])
    assert client.get("/docs").status_code == 200


def test_none_reward_fills_rows_without_a_value_for_the_number_only_trainers(reward):
    settings = ServeSettings(port=0, none_reward=-1.0)
    with running(rk.build_reward({"reward": "math_accuracy", "params": {"workers": 1}}), settings) as address:
        with httpx.Client(base_url=address, timeout=60) as c:
            rows = {"query": ["\\boxed{1}", "\\boxed{2}"], "labels": ["1", ""]}  # no reference: no value
            body = c.post("/get_reward", json=rows).json()
            assert body["rewards"] == [1.0, -1.0] and body["extra_logs"]["no_value"] == [0.0, 1.0]
            native = c.post("/v1/score", json={"completions": ["\\boxed{2}"], "columns": {"answer": [None]}}).json()
            assert native["values"] == [None]  # the native shape keeps None
            slime = c.post("/reward", json={"prompt": "p", "response": "\\boxed{2}", "label": None}).json()
            assert slime["reward"] == -1.0 and slime["no_value"] is True
