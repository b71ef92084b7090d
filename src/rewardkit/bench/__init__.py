"""``rewardkit bench``: rewardkit's performance targets measured against same-run baselines.

May import: ``rewardkit.scoring``, ``rewardkit.rewards`` and everything below them. Never cli or the
package root.
"""
