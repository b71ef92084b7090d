"""LLM-as-judge verifiers: ``judge`` (a model behind an OpenAI-compatible endpoint decides) and ``hybrid`` (a
rule verifier first, the judge where the rule could not decide). docs/judge.md.

``prompt.py`` (templates, data blocks, the verdict schema and parse), ``chat_client.py`` (one call, retried),
``limits.py`` (concurrency, requests and tokens per minute), ``disk_cache.py`` (verdicts in sqlite),
``config.py`` (the settings), ``verifier.py`` (the judge), ``hybrid.py``. Needs httpx: the ``judge`` extra.
"""
