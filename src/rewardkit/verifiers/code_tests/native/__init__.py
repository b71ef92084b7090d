"""Programs in any registered language, judged as competitive-programming judges do (see docs/code-verifier.md).

``selection`` (which language a completion is judged in), ``build`` (the sandboxed compile step and its cache),
``problem`` (a row's tests, limits, checker and subtasks, open-r1's Codeforces and IOI layouts included),
``judge_job`` (one sandbox run that judges a built program on every test) and ``judging`` (all of it, to a
Verdict). Inside the sandbox: ``harness/native_build.py`` and ``harness/native_judge.py``.
"""
