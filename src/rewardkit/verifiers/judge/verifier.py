"""The "judge" verifier: an LLM behind an OpenAI-compatible chat-completions endpoint decides.

Two stages, as for the rule verifiers:

1. **extract** — the completion's answer region (after the last ``</think>``); a think block that never
   closed, or nothing after it, is ``no_answer`` without a call.
2. **compare** — the judge model reads question, reference and answer in delimited data blocks
   (:mod:`~rewardkit.verifiers.judge.prompt`) and answers ``{"verdict": ..., "reason": ...}``: ``correct``
   scores 1.0, ``incorrect`` 0.0, both status ``ok``. A call that fails after its retries, or a reply with
   no readable verdict, is ``judge_error``: an infrastructure failure, so a reward gives the row None.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from rewardkit.verifiers.base import Verifier, check_batch
from rewardkit.verifiers.judge.chat_client import CallSettings, ChatClient, JudgeCallError
from rewardkit.verifiers.judge.config import JudgeConfig
from rewardkit.verifiers.judge.disk_cache import VerdictCache, cache_key
from rewardkit.verifiers.judge.limits import Limits
from rewardkit.verifiers.judge.prompt import PromptBuilder, parse_verdict, reference_text
from rewardkit.verifiers.text import THINK_CLOSE, answer_region, completion_text
from rewardkit.verifiers.verdict import Status, Verdict


def judged_text(completion: Any) -> str | None:
    """The part of a completion the judge reads, or None when it holds no answer (an unclosed think block)."""
    text = completion_text(completion, turns="final", reasoning=False)
    if "<think>" in text and THINK_CLOSE not in text[text.rfind("<think>") :]:
        return None
    answer = answer_region(text).strip()
    return answer or None


class JudgeVerifier(Verifier):
    """An LLM judge over any OpenAI-compatible ``/v1/chat/completions`` endpoint (vLLM, SGLang, a hosted API).

    Context ``question``: the question the completion answers (a reward passes the row's prompt). Settings:
    :class:`~rewardkit.verifiers.judge.config.JudgeConfig`. Details of a verdict: ``reason``, ``model``,
    ``usage`` (prompt and completion tokens), ``cost``, ``cached``, ``attempts``.
    """

    name = "judge"
    params_schema = JudgeConfig
    uses_question = True

    def __init__(self, *, base_url: str, model: str, **settings: Any) -> None:
        self.config = JudgeConfig(base_url=base_url, model=model, **settings)
        self.batch_threads = self.config.max_concurrency
        self.prompt = PromptBuilder(self.config.system_template, self.config.user_template)
        api_key = self.config.api_key()
        self.limits = Limits(
            self.config.max_concurrency, self.config.requests_per_minute, self.config.tokens_per_minute
        )
        c = self.config
        self.client = ChatClient(
            CallSettings(
                c.base_url,
                c.model,
                c.max_tokens,
                c.temperature,
                c.timeout,
                c.deadline,
                c.max_tries,
                c.backoff,
                c.max_backoff,
                c.response_format,
            ),
            api_key,
            self.limits,
        )
        self.cache = VerdictCache(c.cache_dir) if c.cache_dir else None
        self._closed = threading.Event()

    # -- one sample ---------------------------------------------------------------------------------------

    def _prepared(
        self, completion: Any, reference: Any, context: Mapping[str, Any]
    ) -> tuple[str, str, str, str] | None:
        """(question, reference, answer, cache key) as the judge reads them; None when there is no answer."""
        answer = judged_text(completion)
        if answer is None:
            return None
        question = context.get("question")
        question_text = question if isinstance(question, str) else (None if question is None else str(question))
        gold = reference_text(reference)
        return question_text or "", gold, answer, self._key(question_text, gold, answer)

    def _verify(self, completion: Any, reference: Any, **context: Any) -> Verdict:
        prepared = self._prepared(completion, reference, context)
        if prepared is None:
            return Verdict.fail(Status.NO_ANSWER, reason="no answer after the think block (or it never closed)")
        question, gold, answer, key = prepared
        question_text = question or None
        if self.cache is not None:
            record = self.cache.get(key)
            if record is not None:
                return self._verdict(record, cached=True)
        messages = self.prompt.messages(question_text, gold, answer)
        try:
            reply = self.client.complete(messages)
        except JudgeCallError as exc:
            return Verdict.fail(Status.JUDGE_ERROR, error=str(exc), model=self.config.model, attempts=exc.attempts)
        parsed = parse_verdict(reply.content)
        record = {
            "verdict": parsed.verdict,
            "reason": parsed.reason,
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "attempts": reply.attempts,
            "response_format": reply.response_format,
        }
        if parsed.verdict is None:
            return Verdict.fail(
                Status.JUDGE_ERROR,
                error=parsed.problem,
                model=self.config.model,
                reply=reply.content[:500],
                attempts=reply.attempts,
                **_usage(record),
            )
        if self.cache is not None:
            self.cache.put(key, record)
        return self._verdict(record, cached=False)

    def _key(self, question: str | None, reference: str, completion: str) -> str:
        c = self.config
        return cache_key(
            {
                "endpoint": [c.base_url.rstrip("/"), c.model],
                "templates": [c.system_template, c.user_template],
                "question": question,
                "reference": reference,
                "completion": completion,
                "temperature": c.temperature,
                "max_tokens": c.max_tokens,
            }
        )

    def _verdict(self, record: Mapping[str, Any], *, cached: bool) -> Verdict:
        correct = record["verdict"] == "correct"
        details = {
            "reason": record.get("reason", ""),
            "model": self.config.model,
            "cached": cached,
            "attempts": 0 if cached else record.get("attempts", 1),
            "response_format": bool(record.get("response_format")),
            **_usage(record, cached=cached),
        }
        cost = self.cost_of(details["usage"])
        if cost is not None:
            details["cost"] = cost
        return Verdict(1.0 if correct else 0.0, correct, Status.OK, record["verdict"], details)

    def cost_of(self, usage: Mapping[str, int]) -> float | None:
        c = self.config
        if not (c.price_per_prompt_token or c.price_per_completion_token):
            return None
        return usage["prompt_tokens"] * c.price_per_prompt_token + usage["completion_tokens"] * (
            c.price_per_completion_token
        )

    # -- a batch ------------------------------------------------------------------------------------------

    def verify_batch(
        self,
        completions: Sequence[Any],
        references: Sequence[Any],
        contexts: Sequence[Mapping[str, Any] | None] | None = None,
    ) -> list[Verdict]:
        """The batch's calls at once, on up to ``max_concurrency`` threads (the limits hold across batches)."""
        contexts = check_batch(completions, references, contexts)
        jobs = list(zip(completions, references, contexts, strict=True))
        done: dict[int, Verdict] = self._cache_hits(jobs) if self.cache is not None else {}
        todo = [i for i in range(len(jobs)) if i not in done]
        if len(todo) <= 1:
            done.update({i: self.verify(jobs[i][0], jobs[i][1], **(jobs[i][2] or {})) for i in todo})
        else:
            with ThreadPoolExecutor(max_workers=min(self.config.max_concurrency, len(todo))) as pool:
                fresh = pool.map(lambda i: self.verify(jobs[i][0], jobs[i][1], **(jobs[i][2] or {})), todo)
                done.update(zip(todo, fresh, strict=True))
        return [done[i] for i in range(len(jobs))]

    def _cache_hits(self, jobs: Sequence[tuple[Any, Any, Mapping[str, Any] | None]]) -> dict[int, Verdict]:
        """The verdicts the cache holds for ``jobs``, looked up at once on this thread (a hit needs no slot)."""
        assert self.cache is not None
        keys: dict[int, str] = {}
        for i, (completion, reference, context) in enumerate(jobs):
            try:
                prepared = self._prepared(completion, reference, context or {})
            except Exception:  # noqa: BLE001 - left to verify(), which turns it into a verdict
                continue
            if prepared is not None:
                keys[i] = prepared[3]
        found = self.cache.get_many(list(set(keys.values())))
        return {i: self._verdict(found[key], cached=True) for i, key in keys.items() if key in found}

    def batch_metrics(self, verdicts: Sequence[Verdict]) -> dict[str, float]:
        """Usage of the calls behind ``verdicts``: tokens, cost (with prices), calls made and cache hits."""
        return usage_metrics(verdicts)

    def close(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        self.client.close()
        if self.cache is not None:
            self.cache.close()


def _usage(record: Mapping[str, Any], *, cached: bool = False) -> dict[str, Any]:
    """A record's token counts as verdict details; a cache hit cost nothing this time."""
    if cached:
        return {"usage": {"prompt_tokens": 0, "completion_tokens": 0}, "cached_usage": _tokens(record)}
    return {"usage": _tokens(record)}


def _tokens(record: Mapping[str, Any]) -> dict[str, int]:
    return {
        "prompt_tokens": int(record.get("prompt_tokens") or 0),
        "completion_tokens": int(record.get("completion_tokens") or 0),
    }


def usage_metrics(verdicts: Sequence[Verdict]) -> dict[str, float]:
    """Sums over the verdicts a judge gave (cache hits count no tokens): the reward logs them per call."""
    judged = [v for v in verdicts if "model" in v.details]
    if not judged:
        return {}
    out = {
        "judge_prompt_tokens": float(sum(v.details.get("usage", {}).get("prompt_tokens", 0) for v in judged)),
        "judge_completion_tokens": float(sum(v.details.get("usage", {}).get("completion_tokens", 0) for v in judged)),
        "judge_requests": float(sum(v.details.get("attempts", 0) for v in judged)),
        "judge_cache_hits": float(sum(1 for v in judged if v.details.get("cached"))),
    }
    costs = [v.details["cost"] for v in judged if "cost" in v.details]
    if costs:
        out["judge_cost"] = float(sum(costs))
    return out
