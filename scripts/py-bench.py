#!/usr/bin/python3
"""py-bench.py FILE A B RUNS [OUT]: CPU seconds (user + system of this
process, median of RUNS) of reading entries [A, B) of the default stream
of FILE into numpy through the simtrace package: raw (Stream.raw) and as
the structured array (stream[a:b]), and into one array reused from run
to run (stream.read(a, b, out=)); the interpreter's start and imports
are not counted.  OUT: write the raw entries there, for comparing with
simtrace-cat.  Used by scripts/bench.sh (part python)."""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "python"))
import numpy as np  # noqa: E402
import simtrace  # noqa: E402


def cpu():
    # this process's CPU time, user and system, to the nanosecond (not
    # os.times's 10 ms ticks)
    return time.process_time()


def main():
    path, a, b, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    t = simtrace.open(path)
    s = t.stream()
    res = {"raw": [], "numpy": [], "into": []}
    dst = np.empty(b - a, dtype=simtrace.DTYPE)
    s.read(a, b, out=dst)  # its pages touched once, as a caller reusing it has
    for _ in range(runs):
        c0 = cpu()
        r = s.raw(a, b)
        c1 = cpu()
        n = len(s[a:b])
        c2 = cpu()
        m = len(s.read(a, b, out=dst))
        c3 = cpu()
        assert n == m == b - a and len(r) == 32 * (b - a)
        res["raw"].append(c1 - c0)
        res["numpy"].append(c2 - c1)
        res["into"].append(c3 - c2)
        del r
    if len(sys.argv) > 5:
        s.raw(a, b).tofile(sys.argv[5])
    med = {k: sorted(v)[(len(v) - 1) // 2] for k, v in res.items()}
    print("%.4f %.4f %.4f" % (med["raw"], med["numpy"], med["into"]))


main()
