"""``rewardkit audit``: score known reward hacks with a reward before training on it."""
