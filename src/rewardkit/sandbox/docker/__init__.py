"""The ``docker`` sandbox backend: runs jobs in a pool of locked-down containers.

``sandbox`` (DockerSandbox), ``pool`` (the container pool), ``image_build`` (builds the sandbox image),
and the stdlib-only files concatenated into the in-container supervisor script: ``seccomp`` (signal
guard), ``netstate`` (network state checks), ``supervisor``.

May import: ``rewardkit.sandbox.base``, ``rewardkit.sandbox.seccomp_bpf`` and ``rewardkit._errors``
(the supervisor's files only stdlib, with host-side fallbacks).
"""
