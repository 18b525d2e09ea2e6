#!/usr/bin/env python3
"""Runs commands in turn, round after round, and writes each one's wall times and median.

hyperfine runs one command's rounds back to back, so on a noisy machine a slow stretch lands on
one command and skews a ratio between two of them (seen here: the syn floor at 1.8 s in one
batch and 3.3 s in the next). Taken in turn, a slow stretch costs every command alike.

Each round also records the command's CPU time (user + system, its children included): on a
machine whose speed drifts, a CPU-time ratio moves less than a wall-clock one, and for a
one-thread command the two are nearly the same.

usage: interleave.py OUT.json ROUNDS NAME=COMMAND...   (COMMAND through the shell, output dropped)
"""

import json
import os
import statistics
import subprocess
import sys
import time


def main():
    out, rounds = sys.argv[1], int(sys.argv[2])
    commands = [arg.split("=", 1) for arg in sys.argv[3:]]
    times = {name: [] for name, _ in commands}
    cpu = {name: [] for name, _ in commands}
    for _ in range(rounds):
        for name, command in commands:
            start = time.perf_counter()
            child = subprocess.Popen(command, shell=True, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
            _, _, usage = os.wait4(child.pid, 0)
            times[name].append(time.perf_counter() - start)
            cpu[name].append(usage.ru_utime + usage.ru_stime)
    with open(out, "w") as f:
        json.dump({name: {"times": t, "median": statistics.median(t), "cpu": cpu[name],
                          "cpu_median": statistics.median(cpu[name])}
                   for name, t in times.items()}, f, indent=1)
    for name, t in times.items():
        print(f"{name:<12} wall {statistics.median(t):7.3f} s   cpu {statistics.median(cpu[name]):7.3f} s")


if __name__ == "__main__":
    main()
