"""The in-house GRPO trainer (``rewardkit train``) and the teacher-logprob reward; the only part of
rewardkit that imports torch (the ``train`` extra).

May import: ``rewardkit.scoring``, ``rewardkit.rewards`` and everything below them. Never cli or the
package root.
"""
