"""Scoring: rewards applied to whole datasets, offline or on Ray.

``loading`` (``resolve_reward``: whatever names a reward, as a Reward), ``readers`` (JSONL, parquet, saved
datasets in), ``writers`` (scored rows out, resumable), ``batch_scoring`` (chunks of rows through a reward,
summaries), ``row_scoring`` (``rk.score_rows``), ``ray_executor`` (a reward whose verification runs on Ray
actors), ``ray_fleet`` (the actors), ``ray_data_scoring`` (``rewardkit score --ray``: a dataset streamed through
Ray Data), ``micro_batch`` (concurrent calls of one reward merged into one reward call: the service's and verl's
Reward Loop batcher) and ``row_isolation`` (a row whose scoring raises costs only that row).

May import: ``rewardkit.rewards`` and everything below it. Never train, cli or the package root.
"""
