"""The completions' token ids, from TRL's ``completion_ids`` or from a tokenizer, for the rewards that count
tokens (the length rewards, ``repetition_penalty``)."""

from __future__ import annotations

from typing import Any

from rewardkit._errors import ConfigError
from rewardkit.rewards.inputs import Batch


class CompletionTokens:
    """Token ids per completion: TRL's ``completion_ids`` when the call has them, else ``tokenizer``'s.

    ``tokenizer`` is a name or path for ``transformers.AutoTokenizer``, loaded on first use and never
    pickled (a pickled reward loads it again). ``text_unit`` names the reward's unit that needs neither,
    for the error message.
    """

    def __init__(self, reward: str, tokenizer: str | None, text_unit: str) -> None:
        if tokenizer is not None and not isinstance(tokenizer, str):
            raise ConfigError(f"{reward}: tokenizer must be a model name or path, got {type(tokenizer).__name__}")
        self.reward = reward
        self.tokenizer = tokenizer
        self.text_unit = text_unit
        self._tok: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_tok": None}

    def available(self, batch: Batch) -> bool:
        return batch.completion_ids is not None or bool(self.tokenizer)

    def ids(self, batch: Batch) -> list[list[Any]]:
        if batch.completion_ids is not None:
            return [list(ids) for ids in batch.completion_ids]
        if not self.tokenizer:
            raise ConfigError(
                f"{self.reward}: unit='tokens' needs completion_ids (TRL passes them) or a tokenizer parameter; "
                f"set tokenizer: <model name or path> or unit: {self.text_unit}"
            )
        if self._tok is None:
            from transformers import AutoTokenizer

            self._tok = AutoTokenizer.from_pretrained(self.tokenizer)
        return [list(ids) for ids in self._tok(batch.texts, add_special_tokens=False)["input_ids"]]
