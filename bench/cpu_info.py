"""The CPU a benchmark ran on, as /proc/cpuinfo names it (every figure says which CPU it came from)."""

import platform
from pathlib import Path


def cpu_name():
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()
