"""The code that runs inside a docker sandbox container, stdlib only.

The host never imports these modules to run them: ``pool.py`` reads their source and sends it, after
``sandbox/seccomp_bpf.py`` and ``sandbox/run_world.py``, as one ``python3 -c`` program to the container's
supervisor. Each module imports its siblings (and those two) only when it is imported on the host, for the
type checker and the tests.
"""

#: The in-container modules, in the order they are joined into the supervisor's program.
CONTAINER_FILES = ("run_init.py", "supervisor.py", "prestart.py", "zygote.py")
