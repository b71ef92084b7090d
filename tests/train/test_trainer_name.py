"""The in-house trainer is MiniGRPOTrainer; its old name GRPOTrainer (TRL's) still works, with a warning."""

from __future__ import annotations

import pytest

from rewardkit.train import trainer


def test_old_name_is_the_same_class_with_a_deprecation_warning() -> None:
    with pytest.warns(DeprecationWarning, match="renamed MiniGRPOTrainer"):
        old = trainer.GRPOTrainer
    assert old is trainer.MiniGRPOTrainer
    with pytest.warns(DeprecationWarning, match="renamed MiniGRPOTrainer"):
        from rewardkit.train.trainer import GRPOTrainer
    assert GRPOTrainer is trainer.MiniGRPOTrainer


def test_other_missing_names_still_raise() -> None:
    with pytest.raises(AttributeError, match="no attribute 'NoSuchTrainer'"):
        trainer.NoSuchTrainer  # noqa: B018
