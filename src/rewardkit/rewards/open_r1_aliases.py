"""The reward names of open-r1's recipes (``reward_funcs: [accuracy, format, ...]``) as aliases of ours.

Each alias carries the parameters that make our reward do what open-r1's does with a recipe's defaults
(open-r1's ``GRPOScriptArguments``); a spec's own ``params`` override them. ``tag_count``,
``reasoning_steps`` and ``repetition_penalty`` need no alias: they are our rewards' own names. Where ours
still differs from open-r1's, docs/rewards.md ("Names from open-r1 recipes") says how.
"""

from __future__ import annotations

from rewardkit.plugins.registry import Alias

OPEN_R1 = "open-r1"
SOLUTION_FIRST = ["solution", "answer"]  # open-r1 reads the `solution` column

OPEN_R1_ALIASES: dict[str, Alias] = {
    "accuracy": Alias("math_accuracy", {"reference_key": SOLUTION_FIRST}, OPEN_R1),
    "format": Alias("tag_format", {"tags": ["think", "answer"], "strict": True}, OPEN_R1),
    "cosine": Alias(
        "cosine_length",
        {
            "max_length": 1000,  # cosine_max_len, in characters as open-r1 counts
            "unit": "chars",
            "correct_short": 1.0,  # cosine_max_value_correct
            "correct_long": 0.5,  # cosine_min_value_correct
            "wrong_short": 0.0,  # cosine_min_value_wrong: 0.0 in open-r1's recipe defaults, -1.0 in ours
            "wrong_long": -0.5,  # cosine_max_value_wrong
            "reference_key": SOLUTION_FIRST,
        },
        OPEN_R1,
    ),
    "code": Alias("code_pass_rate", {"reference_key": "verification_info"}, OPEN_R1),
}
