"""Task functions for the worker-pool tests (imported by worker processes through PYTHONPATH)."""

import signal
import time


def ignore_alarm_and_sleep(seconds: float) -> str:
    """Defeats the soft deadline, as code stuck in a C extension would."""
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    time.sleep(seconds)
    return "woke"
