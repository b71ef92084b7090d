"""The files copied into the sandbox next to the candidate's ``program.py``: exactly the ``*.py`` files of
this folder other than this ``__init__.py`` (``job.HARNESS_FILES`` lists them, and a test checks it).

This folder is the main trust boundary of the code verifier. Its files run on a bare ``python3`` (3.8+)
inside the sandbox: stdlib only, nothing of rewardkit. They sit flat beside the candidate's program, so
they keep their ``code_`` prefix: a candidate's ``import runner`` or ``import wire`` must not reach them.
On the host (in tests) they import each other through this package as a fallback.
"""
