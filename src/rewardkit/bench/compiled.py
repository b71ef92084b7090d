"""``rewardkit bench --only code-compiled``: programs in each compiled language judged with full isolation, against
a plain compile-and-run loop with no isolation at all (``g++ -O2 ...`` then ``./prog < case`` per case), in the
same run on the same programs and cases; and the same judgement again, where every build is a cache hit.

Both sides compile each program once with the language's own compile argv, then run every case; the plain loop
compares outputs token by token, as the judge does. Languages whose toolchain the sandbox cannot see are skipped
with the reason.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import tempfile
import time
import zipfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from rewardkit.bench.runs import Row, Sizes, skipped

SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
THREADS = 2
# name -> (right program, wrong program): the sum of the numbers after the count on the first line; the wrong
# one drops the last number when there are more than five.
PROGRAMS: dict[str, tuple[str, str]] = {
    "c": (
        '#include <stdio.h>\nint main(void){long n,x,s=0;scanf("%ld",&n);for(long i=0;i<n;i++){scanf("%ld",&x);'
        's+=x;}printf("%ld\\n",s);return 0;}',
        '#include <stdio.h>\nint main(void){long n,x,s=0;scanf("%ld",&n);for(long i=0;i<n;i++){scanf("%ld",&x);'
        'if(i<5||i<n-1)s+=x;}printf("%ld\\n",s);return 0;}',
    ),
    "cpp17": (
        "#include <iostream>\nint main(){long n,x,s=0;std::cin>>n;for(long i=0;i<n;i++){std::cin>>x;s+=x;}"
        'std::cout<<s<<"\\n";}',
        "#include <iostream>\nint main(){long n,x,s=0;std::cin>>n;for(long i=0;i<n;i++){std::cin>>x;"
        'if(i<5||i<n-1)s+=x;}std::cout<<s<<"\\n";}',
    ),
    "go": (
        'package main\nimport "fmt"\nfunc main(){var n,x,s int64;fmt.Scan(&n);for i:=int64(0);i<n;i++{fmt.Scan(&x);'
        "s+=x};fmt.Println(s)}",
        'package main\nimport "fmt"\nfunc main(){var n,x,s int64;fmt.Scan(&n);for i:=int64(0);i<n;i++{fmt.Scan(&x);'
        "if i<5||i<n-1{s+=x}};fmt.Println(s)}",
    ),
    "rust": (
        "use std::io::Read;fn main(){let mut t=String::new();std::io::stdin().read_to_string(&mut t).unwrap();"
        "let v:Vec<i64>=t.split_whitespace().map(|x|x.parse().unwrap()).collect();"
        'println!("{}",v[1..].iter().sum::<i64>());}',
        "use std::io::Read;fn main(){let mut t=String::new();std::io::stdin().read_to_string(&mut t).unwrap();"
        "let v:Vec<i64>=t.split_whitespace().map(|x|x.parse().unwrap()).collect();let n=v.len()-1;"
        'let k=if n>5{n-1}else{n};println!("{}",v[1..1+k].iter().sum::<i64>());}',
    ),
    "java": (
        "import java.util.*;public class Main{public static void main(String[] a){Scanner s=new Scanner(System.in);"
        "long n=s.nextLong(),t=0;for(long i=0;i<n;i++)t+=s.nextLong();System.out.println(t);}}",
        "import java.util.*;public class Main{public static void main(String[] a){Scanner s=new Scanner(System.in);"
        "long n=s.nextLong(),t=0;for(long i=0;i<n;i++){long x=s.nextLong();if(i<5||i<n-1)t+=x;}"
        "System.out.println(t);}}",
    ),
}


def cases(count: int, seed: int) -> dict[str, list[str]]:
    rng = random.Random(seed)
    inputs, outputs = [], []
    for _ in range(count):
        nums = [rng.randint(-1000, 1000) for _ in range(rng.randint(1, 12))]
        inputs.append(f"{len(nums)}\n{' '.join(map(str, nums))}\n")
        outputs.append(f"{sum(nums)}\n")
    return {"inputs": inputs, "outputs": outputs}


def _same(actual: str, expected: str) -> bool:
    return actual.split() == expected.split()


def plain_judge(language: Any, source: str, reference: dict[str, list[str]]) -> float:
    """Compile with the language's argv in a temp dir (a tmpfs), then run every case there: no isolation, no limits. The
    score is the code verifier's default one, the fraction of cases passed: every case runs, as in the judge."""
    # on a tmpfs where there is one, as the sandbox's scratch dir is (Go's build cache on a disk costs it 4x)
    shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    folder = tempfile.mkdtemp(prefix="rk-bench-compiled-", dir=shm)
    try:
        with open(os.path.join(folder, language.source_file), "w") as fh:
            fh.write(source)
        env = {
            "PATH": SANDBOX_PATH,
            "HOME": folder,
            "TMPDIR": folder,
            "LANG": "C.UTF-8",
            **{k: v.replace("{scratch}", folder) for k, v in language.env.items()},
        }
        built = subprocess.run(language.compile_argv(), cwd=folder, env=env, capture_output=True, check=False)
        if built.returncode != 0:
            return 0.0
        if language.packing == "zip":
            with zipfile.ZipFile(os.path.join(folder, language.artifact_name), "w") as archive:
                root = os.path.join(folder, str(language.artifact))
                for base, _, files in os.walk(root):
                    for name in files:
                        archive.write(os.path.join(base, name), os.path.relpath(os.path.join(base, name), root))
        argv = language.run_argv(256 << 20)
        if language.executable:
            argv = [os.path.join(folder, language.artifact_name), *argv[1:]]
        passed = 0
        for given, expected in zip(reference["inputs"], reference["outputs"], strict=True):
            done = subprocess.run(argv, cwd=folder, env=env, input=given, capture_output=True, text=True, check=False)
            passed += done.returncode == 0 and _same(done.stdout, expected)
        return passed / len(reference["inputs"])
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def code_compiled_bench(sizes: Sizes, languages: Sequence[str] | None = None) -> list[Row]:
    from rewardkit.sandbox.lookup import get_language
    from rewardkit.verifiers.lookup import get_verifier

    quick = sizes.repeats == 1
    programs, count = (2, 10) if quick else (4, 40)
    rows: list[Row] = []
    for name, (right, wrong) in PROGRAMS.items():
        if languages is not None and name not in languages:
            continue
        language = get_language(name).for_program(right)
        title = f"code compiled: {name} judged vs plain compile-and-run"
        tool = (language.compile or language.run)[0]
        if shutil.which(tool, path=SANDBOX_PATH) is None:
            rows.append(skipped(title, ">= 0.8x", f"no {tool} on the sandbox's PATH"))
            continue
        # a fresh program text per item (a comment), so neither side is served by a cache
        items = [
            (f"{right if i % 2 == 0 else wrong}\n// {name} {i} {time.time_ns()}\n", cases(count, seed=i))
            for i in range(programs)
        ]
        with get_verifier("code", sandbox="local", workers=THREADS, language=name) as verifier:
            warm = f"{right}\n// warm-up {time.time_ns()}\n"  # both sides: the toolchain's files in the page cache
            plain_judge(language, warm, cases(2, seed=99))
            # one warm-up judgement per worker, at once: each worker's zygote is started (once per training run)
            warm_ups = [f"```\n{warm}// {i}\n```" for i in range(THREADS)]
            verifier.verify_batch(warm_ups, [cases(2, seed=99)] * THREADS)
            completions = [f"```\n{source}\n```" for source, _ in items]
            references = [reference for _, reference in items]
            started = time.perf_counter()
            with ThreadPoolExecutor(THREADS) as pool:
                expected = list(pool.map(plain_judge, [language] * len(items), *zip(*items, strict=True)))
            plain = time.perf_counter() - started
            started = time.perf_counter()
            ours = verifier.verify_batch(completions, references)
            judged = time.perf_counter() - started
            builds = verifier.builds  # type: ignore[attr-defined]  # the code verifier's compile cache
            compiles = builds.counts["compiles"]
            started = time.perf_counter()
            again = verifier.verify_batch(completions, references)
            cached = time.perf_counter() - started
            recompiled = builds.counts["compiles"] - compiles
        total = programs * count
        agree = sum(abs(v.score - e) < 1e-6 for v, e in zip(ours, expected, strict=True)) / programs
        same_again = all(a.score == b.score for a, b in zip(ours, again, strict=True))
        rows.append(
            Row(
                title,
                f"{' '.join(language.compile_argv()[:3])} ... then each case, no isolation",
                total / plain,
                total / judged,
                "cases/s",
                ">= 0.8x",
                plain / judged >= 0.8,
                f"{programs} programs ({sum(e == 1.0 for e in expected)} right) x {count} cases, every case run, "
                f"{THREADS} at a time in both, compile included on both sides; scores agree on {agree:.0%}",
            )
        )
        rows.append(
            Row(
                f"code compiled: {name} cache hits vs plain compile-and-run",
                "the same plain loop",
                total / plain,
                total / cached,
                "cases/s",
                "-",
                None,
                f"the same programs judged again: {recompiled} compiles (every build a cache hit), "
                f"verdicts {'the same' if same_again else 'DIFFERENT'}",
            )
        )
    return rows
