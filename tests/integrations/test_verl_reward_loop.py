"""``compute_score_async`` called the way verl's Reward Loop calls it.

verl's reward-loop workers (Ray actors; ``reward_model.num_workers`` of them, several per node) each take a
chunk of a step and create one task per sample, all gathered at once. A task decodes the response, then
``await``s ``compute_score(data_source=..., solution_str=..., ground_truth=..., extra_info=...)`` (extra_info
with ``num_turns`` and ``rollout_reward_scores`` added) when the function is a coroutine function (verl checks
with ``inspect.iscoroutinefunction`` on the function loaded from ``custom_reward_function.path`` and binds
``reward_kwargs`` with a ``partial``). A dict result's keys become ``reward_extra_info`` (else ``{"acc":
score}``); the manager takes the keys of the first sample's and reads each key from every sample's.
"""

from __future__ import annotations

import asyncio
import functools
import importlib.util
import inspect

import pytest

import rewardkit as rk
from rewardkit.integrations import verl, verl_reward_loop, verl_routes
from rewardkit.verifiers.base import Verifier
from rewardkit.verifiers.verdict import Verdict

MATH_SPEC = {
    "name": "gsm8k_reward",
    "combine": "sum",
    "terms": [{"reward": "math_accuracy", "params": {"workers": 1}}, {"reward": "think_format", "weight": 0.5}],
}
MCQ_SPEC = {
    "name": "arc_reward",
    "combine": "sum",
    "terms": [{"reward": "mcq_accuracy"}, {"reward": "tag_format", "params": {"tags": ["answer"]}}],
}


@pytest.fixture(autouse=True)
def _clean(monkeypatch):
    for var in (verl.SPECS_ENV, verl.SPEC_ENV, verl.DETAILS_ENV, verl_reward_loop.POOL_WORKERS_ENV):
        monkeypatch.delenv(var, raising=False)
    verl.reset()
    yield
    verl.reset()


def load_like_verl(name: str, reward_kwargs: dict | None = None):
    """get_custom_reward_fn: the file by path, the function by name, reward_kwargs bound (async or not)."""
    spec = importlib.util.spec_from_file_location("custom_module", verl.__file__)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    raw_fn = getattr(module, name)
    extra = dict(reward_kwargs or {})
    if not inspect.iscoroutinefunction(raw_fn):
        return functools.partial(lambda fn, kw, *a, **k: fn(*a, **{**k, **kw}), raw_fn, extra)

    async def call_async(fn, kw, *args, **kwargs):
        return await fn(*args, **{**kwargs, **kw})

    return functools.partial(call_async, raw_fn, extra)


def reward_loop_worker(compute_score, rows: list[dict]) -> list[dict]:
    """One reward-loop worker's compute_score_batch: a task per sample, gathered; run_single's result."""
    is_async = inspect.iscoroutinefunction(compute_score)

    async def run_single(row: dict) -> dict:
        extra_info = dict(row.get("extra_info") or {})
        extra_info["num_turns"] = None
        extra_info["rollout_reward_scores"] = {}
        kwargs = dict(
            data_source=row["data_source"],
            solution_str=row["response"],
            ground_truth=row["ground_truth"],
            extra_info=extra_info,
        )
        if is_async:
            result = await compute_score(**kwargs)
        else:
            result = await asyncio.get_running_loop().run_in_executor(None, lambda: compute_score(**kwargs))
        if isinstance(result, dict):
            return {"reward_score": result["score"], "reward_extra_info": dict(result)}
        return {"reward_score": result, "reward_extra_info": {"acc": result}}

    async def compute_score_batch() -> list[dict]:
        return await asyncio.gather(*(asyncio.create_task(run_single(row)) for row in rows))

    return asyncio.run(compute_score_batch())


def manager_extra_info(outputs: list[dict]) -> dict[str, list]:
    """RewardLoopManager.compute_rm_score: the first sample's keys, read from every sample."""
    infos = [o["reward_extra_info"] for o in outputs]
    return {key: [info[key] for info in infos] for key in infos[0]}


