"""A real two-node Ray cluster on this machine (``ray.cluster_utils.Cluster``, 1 CPU per node): streamed
scoring and a Ray-backed reward put work on both nodes, and losing a node mid-run costs the reward no row."""

from __future__ import annotations

import json
from collections import deque
from pathlib import Path

import pytest
import yaml

import rewardkit as rk
from rewardkit.scoring.batch_scoring import batch_of

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def two_nodes():
    try:
        import ray
        from ray.cluster_utils import Cluster
    except ImportError:
        yield None
        return
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    worker = cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, log_to_driver=False, configure_logging=False)
    try:
        yield ray, cluster, worker
    finally:
        ray.shutdown()
        cluster.shutdown()


@pytest.fixture
def cluster(two_nodes, ci_require):
    ci_require(two_nodes is not None, "ray is not installed (pip install 'rewardkit[ray]')")
    return two_nodes


@pytest.fixture(scope="module")
def spec() -> dict:
    data = yaml.safe_load((EXAMPLES / "mixed_spec.yaml").read_text())
    for term in data["terms"]:
        if term.get("reward") == "math_accuracy":
            term["params"] = {"timeout": 20, "workers": 1}
    return data


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return [json.loads(line) for line in (EXAMPLES / "mixed.jsonl").read_text().splitlines()[:40]]


def values_of(reward, rows: list[dict]) -> list:
    batch = batch_of(rows, "completion", "prompt")
    return reward(prompts=batch.prompts, completions=batch.completions, **batch.columns)


@pytest.fixture(scope="module")
def expected(spec, rows) -> list:
    with rk.build_reward(spec) as reward:
        return values_of(reward, rows)


def test_streamed_scoring_runs_on_both_nodes(cluster, tmp_path):
    # Rows that cost real time (programs run in the local sandbox, some to their 3 s limit): Ray Data gives a
    # batch to an actor with room, and the second actor is ready ~0.5 s after the first, so an input scored
    # faster than that (the mixed example scores at ~25k rows/s once warm) may all land on one actor.
    from rewardkit.scoring.batch_scoring import score_rows
    from rewardkit.scoring.ray_data_scoring import score_stream

    ray, _, _ = cluster
    rows = [json.loads(line) for line in (EXAMPLES / "code.jsonl").read_text().splitlines()]
    out = tmp_path / "out.jsonl"
    _, summary, report = score_stream(
        str(EXAMPLES / "code_spec.yaml"), str(EXAMPLES / "code.jsonl"), str(out), actors=2, batch_size=4
    )
    assert set(report["nodes"]) == {n["NodeID"] for n in ray.nodes() if n["Alive"]}, report
    assert all(node["rows"] > 0 for node in report["nodes"].values()) and summary.samples == len(rows) == 40
    with rk.build_reward(str(EXAMPLES / "code_spec.yaml")) as reward:
        expected, _ = score_rows(reward, rows)
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert written == [{**row, **extra} for row, extra in zip(rows, expected, strict=True)]


def test_work_lands_on_both_nodes_and_a_node_removed_mid_run_costs_no_row(cluster, spec, rows, expected):
    ray, local_cluster, worker = cluster
    assert len([n for n in ray.nodes() if n["Alive"]]) == 2
    with rk.build_reward(spec, executor="ray", actors=2, chunk_size=2) as reward:
        assert values_of(reward, rows) == expected
        nodes = reward.last_report["nodes"]
        assert len(nodes) == 2 and all(node["rows"] > 0 for node in nodes.values())
        actor_nodes = {a["node_id"] for a in reward.last_report["actors"].values()}
        assert actor_nodes == set(nodes) == {n["NodeID"] for n in ray.nodes() if n["Alive"]}

        fleet = reward._fleet
        dispatch, sent, removed = fleet._dispatch, [0], []
        head_node = ray.get_runtime_context().get_node_id()

        def remove_worker_node_on_cue(chunks, pending, in_flight, stats):
            # Chunks go to the real dispatcher one at a time; once 6 are sent, the worker node is removed just
            # before a chunk is sent to the actor there, so that chunk (at least) certainly dies with the node.
            while pending:
                free = [
                    i
                    for i, s in enumerate(fleet.slots)
                    if s.where is not None and not s.exclusive and s.busy < fleet.options.in_flight_per_actor
                ]
                if free and not removed and sent[0] >= 6:
                    target = fleet.slots[min(free, key=lambda i: fleet.slots[i].busy)]
                    if target.where["node_id"] != head_node:
                        local_cluster.remove_node(worker)
                        removed.append(worker)
                head = deque([pending[0]])
                dispatch(chunks, head, in_flight, stats)
                if head:
                    return
                pending.popleft()
                sent[0] += 1

        fleet._dispatch = remove_worker_node_on_cue
        assert values_of(reward, rows) == expected  # every row back, in order, in-process values
        report = reward.last_report
        assert removed and report["failed_rows"] == 0
        assert report["retries"] >= 1 and report["replaced_actors"] >= 1
        assert sum(n["rows"] for n in report["nodes"].values()) == 40
        # The next call runs on the node that is left (the replacement actor waits for room).
        assert values_of(reward, rows[:10]) == expected[:10]
        assert len(reward.last_report["nodes"]) == 1


def test_a_fixed_pool_larger_than_the_cluster_fails_clearly(cluster, spec, rows, tmp_path, monkeypatch):
    from rewardkit.scoring import ray_data_scoring

    monkeypatch.setattr(ray_data_scoring, "FIXED_POOL_START_S", 5)
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows[:4]))
    spec_path = tmp_path / "spec.json"
    spec_path.write_text(json.dumps(spec))
    with pytest.raises(rk.ConfigError, match=r"did not start within 5 s: the cluster lacks the CPUs .*it has \d"):
        ray_data_scoring.score_stream(str(spec_path), str(data), None, actors=3, batch_size=2)
