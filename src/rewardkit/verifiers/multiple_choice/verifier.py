"""The multiple-choice verifier ("mcq"): find the letter the completion commits to, compare it to the gold.

Two stages:

1. **extract** (:mod:`rewardkit.verifiers.multiple_choice.extract`) — keep the text after the last closed
   ``</think>`` (capped to its last ``max_chars``), collect answer candidates (``\\boxed{}``/``\\fbox{}``,
   ``<answer>`` tags, statements such as "the answer is", "B is correct"; when there is none, the last line alone:
   ``B``, ``(B)``, ``B) London``), and read each one as a list of choices (letters, or option texts mapped to their
   letters). The last candidate is the answer; candidates right before it that only a connective separates ("or",
   ",", a line break) belong to the same answer, while one separated by reasoning or a revision ("wait, actually") is a
   draft and is ignored.
2. **compare** (here) — several different letters are a hedge, a letter whose attached text names a different
   option is a contradiction, a letter outside the options is invalid; otherwise the letter must equal the gold.

Option labels: letters (``A``, ``B``, ...), or the digits ``1``, ``2``, ... of ARC-style datasets, which are
then read as the options they label.
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from rewardkit._errors import ConfigError, VerifierError
from rewardkit.profiling import stage
from rewardkit.verifiers.base import Verifier, check_batch
from rewardkit.verifiers.multiple_choice.extract import (
    SPAN_CHARS,
    Choice,
    ChoiceReader,
    answer_text,
    final_answer,
    final_line,
    find_candidates,
)
from rewardkit.verifiers.verdict import Status, Verdict

INVALID_OPTION = "invalid_option"
OPTION_MISMATCH = "option_mismatch"


@dataclass(frozen=True)
class MCQConfig:
    """Settings of :class:`MCQVerifier`.

    ``letters``: the option labels in order. ``max_options``: how many of them are valid when the sample
    gives no ``options`` (default: the first 10, A-J, as in MMLU-Pro). ``max_chars``: only the last this many
    characters of the answer text are read.
    ``lowercase``: accept ``b``/``(b)`` for ``B``. ``match_option_text``: map an option's text to its letter.
    """

    letters: str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    max_options: int | None = None
    max_chars: int = 20_000
    lowercase: bool = True
    match_option_text: bool = True

    def __post_init__(self) -> None:
        if not self.letters or not self.letters.isalpha() or not self.letters.isupper():
            raise ConfigError(f"mcq: letters must be upper-case letters like 'ABCD', got {self.letters!r}")
        if len(set(self.letters)) != len(self.letters):
            raise ConfigError(f"mcq: letters must not repeat, got {self.letters!r}")
        if self.max_options is not None and not 2 <= self.max_options <= len(self.letters):
            raise ConfigError(
                f"mcq: max_options must lie in [2, {len(self.letters)}] (the number of letters), "
                f"got {self.max_options!r}"
            )
        if self.max_chars < 100:
            raise ConfigError(f"mcq: max_chars must be at least 100, got {self.max_chars!r}")

    @property
    def default_options(self) -> int:
        return self.max_options if self.max_options is not None else min(10, len(self.letters))


# ----------------------------------------------------------------------------------------------- compare

_GOLD_LETTER = re.compile(r"\s*[(\[]?([A-Za-z])[)\].]?\s*")
_GOLD_DIGIT = re.compile(r"\s*[(\[]?([1-9])[)\].]?\s*")


@dataclass(frozen=True)
class Options:
    """One sample's option texts and how they are labelled: letters, or ``1``, ``2``, ... (ARC)."""

    texts: tuple[str, ...] = ()
    digit_labels: bool = False


@functools.lru_cache(maxsize=512)
def _reader(valid: str, options: Options, config: MCQConfig) -> ChoiceReader:
    """One reader per option set: a GRPO group (and often a whole dataset) shares it."""
    return ChoiceReader(
        valid,
        options.texts,
        lowercase=config.lowercase,
        match_option_text=config.match_option_text,
        digit_letters=config.letters if options.digit_labels else "",
    )


