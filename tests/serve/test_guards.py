"""Safe by default: loopback unless a token is set, the token checked on every scoring request, bad bodies
answered 400/413/422 naming the field, and the limits on rows and body size held."""

from __future__ import annotations

import json

import httpx
import pytest
from click.testing import CliRunner
from serve_helpers import TOKEN, running

import rewardkit as rk
from rewardkit.cli import main
from rewardkit.serve.settings import ServeSettings, is_loopback, load_token

SCORE = {"completions": ["\\boxed{2}"], "columns": {"answer": ["2"]}}


@pytest.fixture(scope="module")
def reward():
    with rk.get_reward("mcq_accuracy") as built:
        yield built


@pytest.fixture(scope="module")
def open_url(reward):
    with running(reward, ServeSettings(port=0, max_rows=8, max_body_bytes=4096)) as url:
        yield url


@pytest.fixture(scope="module")
def auth_url(reward):
    with running(reward, ServeSettings(port=0, token=TOKEN)) as url:
        yield url


def test_without_a_token_scoring_is_open_on_loopback(open_url):
    response = httpx.post(open_url + "/v1/score", json={"completions": ["Answer: A"], "columns": {"answer": ["A"]}})
    assert response.status_code == 200 and response.json()["values"] == [1.0]


@pytest.mark.parametrize("path", ["/v1/score", "/get_reward", "/reward", "/verify", "/metrics"])
def test_with_a_token_every_endpoint_but_health_refuses_a_request_without_it(auth_url, path):
    method = httpx.get if path == "/metrics" else lambda u: httpx.post(u, json=SCORE)
    response = method(auth_url + path)
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert response.json()["error"] == "unauthorized" and "Authorization: Bearer" in response.json()["detail"]


def test_a_wrong_token_or_scheme_is_refused_and_the_right_one_scores(auth_url):
    body = {"completions": ["Answer: B"], "columns": {"answer": ["B"]}}
    for header in (f"Bearer {TOKEN}x", f"Bearer {TOKEN[:-1]}", f"Basic {TOKEN}", TOKEN, "Bearer"):
        response = httpx.post(auth_url + "/v1/score", json=body, headers={"Authorization": header})
        assert response.status_code == 401, header
    ok = httpx.post(auth_url + "/v1/score", json=body, headers={"Authorization": f"Bearer {TOKEN}"})
    assert ok.status_code == 200 and ok.json()["values"] == [1.0]
    assert httpx.get(auth_url + "/health").status_code == 200  # liveness needs no token
    assert httpx.get(auth_url + "/health").json()["auth"] is True


def test_malformed_json_is_a_400_saying_where(open_url):
    response = httpx.post(
        open_url + "/v1/score", content=b'{"completions": ["a",', headers={"content-type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_json" and "not valid JSON" in response.json()["detail"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"completions": "just a string"}, "completions"),
        ({"completions": [1.5]}, "completions[0]"),
        ({"completions": ["a"], "columns": {"answer": "A"}}, "columns.answer"),
        ({"completions": ["a"], "columns": {"answer": ["A", "B"]}}, "columns.answer"),
        ({"completions": ["a"], "prompts": ["p", "q"]}, "prompts"),
        ({"completions": ["a"], "colums": {}}, "colums"),
        ({}, "completions"),
        ([1, 2], "body"),
    ],
)
def test_a_wrong_shape_is_a_422_naming_the_field(open_url, body, field):
    response = httpx.post(open_url + "/v1/score", json=body)
    assert response.status_code == 422, response.text
    data = response.json()
    assert data["error"] == "invalid_request"
    assert data["detail"].startswith(field) and any(e["field"].startswith(field) for e in data["errors"])


