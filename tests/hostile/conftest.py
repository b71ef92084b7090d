"""The hostile programs (hostile_programs.py) are never collected here: test_hostile_boundary.py runs
them in a child pytest inside a disposable boundary it builds (tests/hostile/boundary.py)."""

collect_ignore = ["hostile_programs.py", "hostile_cases.py", "boundary.py"]
