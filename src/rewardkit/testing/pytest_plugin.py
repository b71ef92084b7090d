"""pytest fixtures for people who unit-test their own rewardkit verifiers, rewards and plugins.

Loaded automatically through the ``pytest11`` entry point once rewardkit is installed::

    def test_my_plugin(rewardkit_register, rewardkit_assert_verdicts):
        rewardkit_register(MyPlugin())                 # unregistered again when the test ends
        rewardkit_assert_verdicts("my-verifier", [
            ("The answer is 4", "4", True),            # expected: a bool means ``verdict.correct``
            ("no idea", "4", "no_answer"),             # a string means ``verdict.status``
            ("**B**", "B", {"correct": True, "extracted": "B"}),  # a dict checks those fields only
        ])

    def test_my_reward(rewardkit_call_reward):
        call = rewardkit_call_reward("my-reward", ["LOUD", "quiet"], answer=["x", "y"], expected=[1.0, 0.0])
        assert call.metrics == {} and call.extra == {}  # what it logged through TRL's log_metric / log_extra
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from rewardkit.verifiers.base import Verifier
    from rewardkit.verifiers.verdict import Verdict

VERDICT_FIELDS = ("score", "correct", "status", "extracted")
PREVIEW_CHARS = 80


@pytest.fixture
def rewardkit_register() -> Iterator[Callable[..., str]]:
    """A function ``register(plugin, name=None) -> name`` that adds a plugin object (a module, class or
    instance with ``@rk.hookimpl`` hooks) to the process-wide plugin host, as an installed plugin would be,
    and removes it again when the test ends, whatever the test's outcome."""
    from rewardkit.plugins.manager import default_host

    host = default_host()
    names: list[str] = []

    def register(plugin: Any, name: str | None = None) -> str:
        registered = host.register(plugin, name=name)
        names.append(registered)
        return registered

    try:
        yield register
    finally:
        for registered in reversed(names):
            host.unregister(name=registered)


@pytest.fixture
def rewardkit_assert_verdicts() -> Callable[..., None]:
    """A function ``assert_verdicts(verifier, cases)`` that checks every case and fails once, listing
    every mismatching case. ``verifier`` is a Verifier or a registered verifier name. A case is
    ``(completion, reference, expected)`` or ``(completion, reference, expected, context)``, where
    ``expected`` is a bool (``correct``), a str (``status``), a dict of Verdict fields or a Verdict."""
    return assert_verdicts


def assert_verdicts(verifier: Verifier | str, cases: Iterable[Sequence[Any]]) -> None:
    """Judge every case with ``verifier`` and fail with a readable table of the cases that mismatch."""
    from rewardkit.verifiers.lookup import get_verifier

    owned = isinstance(verifier, str)
    judge = get_verifier(verifier) if isinstance(verifier, str) else verifier
    failures: list[str] = []
    count = 0
    try:
        for index, case in enumerate(cases):
            count += 1
            completion, reference, expected, context = _unpack(index, case)
            verdict = judge.verify(completion, reference, **context)
            wanted = _expected_fields(index, expected)
            wrong = {k: v for k, v in wanted.items() if not _same(getattr(verdict, k), v)}
            if wrong:
                failures.append(_describe(index, completion, reference, context, wanted, verdict, wrong))
    finally:
        if owned:
            judge.close()
    if failures:
        name = verifier if isinstance(verifier, str) else type(verifier).__name__
        pytest.fail(
            f"{len(failures)} of {count} {name} cases got the wrong verdict:\n\n" + "\n\n".join(failures),
            pytrace=False,
        )


def _unpack(index: int, case: Sequence[Any]) -> tuple[Any, Any, Any, Mapping[str, Any]]:
    if isinstance(case, Mapping) or not 3 <= len(case) <= 4:
        raise TypeError(
            f"case #{index} must be (completion, reference, expected) or "
            f"(completion, reference, expected, context), got {case!r}"
        )
    context = case[3] if len(case) == 4 else {}
    if context is None:
        context = {}
    if not isinstance(context, Mapping):
        raise TypeError(f"case #{index}: context must be a dict, got {type(context).__name__}")
    return case[0], case[1], case[2], context


