"""Adapters that let other RL frameworks call rewardkit rewards with their own calling conventions."""
