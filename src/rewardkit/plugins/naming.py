"""The one name shared by the pluggy project, the hook markers and the entry-point group."""

PROJECT_NAME = "rewardkit"
ENTRY_POINT_GROUP = PROJECT_NAME
BLOCK_ENV = "REWARDKIT_BLOCK_PLUGINS"
ALLOW_ENV = "REWARDKIT_ALLOW_PLUGINS"
LOAD_ENTRY_POINTS_ENV = "REWARDKIT_LOAD_ENTRY_POINTS"
