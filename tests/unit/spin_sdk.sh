#!/bin/bash
# sPIN SDK and spinctl on the host: every example and test handler builds
# with sdk/spin.mk (clang-14 --target=riscv32, ld.lld-14) into an ELF that
# spinctl's own ELF reader accepts, with its entry points inside the code
# window; malformed images are refused with exit status 2, never a crash.
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
u=userspace
ok() { echo "PASS unit/spin_sdk/$1"; }
ko() { echo "FAIL unit/spin_sdk/$1: $2"; }

if make -s -C $u spin > "$tmp/build.out" 2>&1; then
	ok build
else
	ko build "$(grep -m1 -E 'error|Error' "$tmp/build.out")"
	exit 0
fi
sc=$u/build/bin/spinctl
# example: handlers it must have
while read -r ex kinds; do
	if ! out=$($sc elf "$u/build/share/spin/$ex.elf" 2>&1); then
		ko "elf_$ex" "$out"
		continue
	fi
	miss=""
	for k in $kinds; do
		echo "$out" | grep -q "^entry $k=0x10[0-9a-f]\{4\}\$" || miss="$miss $k"
	done
	if [ -n "$miss" ]; then ko "elf_$ex" "missing entry:$miss"; else ok "elf_$ex"; fi
done <<'LIST'
pingpong header
reduce header payload completion
aggregate payload completion
histogram payload completion
filtering header
kvstore header
strided payload
empty header payload completion
hostile header
order header payload completion
batched_read custom
list_walk custom
LIST

# handler instructions are RV32IMA only (no compressed, no floating point)
if ! llvm-objdump-14 -d --mattr=+m,+a "$u/build/share/spin/kvstore.elf" |
	awk -F'\t' '/^ +[0-9a-f]+:/ { if (split($1, a, " ") != 5) bad++ } END { exit bad > 0 }'; then
	ko rv32ima_only "16-bit (compressed) instructions in kvstore.elf"
else
	ok rv32ima_only
fi

e=$u/build/share/spin/reduce.elf
refuse() {	# refuse NAME FILE PATTERN
	$sc elf "$2" > "$tmp/o" 2>&1
	rc=$?
	if [ $rc = 2 ] && grep -q "$3" "$tmp/o"; then ok "$1"; else ko "$1" "status $rc: $(head -1 "$tmp/o")"; fi
}
head -c 60 $e > "$tmp/t1"
refuse refuse_truncated_header "$tmp/t1" "not an ELF file\|outside the file"
head -c 300 $e > "$tmp/t2"
refuse refuse_truncated_segments "$tmp/t2" "outside the file"
refuse refuse_x86 /bin/true "not a 32-bit"
: > "$tmp/empty"
refuse refuse_empty "$tmp/empty" "not an ELF"
# a program header table pointing far beyond the file
cp $e "$tmp/t3"
printf '\xff\xff\xff\x7f' | dd of="$tmp/t3" bs=1 seek=28 conv=notrunc 2>/dev/null
refuse refuse_bad_phoff "$tmp/t3" "outside the file"
# random bytes after a valid ELF header: no crash
for i in 1 2 3 4 5; do
	head -c 52 $e > "$tmp/r$i"
	head -c 2000 /dev/urandom >> "$tmp/r$i"
	$sc elf "$tmp/r$i" > /dev/null 2>&1
	rc=$?
	[ $rc -le 2 ] || { ko fuzz_no_crash "status $rc on random image $i"; break; }
done
[ "${rc:-0}" -le 2 ] && ok fuzz_no_crash
# an ELF without the SDK's marker
printf 'int x;\n' > "$tmp/n.c"
clang-14 --target=riscv32 -march=rv32ima -c -o "$tmp/n.o" "$tmp/n.c" &&
	ld.lld-14 -Ttext=0x100000 -e 0x100000 -o "$tmp/n.elf" "$tmp/n.o" 2>/dev/null &&
	refuse refuse_no_sdk "$tmp/n.elf" "spin_sdk_abi"
$sc --help | grep -q '^usage: spinctl' && ok help || ko help "no usage text"
