/*
 * fldctl: look at and configure a FlexDriver endpoint through fld.ko's
 * sysfs attributes (docs/fld.md).
 *
 *   fldctl [-d PCI-ADDR] show        accelerator, queues, pools, errors
 *   fldctl [-d PCI-ADDR] stats       every device counter
 *   fldctl [-d PCI-ADDR] mem         memory table: FLD vs a conventional
 *                                    driver, and what this device holds
 *   fldctl [-d PCI-ADDR] flow udp PORT   steer UDP PORT to FLD-E (0: none)
 *   fldctl [-d PCI-ADDR] flow vxlan VNI  decapsulate VXLAN VNI to FLD-E
 *                                    (defrag's input; 0: none)
 *   fldctl [-d PCI-ADDR] get STAT    one counter's value (for scripts)
 *   fldctl [-d PCI-ADDR] nic         snic's counters of FLD-E's queues
 *   fldctl [-d PCI-ADDR] key TENANT HEX|-   set (or remove) an accelerator
 *                                    key (iotauth: the tenant's HMAC key;
 *                                    TENANT is the steering flow tag)
 *   fldctl [-d PCI-ADDR] tenants     per FLD-E tenant (fld.ko tenants=N):
 *                                    port, tag, rate, FLD admission and
 *                                    snic queue counters
 *   fldctl [-d PCI-ADDR] rate TENANT BPS   rate limit tenant TENANT's
 *                                    send queue (bits/s, 0: none)
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYS_DRV "/sys/bus/pci/drivers/fld"

static char devdir[512];

static int find_dev(const char *want)
{
	DIR *d = opendir(SYS_DRV);
	struct dirent *e;
	int found = 0;

	if (!d) {
		fprintf(stderr, "fldctl: %s: %s (is fld.ko loaded?)\n", SYS_DRV,
			strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "0000:", 5) ||
		    (want && strcmp(e->d_name, want)))
			continue;
		snprintf(devdir, sizeof(devdir), SYS_DRV "/%s", e->d_name);
		found = 1;
		break;
	}
	closedir(d);
	if (!found) {
		fprintf(stderr, "fldctl: no fld device%s%s\n", want ? " " : "",
			want ? want : "");
		return -1;
	}
	return 0;
}

/* Opens attribute @name (its path left in @path); NULL, said, on error. */
static FILE *open_attr(const char *name, const char *mode, char *path,
		       size_t size)
{
	FILE *f;

	snprintf(path, size, "%s/%s", devdir, name);
	f = fopen(path, mode);
	if (!f)
		fprintf(stderr, "fldctl: %s: %s\n", path, strerror(errno));
	return f;
}

/* Reads attribute @name into @buf; returns bytes or -1. */
static int read_attr(const char *name, char *buf, size_t len)
{
	char path[600];
	FILE *f;
	size_t n;

	f = open_attr(name, "r", path, sizeof(path));
	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	fclose(f);
	return (int)n;
}

static int write_attr(const char *name, const char *val)
{
	char path[600];
	FILE *f;
	int ok;

	f = open_attr(name, "w", path, sizeof(path));
	if (!f)
		return -1;
	ok = fputs(val, f) >= 0;
	if (fclose(f) || !ok) {
		fprintf(stderr, "fldctl: writing %s to %s: %s\n", val, path,
			strerror(errno));
		return -1;
	}
	return 0;
}

static int cat_attr(const char *name)
{
	char buf[8192];

	if (read_attr(name, buf, sizeof(buf)) < 0)
		return 1;
	fputs(buf, stdout);
	return 0;
}

/* "12345" bytes as B, KiB or MiB with one decimal. */
static const char *human(unsigned long long b, char *out, size_t len)
{
	if (b >= 1024ull * 1024)
		snprintf(out, len, "%.1f MiB", b / 1048576.0);
	else if (b >= 1024)
		snprintf(out, len, "%.1f KiB", b / 1024.0);
	else
		snprintf(out, len, "%llu B", b);
	return out;
}