def gsm8k_rows(n: int) -> list[dict]:
    rows = []
    for i in range(n):
        answer = str(3 * i)
        said = answer if i % 4 else str(3 * i + 1)
        rows.append(
            {
                "data_source": "openai/gsm8k",
                "response": f"<think>{i} times 3</think> so the answer is \\boxed{{{said}}}",
                "ground_truth": answer,
                "extra_info": {"split": "train", "index": i, "question": f"3 * {i}?"},
            }
        )
    return rows


def test_it_is_a_coroutine_function_for_verl_and_scores_like_the_sync_path():
    verl.register("openai/gsm8k", MATH_SPEC)
    fn = load_like_verl("compute_score_async")
    assert inspect.iscoroutinefunction(fn)
    rows = gsm8k_rows(64)
    outputs = reward_loop_worker(fn, rows)
    sync = reward_loop_worker(load_like_verl("compute_score"), rows)
    assert [o["reward_score"] for o in outputs] == [o["reward_score"] for o in sync]
    assert [o["reward_score"] for o in outputs] == [0.5 if i % 4 == 0 else 1.5 for i in range(64)]
    assert manager_extra_info(outputs)["acc"] == [o["reward_score"] for o in outputs]


def test_a_workers_concurrent_calls_become_a_few_verifier_batches():
    verl.register("openai/gsm8k", MATH_SPEC)
    reward_loop_worker(load_like_verl("compute_score_async"), gsm8k_rows(96))
    ((reward, batcher),) = verl_reward_loop._batchers.values()
    assert reward.name == "gsm8k_reward"
    assert batcher.stats.calls == 96 and batcher.stats.rows == 96
    assert batcher.stats.batches <= 8, batcher.stats


def test_with_details_every_row_has_the_same_keys_whatever_its_route():
    verl.configure({"openai/gsm8k": MATH_SPEC, "allenai/ai2_arc": MCQ_SPEC}, details=True)
    rows = gsm8k_rows(6) + [
        {"data_source": "allenai/ai2_arc", "response": "<answer>B</answer>", "ground_truth": "B"},
        {"data_source": "allenai/ai2_arc", "response": "A, maybe", "ground_truth": "B"},
    ]
    outputs = reward_loop_worker(load_like_verl("compute_score_async"), rows[::-1])  # an ARC row comes first
    extra = manager_extra_info(outputs)  # raises KeyError if some row lacked a key of the first
    assert set(extra) == {"score", "status", "unscored", "math_accuracy", "think_format", "mcq_accuracy", "tag_format"}
    assert extra["score"][:2] == [0.0, 2.0]
    assert extra["mcq_accuracy"][:2] == [0.0, 1.0] and extra["math_accuracy"][:2] == [0.0, 0.0]
    sync = [verl.compute_score(r["data_source"], r["response"], r["ground_truth"]) for r in rows[::-1]]
    for got, want in zip(outputs, sync, strict=True):
        assert {k: got["reward_extra_info"][k] for k in want} == want  # the sync path's keys, same values


class EngineDown(Verifier):
    """Exact match; a completion saying SANDBOX_DOWN gets sandbox_error, as a dead engine gives."""

    def _verify(self, completion, reference, **context):
        if "SANDBOX_DOWN" in str(completion):
            return Verdict.fail("sandbox_error")
        return Verdict(float(str(completion) == str(reference)), str(completion) == str(reference))


class EngineDownPlugin:
    @rk.hookimpl
    def register_verifiers(self, register):
        register("engine_down", EngineDown)


