"""The ``tool_call`` verifier: the function calls a completion makes, judged against reference calls.

``calls`` reads the completion's calls (OpenAI ``tool_calls`` messages, Hermes/Qwen ``<tool_call>`` blocks),
``reference`` reads the row's reference calls (plain, OpenAI or BFCL's possible-answer form) and tool schemas,
``compare`` scores a call against a reference call and assigns predicted calls to reference calls,
``verifier`` is ToolCallVerifier.

May import: the verifiers layer below it (``verifiers.base``, ``verdict``), ``profiling`` and ``_errors``.
"""
