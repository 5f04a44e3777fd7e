#!/usr/bin/env bash
# Builds QuickJS-NG for wasm32-wasi with coderun's glue (glue.c), from the
# pinned commit of QuickJS-NG's public git history, and records how
# (build.json): the module it writes, quickjs-ng.wasm, is what `go generate
# ./wasm` rewrites into coderun's engine. See README.md beside this file.
#
# Usage: wasm/upstream/build.sh QUICKJS_NG_GIT_DIR [OUT_DIR]
#   QUICKJS_NG_GIT_DIR is a clone (bare or not) of QuickJS-NG's repository
#   holding the pinned commit. OUT_DIR (default: this folder) receives
#   quickjs-ng.wasm and build.json; TestBuildReproduces builds into another. The toolchain is Debian 12's clang-19, lld-19,
#   libclang-rt-19-dev-wasm32 and wasi-libc; missing packages are installed
#   with apt-get (as root).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

# The pin: QuickJS-NG master of 2026-08-21 (v0.16.2 and one fix after it,
# a use-after-free in AsyncDisposableStack), and the SHA-256 of the sources
# the build reads from it (as `git archive` writes them, in `sources` order).
commit=05b2db95d9b8a088a203950727d1c3459fe0ec47
sources=(quickjs.c libregexp.c libunicode.c dtoa.c)
headers=(quickjs.h quickjs-atom.h quickjs-opcode.h quickjs-c-atomics.h libregexp.h libregexp-opcode.h
  libunicode.h libunicode-table.h dtoa.h cutils.h list.h builtin-array-fromasync.h
  builtin-iterator-zip.h builtin-iterator-zip-keyed.h)
packages=(clang-19 lld-19 libclang-rt-19-dev-wasm32 wasi-libc)
# The one edit made to the sources, a line of quickjs.c replaced by
# another: the size of the arenas its small-block allocator carves blocks
# of up to 512 bytes from, a plain #define that -D cannot override.
# Smaller arenas put a run's first blocks of each size on fewer pages of
# the snapshot (README.md, "The arena size"). build.json records the
# sources' SHA-256 as committed upstream, and the edit beside them.
edit_file=quickjs.c
edit_from='#define JS_ARENA_SIZE              4096'
edit_to='#define JS_ARENA_SIZE              1280'

cflags=(--target=wasm32-wasi -O2 -mbulk-memory -DNDEBUG -std=gnu11 -funsigned-char -fno-strict-aliasing
  -D_GNU_SOURCE -D_WASI_EMULATED_PROCESS_CLOCKS -D_WASI_EMULATED_SIGNAL
  -DCONFIG_VERSION=\"0.16.2\" -Wno-everything)
ldflags=(--target=wasm32-wasi -mbulk-memory -mexec-model=reactor -Wl,-z,stack-size=65536
  -Wl,--export=malloc -Wl,--export=free -Wl,--export=JS_FreeCString -Wl,--export=JS_FreeValue
  -Wl,--export=JS_GetException -Wl,--export=__heap_base -Wl,--export=__data_end
  -Wl,--strip-debug -lwasi-emulated-process-clocks -lwasi-emulated-signal -lm)

[ $# -eq 1 ] || [ $# -eq 2 ] || { echo "usage: $0 QUICKJS_NG_GIT_DIR [OUT_DIR]" >&2; exit 2; }
git_dir=$1
out=$(cd "${2:-$here}" && pwd)
[ -d "$git_dir/.git" ] && git_dir=$git_dir/.git

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]}" >&2
  apt-get update -qq && apt-get install -y -qq "${missing[@]}" >&2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# clang's WASI driver looks for <sysroot>/include/wasm32-wasi and
# <sysroot>/lib/wasm32-wasi; Debian installs wasi-libc there under /usr,
# next to glibc's headers, so the sysroot is two links.
mkdir -p "$work/sysroot/include" "$work/sysroot/lib" "$work/src"
ln -s /usr/include/wasm32-wasi "$work/sysroot/include/wasm32-wasi"
ln -s /usr/lib/wasm32-wasi "$work/sysroot/lib/wasm32-wasi"

