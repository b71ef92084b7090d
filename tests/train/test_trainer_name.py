"""The in-house trainer is MiniGRPOTrainer; its old name GRPOTrainer (TRL's) still works, with a warning.
And the trainer still calls a registered plain reward function itself, now that rk.get_reward wraps it."""

from __future__ import annotations

import pytest

import rewardkit as rk
from rewardkit.plugins.hookspecs import Register
from rewardkit.train import trainer
from rewardkit.train.config import RewardEntry
from rewardkit.train.scoring import resolve_rewards, score_completions


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


def _first_letter(completions: list[str], letter: list[str]) -> list[float]:
    """A plain reward that names the one column it reads (no ``**kwargs``)."""
    return [float(c.startswith(x)) for c, x in zip(completions, letter, strict=True)]


class _FirstLetterPlugin:
    @rk.hookimpl
    def register_rewards(self, register: Register) -> None:
        register("first_letter", _first_letter)


def test_a_registered_plain_reward_still_gets_only_the_columns_it_names() -> None:
    host = rk.plugin_host()
    host.register(_FirstLetterPlugin(), name="first-letter")
    try:
        assert isinstance(rk.get_reward("first_letter"), rk.Reward)  # wrapped for everyone else
        terms = resolve_rewards([RewardEntry(name="first_letter")])
        rows = [{"prompt": "p", "letter": "a", "other": 1}, {"prompt": "p", "letter": "b", "other": 2}]
        scores = score_completions(terms, ["p", "p"], ["apple", "apple"], rows)
        assert scores.components["first_letter"].tolist() == [1.0, 0.0]
    finally:
        host.unregister(name="first-letter")
