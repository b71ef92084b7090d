"""The ``mcq`` verifier: find the option a completion chose and compare it with the reference.

``extract`` finds the chosen option (letters, labels or option text), ``verifier`` is MCQVerifier.

May import: the verifiers layer below it (``verifiers.base``, ``verdict``), ``profiling`` and ``_errors``.
"""
