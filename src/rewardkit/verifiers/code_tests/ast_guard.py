"""One lock around the host's AST work (parsing tests, prompts and dataset literals).

Some CPython releases (3.11.7 among them, gh-106905) keep the AST converters' recursion depth in
interpreter-wide state, so ``ast.parse`` on several threads at once can fail with "AST constructor recursion
depth mismatch". ``verify_batch`` prepares jobs on threads: every ``ast`` call on the host takes this lock.
"""

from __future__ import annotations

import threading

AST_LOCK = threading.Lock()