static int cmd_mem(void)
{
	char buf[4096], *line, *save = NULL;
	unsigned long long fld_total = 0, conv_total = 0;

	if (read_attr("mem_table", buf, sizeof(buf)) < 0)
		return 1;
	printf("%-18s %14s %14s %14s\n", "structure", "fld", "conventional",
	       "allocated");
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[64], a[32], b[32], c[32];
		unsigned long long f, v, h;

		if (sscanf(line, "%63s %llu %llu %llu", name, &f, &v, &h) != 4)
			continue;
		printf("%-18s %14s %14s %14s\n", name, human(f, a, sizeof(a)),
		       human(v, b, sizeof(b)), human(h, c, sizeof(c)));
		if (!strcmp(name, "total")) {
			fld_total = f;
			conv_total = v;
		}
	}
	if (fld_total)
		printf("ratio conventional/fld: x%.1f\n",
		       (double)conv_total / fld_total);
	return 0;
}

static int cmd_get(const char *stat)
{
	char buf[8192], *line, *save = NULL;
	size_t n = strlen(stat);

	if (read_attr("stats", buf, sizeof(buf)) < 0)
		return 1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, stat, n) && line[n] == ' ') {
			puts(line + n + 1);
			return 0;
		}
	}
	fprintf(stderr, "fldctl: no counter %s\n", stat);
	return 1;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: fldctl [-d PCI-ADDR] show | stats | mem | errors | nic |\n"
		"              flow udp PORT | flow vxlan VNI | get STAT | key TENANT HEX|- |\n"
		"              tenants | rate TENANT BPS\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *want = NULL;
	int i = 1;

	if (argc > 2 && !strcmp(argv[1], "-d")) {
		want = argv[2];
		i = 3;
	}
	if (i >= argc)
		return usage();
	if (find_dev(want))
		return 1;
	if (!strcmp(argv[i], "show")) {
		printf("device %s\n", strrchr(devdir, '/') + 1);
		return cat_attr("accel") || cat_attr("queues") ||
		       cat_attr("errors");
	}
	if (!strcmp(argv[i], "stats"))
		return cat_attr("stats");
	if (!strcmp(argv[i], "errors"))
		return cat_attr("errors");
	if (!strcmp(argv[i], "nic"))
		return cat_attr("nic_stats");
	if (!strcmp(argv[i], "tenants"))
		return cat_attr("tenants");
	if (!strcmp(argv[i], "rate") && i + 2 < argc) {
		char val[64], *end;
		unsigned long t = strtoul(argv[i + 1], &end, 0);
		unsigned long long bps;

		if (*end || t > 255) {
			fprintf(stderr, "fldctl: bad tenant %s\n", argv[i + 1]);
			return 2;
		}
		bps = strtoull(argv[i + 2], &end, 0);
		if (*end || argv[i + 2][0] == '-') {
			fprintf(stderr, "fldctl: bad rate %s\n", argv[i + 2]);
			return 2;
		}
		snprintf(val, sizeof(val), "%lu %llu", t, bps);
		return write_attr("rate", val) ? 1 : 0;
	}
	if (!strcmp(argv[i], "key") && i + 2 < argc) {
		char val[300];

		if (strlen(argv[i + 2]) > 200) {
			fprintf(stderr, "fldctl: key too long\n");
			return 2;
		}
		snprintf(val, sizeof(val), "%s %s", argv[i + 1], argv[i + 2]);
		return write_attr("key", val) ? 1 : 0;
	}
	if (!strcmp(argv[i], "mem"))
		return cmd_mem();
	if (!strcmp(argv[i], "get") && i + 1 < argc)
		return cmd_get(argv[i + 1]);
	if (!strcmp(argv[i], "flow") && i + 2 < argc &&
	    !strcmp(argv[i + 1], "udp")) {
		char *end;
		long port = strtol(argv[i + 2], &end, 0);

		if (*end || port < 0 || port > 65535) {
			fprintf(stderr, "fldctl: bad port %s\n", argv[i + 2]);
			return 2;
		}
		return write_attr("udp_port", argv[i + 2]) ? 1 : 0;
	}
	if (!strcmp(argv[i], "flow") && i + 2 < argc &&
	    !strcmp(argv[i + 1], "vxlan")) {
		char *end;
		long vni = strtol(argv[i + 2], &end, 0);

		if (*end || vni < 0 || vni >= 1L << 24) {
			fprintf(stderr, "fldctl: bad VNI %s\n", argv[i + 2]);
			return 2;
		}
		return write_attr("vxlan_vni", argv[i + 2]) ? 1 : 0;
	}
	return usage();
}
