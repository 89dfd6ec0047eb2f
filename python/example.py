#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""python/example.py SCENARIO [KEY=VALUE ...] — a scenario's busbw per size
through the cclab module; with pandas installed, as a DataFrame."""
import sys

import cclab

if len(sys.argv) < 2:
    sys.exit("usage: example.py SCENARIO.yaml [KEY=VALUE ...]")
sets = dict(a.split("=", 1) for a in sys.argv[2:])
try:
    rows = cclab.run(sys.argv[1], sets)
except cclab.Error as e:
    sys.exit(f"example.py: {e}")
try:
    import pandas
    print(pandas.DataFrame(rows)[["size_bytes", "time_us", "algbw_gbps", "busbw_gbps"]])
except ImportError:
    print(f"{'size_bytes':>12} {'time_us':>10} {'algbw_gbps':>10} {'busbw_gbps':>10}")
    for r in rows:
        if not r["ok"]:
            print(f"{r['size_bytes']:>12} {r['error']}")
            continue
        print(f"{r['size_bytes']:>12} {r['time_us']:>10.1f} {r['algbw_gbps']:>10.2f} "
              f"{r['busbw_gbps']:>10.2f}")
