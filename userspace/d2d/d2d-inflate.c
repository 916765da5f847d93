// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * d2d-inflate - inflate a zlib (RFC 1950) stream from standard input to
 * standard output, checking its Adler-32.  The guest image has no tool
 * that reads raw zlib streams; the hdc tests use this one to check the
 * engine's deflate output.  Exit status: 0 ok, 1 bad or truncated stream,
 * 2 usage.
 */
#include <stdio.h>
#include <string.h>
#include <zlib.h>

int main(int argc, char **argv)
{
	static unsigned char in[1 << 16], out[1 << 16];
	z_stream zs;
	int ret = Z_OK;

	if (argc > 1) {
		fprintf(stderr, "usage: d2d-inflate < ZLIB-STREAM > DATA\n");
		return strcmp(argv[1], "-h") && strcmp(argv[1], "--help") ? 2 : 0;
	}
	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK)
		return 1;
	while (ret != Z_STREAM_END) {
		zs.avail_in = fread(in, 1, sizeof(in), stdin);
		if (!zs.avail_in)
			break;
		zs.next_in = in;
		do {
			zs.avail_out = sizeof(out);
			zs.next_out = out;
			ret = inflate(&zs, Z_NO_FLUSH);
			if (ret != Z_OK && ret != Z_STREAM_END && ret != Z_BUF_ERROR) {
				fprintf(stderr, "d2d-inflate: %s\n",
					zs.msg ? zs.msg : "bad stream");
				return 1;
			}
			fwrite(out, 1, sizeof(out) - zs.avail_out, stdout);
		} while (zs.avail_out == 0 && ret != Z_STREAM_END);
	}
	inflateEnd(&zs);
	if (ret != Z_STREAM_END) {
		fprintf(stderr, "d2d-inflate: truncated stream\n");
		return 1;
	}
	if (zs.avail_in || fread(in, 1, 1, stdin)) {
		fprintf(stderr, "d2d-inflate: data after the stream\n");
		return 1;
	}
	return fflush(stdout) ? 1 : 0;
}
