"""Verifiers: judge one completion against a reference and return a Verdict.

``base.py`` (the Verifier contract), ``verdict.py`` (Verdict and its statuses), ``worker_pool.py`` (the
killable worker processes the math verifier judges in) and one folder per built-in verifier:
``math_answer/``, ``multiple_choice/``, ``code_tests/``, ``judge/`` (the LLM judge and the hybrid),
``instruction_following/`` (IFEval's, open-instruct's and IFBench's verifiable instructions).
``builtin.py`` registers them as plugins.

May import: ``rewardkit._errors``, ``rewardkit.profiling``, ``rewardkit.plugins`` and ``rewardkit.sandbox``
(the code verifier runs its jobs there). Never rewards, scoring, train or the package root.
"""
