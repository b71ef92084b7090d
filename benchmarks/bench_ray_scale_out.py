"""Scale-out figures for docs/scale-out.md, measured in one run on local Ray clusters.

    python benchmarks/bench_ray_scale_out.py throughput [--rows 2000]      # 1 node vs 2 nodes vs node removed
    python benchmarks/bench_ray_scale_out.py rss [--sizes 20000 200000]   # driver peak RSS, score --ray

throughput: a Ray-backed reward (``executor="ray"``, one 1-CPU actor per node, math + format terms) scores the
same batch on a one-node and a two-node ``ray.cluster_utils.Cluster`` (1 CPU each), and on two nodes where the
second is removed once a third of the chunks are sent. The in-process reward on the same rows is the baseline
(same run), and every Ray result is checked against it.

rss: ``score_stream`` (what ``rewardkit score --ray`` runs) on N generated rows with a format reward, each size
in a fresh driver process attached to one running local cluster; the driver's peak RSS (ru_maxrss) is printed
next to the in-process ``rewardkit score`` path's for the same rows.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPEC = {
    "name": "bench",
    "combine": "sum",
    "terms": [
        {"reward": "math_accuracy", "params": {"timeout": 20, "workers": 1}},
        {"reward": "tag_format", "weight": 0.5},
    ],
}
CHEAP_SPEC = {"reward": "tag_format"}


def math_rows(count: int) -> list[dict]:
    rows = []
    for i in range(count):
        a, b = i % 97 + 3, i % 13 + 2
        answer = a * b if i % 4 else a * b + 1
        rows.append(
            {
                "prompt": f"{a}*{b}?",
                "answer": str(a * b),
                "completion": f"<think>{a}*{b}</think><answer>\\boxed{{\\frac{{{2 * answer}}}{{2}}}}</answer>",
            }
        )
    return rows


def call(reward, rows: list[dict]) -> list:
    return reward(
        prompts=[r["prompt"] for r in rows],
        completions=[r["completion"] for r in rows],
        answer=[r["answer"] for r in rows],
    )


def throughput(rows_count: int) -> None:
    import ray
    from ray.cluster_utils import Cluster

    import rewardkit as rk

    rows = math_rows(rows_count)
    with rk.build_reward(SPEC) as local:
        call(local, rows[:8])  # workers up
        start = time.perf_counter()
        expected = call(local, rows)
        baseline = rows_count / (time.perf_counter() - start)
    print(f"| in-process (baseline, 1 math worker) | 1 | {baseline:.1f} | 1.00 | - |")
    for label, nodes, remove in (
        ("1 node", 1, False),
        ("2 nodes", 2, False),
        ("2 nodes, one removed mid-run", 2, True),
    ):
        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
        extra = [cluster.add_node(num_cpus=1) for _ in range(nodes - 1)]
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, log_to_driver=False, configure_logging=False)
        try:
            with rk.build_reward(SPEC, executor="ray", actors=nodes, chunk_size=8) as reward:
                for _ in range(10):  # every actor and its math worker up, as after a training run's first step
                    call(reward, rows[: 16 * nodes])
                    if len(reward.last_report["actors"]) == nodes:
                        break
                if remove:
                    fleet = reward._fleet
                    dispatch, sent = fleet._dispatch, [0]

                    def cue(
                        chunks, pending, in_flight, stats, dispatch=dispatch, sent=sent, extra=extra, cluster=cluster
                    ):
                        dispatch(chunks, pending, in_flight, stats)
                        sent[0] = len(in_flight) + sum(o.attempts for o in stats.chunks)
                        if extra and sent[0] >= len(chunks) // 3:
                            cluster.remove_node(extra.pop())

                    fleet._dispatch = cue
                start = time.perf_counter()
                got = call(reward, rows)
                seconds = time.perf_counter() - start
                assert got == expected, "Ray results differ from in-process"
                report = reward.last_report
                per_node = ", ".join(str(n["rows"]) for n in report["nodes"].values())
                print(
                    f"| {label} | {len(report['actors'])} | {rows_count / seconds:.1f} | "
                    f"{rows_count / seconds / baseline:.2f} | rows per node {per_node}; retried chunks "
                    f"{report['retries']}, failed rows {report['failed_rows']} |",
                    flush=True,
                )
        finally:
            ray.shutdown()
            cluster.shutdown()


def write_rows(path: Path, count: int) -> None:
    with path.open("w") as handle:
        for i in range(count):
            text = f"<think>step {i} " + "x" * 80 + f"</think><answer>{i % 7}</answer>"
            handle.write(
                json.dumps({"id": i, "prompt": f"question {i} " + "y" * 60, "completion": text, "answer": str(i % 7)})
                + "\n"
            )


def rss_child(mode: str, spec_path: str, data: str, out: str, address: str) -> None:
    start = time.perf_counter()
    if mode == "ray":
        from rewardkit.scoring.ray_data_scoring import score_stream

        _, summary, _ = score_stream(spec_path, data, out, address=address, batch_size=1000, actors=1)
        samples = summary.samples
    else:
        from rewardkit.cli.score import score

        score.main(
            ["-r", spec_path, "-i", data, "-o", out, "--no-progress", "--batch-size", "1000"], standalone_mode=False
        )
        with open(out) as handle:
            samples = sum(1 for _ in handle)
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "mode": mode,
                "rows": samples,
                "peak_rss_mib": round(peak_mib, 1),
                "seconds": round(time.perf_counter() - start, 1),
            }
        ),
        flush=True,
    )


def rss(sizes: list[int]) -> None:
    import ray

    tmp = Path(tempfile.mkdtemp(prefix="rk-rss-"))
    spec_path = tmp / "spec.json"
    spec_path.write_text(json.dumps(CHEAP_SPEC))
    context = ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    address = context.address_info["gcs_address"]
    try:
        for size in sizes:
            data = tmp / f"rows_{size}.jsonl"
            write_rows(data, size)
            for mode in ("ray", "in-process"):
                subprocess.run(
                    [
                        sys.executable,
                        __file__,
                        "rss-child",
                        mode,
                        str(spec_path),
                        str(data),
                        str(tmp / f"out_{mode}_{size}.jsonl"),
                        address,
                    ],
                    check=True,
                    env={**os.environ, "RAY_ADDRESS": ""},
                )
            same = (tmp / f"out_ray_{size}.jsonl").read_bytes() == (tmp / f"out_in-process_{size}.jsonl").read_bytes()
            print(json.dumps({"rows": size, "outputs_identical": same}), flush=True)
    finally:
        ray.shutdown()


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "rss-child":
        rss_child(*sys.argv[2:7])
        sys.exit(0)
    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=["throughput", "rss"])
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--sizes", type=int, nargs="+", default=[20000, 200000])
    args = parser.parse_args()
    throughput(args.rows) if args.what == "throughput" else rss(args.sizes)
