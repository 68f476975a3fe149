#!/usr/bin/env python3
"""Fails if a compile command of the build tree would differ from one clone to the next.

The compiler cache (ccache with CCACHE_BASEDIR, set up by scripts/test.sh) rewrites the paths on a
command line relative to the clone, but not a macro's value or a file's text. A -D whose value holds
the source or build tree's path, or a generated source (a test batch) that includes files by their
absolute path, makes every new clone (every CI run) compile those files again. Only
tests/test_support.cc may hold them.

Usage: check_cache_keys.py BUILD_DIR   (reads BUILD_DIR/compile_commands.json)
"""
import json
import os
import re
import sys

ALLOWED = ("tests/test_support.cc",)


def main():
    build = os.path.realpath(sys.argv[1])
    commands = json.load(open(os.path.join(build, "compile_commands.json")))
    source = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
    problems = []
    for entry in commands:
        name = os.path.realpath(entry["file"])
        if any(name.endswith(allowed) for allowed in ALLOWED):
            continue
        command = entry.get("command") or " ".join(entry["arguments"])
        for define in re.findall(r"-D\S+", command):
            if source in define or build in define:
                problems.append(f"{name}: {define}")
        if name.startswith(build + os.sep):  # a generated source: a test batch, or CMake's unity file
            for line in open(name, errors="replace"):
                if line.startswith("#include") and ("\"/" in line or source in line):
                    problems.append(f"{name}: {line.strip()}")
    for problem in problems:
        print(f"a path of this tree in a compile command's key: {problem}")
    if problems:
        print("move it into tests/test_support.cc or read it at run time: each new clone misses the cache")
        return 1
    print(f"{len(commands)} compile commands, none with this tree's path in a macro or an include")
    return 0


if __name__ == "__main__":
    sys.exit(main())
