"""Which language a completion is judged in: what the row (or the spec) asks for, and what the completion wrote.

The requirement comes from the verifier's ``language`` parameter, else the row's ``language`` column or its
``verification_info`` language. The completion's language is its program block's fence tag (```cpp, ```go,
...). Both name registered languages (a name, an alias or a tag, see ``rk.get_language``); where both are
known and their families differ the verdict is ``language_mismatch``. With neither, the program is Python.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rewardkit.plugins.manager import default_host
from rewardkit.sandbox.languages import Language
from rewardkit.sandbox.lookup import find_language
from rewardkit.verifiers.code_tests.extract import PYTHON_TAGS, extract_tagged
from rewardkit.verifiers.code_tests.formats.values import parse_column


@dataclass(frozen=True)
class Selection:
    program: str
    tag: str
    language: Language | None  # None: judged as Python by the code harness
    required: str | None = None  # the name the row or spec gave
    mismatch: str | None = None  # why the completion's language is not the one asked for
    unknown: str | None = None  # the row names a language no plugin registers


def row_language(reference: Any, context: Mapping[str, Any]) -> str | None:
    """The language a row asks for: its ``language`` column, or the ``language`` in ``verification_info``."""
    column = context.get("language")
    if isinstance(column, str) and column.strip():
        return column.strip()
    for value in (parse_column(reference), parse_column(context.get("verification_info"))):
        found = value.get("language") if isinstance(value, Mapping) else None
        if isinstance(found, str) and found.strip():
            return found.strip()
    return None


def _all_tags() -> frozenset[str]:
    registry = default_host().registries.languages
    return frozenset(tag.lower() for name in registry.names() for tag in registry.get(name).tags)


def _family_names(family: str) -> frozenset[str]:
    registry = default_host().registries.languages
    languages = [registry.get(name) for name in registry.names()]
    return frozenset(n.lower() for language in languages if language.family == family for n in language.names())


def select(text: str, reference: Any, context: Mapping[str, Any], required_name: str | None) -> Selection:
    required_name = required_name or row_language(reference, context)
    required = find_language(required_name) if required_name else None
    preferred = [PYTHON_TAGS, _all_tags()]
    if required is not None:
        preferred.insert(0, _family_names(required.family))
    tag, program = extract_tagged(text, preferred)
    if required_name and required is None:
        return Selection(program, tag, None, required_name, unknown=required_name)
    written = find_language(tag) if tag else None
    if required is not None and written is not None and written.family != required.family:
        why = f"the row asks for {required.name} ({required_name!r}); the completion wrote a ```{tag} block"
        return Selection(program, tag, required, required_name, mismatch=why)
    return Selection(program, tag, required or written, required_name)
