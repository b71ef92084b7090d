"""docs/training.md quotes only figures of its recorded runs: each figures block on the page is exactly what
examples/training_figures.py renders from the run's docs/img/<name>.json (recorded by grpo_demo.py)."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "training.md"


def _figures_module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("training_figures", ROOT / "examples" / "training_figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BLOCKS = re.findall(r"<!-- figures:([\w-]+) -->", PAGE.read_text())


def test_the_page_has_the_demo_and_codistill_figures_blocks() -> None:
    assert {"grpo_arithmetic", "codistill_arithmetic"} <= set(BLOCKS)


@pytest.mark.parametrize("name", BLOCKS)
def test_every_figure_on_the_page_is_the_recorded_runs(name: str) -> None:
    figures = _figures_module()
    recorded = json.loads((ROOT / "docs" / "img" / f"{name}.json").read_text())
    assert "page" in recorded, f"docs/img/{name}.json was not recorded by grpo_demo.py --record {name}"
    block = figures.block_pattern(name).search(PAGE.read_text())
    assert block is not None
    assert block.group(0) == figures.render(name, recorded["page"]), (
        f"docs/training.md's figures for {name} are not those of docs/img/{name}.json: rerun "
        f"python examples/grpo_demo.py --config examples/{name}.yaml --record {name}"
    )
    # the page's own command records this run
    assert f"python examples/grpo_demo.py --config examples/{name}.yaml --record {name}" in PAGE.read_text()


def test_a_changed_figure_is_caught(tmp_path: Path) -> None:
    figures = _figures_module()
    recorded = json.loads((ROOT / "docs" / "img" / "grpo_arithmetic.json").read_text())["page"]
    page = tmp_path / "training.md"
    page.write_text("before\n<!-- figures:grpo_arithmetic -->\nold\n<!-- /figures:grpo_arithmetic -->\nafter\n")
    figures.write_page("grpo_arithmetic", recorded, page)
    text = page.read_text()
    assert text.startswith("before\n") and text.endswith("after\n") and "old" not in text
    changed = {**recorded, "windows": [w + 0.001 for w in recorded["windows"]]}
    assert figures.render("grpo_arithmetic", changed) not in text
