"""``python -m rewardkit.cli``."""

from rewardkit.cli import main

main()
