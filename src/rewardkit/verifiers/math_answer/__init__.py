"""The ``math`` verifier: extract a final answer and judge it equal to the reference.

``extract``/``scan``/``forms``/``numeric`` read the answer out of the completion, ``reference`` reads the
gold answer, ``compare`` judges the two (in a worker process, ``worker``), ``verifier`` is MathVerifier.

May import: the verifiers layer below it (``verifiers.base``, ``verdict``, ``worker_pool``) and ``_errors``.
"""
