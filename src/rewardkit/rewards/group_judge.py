"""``group_judge``: every prompt's completions scored together by a judge model in one call (RULER-style).

A group is a prompt's rows in the call (``rewards/groups.py``; ``whole_groups``, so no caller splits one).
Each group is one request (up to ``max_concurrency`` at once); a completion with no answer (an unclosed think
block, nothing after it) is not shown and gets 0.0 with status ``no_answer``. A group the judge could not
score (a failed call, a reply that leaves a candidate out) gets None with status ``judge_error`` on every row.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit.rewards.base import Reward, Scored
from rewardkit.rewards.groups import prompt_groups
from rewardkit.rewards.infrastructure import DEFAULT_MAX_RATE, DEFAULT_WINDOW, FailureWatch
from rewardkit.rewards.inputs import Batch, prompt_text
from rewardkit.rewards.verifier_rewards import DEFAULT_REFERENCE_KEYS
from rewardkit.verifiers.base import is_missing_reference
from rewardkit.verifiers.judge.group_judge import GroupJudge, GroupVerdict
from rewardkit.verifiers.judge.prompt import reference_text
from rewardkit.verifiers.judge.verifier import judged_text
from rewardkit.verifiers.verdict import Status


class GroupJudgeReward(Reward):
    """Each completion's score from a judge that sees its whole group (see the module docstring).

    The judge's parameters are the ``judge`` verifier's (``base_url``, ``model``, ``max_concurrency``,
    ``cache_dir``, ...). ``reference_key`` columns, when the batch has them, give the reference shown to the
    judge; ``question_key`` a column for the question (default: the prompt as text); ``group_key`` a column
    that splits one prompt's rows into several groups.
    """

    whole_groups = True
    _transient = ("_judge",)

    def __init__(
        self,
        *,
        reference_key: str | Sequence[str] = DEFAULT_REFERENCE_KEYS,
        question_key: str | None = None,
        group_key: str | None = None,
        max_infrastructure_failure_rate: float | None = DEFAULT_MAX_RATE,
        infrastructure_failure_window: int = DEFAULT_WINDOW,
        **judge_params: Any,
    ) -> None:
        super().__init__("group_judge")
        if "base_url" not in judge_params or "model" not in judge_params:
            raise ConfigError("reward 'group_judge' needs the judge's base_url and model")
        self.judge_params = dict(judge_params)
        GroupJudge(**self.judge_params).close()  # every judge parameter checked now, not at the first step
        self.reference_key = reference_key
        self.question_key = question_key
        self.group_key = group_key
        self.failures = FailureWatch(self.name, max_infrastructure_failure_rate, infrastructure_failure_window)
        self._judge: GroupJudge | None = None

    @property
    def judge(self) -> GroupJudge:
        if self._judge is None:
            self._judge = GroupJudge(**self.judge_params)
        return self._judge

    def score(self, batch: Batch) -> Scored:
        n = len(batch)
        if self.group_key and self.group_key not in batch.columns:
            raise ConfigError(
                f"group_judge: group_key {self.group_key!r} is not a column of the batch; it has: "
                f"{', '.join(sorted(batch.columns)) or '(none)'}"
            )
        references = batch.column(self.reference_key, reward=self.name, required=False)
        questions = batch.column(self.question_key, reward=self.name) if self.question_key else None
        answers = [judged_text(c) for c in batch.completions]
        values: list[float | None] = [0.0 if a is None else None for a in answers]
        statuses: list[str | None] = [str(Status.NO_ANSWER) if a is None else None for a in answers]
        jobs = []
        for rows in prompt_groups(batch, (self.group_key,)):
            shown = [i for i in rows if answers[i] is not None]
            if shown:
                first = rows[0]
                question = questions[first] if questions is not None else prompt_text(batch.prompts[first])
                reference = references[first]
                gold = None if is_missing_reference(reference) else reference_text(reference)
                jobs.append((shown, None if question is None else str(question), gold))
        workers = max(1, min(self.judge.config.max_concurrency, len(jobs)))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            verdicts = list(
                pool.map(lambda job: self.judge.judge_group(job[1], job[2], [answers[i] or "" for i in job[0]]), jobs)
            )
        for (shown, _, _), verdict in zip(jobs, verdicts, strict=True):
            for k, i in enumerate(shown):
                ok = verdict.scores is not None
                values[i] = verdict.scores[k] if verdict.scores is not None else None
                statuses[i] = str(Status.OK) if ok else str(Status.JUDGE_ERROR)
        self.failures.record(statuses)
        return Scored.leaf(self.name, values, statuses, [None] * n, self._metrics(verdicts))

    def _metrics(self, verdicts: Sequence[GroupVerdict]) -> dict[str, float]:
        if not verdicts:
            return {}
        prompt = sum(v.prompt_tokens for v in verdicts)
        completion = sum(v.completion_tokens for v in verdicts)
        out = {
            "judge_prompt_tokens": float(prompt),
            "judge_completion_tokens": float(completion),
            "judge_requests": float(sum(v.attempts for v in verdicts)),
            "judge_cache_hits": float(sum(v.cached for v in verdicts)),
            "judge_groups": float(len(verdicts)),
        }
        cost = self.judge.cost(prompt, completion)
        if cost is not None:
            out["judge_cost"] = cost
        return out

    def close(self) -> None:
        judge, self._judge = self._judge, None
        if judge is not None:
            judge.close()
