"""Adapters that let other RL frameworks call rewardkit rewards with their own calling conventions.

May import: ``rewardkit.scoring``, ``rewardkit.rewards`` and everything below them. Never cli or the
package root.
"""