class MCQVerifier(Verifier):
    """Multiple-choice answers: the gold is a letter (or a 0-based index, or the option's text).

    Context ``options`` (alias ``choices``): the option texts, lettered A, B, C, ... (optional); a list
    (MMLU), ``{"text": [...], "label": [...]}`` (ARC, labels ``A``... or ``1``...) or ``{"A": text, ...}``.
    Context ``labels``: the labels of a plain list of options, when they are not letters.
    """

    name = "mcq"
    batch_threads = 1  # microseconds of pure Python per sample: inline, no thread pool
    params_schema = MCQConfig  # checked when a spec is built (rewardkit.plugins.params)

    def __init__(
        self,
        *,
        letters: str = MCQConfig.letters,
        max_options: int | None = MCQConfig.max_options,
        max_chars: int = MCQConfig.max_chars,
        lowercase: bool = MCQConfig.lowercase,
        match_option_text: bool = MCQConfig.match_option_text,
    ) -> None:
        self.config = MCQConfig(letters, max_options, max_chars, lowercase, match_option_text)

    def verify_batch(
        self,
        completions: Sequence[Any],
        references: Sequence[Any],
        contexts: Sequence[Mapping[str, Any] | None] | None = None,
    ) -> list[Verdict]:
        """The batch inline, reading each distinct option list once (a GRPO group shares one)."""
        contexts = check_batch(completions, references, contexts)
        prepared: dict[int, tuple[Any, Options, str, ChoiceReader]] = {}
        verdicts = []
        for completion, reference, context in zip(completions, references, contexts, strict=True):
            try:
                context = context or {}
                raw = context.get("options", context.get("choices"))
                labelled = "labels" in context  # the labels change how the same list reads: not shared
                setting = None if labelled else prepared.get(id(raw))
                if setting is None or setting[0] is not raw:
                    setting = (raw, *self._setting(context))
                    if not labelled:
                        prepared[id(raw)] = setting
                verdicts.append(self._judge(completion, reference, *setting[1:]))
            except VerifierError:
                raise
            except Exception as exc:  # noqa: BLE001 - one bad sample must not crash a training batch
                verdicts.append(Verdict.fail(Status.ERROR, error=f"{type(exc).__name__}: {exc}"))
        return verdicts

    def _verify(self, completion: Any, reference: Any, **context: Any) -> Verdict:
        return self._judge(completion, reference, *self._setting(context))

    def _setting(self, context: Mapping[str, Any]) -> tuple[Options, str, ChoiceReader]:
        options = self._options(context)
        valid = self.config.letters[: len(options.texts) if options.texts else self.config.default_options]
        return options, valid, _reader(valid, options, self.config)

    def _judge(self, completion: Any, reference: Any, options: Options, valid: str, reader: ChoiceReader) -> Verdict:
        gold = self._gold(reference, reader, options.digit_labels)
        if gold is None:
            return Verdict.fail(Status.INVALID_REFERENCE, reference=str(reference)[:200], valid_letters=valid)
        with stage("mcq: extract"):
            text = answer_text(completion, self.config.max_chars)
            candidates = find_candidates(text, reader) or [c for c in [final_line(text, reader)] if c]
            if not candidates:
                return Verdict.fail(Status.NO_ANSWER, gold=gold)
            cluster = final_answer(candidates, text)
            choices = [ch for cand in cluster for ch in cand.choices]
            after = cluster[-1].after
            if after >= 0:  # what follows the answer: "\\boxed{B} or C", "Answer: A" then lines "B", "C"
                choices.extend(reader.read_after(text[after : after + SPAN_CHARS]))
        with stage("mcq: compare"):
            verdict = self.compare(choices, gold, valid, cluster[-1].source)
        if options.digit_labels:  # the letters in the labels the model was shown
            letters = self.config.letters
            verdict.details["labels"] = [str(letters.index(c) + 1) for c in verdict.details["letters"]]  # type: ignore[index]
            verdict.details["gold_label"] = str(letters.index(gold) + 1)  # type: ignore[index]
        return verdict

    @staticmethod
    def compare(choices: Sequence[Choice], gold: str, valid: str, source: str) -> Verdict:
        letters = list(dict.fromkeys(c for choice in choices for c in choice.letter))
        details: dict[str, Any] = {"gold": gold, "letters": letters, "source": source, "valid_letters": valid}
        extracted = ",".join(letters)
        if len(letters) > 1:
            return Verdict.fail(Status.HEDGED, extracted, **details)
        mismatched = [c for c in choices if c.attached is not None and c.attached != c.letter]
        if mismatched:
            details["attached_text_names"] = mismatched[0].attached
            return Verdict.fail(OPTION_MISMATCH, extracted, **details)
        if letters[0] not in valid:
            return Verdict.fail(INVALID_OPTION, extracted, **details)
        correct = letters[0] == gold
        return Verdict(1.0 if correct else 0.0, correct, Status.OK, extracted, details)

    def _options(self, context: Mapping[str, Any]) -> Options:
        raw = context.get("options", context.get("choices"))
        if raw is None:
            return Options()
        labels = context.get("labels")
        if isinstance(raw, Mapping) and "text" in raw:  # ARC / Hugging Face: {"text": [...], "label": [...]}
            raw, labels = raw["text"], raw.get("label", labels)
        elif isinstance(raw, Mapping):
            labels = sorted(raw)
            raw = [raw[k] for k in labels]
        if type(raw) is list and labels is None and all(type(o) is str for o in raw):  # the common case, fast
            return Options(tuple(raw)) if len(raw) <= len(self.config.letters) else self._too_many(len(raw))
        raw, labels = _as_list(raw), _as_list(labels)
        if isinstance(raw, (str, bytes)) or not isinstance(raw, Sequence):
            raise VerifierError(f"mcq: options must be a list of option texts, got {type(raw).__name__}")
        if len(raw) > len(self.config.letters):
            self._too_many(len(raw))
        return Options(tuple(str(o) for o in raw), self._digit_labels(labels, len(raw)))

    def _too_many(self, count: int) -> NoReturn:
        raise VerifierError(f"mcq: {count} options but only {len(self.config.letters)} letters ({self.config.letters})")

    def _digit_labels(self, labels: Any, count: int) -> bool:
        """Whether the options are labelled 1, 2, 3, ...; letter labels must be the letters in order."""
        if labels is None:
            return False
        names = [str(label).strip().upper() for label in labels] if isinstance(labels, Sequence) else None
        if names is not None and not isinstance(labels, str) and len(names) == count:
            if names == list(self.config.letters[:count]):
                return False
            if count <= 9 and names == [str(i + 1) for i in range(count)]:
                return True
        raise VerifierError(
            f"mcq: option labels must be {', '.join(self.config.letters[:count])} or "
            f"{', '.join(str(i + 1) for i in range(min(count, 9)))} in order (one per option), got {labels!r}"
        )

    def _gold(self, reference: Any, reader: ChoiceReader, digit_labels: bool) -> str | None:
        """The gold letter from a letter, a 0-based index (int or numpy integer), a digit label ("2" when the
        options are labelled 1, 2, ...) or an option's text."""
        if hasattr(reference, "__index__") and not isinstance(reference, bool):
            index = operator.index(reference)
            return reader.valid[index] if 0 <= index < len(reader.valid) else None
        if not isinstance(reference, str):
            return None
        m = _GOLD_DIGIT.fullmatch(reference) if digit_labels else None
        if m:
            index = int(m.group(1)) - 1
            return reader.valid[index] if index < len(reader.valid) else None
        m = _GOLD_LETTER.fullmatch(reference)
        if m:
            letter = m.group(1).upper()
            return letter if letter in reader.valid else None
        choices, _ = reader.read(reference, whole=True)
        letters = {c.letter for c in choices}
        if len(letters) != 1:
            return None
        letter = letters.pop()
        return letter if len(letter) == 1 and letter in reader.valid else None


def _as_list(value: Any) -> Any:
    """A numpy array or pyarrow list (datasets in numpy/arrow format) as a plain list."""
    return value.tolist() if hasattr(value, "tolist") and not isinstance(value, (str, bytes)) else value