[ "$(git --git-dir="$git_dir" rev-parse --verify "$commit^{commit}")" = "$commit" ] ||
  { echo "commit $commit is not in $git_dir" >&2; exit 1; }
git --git-dir="$git_dir" archive "$commit" "${sources[@]}" "${headers[@]}" | tar -x -C "$work/src"
sha() { sha256sum "$1" | cut -d' ' -f1; }
declare -A upstream_sha
for s in "${sources[@]}" "${headers[@]}"; do upstream_sha[$s]=$(sha "$work/src/$s"); done
[ "$(grep -cxF -- "$edit_from" "$work/src/$edit_file")" = 1 ] ||
  { echo "$edit_file does not have the line '$edit_from' once" >&2; exit 1; }
awk -v from="$edit_from" -v to="$edit_to" '$0 == from { print to; next } { print }' \
  "$work/src/$edit_file" > "$work/edited" && mv "$work/edited" "$work/src/$edit_file"
[ "$(grep -cxF -- "$edit_to" "$work/src/$edit_file")" = 1 ] || { echo "editing $edit_file failed" >&2; exit 1; }

objs=()
for s in "${sources[@]}"; do
  clang-19 --sysroot="$work/sysroot" "${cflags[@]}" -c "$work/src/$s" -o "$work/${s%.c}.o"
  objs+=("$work/${s%.c}.o")
done
clang-19 --sysroot="$work/sysroot" "${cflags[@]}" -I"$work/src" -c "$here/glue/glue.c" -o "$work/glue.o"
clang-19 -fuse-ld=lld --sysroot="$work/sysroot" "${ldflags[@]}" -o "$work/quickjs-ng.wasm" "${objs[@]}" "$work/glue.o"
cp "$work/quickjs-ng.wasm" "$out/quickjs-ng.wasm"

json_list() { local first=1; printf '['; for x in "$@"; do [ $first = 1 ] || printf ', '; first=0; printf '"%s"' "${x//\"/\\\"}"; done; printf ']'; }
{
  printf '{\n'
  printf '\t"quickjs_ng": {"repository": "github.com/quickjs-ng/quickjs", "commit": "%s", "version": "0.16.2+1"},\n' "$commit"
  printf '\t"sources": {\n'
  first=1
  for s in "${sources[@]}" "${headers[@]}"; do
    [ $first = 1 ] || printf ',\n'; first=0
    printf '\t\t"%s": "%s"' "$s" "${upstream_sha[$s]}"
  done
  printf '\n\t},\n'
  printf '\t"edits": [{"file": "%s", "from": "%s", "to": "%s"}],\n' "$edit_file" "$edit_from" "$edit_to"
  printf '\t"glue": {"glue/glue.c": "%s"},\n' "$(sha "$here/glue/glue.c")"
  printf '\t"toolchain": {\n'
  first=1
  for p in "${packages[@]}"; do
    [ $first = 1 ] || printf ',\n'; first=0
    printf '\t\t"%s": "%s"' "$p" "$(dpkg-query -W -f='${Version}' "$p")"
  done
  printf '\n\t},\n'
  printf '\t"cflags": %s,\n' "$(json_list "${cflags[@]}")"
  printf '\t"ldflags": %s,\n' "$(json_list "${ldflags[@]}")"
  printf '\t"module": {"file": "quickjs-ng.wasm", "sha256": "%s", "bytes": %d}\n' \
    "$(sha "$out/quickjs-ng.wasm")" "$(stat -c %s "$out/quickjs-ng.wasm")"
  printf '}\n'
} > "$out/build.json"
echo "wrote $out/quickjs-ng.wasm ($(stat -c %s "$out/quickjs-ng.wasm") bytes) and build.json" >&2
