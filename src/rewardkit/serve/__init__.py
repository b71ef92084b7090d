"""``rewardkit serve``: a reward behind HTTP for trainers that fetch rewards over the network.

``settings`` (``ServeSettings``, the bearer token), ``app`` (``create_app(reward, settings)``, the routes),
``service`` (the reward behind a micro-batcher, with its limits), ``guards`` (auth and body-size ASGI
middleware), ``metrics`` (Prometheus text), ``wire_*`` (each trainer's request and response shapes:
native, OpenRLHF, slime, NeMo-Gym), ``server`` (uvicorn, draining on SIGTERM), ``ray_serve`` (the same app
as a Ray Serve deployment) and ``client`` (``RemoteReward``, the TRL reward that calls a server).

Needs the ``serve`` extra (FastAPI, uvicorn, httpx). An application: may import ``rewardkit.scoring`` and
everything below it. Never train, audit, bench, integrations, cli or the package root.
"""
