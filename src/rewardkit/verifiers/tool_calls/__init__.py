"""The ``tool_call`` verifier: the function calls a completion makes, judged against reference calls.

``parsing`` reads one call strictly and within bounds (JSON, Python calls), ``text_forms`` finds the calls a
model writes in text (Hermes/Qwen ``<tool_call>``, Llama, Mistral, DeepSeek, Glaive, Granite, Kimi...),
``calls`` reads a completion's turns (OpenAI ``tool_calls`` messages and text), ``layouts`` brings datasets'
own layouts to one form (conversations, tools in prompts, xLAM parameter dicts), ``reference`` reads the
row's reference calls (plain, OpenAI or BFCL's possible-answer form) and tool schemas, ``schemas`` compiles
and caches the schema checks, ``compare`` scores a call against a reference call and assigns predicted calls
to reference calls, ``verifier`` is ToolCallVerifier.

May import: the verifiers layer below it (``verifiers.base``, ``verdict``), ``profiling`` and ``_errors``.
"""
