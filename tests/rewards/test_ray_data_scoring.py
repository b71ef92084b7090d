"""``rewardkit score --ray`` streams the input through Ray Data: the in-process output, row for row, from
JSONL, parquet or a saved dataset, with per-node throughput in the summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from rewardkit._errors import ConfigError
from rewardkit.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> tuple[Path, Path, list[dict]]:
    tmp = tmp_path_factory.mktemp("ray_data")
    spec = yaml.safe_load((EXAMPLES / "mixed_spec.yaml").read_text())
    for term in spec["terms"]:
        if term.get("reward") == "math_accuracy":
            term["params"] = {"timeout": 20, "workers": 1}
    spec_path = tmp / "spec.yaml"
    spec_path.write_text(yaml.safe_dump(spec))
    rows = [json.loads(line) for line in (EXAMPLES / "mixed.jsonl").read_text().splitlines()[:30]]
    data = tmp / "in.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return spec_path, data, rows


def score(*args: str) -> None:
    result = CliRunner().invoke(main, ["score", "--no-progress", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output


def test_jsonl_streamed_on_ray_data_is_the_in_process_output(ray, files, tmp_path):
    spec, data, _ = files
    score(
        "-r",
        str(spec),
        "-i",
        str(data),
        "-o",
        str(tmp_path / "local.jsonl"),
        "--summary-json",
        str(tmp_path / "local.json"),
    )
    score(
        "-r",
        str(spec),
        "-i",
        str(data),
        "-o",
        str(tmp_path / "ray.jsonl"),
        "--ray",
        "--batch-size",
        "4",
        "--summary-json",
        str(tmp_path / "ray.json"),
    )
    assert (tmp_path / "ray.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
    local, on_ray = (json.loads((tmp_path / f"{m}.json").read_text()) for m in ("local", "ray"))
    for key in (
        "samples",
        "reward_mean",
        "component_means",
        "component_counts",
        "statuses",
        "hedged",
        "not_applicable",
    ):
        assert on_ray[key] == local[key], key
    executor = on_ray["executor"]
    assert executor["rows"] == 30 and sum(n["rows"] for n in executor["nodes"].values()) == 30
    assert all(a["rows_per_second"] > 0 for a in executor["actors"].values())


@pytest.mark.slow
def test_parquet_and_saved_dataset_inputs(ray, files, tmp_path, ci_require):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    spec, _, rows = files
    flat = [
        {
            "id": r["id"],
            "task": r["task"],
            "answer": r["answer"],
            "completion": r["completion"] if isinstance(r["completion"], str) else r["completion"][0]["content"],
        }
        for r in rows
    ]
    pq.write_table(pa.Table.from_pylist(flat), tmp_path / "in.parquet")
    score("-r", str(spec), "-i", str(tmp_path / "in.parquet"), "-o", str(tmp_path / "local.parquet"))
    score("-r", str(spec), "-i", str(tmp_path / "in.parquet"), "-o", str(tmp_path / "ray.parquet"), "--ray")
    assert pq.read_table(tmp_path / "ray.parquet").to_pylist() == pq.read_table(tmp_path / "local.parquet").to_pylist()

    try:
        import datasets
    except ImportError:
        ci_require(False, "datasets (train extra) for saved-dataset input")
        return
    datasets.DatasetDict({"train": datasets.Dataset.from_list(flat)}).save_to_disk(str(tmp_path / "saved"))
    score("-r", str(spec), "-i", str(tmp_path / "saved"), "-o", str(tmp_path / "local.jsonl"))
    score("-r", str(spec), "-i", str(tmp_path / "saved"), "-o", str(tmp_path / "ray.jsonl"), "--ray")
    assert (tmp_path / "ray.jsonl").read_text() == (tmp_path / "local.jsonl").read_text()


def test_bad_inputs_are_clear_errors(ray, files, tmp_path):
    from rewardkit.scoring.ray_data_scoring import score_stream

    spec, _, _ = files
    with pytest.raises(ConfigError, match="does not exist"):
        score_stream(str(spec), str(tmp_path / "nope.jsonl"), None)
    (tmp_path / "in.csv").write_text("a,b\n")
    with pytest.raises(ConfigError, match="unknown format .csv"):
        score_stream(str(spec), str(tmp_path / "in.csv"), None)
    (tmp_path / "bad.jsonl").write_text(json.dumps({"text": "no completion", "answer": "1", "task": "math"}) + "\n")
    with pytest.raises(ConfigError, match="no 'completion' field"):  # raised in an actor, re-raised as itself
        score_stream(str(spec), str(tmp_path / "bad.jsonl"), None)


def test_csv_output_and_bad_output_suffix_as_in_process(ray, files, tmp_path):
    spec, data, _ = files
    score("-r", str(spec), "-i", str(data), "-o", str(tmp_path / "local.csv"))
    score("-r", str(spec), "-i", str(data), "-o", str(tmp_path / "ray.csv"), "--ray", "--batch-size", "8")
    assert (tmp_path / "ray.csv").read_bytes() == (tmp_path / "local.csv").read_bytes()
    from rewardkit.scoring.ray_data_scoring import score_stream

    with pytest.raises(ConfigError, match="output .*out.txt.*: unknown format .txt"):
        score_stream(str(spec), str(data), str(tmp_path / "out.txt"))
    assert not (tmp_path / "out.txt").exists()


def test_saved_dataset_split_errors_as_in_process(ray, files, tmp_path, ci_require):
    from rewardkit.scoring.ray_data_scoring import score_stream
    from rewardkit.scoring.readers import iter_samples

    try:
        import datasets
    except ImportError:
        ci_require(False, "datasets (train extra) for saved-dataset input")
        return
    spec, _, _ = files
    one = {"completion": "x", "answer": "1", "task": "math"}
    splits = datasets.DatasetDict({n: datasets.Dataset.from_list([one]) for n in "ab"})
    splits.save_to_disk(str(tmp_path / "dd"))
    datasets.Dataset.from_list([one]).save_to_disk(str(tmp_path / "single"))
    cases = (
        (tmp_path / "dd", None, "holds splits a, b; pick one with --split"),
        (tmp_path / "dd", "c", r"holds splits a, b; pick one with --split \(no split 'c'\)"),
        (tmp_path / "single", "a", "is a single Dataset, not a DatasetDict"),
    )
    for path, split, message in cases:
        with pytest.raises(ConfigError, match=message):
            iter_samples(path, split)
        with pytest.raises(ConfigError, match=message):
            score_stream(str(spec), str(path), None, split=split)