def test_a_row_with_no_reward_scores_its_prompts_mean_of_the_rows_scored_with_it(rewardkit_register, monkeypatch):
    rewardkit_register(EngineDownPlugin(), name="verl-reward-loop-tests")
    monkeypatch.setattr(verl_reward_loop, "MAX_WAIT", 2.0)  # one reward call for all six, however loaded the machine
    verl.configure({"*": {"reward": "verifier_accuracy", "params": {"verifier": "engine_down"}}}, details=True)
    group = lambda index, truth, said: [  # noqa: E731 - one prompt's responses, as verl repeats them
        {"data_source": "d", "response": r, "ground_truth": truth, "extra_info": {"index": index}} for r in said
    ]
    rows = group(7, "12", ["12", "SANDBOX_DOWN", "11", "12"]) + group(8, "3", ["SANDBOX_DOWN", "SANDBOX_DOWN"])
    outputs = reward_loop_worker(load_like_verl("compute_score_async"), rows)
    extra = manager_extra_info(outputs)
    assert extra["score"] == [1.0, 2 / 3, 0.0, 1.0, 0.0, 0.0]  # prompt 7's mean; prompt 8 has none: 0.0
    assert extra["unscored"] == [0.0, 1.0, 0.0, 0.0, 1.0, 1.0]
    assert extra["status"][1] == "sandbox_error"


def test_reward_kwargs_spec_is_used_for_every_row():
    fn = load_like_verl("compute_score_async", {"spec": MCQ_SPEC})
    rows = [{"data_source": "anything", "response": "<answer>C</answer>", "ground_truth": "C"}] * 5
    assert [o["reward_score"] for o in reward_loop_worker(fn, rows)] == [2.0] * 5


def raising(prompts, completions, **kwargs):
    raise ValueError("this reward is broken")


def test_errors_reach_verl_as_in_the_sync_path():
    fn = load_like_verl("compute_score_async")
    row = [{"data_source": "x", "response": "\\boxed{1}", "ground_truth": "1"}]
    with pytest.raises(rk.ConfigError, match="no reward spec for data_source 'x'"):
        reward_loop_worker(fn, row)
    verl.register("x", f"{__name__}:raising")
    with pytest.raises(rk.RewardError, match="this reward is broken"):
        reward_loop_worker(fn, row)


def test_an_explicit_pool_size_applies_to_verifiers_whose_spec_leaves_it_unset(monkeypatch):
    monkeypatch.setenv(verl_reward_loop.POOL_WORKERS_ENV, "1")
    verl.configure({"a": {"reward": "math_accuracy"}, "b": {"reward": "math_accuracy", "params": {"workers": 3}}})
    fn = load_like_verl("compute_score_async")
    reward_loop_worker(fn, [{"data_source": s, "response": "\\boxed{2}", "ground_truth": "2"} for s in "ab"])
    unset, given = verl_routes._built["a"], verl_routes._built["b"]
    assert unset.verifier_params["workers"] == 1 and unset.verifier.pool.size == 1
    assert given.verifier_params["workers"] == 3
    monkeypatch.setenv(verl_reward_loop.POOL_WORKERS_ENV, "none")
    verl_reward_loop.forget()
    with pytest.raises(rk.ConfigError, match="REWARDKIT_VERL_POOL_WORKERS"):
        verl_reward_loop.pool_workers()


def test_outside_a_ray_actor_the_pools_keep_their_default_size():
    assert verl_reward_loop.pool_workers() is None


@pytest.fixture(scope="module")
def ray_cluster():
    try:
        import ray
    except ImportError:
        yield None
        return
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield ray
    ray.shutdown()


@pytest.mark.slow
def test_in_a_ray_actor_the_nodes_cores_are_shared_among_its_reward_workers(ray_cluster, ci_require):
    ci_require(ray_cluster is not None, "ray is not installed (pip install 'rewardkit[ray]')")
    import os

    ray = ray_cluster

    @ray.remote(num_cpus=0)
    class Probe:
        def sizes(self, per_node: str | None) -> int | None:
            if per_node is not None:
                os.environ[verl_reward_loop.WORKERS_PER_NODE_ENV] = per_node
            return verl_reward_loop.pool_workers()

    probe = Probe.remote()
    cores = os.cpu_count() or 1
    assert ray.get(probe.sizes.remote(None)) == max(1, cores // 8)
    assert ray.get(probe.sizes.remote("1")) == cores
