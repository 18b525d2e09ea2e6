#!/usr/bin/env python3
"""Runs commands in turn, round after round, and writes each one's wall times and median.

hyperfine runs one command's rounds back to back, so on a noisy machine a slow stretch lands on
one command and skews a ratio between two of them (seen here: the syn floor at 1.8 s in one
batch and 3.3 s in the next). Taken in turn, a slow stretch costs every command alike.

usage: interleave.py OUT.json ROUNDS NAME=COMMAND...   (COMMAND through the shell, output dropped)
"""

import json
import statistics
import subprocess
import sys
import time


def main():
    out, rounds = sys.argv[1], int(sys.argv[2])
    commands = [arg.split("=", 1) for arg in sys.argv[3:]]
    times = {name: [] for name, _ in commands}
    for _ in range(rounds):
        for name, command in commands:
            start = time.perf_counter()
            subprocess.run(command, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[name].append(time.perf_counter() - start)
    with open(out, "w") as f:
        json.dump({name: {"times": t, "median": statistics.median(t)} for name, t in times.items()},
                  f, indent=1)


if __name__ == "__main__":
    main()
