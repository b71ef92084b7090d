"""The ``local`` sandbox backend: bubblewrap namespaces, a cgroup per run, seccomp, rlimits.

``sandbox`` (LocalSandbox), ``launch`` (the bwrap command line and the in-namespace launcher), ``cgroup``
(the per-run cgroup), ``tree_removal`` (removing what a hostile run left behind).

May import: ``rewardkit.sandbox.base``, ``rewardkit.sandbox.seccomp_bpf`` and ``rewardkit._errors``.
"""
