"""The whole machine's CPU over a time window, from /proc/stat sampled in a background thread:
what a side of a side-by-side bench cost, whichever processes (workers, dev server, sandboxes,
Blender, Harbor's own CLI) spent it. Meaningful only with nothing else running.

    with MachineCpu() as cpu:
        ...  # the work, between two epoch times
        seconds, busy = cpu.window(started, finished)
"""

from __future__ import annotations

import bisect
import os
import threading
import time
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")
PERIOD_SEC = 0.1


def _read() -> tuple[int, int]:
    """(busy, total) jiffies of all CPUs since boot; idle and iowait are not busy."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    total = sum(fields[:8])  # user nice system idle iowait irq softirq steal (guest is in user)
    return total - fields[3] - fields[4], total


class MachineCpu:
    def __init__(self, period: float = PERIOD_SEC) -> None:
        self.period = period
        self.samples: list[tuple[float, int, int]] = []  # (epoch seconds, busy, total)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="machine-cpu", daemon=True)

    def _run(self) -> None:
        while True:
            self.samples.append((time.time(), *_read()))
            if self._stop.wait(self.period):
                return

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.ident is not None:  # started
            self._thread.join()
            self.samples.append((time.time(), *_read()))  # one after every window asked

    def __enter__(self) -> MachineCpu:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def window(self, start: float, end: float) -> tuple[float, float] | None:
        """(CPU seconds spent by the whole machine, busy share of its capacity) from the last
        sample at or before `start` to the first at or after `end`; None without both."""
        times = [s[0] for s in self.samples]
        i = bisect.bisect_right(times, start) - 1
        j = bisect.bisect_left(times, end)
        if i < 0 or j >= len(self.samples) or j <= i:
            return None
        (_, busy0, total0), (_, busy1, total1) = self.samples[i], self.samples[j]
        if total1 == total0:
            return None
        return (busy1 - busy0) / TICK, (busy1 - busy0) / (total1 - total0)
