#!/bin/bash
# tools/lint.sh - static analysis beyond the compilers' warnings (make lint):
#   gcc -fanalyzer over the QEMU device models (the compile commands of the
#   cached QEMU build, hw/d2d only), and cppcheck over userspace/.
# Prints one PASS/FAIL line per check and every finding; exits non-zero on
# any finding.  Needs make qemu first (the device models' compile commands).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$D2D_ROOT"
rc=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

build=$(cat "$D2D_CACHE/qemu/current" 2>/dev/null)
if [ ! -f "$build/compile_commands.json" ]; then
	echo "FAIL lint/analyzer: no QEMU build in $D2D_CACHE (run make qemu)"
	rc=1
else
	tools/qemu-build.sh >/dev/null 2>&1	# the device sources as in this clone
	# One command per device source: compile with -fanalyzer, output away.
	python3 - "$build/compile_commands.json" > "$tmp/cmds" <<'PY'
import json, shlex, sys
for e in json.load(open(sys.argv[1])):
    if '/hw/d2d/' not in e['file']:
        continue
    a = shlex.split(e['command'])
    if '-o' in a:
        i = a.index('-o')
        a[i + 1] = '/dev/null'
    out, skip = [], False
    for x in a:            # no dependency files: -MD, -MQ T, -MF F
        if skip:
            skip = False
        elif x in ('-MQ', '-MF'):
            skip = True
        elif x not in ('-MD', '-fdiagnostics-color=auto'):
            out.append(x)
    a = out
    a += ['-fanalyzer', '-fdiagnostics-color=never']
    print('cd %s && %s' % (shlex.quote(e['directory']), shlex.join(a)))
PY
	n=$(wc -l < "$tmp/cmds")
	# two at a time: -fanalyzer over QEMU's headers is slow per file
	xargs -d '\n' -P 2 -I{} sh -c '{} 2>&1' < "$tmp/cmds" > "$tmp/analyzer.out"
	if grep -q 'warning:\|error:' "$tmp/analyzer.out"; then
		cat "$tmp/analyzer.out"
		echo "FAIL lint/analyzer: $(grep -c 'warning:\|error:' "$tmp/analyzer.out") finding(s) in $n device sources"
		rc=1
	else
		echo "PASS lint/analyzer: gcc -fanalyzer, $n device sources, 0 findings"
	fi
fi

if ! command -v cppcheck > /dev/null; then
	echo "FAIL lint/cppcheck: cppcheck is not installed (tools/deps.sh)"
	rc=1
elif cppcheck -q --enable=warning,portability --error-exitcode=1 --inline-suppr \
	-I kernel/include/uapi -I kernel/include -I userspace/libsnic --suppress=missingIncludeSystem \
	--suppress="unknownMacro:userspace/*/*.bpf.c" \
	userspace > "$tmp/cppcheck.out" 2>&1; then
	echo "PASS lint/cppcheck: userspace, 0 findings"
else
	cat "$tmp/cppcheck.out"
	echo "FAIL lint/cppcheck: $(grep -c 'warning:\|error:' "$tmp/cppcheck.out") finding(s)"
	rc=1
fi
exit $rc
