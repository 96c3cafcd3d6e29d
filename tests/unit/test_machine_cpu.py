"""bench/machine_cpu.py: the whole machine's CPU over a window, from /proc/stat samples."""

from __future__ import annotations

import time

import pytest

from bench.machine_cpu import TICK, MachineCpu


def test_a_window_takes_the_samples_around_it():
    cpu = MachineCpu()
    # (epoch, busy jiffies, total jiffies): 2 cores, the middle second fully busy
    cpu.samples = [(10.0, 0, 0), (11.0, TICK, 2 * TICK), (12.0, 3 * TICK, 4 * TICK), (13.0, 3 * TICK, 6 * TICK)]
    assert cpu.window(11.0, 12.0) == (2.0, 1.0)
    assert cpu.window(11.5, 11.9) == (2.0, 1.0)  # the samples at or outside the window
    seconds, busy = cpu.window(10.0, 13.0)
    assert seconds == 3.0 and busy == pytest.approx(0.5)
    assert cpu.window(9.0, 12.0) is None and cpu.window(11.0, 14.0) is None  # not sampled


def test_it_samples_around_a_window_it_was_running_for():
    with MachineCpu(period=0.05) as cpu:
        while not cpu.samples:  # its first sample taken
            time.sleep(0.01)
        start = time.time()
        time.sleep(0.2)
        end = time.time()
    assert cpu.samples[0][0] <= start and cpu.samples[-1][0] >= end  # the stop adds one after
    found = cpu.window(start, end)
    assert found is not None and found[0] >= 0 and 0 <= found[1] <= 1
