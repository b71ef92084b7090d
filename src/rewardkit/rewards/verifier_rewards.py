"""Rewards backed by a verifier: one shared verifier per (name, params), one ``verify_batch`` per call."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit.plugins.params import ParamValueError, check_params
from rewardkit.rewards.base import Reward, Scored
from rewardkit.rewards.infrastructure import DEFAULT_MAX_RATE, DEFAULT_WINDOW, FailureWatch
from rewardkit.rewards.inputs import Batch, prompt_text
from rewardkit.verifiers.base import Verifier, is_missing_reference
from rewardkit.verifiers.verdict import RETRIED_STATUSES, Verdict

DEFAULT_REFERENCE_KEYS = ("answer", "solution")

_lock = threading.RLock()  # re-entrant: a reward collected (its __del__ runs) while the lock is held
_first_use_lock = threading.RLock()


def _forget_parent_verifiers() -> None:
    # A forked child must not drive its parent's worker pools or sandboxes: it starts its own on first use.
    global _lock, _first_use_lock
    _lock, _first_use_lock = threading.RLock(), threading.RLock()
    _shared.clear()


os.register_at_fork(after_in_child=_forget_parent_verifiers)
_shared: dict[str, tuple[Verifier, int]] = {}


def _key(name: str, params: Mapping[str, Any]) -> str:
    return json.dumps([name, params], sort_keys=True, default=repr)


def acquire_verifier(name: str, params: Mapping[str, Any]) -> Verifier:
    """The process-wide verifier for ``(name, params)``, created on first use; pair with release_verifier."""
    key = _key(name, params)
    with _lock:
        if key in _shared:
            verifier, count = _shared[key]
            _shared[key] = (verifier, count + 1)
            return verifier
        from rewardkit.verifiers.lookup import get_verifier

        verifier = get_verifier(name, **params)
        _shared[key] = (verifier, 1)
        return verifier


def release_verifier(name: str, params: Mapping[str, Any]) -> None:
    """Drop one user of a shared verifier; the last one closes it (its worker processes end)."""
    key = _key(name, params)
    with _lock:
        if key not in _shared:
            return
        verifier, count = _shared[key]
        if count > 1:
            _shared[key] = (verifier, count - 1)
            return
        del _shared[key]
    verifier.close()


_memo: OrderedDict[str, Verdict] = OrderedDict()
MEMO_SIZE = 4096


def cached_verify(
    name: str,
    params: Mapping[str, Any],
    verifier: Verifier,
    completions: list[Any],
    references: list[Any],
    contexts: list[dict[str, Any]],
    fresh_out: list[Verdict] | None = None,
) -> list[Verdict]:
    """``verifier.verify_batch`` on the samples not judged recently, in one call.

    ``fresh_out``, when given, receives the verdicts judged by this call (not those remembered), so a
    reward can log what the work behind them cost.

    Two terms of one spec that use the same verifier (``code_pass_rate`` and ``code_all_pass``,
    ``math_accuracy`` and ``cosine_length``) or the same completion in successive steps then cost one
    verification. Infrastructure failures (a broken sandbox, a verifier error, a bad reference) are not
    remembered, so they are tried again next time; the model's own failures (timeout, compile error, hedge) are.
    """
    prefix = _key(name, params)
    keys = [  # hashed: a row's tests can be megabytes (CodeContests, LiveCodeBench), held 4096 times over
        hashlib.sha256(json.dumps([prefix, c, r, x], sort_keys=True, default=repr).encode()).hexdigest()
        for c, r, x in zip(completions, references, contexts, strict=True)
    ]
    found: dict[int, Verdict] = {}
    with _lock:
        for i, key in enumerate(keys):
            if key in _memo:
                _memo.move_to_end(key)
                found[i] = _memo[key]
    todo = [i for i in range(len(keys)) if i not in found]
    if todo:
        fresh = verifier.verify_batch(
            [completions[i] for i in todo], [references[i] for i in todo], [contexts[i] for i in todo]
        )
        if fresh_out is not None:
            fresh_out.extend(fresh)
        with _lock:
            for i, verdict in zip(todo, fresh, strict=True):
                found[i] = verdict
                if not verdict.is_infrastructure_failure:
                    _memo[keys[i]] = verdict
            while len(_memo) > MEMO_SIZE:
                _memo.popitem(last=False)
    return [found[i] for i in range(len(keys))]


def clear_verdict_memo() -> None:
    with _lock:
        _memo.clear()


def shared_verifier_count() -> int:
    with _lock:
        return len(_shared)


def check_verifier_params(reward: str, verifier: str, params: Mapping[str, Any]) -> None:
    """Fail now, not at the first training step, when the verifier is unknown or rejects ``params``."""
    from rewardkit.plugins.manager import default_host

    registry = default_host().registries.verifiers
    if verifier not in registry:
        raise ConfigError(f"reward {reward!r} needs verifier {verifier!r}: {registry.unknown_message(verifier)}")
    try:
        check_params("verifier", verifier, registry.get(verifier), dict(params))
    except ParamValueError:
        raise
    except ConfigError as exc:
        raise ConfigError(f"reward {reward!r}: {exc}") from None


def _reads_messages(verifier: str) -> bool:
    from rewardkit.plugins.manager import default_host

    registry = default_host().registries.verifiers
    return verifier in registry and bool(getattr(registry.get(verifier), "reads_messages", False))


class VerifierReward(Reward):
    """Score each completion with a registered verifier against its row's reference.

    ``value`` says what a verdict is worth: ``"score"`` passes partial credit through (fraction of tests
    passed, sub-answers), ``"correct"`` gives 1.0 or 0.0. ``context_keys`` maps verifier context names to
    dataset columns (e.g. MCQ ``options``). A verifier that reads a ``question`` (the judge) gets the row's
    prompt as text, unless ``context_keys`` maps ``question`` to a column.

    No reward (None) where nobody judged the completion: a row whose reference is missing (None, empty, NaN)
    is not sent to the verifier (status None), and a verdict that is an infrastructure failure
    (``sandbox_error`` after one retry, ``error``, ``invalid_reference``, ``judge_error``) keeps its status
    but gets None.
    When more than ``max_infrastructure_failure_rate`` of the last ``infrastructure_failure_window`` judged
    rows failed that way, scoring raises :class:`~rewardkit.InfrastructureError` (None: never).

    ``turns``: for a multi-turn chat completion, the verifier reads the ``final`` assistant turn (default: an
    answer drafted in an earlier turn is not read as a second answer, a hedge) or ``all`` of them joined. A
    verifier that reads the messages themselves (``tool_call``) gets them whole, with ``turns`` as its own
    parameter unless ``verifier_params`` sets it.
    """

    _transient = ("_verifier",)

    def __init__(
        self,
        name: str,
        verifier: str,
        *,
        verifier_params: Mapping[str, Any] | None = None,
        reference_key: str | Sequence[str] = DEFAULT_REFERENCE_KEYS,
        context_keys: Mapping[str, str] | None = None,
        value: str = "score",
        turns: str = "final",
        max_infrastructure_failure_rate: float | None = DEFAULT_MAX_RATE,
        infrastructure_failure_window: int = DEFAULT_WINDOW,
    ) -> None:
        super().__init__(name)
        if turns not in ("final", "all"):
            raise ConfigError(f"reward {name!r}: turns must be 'final' or 'all', got {turns!r}")
        if not isinstance(verifier, str) or not verifier:
            raise ConfigError(f"reward {name!r}: verifier must be a registered verifier name, got {verifier!r}")
        if value not in ("score", "correct"):
            raise ConfigError(f"reward {name!r}: value must be 'score' or 'correct', got {value!r}")
        if not isinstance(reference_key, str) and not (
            isinstance(reference_key, Sequence) and all(isinstance(k, str) for k in reference_key)
        ):
            raise ConfigError(
                f"reward {name!r}: reference_key must be a column name or a list of them, got {reference_key!r}"
            )
        if context_keys is not None and not (
            isinstance(context_keys, Mapping) and all(isinstance(v, str) for v in context_keys.values())
        ):
            raise ConfigError(
                f"reward {name!r}: context_keys must map verifier context names to column names, got {context_keys!r}"
            )
        self.verifier_params = dict(verifier_params or {})
        self.turns = turns
        if _reads_messages(verifier) and "turns" not in self.verifier_params:
            self.verifier_params["turns"] = turns
        check_verifier_params(name, verifier, self.verifier_params)
        self.verifier_name = verifier
        self.reference_key = reference_key
        self.context_keys = dict(context_keys or {})
        self.value = value
        self.failures = FailureWatch(name, max_infrastructure_failure_rate, infrastructure_failure_window)
        self._verifier: Verifier | None = None
        self._pid = os.getpid()

    @property
    def verifier(self) -> Verifier:
        if self._verifier is not None and self._pid != os.getpid():
            self._verifier = None  # inherited through fork: the parent's, not ours to use or release
        if self._verifier is None:
            with _first_use_lock:  # two threads scoring at once must not both acquire (and leak) one
                if self._verifier is None:
                    self._verifier = acquire_verifier(self.verifier_name, self.verifier_params)
                    self._pid = os.getpid()
        return self._verifier

    def score(self, batch: Batch) -> Scored:
        references = batch.column(self.reference_key, reward=self.name)
        rows = [i for i, ref in enumerate(references) if not is_missing_reference(ref)]
        values: list[float | None] = [None] * len(batch)
        statuses: list[str | None] = [None] * len(batch)
        extracted: list[str | None] = [None] * len(batch)
        metrics: dict[str, float] = {}
        if rows:
            contexts = [self._context(batch, i) for i in rows]
            if getattr(self.verifier, "uses_question", False):
                for i, context in zip(rows, contexts, strict=True):
                    if "question" not in context:
                        question = prompt_text(batch.prompts[i])
                        if question is not None:
                            context["question"] = question
            fresh: list[Verdict] = []
            verdicts = self._judge(self._answers(batch, rows), [references[i] for i in rows], contexts, fresh)
            metrics = self.verifier.batch_metrics(fresh) if fresh else {}
            for i, verdict in zip(rows, verdicts, strict=True):
                values[i] = None if verdict.is_infrastructure_failure else self._worth(verdict)
                statuses[i] = verdict.status
                extracted[i] = verdict.extracted
            self.failures.record(statuses[i] for i in rows)
        return Scored.leaf(self.name, values, statuses, extracted, metrics)

    def _answers(self, batch: Batch, rows: list[int]) -> list[Any]:
        """What the verifier reads per row: the chat messages for one that reads them, else the text."""
        if getattr(self.verifier, "reads_messages", False):
            return [batch.completions[i] for i in rows]
        texts = batch.final_texts if self.turns == "final" else batch.texts
        return [texts[i] for i in rows]

    def _judge(
        self,
        texts: list[Any],
        references: list[Any],
        contexts: list[dict[str, Any]],
        fresh: list[Verdict] | None = None,
    ) -> list[Verdict]:
        """The verdicts, with the rows a sandbox failed on judged once more (a container may die mid-run)."""
        judge = self.verifier
        verdicts = cached_verify(self.verifier_name, self.verifier_params, judge, texts, references, contexts, fresh)
        again = [j for j, verdict in enumerate(verdicts) if verdict.status in RETRIED_STATUSES]
        if again:
            retried = cached_verify(
                self.verifier_name,
                self.verifier_params,
                judge,
                [texts[j] for j in again],
                [references[j] for j in again],
                [contexts[j] for j in again],
                fresh,
            )
            for j, verdict in zip(again, retried, strict=True):
                verdicts[j] = verdict
        return verdicts

    def _context(self, batch: Batch, row: int) -> dict[str, Any]:
        context = {}
        for name, column in self.context_keys.items():
            if column in batch.columns and batch.columns[column][row] is not None:
                context[name] = batch.columns[column][row]
        return context

    def _worth(self, verdict: Verdict) -> float:
        return verdict.score if self.value == "score" else float(verdict.correct)

    def close(self) -> None:
        with _first_use_lock:
            held, self._verifier = self._verifier, None
        if held is not None and self._pid == os.getpid():
            release_verifier(self.verifier_name, self.verifier_params)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - at interpreter exit the verifier may already be gone
            pass


def math_accuracy(
    *,
    reference_key: str | Sequence[str] = DEFAULT_REFERENCE_KEYS,
    turns: str = "final",
    max_infrastructure_failure_rate: float | None = DEFAULT_MAX_RATE,
    infrastructure_failure_window: int = DEFAULT_WINDOW,
    **verifier_params: Any,
) -> VerifierReward:
    """1.0 when the completion's final answer equals the reference mathematically, else 0.0."""
    return VerifierReward(
        "math_accuracy",
        "math",
        verifier_params=verifier_params,
        reference_key=reference_key,
        turns=turns,
        max_infrastructure_failure_rate=max_infrastructure_failure_rate,
        infrastructure_failure_window=infrastructure_failure_window,
    )


def mcq_accuracy(
    *,
    reference_key: str | Sequence[str] = (*DEFAULT_REFERENCE_KEYS, "answerKey"),
    options_key: str = "options",
    choices_key: str = "choices",
    turns: str = "final",
    max_infrastructure_failure_rate: float | None = DEFAULT_MAX_RATE,
    infrastructure_failure_window: int = DEFAULT_WINDOW,
    **verifier_params: Any,
) -> VerifierReward:
    """1.0 when the chosen option (letter or option text) is the reference's; hedges earn 0.0.
    Options come from ``options_key``, else ``choices_key`` (MMLU's list, ARC's text/label dict)."""
    return VerifierReward(
        "mcq_accuracy",
        "mcq",
        verifier_params=verifier_params,
        reference_key=reference_key,
        context_keys={"options": options_key, "choices": choices_key},
        turns=turns,
        max_infrastructure_failure_rate=max_infrastructure_failure_rate,
        infrastructure_failure_window=infrastructure_failure_window,
    )