def _expected_fields(index: int, expected: Any) -> dict[str, Any]:
    from rewardkit.verifiers.verdict import Verdict

    if isinstance(expected, bool):
        return {"correct": expected}
    if isinstance(expected, str):
        return {"status": expected}
    if isinstance(expected, Verdict):
        return {k: getattr(expected, k) for k in VERDICT_FIELDS}
    if isinstance(expected, Mapping):
        unknown = sorted(set(expected) - set(VERDICT_FIELDS))
        if unknown:
            raise TypeError(
                f"case #{index}: unknown verdict field(s) {', '.join(unknown)}; "
                f"expected fields are {', '.join(VERDICT_FIELDS)}"
            )
        return dict(expected)
    raise TypeError(
        f"case #{index}: expected must be a bool (correct), a str (status), a dict or a Verdict, "
        f"got {type(expected).__name__}"
    )


def _same(got: Any, wanted: Any) -> bool:
    if isinstance(wanted, float) and isinstance(got, float):
        return abs(got - wanted) <= 1e-9
    return bool(got == wanted)


def _preview(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 3] + "..."


def _describe(
    index: int,
    completion: Any,
    reference: Any,
    context: Mapping[str, Any],
    wanted: Mapping[str, Any],
    verdict: Verdict,
    wrong: Mapping[str, Any],
) -> str:
    lines = [
        f"case #{index}",
        f"  completion: {_preview(completion)}",
        f"  reference:  {_preview(reference)}",
    ]
    if context:
        lines.append(f"  context:    {_preview(dict(context))}")
    for key in wanted:
        mark = "!=" if key in wrong else "=="
        lines.append(f"  {key}: expected {wanted[key]!r} {mark} got {getattr(verdict, key)!r}")
    lines.append(
        f"  verdict: status={verdict.status!r} correct={verdict.correct} score={verdict.score} "
        f"extracted={_preview(verdict.extracted)}"
    )
    if verdict.details:
        lines.append(f"  details: {_preview(dict(verdict.details))}")
    return "\n".join(lines)


@dataclass
class RewardCall:
    """What one TRL-style reward call returned and logged.

    ``values``: the plain-text call's result; ``chat_values``: the same completions as chat messages
    (None when not run); ``metrics``: every ``log_metric(name, value)`` by name (a list per name);
    ``extra``: every ``log_extra(column, values)`` column (the values of all calls, concatenated).
    """

    values: list[float | None]
    chat_values: list[float | None] | None = None
    metrics: dict[str, list[float]] = field(default_factory=dict)
    extra: dict[str, list[Any]] = field(default_factory=dict)


@pytest.fixture
def rewardkit_call_reward() -> Iterator[Callable[..., RewardCall]]:
    """A function ``call(reward, completions, *, prompts=None, expected=None, chat=True, tolerance=1e-9,
    **columns) -> RewardCall`` that calls a reward exactly as TRL's GRPOTrainer does: keyword arguments,
    one list per dataset column, ``trainer_state``, ``log_metric`` and ``log_extra``.

    ``reward`` is a registered name, a spec (dict or YAML/JSON path) or any reward callable (async too).
    String completions are scored twice, as plain text and as chat messages
    (``[{"role": "assistant", "content": c}]``, with chat prompts), and the two must agree. It fails when
    the reward returns the wrong number of values or a non-number, logs a column without one value per
    completion, or (with ``expected``) returns other values. Rewards it builds are closed at teardown."""
    owned: list[Any] = []
    try:
        yield lambda *args, **kwargs: call_reward(owned, *args, **kwargs)
    finally:
        for reward in owned:
            close = getattr(reward, "close", None)
            if callable(close):
                close()


