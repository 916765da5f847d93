/*
 * insn-meter: a QEMU TCG plugin that counts guest instructions.
 *
 * A guest marks a point by executing the 8-byte no-op
 *     0f 1f 84 00 44 32 44 ID      (nopl 0xID443244(%rax,%rax,1))
 * (tools/insn-meter/insn-mark.c does this for a given ID).  At each mark the
 * plugin appends "mark ID COUNT" to the file named by out=FILE, where COUNT
 * is the number of guest instructions executed by all vCPUs so far.  At exit
 * it appends "total COUNT".  Instruction counts are deterministic in a way
 * that wall-clock time under TCG on a shared host is not.
 *
 * Usage: -plugin libinsn-meter.so,out=/path/to/file
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static const uint8_t mark_prefix[7] = { 0x0f, 0x1f, 0x84, 0x00, 0x44, 0x32, 0x44 };

static uint64_t insn_count;
static FILE *out;
static GMutex out_lock;

static void tb_exec(unsigned int vcpu_index, void *udata)
{
    __atomic_fetch_add(&insn_count, (uint64_t)(uintptr_t)udata,
                       __ATOMIC_RELAXED);
}

static void mark_exec(unsigned int vcpu_index, void *udata)
{
    g_mutex_lock(&out_lock);
    fprintf(out, "mark %u %" PRIu64 "\n", (unsigned)(uintptr_t)udata,
            __atomic_load_n(&insn_count, __ATOMIC_RELAXED));
    fflush(out);
    g_mutex_unlock(&out_lock);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    size_t n = qemu_plugin_tb_n_insns(tb);
    size_t i;

    qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
                                         (void *)(uintptr_t)n);
    for (i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        const uint8_t *data = qemu_plugin_insn_data(insn);

        if (qemu_plugin_insn_size(insn) == 8 &&
            memcmp(data, mark_prefix, sizeof(mark_prefix)) == 0) {
            qemu_plugin_register_vcpu_insn_exec_cb(
                insn, mark_exec, QEMU_PLUGIN_CB_NO_REGS,
                (void *)(uintptr_t)data[7]);
        }
    }
}

static void plugin_exit(qemu_plugin_id_t id, void *p)
{
    g_mutex_lock(&out_lock);
    fprintf(out, "total %" PRIu64 "\n", insn_count);
    fclose(out);
    out = NULL;
    g_mutex_unlock(&out_lock);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
                                           const qemu_info_t *info,
                                           int argc, char **argv)
{
    const char *path = NULL;
    int i;

    for (i = 0; i < argc; i++) {
        if (strncmp(argv[i], "out=", 4) == 0) {
            path = argv[i] + 4;
        } else {
            fprintf(stderr, "insn-meter: unknown argument '%s'\n", argv[i]);
            return -1;
        }
    }
    if (!path) {
        fprintf(stderr, "insn-meter: missing out=FILE\n");
        return -1;
    }
    out = fopen(path, "w");
    if (!out) {
        fprintf(stderr, "insn-meter: cannot open '%s'\n", path);
        return -1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
    return 0;
}
