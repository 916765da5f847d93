#!/bin/bash
# tools/sparse-models.sh - sparse over the QEMU device models (this
# clone's qemu-devices/), checking byte order against the restricted
# __le/__be types of the device-interface headers (kernel/include/d2d).
#
# The compile flags of each model file come from the QEMU build's
# compile_commands.json ($D2D_CACHE/qemu/current, made by make qemu); the
# source and the interface headers come from this clone.
# qemu-devices/common/d2d-sparse.h is forced in first: under sparse it
# makes QEMU's le32_to_cpu()/cpu_to_le32() (and the other widths and
# big-endian forms) typed, so a shared field read or written without the
# right conversion is a warning.  Prints sparse's output and exits 1 when
# it has any warning or error, 2 when there is no QEMU build.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
. tools/lib.sh
build=$(cat "$D2D_CACHE/qemu/current" 2>/dev/null)
[ -f "$build/compile_commands.json" ] || {
	echo "sparse-models: no QEMU build in $D2D_CACHE (make qemu)" >&2
	exit 2
}
command -v sparse > /dev/null || { echo "sparse-models: sparse is not installed (tools/deps.sh)" >&2; exit 2; }
cd "$build" || exit 2
D2D_ROOT=$OLDPWD python3 - <<'PY'
import json, os, shlex, subprocess, sys

root = os.environ["D2D_ROOT"]
cmds = json.load(open("compile_commands.json"))
prefix = "../src/hw/d2d/"
bad = n = 0
for c in cmds:
    f = c["file"]
    if not f.startswith(prefix) or not f.endswith(".c"):
        continue
    rel = f[len(prefix):]
    src = os.path.join(root, "qemu-devices", rel)
    if not os.path.exists(src):
        continue            # a file this clone no longer has
    args = ["sparse", "-Wbitwise", "-Wno-non-pointer-null", "-Wno-vla",
            "-include", os.path.join(root, "qemu-devices/common/d2d-sparse.h")]
    it = iter(shlex.split(c["command"])[1:])
    for a in it:
        if a in ("-MQ", "-MF", "-o"):
            next(it)
        elif a in ("-MD", "-c") or a == f:
            continue
        elif a == "-I../src/hw/d2d/uapi":
            args.append("-I" + os.path.join(root, "kernel/include/uapi"))
        elif a == "-I../src/hw/d2d/ifc":
            args.append("-I" + os.path.join(root, "kernel/include"))
        elif a == "-iquote":            # sparse has no -iquote
            args.append("-I" + next(it))
        else:
            args.append(a)
    args.append(src)
    r = subprocess.run(args, capture_output=True, text=True)
    n += 1
    if r.stderr.strip():
        bad += 1
        sys.stdout.write(r.stderr)
print(f"sparse-models: {n} files checked, {bad} with findings")
sys.exit(1 if bad or n == 0 else 0)
PY
