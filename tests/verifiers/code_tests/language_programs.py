"""One program per language whose behaviour the first input number picks (so each language compiles once):
0 prints a+b (correct), 1 prints a+b+1 (wrong), 2 spins forever (TLE), 3 allocates and touches memory until it
dies (MLE), 4 crashes. And a program that does not compile, per language."""

from __future__ import annotations

BEHAVIOURS = {
    "c": r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void) {
    long a, b;
    if (scanf("%ld %ld", &a, &b) != 2) return 2;
    if (a == 0) printf("%ld\n", a + b);
    if (a == 1) printf("%ld\n", a + b + 1);
    if (a == 2) { volatile unsigned long x = 0; for (;;) x++; }
    if (a == 3) {
        for (;;) { char *p = malloc(1 << 20); if (!p) { volatile char *z = 0; *z = 1; } memset(p, 7, 1 << 20); }
    }
    if (a == 4) { volatile int *z = 0; *z = 1; }
    return 0;
}
""",
    "cpp": r"""
#include <iostream>
#include <vector>
#include <cstring>
int main() {
    long a, b;
    std::cin >> a >> b;
    if (a == 0) std::cout << a + b << "\n";
    if (a == 1) std::cout << a + b + 1 << "\n";
    if (a == 2) { volatile unsigned long x = 0; for (;;) x++; }
    if (a == 3) {
        std::vector<char*> keep;
        for (;;) { char *p = new char[1 << 20]; std::memset(p, 7, 1 << 20); keep.push_back(p); }
    }
    if (a == 4) { volatile int *z = nullptr; *z = 1; }
    return 0;
}
""",
    "java": r"""
import java.util.*;
public class Main {
    static volatile long x = 0;
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        long a = in.nextLong(), b = in.nextLong();
        if (a == 0) System.out.println(a + b);
        if (a == 1) System.out.println(a + b + 1);
        if (a == 2) { while (true) x++; }
        if (a == 3) { List<long[]> keep = new ArrayList<>(); while (true) keep.add(new long[1 << 17]); }
        if (a == 4) { throw new IllegalStateException("crash"); }
    }
}
""",
    "go": r"""
package main

import "fmt"

var sink [][]byte

func main() {
	var a, b int64
	fmt.Scan(&a, &b)
	if a == 0 {
		fmt.Println(a + b)
	}
	if a == 1 {
		fmt.Println(a + b + 1)
	}
	if a == 2 {
		x := 0
		for {
			x++
		}
	}
	if a == 3 {
		for {
			p := make([]byte, 1<<20)
			for i := range p {
				p[i] = 7
			}
			sink = append(sink, p)
		}
	}
	if a == 4 {
		var z *int
		*z = 1
	}
}
""",
    "rust": r"""
use std::io::Read;
fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();
    let (a, b) = (v[0], v[1]);
    if a == 0 { println!("{}", a + b); }
    if a == 1 { println!("{}", a + b + 1); }
    if a == 2 { let mut x: u64 = 0; loop { unsafe { std::ptr::write_volatile(&mut x, x + 1); } } }
    if a == 3 { let mut keep: Vec<Vec<u8>> = Vec::new(); loop { keep.push(vec![7u8; 1 << 20]); } }
    if a == 4 { let z: Option<i64> = None; z.expect("crash"); }
}
""",
    "javascript": r"""
const [a, b] = require("fs").readFileSync(0, "utf8").trim().split(/\s+/).map(Number);
if (a === 0) console.log(a + b);
if (a === 1) console.log(a + b + 1);
if (a === 2) { let x = 0; for (;;) x++; }
if (a === 3) { const keep = []; for (;;) keep.push(new Array(1 << 17).fill(7.5)); }
if (a === 4) throw new Error("crash");
""",
}

BROKEN = {
    "c": "int main(void) { return undefined_name; }\n",
    "cpp": "#include <vector>\nint main() { std::vector<int> v = 3; }\n",
    "java": 'public class Main { public static void main(String[] a) { int x = "no"; } }\n',
    "go": "package main\n\nfunc main() {\n\tx := 1\n}\n",
    "rust": 'fn main() { let x: i32 = "no"; }\n',
    "javascript": "const = 3;\n",
}

# The fence tag each language's completion uses, and the registered language it selects.
FENCES = {"c": "c", "cpp": "cpp", "java": "java", "go": "go", "rust": "rust", "javascript": "javascript"}
LANGUAGE_NAMES = {"c": "c", "cpp": "cpp17", "java": "java", "go": "go", "rust": "rust", "javascript": "javascript"}
