#!/bin/bash
# tools/mkdisk.sh - build the raw ext4 image the hdc tests and benchmark put
# on the engine's SSD (tools/vm --hdc IMAGE) and print its path.
#
# mkfs.ext4 -d fills the file system from a directory: no root, no loop
# device.  The image is cached as $D2D_CACHE/disk/hdc-<hash of this
# script>.img, so a change here builds a new one.  Files (in /t, 4 KiB
# blocks; tests/guest/hdc_*.sh know them):
#   empty one 4k 4097 65549 1m1   0 B, 1 B, 4 KiB and unaligned sizes
#   big                           100 MiB of pseudo-random bytes
#   sparse                        3 MiB + 100 B: data, holes, data, hole
#   zeros                         64 KiB of zeros (mkfs makes it a hole)
#   text                          1 MiB of compressible text
#   abc 123456789                 known-answer inputs
#   nist-pt                       NIST SP 800-38A F.5.5 plaintext (64 B)
# A fragmented file cannot be made here (mkfs -d writes contiguously):
# the tests make one in the guest.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SIZE=${HDC_DISK_SIZE:-1G}
key=$( (cat "$0"; echo "$SIZE") | sha256sum | cut -c1-12)
dir="$D2D_CACHE/disk"
img="$dir/hdc-$key.img"
if [ -f "$img" ]; then
	echo "$img"
	exit 0
fi
command -v mkfs.ext4 >/dev/null || PATH=$PATH:/usr/sbin:/sbin
command -v mkfs.ext4 >/dev/null || die "mkdisk: mkfs.ext4 missing (run tools/deps.sh)"
mkdir -p "$dir"
tmp=$(mktemp -d /tmp/d2d-mkdisk.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/root/t"
log "mkdisk: building $img ($SIZE)"

/usr/bin/python3 - "$tmp/root/t" <<'PY'
import os, random, sys
d = sys.argv[1]
rnd = random.Random(0xd2d)

def put(name, data):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)

put("empty", b"")
put("one", b"x")
put("4k", rnd.randbytes(4096))
put("4097", rnd.randbytes(4097))
put("65549", rnd.randbytes(65549))
put("1m1", rnd.randbytes((1 << 20) + 1))
put("abc", b"abc")
put("123456789", b"123456789")
put("zeros", bytes(65536))
put("nist-pt", bytes.fromhex(
    "6bc1bee22e409f96e93d7e117393172a"
    "ae2d8a571e03ac9c9eb76fac45af8e51"
    "30c81c46a35ce411e5fbc1191a0a52ef"
    "f69f2445df4f9b17ad2b417be66c3710"))
words = [b"engine", b"device", b"queue", b"scoreboard", b"nvme", b"extent",
         b"digest", b"deflate", b"peer", b"doorbell"]
text = bytearray()
while len(text) < (1 << 20):
    text += b" ".join(rnd.choice(words) for _ in range(12)) + b"\n"
put("text", bytes(text[:1 << 20]))
# data at 0 (8 KiB), 1 MiB + 4 KiB (4 KiB), 2 MiB + 123 (5000 B); a hole
# at the end up to 3 MiB + 100
with open(os.path.join(d, "sparse"), "wb") as f:
    for off, n in ((0, 8192), ((1 << 20) + 4096, 4096), ((2 << 20) + 123, 5000)):
        f.seek(off)
        f.write(rnd.randbytes(n))
    f.truncate((3 << 20) + 100)
with open(os.path.join(d, "big"), "wb") as f:
    for _ in range(100):
        f.write(rnd.randbytes(1 << 20))
PY
(cd "$tmp/root/t" && md5sum ./* > ../MD5SUMS && sha256sum ./* > ../SHA256SUMS)
truncate -s "$SIZE" "$tmp/disk.img"
mkfs.ext4 -q -F -b 4096 -L d2dssd -E nodiscard -d "$tmp/root" "$tmp/disk.img"
mv "$tmp/disk.img" "$img"
log "mkdisk: $(du -h "$img" | cut -f1) used"
echo "$img"
