"""The files the native judge ships into the sandbox (stdlib only, nothing of rewardkit): ``native_build.py``
(the compile step) and ``native_judge.py`` (every test of a built program), which imports its comparison and
process helpers from the Python harness's ``code_io_cases.py`` and ``code_procs.py``, shipped beside it."""
