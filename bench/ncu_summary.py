#!/usr/bin/env python3
"""Per-kernel summary of an Nsight Compute CSV (`ncu --csv --metrics gpu__time_duration.sum ...`):
launches per decode step (a step starts with one embedding kernel), mean duration and time per step
of each kernel name and grid (one name can run at several shapes: self- and cross-attention, products
of several sizes), largest first.

With --encoder, the same per encoder layer over the first window: the kernels before the cross
K/V's regrouping (regroup_heads ends the encoder), the layers counted by their attention launches
(softmax_rows, or encoder_attention when fused), so a profile cut off mid-encoder still divides right.

Usage: bench/ncu_summary.py [--encoder] PROFILE.csv
"""
import collections
import csv
import sys


def main():
    args = [a for a in sys.argv[1:] if a != "--encoder"]
    encoder = "--encoder" in sys.argv[1:]
    if len(args) != 1:
        sys.exit(__doc__)
    rows = [r for r in csv.DictReader(l for l in open(args[0]) if l.startswith('"'))]
    if encoder:
        end = next((i for i, r in enumerate(rows) if "regroup_heads" in r["Kernel Name"]), len(rows))
        rows = rows[:end]
    by_name = collections.defaultdict(list)
    for r in rows:
        name = r["Kernel Name"]
        name = name[name.find("auris::") :] if "auris::" in name else name
        by_name[f'{name.split("(")[0][:52]} {r["Grid Size"]}'].append(float(r["Metric Value"].replace(",", "")) / 1000)  # ns -> us
    unit = "layer" if encoder else "step"
    # One kernel a layer marks it: cuBLAS's path's softmax, the fused kernel, or cuDNN's attention kernel,
    # whose generated name says sdpa or fmha (its exact name is unseen yet: the raw CSV keeps it).
    marks = ("softmax_rows_kernel", "encoder_attention_kernel", "sdpa", "fmha") if encoder else ("embed_kernel",)
    units = sum(len(v) for k, v in by_name.items() if any(m in k for m in marks))
    if units == 0:
        sys.exit(f"no {unit} found: {' or '.join(marks)} never ran in this profile")
    total = sum(sum(v) for v in by_name.values())
    print(f"{len(rows)} kernels in {units} {unit}s: {len(rows) / units:.1f} kernels and {total / units:.1f} us per {unit}")
    print(f"{'kernel and grid':68s} {'per ' + unit:>9s} {'mean us':>8s} {'us/' + unit:>9s}")
    for name, v in sorted(by_name.items(), key=lambda kv: -sum(kv[1])):
        print(f"{name:68s} {len(v) / units:9.1f} {sum(v) / len(v):8.2f} {sum(v) / units:9.1f}")


if __name__ == "__main__":
    main()
