"""pytest fixtures for people who unit-test their own rewardkit verifiers and plugins.

Loaded automatically through the ``pytest11`` entry point once rewardkit is installed::

    def test_my_plugin(rewardkit_register, rewardkit_assert_verdicts):
        rewardkit_register(MyPlugin())                 # unregistered again when the test ends
        rewardkit_assert_verdicts("my-verifier", [
            ("The answer is 4", "4", True),            # expected: a bool means ``verdict.correct``
            ("no idea", "4", "no_answer"),             # a string means ``verdict.status``
            ("**B**", "B", {"correct": True, "extracted": "B"}),  # a dict checks those fields only
        ])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
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
    import rewardkit as rk

    host = rk.plugin_host()
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
    import rewardkit as rk

    owned = isinstance(verifier, str)
    judge = rk.get_verifier(verifier) if isinstance(verifier, str) else verifier
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
