"""The compile step, inside the sandbox (plain stdlib): run the compiler, then send back what it built.

Run as ``python3 -I -S -B native_build.py`` in the scratch dir holding the source, with a JSON job on stdin:
``{"argv": [...], "env": {...}, "artifact": name, "packing": "file" | "zip" | "source", "source": name}``.
The compiler's own stdout goes to our stderr, so that stdout carries only the artifact: its bytes (``file``,
``source``) or a zip of the ``artifact`` dir (``zip``), after it exits 0. Exit statuses: 0 built, 1 the
compiler refused the source (its messages on stderr), 3 no such compiler in this sandbox (the sandbox's
fault, not the program's: an ``rk-build:`` line on stderr says which).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys


def main() -> int:
    job = json.loads(sys.stdin.read())
    scratch = os.getcwd()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": scratch, "TMPDIR": scratch, "LANG": "C.UTF-8"}
    env.update({k: v.replace("{scratch}", scratch) for k, v in job.get("env", {}).items()})
    tool = which(job["argv"][0], env["PATH"])
    if tool is None:
        sys.stderr.write("rk-build: no %s in this sandbox (PATH %s)\n" % (job["argv"][0], env["PATH"]))
        return 3
    code = subprocess.call([tool, *job["argv"][1:]], stdin=subprocess.DEVNULL, stdout=2, stderr=2, env=env)
    if code != 0:
        return 1
    packing = job.get("packing", "file")
    name = job["source"] if packing == "source" else job["artifact"]
    if packing == "zip":  # only here: zipfile and io cost a C build 4 ms of imports
        import io
        import zipfile

        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
            for root, _, files in os.walk(name):
                for file in sorted(files):
                    path = os.path.join(root, file)
                    archive.write(path, os.path.relpath(path, name))
        data = buffer.getvalue()
    else:
        if not os.path.isfile(name):
            sys.stderr.write("the compiler left no %s\n" % name)
            return 1
        with open(name, "rb") as fh:
            data = fh.read()
    sys.stdout.buffer.write(data)
    sys.stdout.flush()
    return 0


def which(name: str, path: str) -> str | None:
    """The executable ``name`` on ``path`` (shutil.which, without importing shutil)."""
    if "/" in name:
        return name if os.path.isfile(name) and os.access(name, os.X_OK) else None
    for folder in path.split(os.pathsep):
        candidate = os.path.join(folder, name)
        if folder and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


if __name__ == "__main__":
    sys.exit(main())
