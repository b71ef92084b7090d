"""The verifier protocol: verify one sample, verify a batch, release workers on close."""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from rewardkit._errors import VerifierError
from rewardkit.verifiers.verdict import Status, Verdict


class Verifier(abc.ABC):
    """Judges completions against references. Never raises on model output: failures are verdicts.

    Subclasses implement :meth:`_verify`; :meth:`verify_batch` runs it on ``batch_threads`` threads by
    default (verifiers that own worker processes override it). A verifier whose work is pure Python taking
    microseconds sets ``batch_threads = 1``: its batch then runs inline, since threads would only add their
    start-up and GIL hand-offs to every sample. A verifier is a context manager:
    leaving the ``with`` block calls :meth:`close`, which releases workers and containers.
    """

    name: str = "verifier"
    batch_threads: int = 8
    #: True for a verifier that reads the context value ``question``: a verifier-backed reward then passes
    #: the row's prompt as text (other verifiers are not handed a keyword they did not ask for).
    uses_question: bool = False
    #: True for a verifier that reads chat messages themselves (the tool-call verifier reads their
    #: ``tool_calls``): a verifier-backed reward then passes each completion as given, not as its text.
    reads_messages: bool = False

    def verify(self, completion: Any, reference: Any, **context: Any) -> Verdict:
        try:
            return self._verify(completion, reference, **context)
        except VerifierError:
            raise
        except Exception as exc:  # noqa: BLE001 - a verifier bug must not crash a training batch
            return Verdict.fail(Status.ERROR, error=f"{type(exc).__name__}: {exc}")

    @abc.abstractmethod
    def _verify(self, completion: Any, reference: Any, **context: Any) -> Verdict:
        """Judge one completion; may raise, :meth:`verify` turns exceptions into verdicts."""

    def verify_batch(
        self,
        completions: Sequence[Any],
        references: Sequence[Any],
        contexts: Sequence[Mapping[str, Any] | None] | None = None,
    ) -> list[Verdict]:
        contexts = check_batch(completions, references, contexts)
        if len(completions) <= 1 or self.batch_threads <= 1:
            return [self.verify(c, r, **(x or {})) for c, r, x in zip(completions, references, contexts, strict=True)]
        with ThreadPoolExecutor(max_workers=min(self.batch_threads, len(completions))) as pool:
            return list(
                pool.map(
                    lambda args: self.verify(args[0], args[1], **(args[2] or {})),
                    zip(completions, references, contexts, strict=True),
                )
            )

    def batch_metrics(self, verdicts: Sequence[Verdict]) -> dict[str, float]:
        """Numbers a reward logs per call about the work behind these fresh verdicts (a judge's tokens and
        cost); none by default."""
        return {}

    def close(self) -> None:  # noqa: B027 - optional: a verifier holding nothing needs no close
        """Release workers, processes and containers. Safe to call twice."""

    def __enter__(self) -> Verifier:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def check_batch(
    completions: Sequence[Any],
    references: Sequence[Any],
    contexts: Sequence[Mapping[str, Any] | None] | None,
) -> list[Mapping[str, Any] | None]:
    if len(completions) != len(references):
        raise VerifierError(
            f"verify_batch needs one reference per completion: got {len(completions)} completions "
            f"and {len(references)} references"
        )
    if contexts is None:
        return [None] * len(completions)
    if len(contexts) != len(completions):
        raise VerifierError(
            f"verify_batch needs one context per completion (or contexts=None): got {len(contexts)} "
            f"contexts for {len(completions)} completions"
        )
    return list(contexts)


def is_missing_reference(reference: Any) -> bool:
    """Whether a dataset cell holds no reference at all: None, an empty or blank string, an empty list, a
    float NaN (pandas' and numpy's missing value) or pandas' ``NA``/``NaT``. Such a row is not judged."""
    if reference is None:
        return True
    if isinstance(reference, str):
        return not reference.strip()
    if isinstance(reference, float):
        return reference != reference  # NaN
    if type(reference).__name__ in ("NAType", "NaTType"):
        return True
    if isinstance(reference, (list, tuple)) and not reference:
        return True
    try:
        return bool(reference != reference)  # numpy's float32 NaN and friends
    except (TypeError, ValueError):  # an array's truth value is ambiguous: it holds something
        return False
