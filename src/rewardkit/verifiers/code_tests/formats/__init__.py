"""Reading a code reference in the layout its dataset stores it (host side; see docs/code-verifier.md).

:func:`resolve_reference` turns a reference, and the row's other columns, into the harness's test spec plus
what the dataset's grader puts before the program. ``CONTEXT_COLUMNS`` are the dataset columns the code
rewards hand the verifier with each row.
"""

from __future__ import annotations

from rewardkit.verifiers.code_tests.formats.errors import InvalidReference
from rewardkit.verifiers.code_tests.formats.model import Resolved
from rewardkit.verifiers.code_tests.formats.preludes import with_prelude
from rewardkit.verifiers.code_tests.formats.resolve import ACCEPTED, resolve_reference
from rewardkit.verifiers.code_tests.formats.values import UnsafeData, decode_packed_tests, plain_unpickle

# Columns, by the datasets' standard names, that a format may need besides the test column itself.
CONTEXT_COLUMNS = (
    "entry_point",
    "fn_name",
    "func_name",
    "metadata",
    "test_setup_code",
    "test_imports",
    "private_test_cases",
    "private_tests",
    "generated_tests",
    # the native judge's layouts (open-r1 Codeforces and IOI, checkers, limits): native/problem.py
    "language",
    "official_tests",
    "generated_checker",
    "checker",
    "checker_type",
    "testlib",
    "time_limit",
    "memory_limit",
    "memory_limit_bytes",
    "input_mode",
    "subtasks",
    "subtask",
    "score",
    "test_names",
    "test_cases",
    "grader_files",
    "id",
)

__all__ = [
    "ACCEPTED",
    "CONTEXT_COLUMNS",
    "InvalidReference",
    "Resolved",
    "UnsafeData",
    "decode_packed_tests",
    "plain_unpickle",
    "resolve_reference",
    "with_prelude",
]
