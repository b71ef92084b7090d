"""One reward call's inputs, normalised: completion texts, dataset columns, and TRL's hooks."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit.verifiers.text import completion_text

__all__ = ["TRAINER_KWARGS", "Batch", "completion_text", "final_turn", "prompt_text"]

# Keyword arguments TRL passes that are not per-row dataset columns.
TRAINER_KWARGS = frozenset({"trainer_state", "log_metric", "log_extra", "environments", "completion_ids"})


def final_turn(completion: Any) -> Any:
    """A chat completion cut to its final assistant turn (a one-message list; ``[]`` when it has none); a
    string, or anything else, as it is. The final turn is the last assistant message with content, reasoning
    or tool calls: a verifier judges the answer the model ended on, not a draft in an earlier turn."""
    if completion is None or isinstance(completion, (str, Mapping)) or not isinstance(completion, Sequence):
        return completion
    for message in reversed(completion):
        if isinstance(message, str):
            if message:
                return [message]
        elif isinstance(message, Mapping) and message.get("role", "assistant") == "assistant":
            if any(message.get(k) for k in ("content", "reasoning_content", "reasoning", "tool_calls")):
                return [message]
    return []


def prompt_text(prompt: Any) -> str | None:
    """A row's prompt as the text a judge reads: a string as is; chat messages without the system turns,
    a single remaining message as its content, several as ``role: content`` paragraphs. None when empty."""
    if prompt is None:
        return None
    if isinstance(prompt, str):
        return prompt or None
    if isinstance(prompt, Mapping):
        prompt = [prompt]
    if not isinstance(prompt, Sequence):
        return str(prompt)
    turns: list[tuple[str, str]] = []
    for message in prompt:
        if isinstance(message, str):
            turns.append(("user", message))
            continue
        if not isinstance(message, Mapping) or message.get("role") == "system":
            continue
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(
                str(p.get("text", "")) for p in content if isinstance(p, Mapping) and p.get("type") == "text"
            )
        if content:
            turns.append((str(message.get("role", "user")), str(content)))
    if not turns:
        return None
    if len(turns) == 1:
        return turns[0][1]
    return "\n\n".join(f"{role}: {content}" for role, content in turns)


@dataclass
class Batch:
    """The completions of one reward call with every per-row column TRL (or the score command) passed."""

    completions: list[Any]
    prompts: list[Any]
    columns: dict[str, list[Any]] = field(default_factory=dict)
    completion_ids: list[Any] | None = None
    log_metric: Callable[[str, float], None] | None = None
    log_extra: Callable[[str, list[Any]], None] | None = None
    trainer_state: Any = None
    #: TRL's per-rollout environment instances (``GRPOTrainer(environment_factory=...)``), when it passed them.
    environments: list[Any] | None = None
    _texts: list[str] | None = field(default=None, repr=False)
    _final_texts: list[str] | None = field(default=None, repr=False)

    @classmethod
    def from_call(cls, prompts: Any, completions: Any, kwargs: Mapping[str, Any]) -> Batch:
        if completions is None:
            raise ConfigError("a reward needs completions=[...] (one entry per sample)")
        completions = list(completions)
        n = len(completions)
        prompts = list(prompts) if prompts is not None else [None] * n
        columns: dict[str, list[Any]] = {}
        for key, value in kwargs.items():
            if key in TRAINER_KWARGS:
                continue
            if isinstance(value, (list, tuple)) and len(value) == n:
                columns[key] = list(value)
        ids = kwargs.get("completion_ids")
        environments = kwargs.get("environments")
        return cls(
            completions=completions,
            prompts=prompts,
            columns=columns,
            completion_ids=list(ids) if ids is not None and len(ids) == n else None,
            log_metric=kwargs.get("log_metric"),
            log_extra=kwargs.get("log_extra"),
            trainer_state=kwargs.get("trainer_state"),
            environments=list(environments) if isinstance(environments, Sequence) and len(environments) == n else None,
        )

    def __len__(self) -> int:
        return len(self.completions)

    @property
    def texts(self) -> list[str]:
        if self._texts is None:
            self._texts = [completion_text(c) for c in self.completions]
        return self._texts

    @property
    def final_texts(self) -> list[str]:
        """Per row, the text of the final assistant turn (all of it for a plain string completion)."""
        if self._final_texts is None:
            self._final_texts = [completion_text(final_turn(c)) for c in self.completions]
        return self._final_texts

    def column(self, keys: str | Sequence[str], *, reward: str, required: bool = True) -> list[Any]:
        """Per row, the value of the first of ``keys`` that the batch has and that is not None there."""
        names = [keys] if isinstance(keys, str) else list(keys)
        present = [k for k in names if k in self.columns]
        if not present:
            if not required:
                return [None] * len(self)
            raise ConfigError(
                f"reward {reward!r} needs a dataset column named {' or '.join(map(repr, names))}; "
                f"the batch has columns: {', '.join(sorted(self.columns)) or '(none)'} "
                f"(set reference_key to use another column)"
            )
        out = []
        for i in range(len(self)):
            value = None
            for key in present:
                value = self.columns[key][i]
                if value is not None:
                    break
            out.append(value)
        return out

    def subset(self, indices: Sequence[int]) -> Batch:
        """The rows at ``indices``, columns and token ids included; logging hooks are kept."""
        return Batch(
            completions=[self.completions[i] for i in indices],
            prompts=[self.prompts[i] for i in indices],
            columns={k: [v[i] for i in indices] for k, v in self.columns.items()},
            completion_ids=[self.completion_ids[i] for i in indices] if self.completion_ids is not None else None,
            log_metric=self.log_metric,
            log_extra=self.log_extra,
            trainer_state=self.trainer_state,
            environments=[self.environments[i] for i in indices] if self.environments is not None else None,
            _texts=[self.texts[i] for i in indices],
        )