def test_the_trainer_shapes_are_checked_too(open_url):
    assert httpx.post(open_url + "/get_reward", json={"prompts": ["p"]}).json()["errors"][0]["field"] == "query"
    mismatch = httpx.post(open_url + "/get_reward", json={"query": ["a", "b"], "labels": ["A"]})
    assert mismatch.status_code == 422 and mismatch.json()["errors"][0]["field"] == "labels"
    assert httpx.post(open_url + "/reward", json={"prompt": "p"}).json()["errors"][0]["field"] == "response"
    nemo = httpx.post(open_url + "/verify", json={"response": {}})
    assert nemo.status_code == 422 and nemo.json()["errors"][0]["field"] == "responses_create_params"


def test_a_reward_column_the_request_lacks_is_a_422_naming_it(open_url):
    response = httpx.post(open_url + "/v1/score", json={"completions": ["A"]})
    assert response.status_code == 422 and response.json()["error"] == "invalid_rows"
    assert "'answer'" in response.json()["detail"]


def test_too_many_rows_is_a_413(open_url):
    response = httpx.post(open_url + "/v1/score", json={"completions": ["A"] * 9, "columns": {"answer": ["A"] * 9}})
    assert response.status_code == 413 and response.json()["error"] == "too_many_rows"
    assert "at most 8" in response.json()["detail"]


def test_an_oversized_body_is_a_413_by_its_length_and_while_it_streams(open_url):
    big = json.dumps({"completions": ["x" * 5000], "columns": {"answer": ["A"]}}).encode()
    response = httpx.post(open_url + "/v1/score", content=big, headers={"content-type": "application/json"})
    assert response.status_code == 413 and response.json()["error"] == "body_too_large"

    def chunks():  # no Content-Length: the limit is found while reading
        for _ in range(10):
            yield b" " * 1000

    streamed = httpx.post(open_url + "/v1/score", content=chunks(), headers={"content-type": "application/json"})
    assert streamed.status_code == 413
    assert httpx.get(open_url + "/health").status_code == 200  # the server is unharmed


def test_binding_beyond_loopback_needs_a_token_and_a_short_token_is_refused():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost") and is_loopback("127.8.0.1")
    assert not is_loopback("0.0.0.0") and not is_loopback("10.0.0.3") and not is_loopback("example.org")
    for host in ("0.0.0.0", "::", "192.168.1.5", "my-host"):
        with pytest.raises(rk.ConfigError, match="bearer token"):
            ServeSettings(host=host)
    assert ServeSettings(host="0.0.0.0", token=TOKEN).auth
    with pytest.raises(rk.ConfigError, match="at least 16"):
        ServeSettings(token="secret")


def test_the_token_comes_from_a_file_or_the_environment(tmp_path, monkeypatch):
    path = tmp_path / "token"
    path.write_text(f"{TOKEN}\n")
    assert load_token(path) == TOKEN
    monkeypatch.setenv("REWARDKIT_SERVE_TOKEN", TOKEN + "env")
    assert load_token(None) == TOKEN + "env"
    assert load_token(path) == TOKEN  # the file wins
    (tmp_path / "empty").write_text("\n")
    with pytest.raises(rk.ConfigError, match="empty"):
        load_token(tmp_path / "empty")
    with pytest.raises(rk.ConfigError, match="cannot read"):
        load_token(tmp_path / "missing")


def test_the_command_refuses_to_bind_beyond_loopback_without_a_token(monkeypatch):
    monkeypatch.delenv("REWARDKIT_SERVE_TOKEN", raising=False)
    result = CliRunner().invoke(main, ["serve", "--reward", "mcq_accuracy", "--host", "0.0.0.0"])
    assert result.exit_code != 0 and "bearer token" in result.output


def test_a_trainer_that_sends_no_headers_may_give_the_token_in_the_url(auth_url):
    body = {"query": ["Answer: C"], "labels": ["C"]}
    assert httpx.post(f"{auth_url}/get_reward?token={TOKEN}", json=body).json()["rewards"] == [1.0]
    assert httpx.post(f"{auth_url}/get_reward?token={TOKEN}x", json=body).status_code == 401
    assert httpx.post(f"{auth_url}/get_reward?token={TOKEN}&token={TOKEN}", json=body).status_code == 401
    assert httpx.post(f"{auth_url}/get_reward?other={TOKEN}", json=body).status_code == 401
