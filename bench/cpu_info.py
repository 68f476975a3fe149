"""The CPU a benchmark ran on, as /proc/cpuinfo names it (every figure says which CPU it came from).
VMs often name only the vendor ("AMD EPYC"), so the family and model numbers come with the name."""

import platform
from pathlib import Path


def cpu_name():
    fields = {}
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key in ("model name", "cpu family", "model") and key not in fields:
            fields[key] = value.strip()
    name = fields.get("model name") or platform.processor()
    if "cpu family" in fields and "model" in fields:
        name += f", family {fields['cpu family']} model {fields['model']}"
    return name