def call_reward(
    owned: list[Any],
    reward: Any,
    completions: Sequence[Any],
    *,
    prompts: Sequence[Any] | None = None,
    expected: Sequence[float | None] | None = None,
    chat: bool = True,
    tolerance: float = 1e-9,
    **columns: Sequence[Any],
) -> RewardCall:
    """Call ``reward`` the way TRL does (see :func:`rewardkit_call_reward`) and check what it returns."""
    func = _reward_callable(reward, owned)
    n = len(completions)
    for name, column in columns.items():
        if not isinstance(column, (list, tuple)) or len(column) != n:
            raise TypeError(f"column {name!r} must be a list with one value per completion ({n})")
    result = RewardCall(values=[])
    plain = all(isinstance(c, str) for c in completions)
    prompt_list = list(prompts) if prompts is not None else ["" for _ in completions]
    result.values = _call(func, result, prompt_list, list(completions), columns, "")
    if chat and plain:
        chat_prompts = [p if not isinstance(p, str) else [{"role": "user", "content": p}] for p in prompt_list]
        chat_completions = [[{"role": "assistant", "content": c}] for c in completions]
        result.chat_values = _call(func, result, chat_prompts, chat_completions, columns, " (chat completions)")
        if not _same_values(result.values, result.chat_values, tolerance):
            pytest.fail(
                f"reward {_name(func)} scores chat completions differently from their plain text:\n"
                + _table(completions, result.values, result.chat_values, "plain", "chat"),
                pytrace=False,
            )
    if expected is not None:
        if len(expected) != n:
            raise TypeError(f"expected must have one value per completion ({n}), got {len(expected)}")
        if not _same_values(result.values, list(expected), tolerance):
            pytest.fail(
                f"reward {_name(func)} returned other values than expected:\n"
                + _table(completions, list(expected), result.values, "expected", "got"),
                pytrace=False,
            )
    return result


def _reward_callable(reward: Any, owned: list[Any]) -> Any:
    from rewardkit.scoring.loading import resolve_reward

    if isinstance(reward, (str, Path, Mapping)):  # built here, closed at teardown
        built = resolve_reward(reward)
        owned.append(built)
        return built
    if not callable(reward):
        raise TypeError(f"reward must be a name, a spec or a callable, got {type(reward).__name__}")
    return reward  # a callable is called as TRL would call it, as it is (async ones too)


def _call(
    func: Any,
    result: RewardCall,
    prompts: list[Any],
    completions: list[Any],
    columns: Mapping[str, Sequence[Any]],
    variant: str,
) -> list[float | None]:
    n = len(completions)

    def log_metric(name: str, value: float) -> None:
        if not isinstance(name, str) or isinstance(value, bool) or not isinstance(value, (int, float)):
            pytest.fail(f"log_metric needs (str, number), got ({name!r}, {value!r}){variant}", pytrace=False)
        result.metrics.setdefault(name, []).append(float(value))

    def log_extra(column: str, values: list[Any]) -> None:
        if len(values) != n:
            pytest.fail(
                f"log_extra column {column!r} got {len(values)} values for {n} completions{variant}; "
                f"TRL's completions table needs one per completion",
                pytrace=False,
            )
        result.extra.setdefault(column, []).extend(values)

    state = SimpleNamespace(global_step=0, max_steps=1, epoch=0.0)
    out = func(
        prompts=prompts,
        completions=completions,
        **{k: list(v) for k, v in columns.items()},
        trainer_state=state,
        log_extra=log_extra,
        log_metric=log_metric,
    )
    if asyncio.iscoroutine(out):
        out = asyncio.run(out)
    if not isinstance(out, (list, tuple)) or len(out) != n:
        got = f"{len(out)} values" if isinstance(out, (list, tuple)) else type(out).__name__
        pytest.fail(f"reward {_name(func)} returned {got} for {n} completions{variant}", pytrace=False)
    for value in out:
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            pytest.fail(f"reward {_name(func)} returned {value!r}{variant}: expected a number or None", pytrace=False)
    return [None if v is None else float(v) for v in out]


def _same_values(a: Sequence[float | None], b: Sequence[float | None], tolerance: float) -> bool:
    def same(x: float | None, y: float | None) -> bool:
        if x is None or y is None:
            return x is y
        if math.isnan(x) or math.isnan(y):
            return math.isnan(x) and math.isnan(y)
        return abs(x - y) <= tolerance

    return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))


def _table(completions: Sequence[Any], left: Sequence[Any], right: Sequence[Any], lname: str, rname: str) -> str:
    lines = []
    for i, (c, x, y) in enumerate(zip(completions, left, right, strict=False)):
        mark = "  " if _same_values([x], [y], 1e-9) else "!="
        lines.append(f"  {mark} #{i} {lname}={x!r} {rname}={y!r}  completion={_preview(c)}")
    return "\n".join(lines)


def _name(func: Any) -> str:
    return repr(getattr(func, "__name__", type(func).__name__))
