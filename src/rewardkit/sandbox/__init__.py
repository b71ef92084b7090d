"""Sandboxes: run a command with files, stdin and limits, and report what happened (RunResult).

``base.py`` (the Sandbox contract, Limits, RunResult, WarmProgram), ``seccomp_bpf.py`` (the shared deny list, stdlib
only: it is also shipped into containers), one folder per backend (``local/``: bubblewrap + cgroups;
``docker/``: a pool of containers) and ``builtin.py``, which registers both as plugins.

May import: ``rewardkit._errors`` and ``rewardkit.plugins``. Nothing above it (verifiers, rewards, ...).
"""
