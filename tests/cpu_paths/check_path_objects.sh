#!/usr/bin/env bash
# Checks that the objects of the avx2 and avx512 CPU paths hand no vector code to the rest of the
# binary. Functions the compiler emits as weak (inline functions and templates from headers) are
# merged by the linker across object files, which may keep a path's copy for every caller; a copy
# using ymm or zmm registers would then crash code running on a CPU without them. simd.h enables the
# path's instructions only after the shared headers, so there must be none.
# Usage: check_path_objects.sh DIR   (the objects of the avx2 and avx512 paths under it; exit 0: none found)
set -euo pipefail
mapfile -t objects < <(find "$1" -name '*.o' -path '*_avx2.dir/*' -o -name '*.o' -path '*_avx512.dir/*')
[ ${#objects[@]} -gt 0 ] || { echo "no objects of the avx2 or avx512 paths under $1" >&2; exit 1; }
status=0
for object in "${objects[@]}"; do
  while read -r symbol; do
    # GCC puts each weak function in a section of its own, named after it.
    if objdump -d --no-show-raw-insn -j ".text.$symbol" "$object" 2>/dev/null | grep -qE '^ +[0-9a-f]+:\s+v[a-z]'; then
      echo "$object: shared function $(echo "$symbol" | c++filt) uses the path's vector instructions" >&2
      status=1
    fi
  done < <(nm --defined-only "$object" | awk '$2 == "W" || $2 == "u" || $2 == "V" { print $3 }')
done
[ "$status" -eq 0 ] && echo "checked ${#objects[@]} objects: no shared function uses a path's vector instructions"
exit "$status"
