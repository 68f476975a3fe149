#!/usr/bin/env python3
"""Writes an empty stand-in for a shared library: the same soname, version nodes and exported
symbols (functions that return 0 at once, zeroed objects of the same size), and no code behind them.

The GPU machine is bare and takes 64 MiB per call, while FFmpeg's Debian build links some 150
libraries (video encoders, network protocols, X11) that decoding a WAV or FLAC never calls. The
bundle (tools/gpu/bundle.sh) carries stand-ins for those, so the dynamic loader is satisfied and
the real libraries stay behind. A stand-in's function is never meant to run: if one does, it
returns 0, and the bundle's check here (the bundled auris transcribes jfk) shows what breaks, as
libgme's probe did (it is carried real).

Usage: stub_library.py LIBRARY OUTPUT_DIR   (writes OUTPUT_DIR/<soname>)
"""
import os
import re
import subprocess
import sys
import tempfile


def soname_and_versions(library):
    dump = subprocess.run(["objdump", "-p", library], capture_output=True, text=True, check=True).stdout
    soname = re.search(r"^\s+SONAME\s+(\S+)", dump, re.M).group(1)
    section = dump.split("Version definitions:", 1)
    versions = []
    if len(section) == 2:
        for line in section[1].splitlines()[1:]:
            fields = line.split()
            if not fields or not fields[0].isdigit():
                if line.strip() and not line.startswith("\t"):
                    break
                continue
            if fields[1] != "0x01":  # flag 0x01 marks the library's own base node, not a version
                versions.append(fields[-1])
    return soname, versions


def exported_symbols(library):
    """(name, version or None, kind 'function'|'object', size) for each defined dynamic symbol."""
    out = subprocess.run(["nm", "-D", "-S", "--defined-only", "--with-symbol-versions", library],
                         capture_output=True, text=True, check=True).stdout
    symbols = []
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 4:
            _, size, kind, name = fields
        elif len(fields) == 3:
            _, kind, name = fields
            size = "0"
        else:
            continue
        version = None
        if "@@" in name:
            name, version = name.split("@@")
        elif "@" in name:
            continue  # an old, non-default version: nothing links against it any more
        if not re.fullmatch(r"[A-Za-z_.$][\w.$]*", name):
            continue
        if kind in "TtWiI":
            symbols.append((name, version, "function", 0))
        elif kind in "DdBbRrGgSsVvu":
            symbols.append((name, version, "object", max(int(size, 16), 1)))
    return symbols


def main():
    library, output_dir = sys.argv[1], sys.argv[2]
    soname, versions = soname_and_versions(library)
    symbols = exported_symbols(library)
    with tempfile.TemporaryDirectory() as work:
        asm = [".text"]
        for name, _, kind, size in symbols:
            if kind == "function":
                asm += [f".globl {name}", f".type {name},@function", f"{name}: xorl %eax, %eax", "ret"]
        asm.append(".data")
        for name, _, kind, size in symbols:
            if kind == "object":
                asm += [f".globl {name}", f".type {name},@object", f".size {name},{size}", ".balign 16",
                        f"{name}: .zero {size}"]
        with open(os.path.join(work, "stub.s"), "w") as f:
            f.write("\n".join(asm) + "\n")
        script = []
        by_version = {v: [n for n, sv, _, _ in symbols if sv == v] for v in versions}
        for version in versions:
            names = "".join(f" {n};" for n in by_version[version])
            script.append(f"{version} {{ global:{names} }};" if names else f"{version} {{ }};")
        args = ["gcc", "-shared", "-nostdlib", "-o", os.path.join(output_dir, soname), f"-Wl,-soname,{soname}",
                os.path.join(work, "stub.s")]
        if script:
            with open(os.path.join(work, "versions.map"), "w") as f:
                f.write("\n".join(script) + "\n")
            args.append(f"-Wl,--version-script={os.path.join(work, 'versions.map')}")
        subprocess.run(args, check=True)


if __name__ == "__main__":
    main()
