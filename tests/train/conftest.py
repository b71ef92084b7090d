"""Fixtures for the trainer tests: two tiny local Llama models that share a tokenizer (no downloads).

Without the train extra these tests are not collected (test_requirements.py reports the skip); with
CI=true a missing extra fails there instead, and collecting the other modules fails too.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from rk_testing import IN_CI

MISSING = [m for m in ("torch", "transformers", "peft", "matplotlib") if importlib.util.find_spec(m) is None]
if MISSING and not IN_CI:
    collect_ignore_glob = ["test_[!r]*.py"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.train)


STUDENT_SIZES = {"hidden_size": 32, "num_layers": 2, "num_heads": 4, "intermediate_size": 64}
TEACHER_SIZES = {"hidden_size": 48, "num_layers": 4, "num_heads": 4, "intermediate_size": 96}


@pytest.fixture(scope="session")
def student_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from rewardkit.train.tiny_model import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("student") / "model", seed=1, **STUDENT_SIZES)


@pytest.fixture(scope="session")
def teacher_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from rewardkit.train.tiny_model import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("teacher") / "model", seed=2, **TEACHER_SIZES)
