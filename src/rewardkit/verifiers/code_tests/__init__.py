"""The ``code`` verifier: run a candidate program against tests in a sandbox.

Host side: ``extract`` (the program out of the completion), ``instrument`` (rewrites the candidate's
source before it runs), ``job`` (program + reference + limits -> a sandbox job; result -> Verdict) and
``verifier`` (CodeVerifier). ``harness/`` holds the files shipped into the sandbox.

May import: the verifiers layer below it, ``rewardkit.sandbox`` (Limits, RunResult, the sandbox registry
through ``rewardkit.plugins``) and ``_errors``.
"""
