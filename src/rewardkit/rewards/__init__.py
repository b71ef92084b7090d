"""The reward model: what a TRL reward function is made of.

``inputs`` (Batch: the inputs of one reward call, and ``completion_text``), ``base`` (Reward, Scored),
``combinators`` (weighted sums, gates, ...), ``format_rewards``/``length_rewards`` (shapers),
``verifier_rewards`` (a verifier as a reward), ``spec`` (a reward built from a YAML/dict spec),
``api`` (``get_reward``/``build_reward``) and ``builtin.py``, which registers the built-ins as plugins.

May import: ``rewardkit.verifiers``, ``rewardkit.sandbox``, ``rewardkit.plugins``, ``_errors``.
Never scoring, train, cli or the package root.
"""
