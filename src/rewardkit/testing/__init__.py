"""Test helpers for users of rewardkit: the pytest plugin (fixtures for testing a reward or a verifier).

The top layer beside the CLI: may import every other part of rewardkit.
"""
