#!/bin/bash
# The d2d Kconfig symbols (D2D, D2D_SNIC, ...), one per line, read from the
# top-level Kconfig: the one list that out-of-tree builds (Makefile,
# tests/unit/style.sh) and the in-tree check (tools/intree-check.sh) enable.
# --make prints them as "CONFIG_X=m ..." for a kbuild command line.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
syms=$(sed -n 's/^\(menu\)\{0,1\}config \(D2D[A-Z0-9_]*\)$/\2/p' "$here/Kconfig")
[ -n "$syms" ] || { echo "kconfig-symbols: no D2D symbols in $here/Kconfig" >&2; exit 1; }
if [ "${1:-}" = --make ]; then
	printf 'CONFIG_%s=m ' $syms
	echo
else
	printf '%s\n' $syms
fi
