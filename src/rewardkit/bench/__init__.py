"""``rewardkit bench``: rewardkit's performance targets measured against same-run baselines."""
