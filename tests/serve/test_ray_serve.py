"""`rewardkit serve --ray` on a real local Ray cluster: two Ray Serve replicas behind Serve's proxy on
loopback; one replica killed under load loses no request (the client retries what the proxy could not
answer) and every value equals the reward's in-process."""

from __future__ import annotations

import threading
import time

import httpx
import pytest
from serve_helpers import HERE, TOKEN, free_port

import rewardkit as rk
from rewardkit.serve.settings import ServeSettings

SPEC = {
    "name": "mixed",
    "combine": "sum",
    "terms": [{"reward": "mcq_accuracy"}, {"reward": "serve_helpers:slow_length", "weight": 0.5}],
}


@pytest.fixture(scope="module")
def ray_serve():
    try:
        import ray
        from ray import serve  # noqa: F401
    except ImportError:
        yield None
        return
    ray.init(  # the replicas build the spec's "serve_helpers:..." reward: give them this folder
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
        runtime_env={"env_vars": {"PYTHONPATH": str(HERE)}},
    )
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.fixture
def replicas(ray_serve, ci_require):
    ci_require(ray_serve is not None, "Ray Serve is not installed (pip install 'rewardkit[ray-serve]')")
    from rewardkit.serve.ray_serve import RayServeOptions, reward_source, start, stop

    settings = ServeSettings(port=free_port(), token=TOKEN)
    source = reward_source(SPEC, {}, None)
    url = start(source, settings, RayServeOptions(replicas=2, replica_cpus=0.5), init_ray=False)
    try:
        yield ray_serve, url
    finally:
        stop()


def replica_actors(ray) -> list[dict]:
    return [
        a for a in ray.util.list_named_actors(all_namespaces=True) if a["name"].startswith("SERVE_REPLICA::rewardkit#")
    ]


@pytest.mark.slow
def test_two_replicas_one_killed_under_load_lose_no_request_and_agree_with_in_process(replicas):
    ray, url = replicas
    assert len(replica_actors(ray)) == 2
    assert httpx.get(url + "/health").json()["reward"] == "mixed"  # reached through Serve's proxy
    assert httpx.post(url + "/v1/score", json={"completions": ["A"]}).status_code == 401  # the token holds
    rows = [(f"Answer: {'ABCD'[i % 4]}", "ABCD"[i % 3], 0.3) for i in range(64)]  # slow: both replicas stay busy
    with rk.build_reward(SPEC) as reward:
        expected = [reward(completions=[t], answer=[a], delay=[0.0])[0] for t, a, _ in rows]

    results: dict[int, float | None] = {}
    errors: list[BaseException] = []
    tries: list[int] = []

    def client(part: int) -> None:
        remote = rk.RemoteReward(url, token=TOKEN, backoff=0.2, max_backoff=2.0, max_tries=30, deadline=240)
        for i in range(part, len(rows), 4):
            text, answer, delay = rows[i]
            try:
                results[i] = remote(completions=[text], answer=[answer], delay=[delay])[0]
                tries.append(remote.last_tries)
            except BaseException as exc:  # noqa: BLE001 - collected and asserted on below
                errors.append(exc)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    while len(results) < 12:
        time.sleep(0.05)
    victim = replica_actors(ray)[0]
    ray.kill(ray.get_actor(victim["name"], namespace=victim["namespace"]), no_restart=False)
    killed_at = len(results)
    for thread in threads:
        thread.join(300)
    assert not errors, errors[:3]
    assert killed_at < len(rows)  # the kill landed while requests were still coming
    assert [results[i] for i in range(len(rows))] == expected
    assert max(tries) >= 2, "no request was in flight on the killed replica: nothing was retried"


def test_the_replica_options_fixed_or_autoscaled_become_the_deployments():
    from rewardkit.serve.ray_serve import RayServeOptions

    settings = ServeSettings(batch_rows=128, concurrency=2)
    fixed = RayServeOptions(replicas=3, replica_cpus=2).deployment_options(settings)
    assert fixed["num_replicas"] == 3 and fixed["ray_actor_options"] == {"num_cpus": 2}
    assert "autoscaling_config" not in fixed and fixed["max_ongoing_requests"] == 256
    scaled = RayServeOptions(min_replicas=1, max_replicas=6).deployment_options(settings)
    assert scaled["autoscaling_config"] == {"min_replicas": 1, "max_replicas": 6, "target_ongoing_requests": 64}
    assert "num_replicas" not in scaled
    for bad in (
        {"replicas": 0},
        {"min_replicas": 2},
        {"min_replicas": 3, "max_replicas": 2},
        {"min_replicas": 0, "max_replicas": 0},
    ):
        with pytest.raises(rk.ConfigError, match="serve --ray"):
            RayServeOptions(**bad)


def test_the_command_checks_its_ray_options_before_starting_anything():
    from click.testing import CliRunner

    from rewardkit.cli import main

    runner = CliRunner()
    half = runner.invoke(main, ["serve", "-r", "mcq_accuracy", "--ray", "--min-replicas", "1", "--port", "8123"])
    assert half.exit_code != 0 and "go together" in half.output
    any_port = runner.invoke(main, ["serve", "-r", "mcq_accuracy", "--ray", "--port", "0"])
    assert any_port.exit_code != 0 and "give a --port" in any_port.output
    bad_spec = runner.invoke(main, ["serve", "-r", "no_such_reward", "--ray", "--port", "8123"])
    assert bad_spec.exit_code != 0 and "no_such_reward" in bad_spec.output
