"""``rewardkit audit``: score known reward hacks with a reward before training on it.

May import: ``rewardkit.scoring``, ``rewardkit.rewards`` and everything below them. Never cli or the
package root.
"""
