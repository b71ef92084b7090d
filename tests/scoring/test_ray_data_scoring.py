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


def test_the_input_is_cut_so_every_actor_gets_blocks():
    from rewardkit.scoring.ray_data_scoring import DATASET_BLOCK_ROWS, block_count

    assert block_count(40, 4, 2) == 8  # a small file: four blocks per actor, not one for the whole file
    assert block_count(40, 64, 2) == 1  # never a block smaller than a batch
    assert block_count(10_000_000, 64, 2) == 10_000_000 // DATASET_BLOCK_ROWS  # nor one above the cap
    assert block_count(0, 64, 4) == 1


def _invoke(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, ["score", "--no-progress", *args], catch_exceptions=False)


def test_params_and_reference_key_on_ray_as_in_process(ray, tmp_path):
    rows = [json.loads(line) for line in (EXAMPLES / "mixed.jsonl").read_text().splitlines()]
    math_rows = [
        {**{k: v for k, v in r.items() if k != "answer"}, "gold": r["answer"]} for r in rows if r["task"] == "math"
    ]
    data = tmp_path / "math.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in math_rows[:12]))
    common = ["-r", "math_accuracy", "-p", "timeout=20", "-p", "workers=1", "--reference-key", "gold", "-i", str(data)]
    score(*common, "-o", str(tmp_path / "local.jsonl"))
    score(*common, "-o", str(tmp_path / "ray.jsonl"), "--ray", "--batch-size", "4")
    written = (tmp_path / "ray.jsonl").read_text()
    assert written == (tmp_path / "local.jsonl").read_text()
    assert any(json.loads(line)["reward"] == 1.0 for line in written.splitlines())  # the gold column was read
    unknown = _invoke("-r", "math_accuracy", "-p", "no_such_param=1", "-i", str(data), "--ray")
    assert unknown.exit_code != 0 and "no_such_param" in unknown.output
    no_reader = _invoke("-r", "think_format", "--reference-key", "gold", "-i", str(data), "--ray")
    assert no_reader.exit_code != 0 and "has no term that reads a reference column" in no_reader.output


def test_limit_and_skip_invalid_on_ray_as_in_process(ray, files, tmp_path):
    spec, _, rows = files
    lines = [json.dumps(r) for r in rows[:14]]
    lines.insert(3, "{not json")
    lines.insert(8, json.dumps({"text": "no completion field", "task": "math", "answer": "1"}))
    lines.insert(11, "[1, 2]")
    data = tmp_path / "dirty.jsonl"
    data.write_text("\n".join(lines) + "\n")
    for extra in (["--skip-invalid"], ["--skip-invalid", "--limit", "7"]):
        outputs = {}
        for where in ("local", "ray"):
            flags = ["--ray", "--batch-size", "3"] if where == "ray" else []
            result = _invoke(
                "-r",
                str(spec),
                "-i",
                str(data),
                "-o",
                str(tmp_path / f"{where}.jsonl"),
                *extra,
                *flags,
                "--summary-json",
                str(tmp_path / f"{where}.json"),
            )
            assert result.exit_code == 0, result.output
            summary = json.loads((tmp_path / f"{where}.json").read_text())
            outputs[where] = ((tmp_path / f"{where}.jsonl").read_text(), summary["samples"], summary["skipped"])
            assert result.output.count("skipped ") >= (3 if extra == ["--skip-invalid"] else 2), result.output
        assert outputs["ray"] == outputs["local"], extra
    assert outputs["ray"][1] == 7
    clean = tmp_path / "clean.jsonl"
    clean.write_text("".join(json.dumps(r) + "\n" for r in rows))
    for where in ("local", "ray"):
        flags = ["--ray", "--batch-size", "4"] if where == "ray" else []
        score("-r", str(spec), "-i", str(clean), "-o", str(tmp_path / f"{where}5.jsonl"), "--limit", "5", *flags)
    assert (tmp_path / "ray5.jsonl").read_text() == (tmp_path / "local5.jsonl").read_text()
    assert len((tmp_path / "ray5.jsonl").read_text().splitlines()) == 5
    strict = _invoke("-r", str(spec), "-i", str(data), "--ray")
    assert strict.exit_code != 0 and "use --skip-invalid" in strict.output


def test_what_ray_does_not_support_says_why_and_what_to_do(files, tmp_path):
    spec, data, _ = files
    result = _invoke("-r", str(spec), "-i", str(data), "-o", str(tmp_path / "o.jsonl"), "--resume", "--ray")
    assert result.exit_code != 0
    assert "--resume is not supported with --ray" in result.output and "resume without --ray" in result.output
