#!/usr/bin/env python3
"""Per-kernel summary of an Nsight Compute CSV (`ncu --csv --metrics gpu__time_duration.sum ...`):
launches per decode step (a step starts with one embedding kernel), mean duration and time per step
of each kernel name and grid (one name can run at several shapes: self- and cross-attention, products
of several sizes), largest first.

Usage: bench/ncu_summary.py PROFILE.csv
"""
import collections
import csv
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if l.startswith('"'))]
    by_name = collections.defaultdict(list)
    for r in rows:
        name = r["Kernel Name"]
        name = name[name.find("auris::") :] if "auris::" in name else name
        by_name[f'{name.split("(")[0][:52]} {r["Grid Size"]}'].append(float(r["Metric Value"].replace(",", "")) / 1000)  # ns -> us
    steps = sum(len(v) for k, v in by_name.items() if "embed_kernel" in k)
    total = sum(sum(v) for v in by_name.values())
    print(f"{len(rows)} kernels in {steps} steps: {len(rows) / steps:.1f} kernels and {total / steps:.1f} us per step")
    print(f"{'kernel and grid':68s} {'per step':>8s} {'mean us':>8s} {'us/step':>8s}")
    for name, v in sorted(by_name.items(), key=lambda kv: -sum(kv[1])):
        print(f"{name:68s} {len(v) / steps:8.1f} {sum(v) / len(v):8.2f} {sum(v) / steps:8.1f}")


if __name__ == "__main__":
    main()
