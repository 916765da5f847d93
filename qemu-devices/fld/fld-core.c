/*
 * fld: core helpers, the bottom layer - kicking the bottom half, the error
 * registers, the Unix time.  Every other file calls down into these;
 * nothing here calls another fld file.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"
#include "hw/pci/msix.h"
#include "fld.h"
#include "hw/d2d/trace.h"

/*
 * Ask for a pass of the bottom half.  The top (fld-pci.c) creates it with
 * the stream layer's fld_bh: scheduling it is all a lower layer needs.
 * In timing mode it runs from a virtual timer (d2d_timing_bh_schedule).
 */
void fld_kick(FldState *s)
{
    d2d_timing_bh_schedule(&s->timing, s->bh);
}

void fld_raise_error(FldState *s, enum fld_err err, uint32_t info,
                     const char *why)
{
    s->error = err;
    s->err_info = info;
    s->error_count++;
    D2D_GUEST_ERR(fld_error, "error %d (info 0x%x): %s", err, info, why);
    if (s->err_msix < FLD_NUM_MSIX) {
        d2d_msix_notify(&s->parent_obj, &s->pcie, s->err_msix);
    }
}

void fld_error_reset(FldState *s)
{
    s->error = FLD_ERR_NONE;
    s->error_count = 0;
    s->err_info = 0;
    s->err_msix = UINT32_MAX;
}

int64_t fld_unix_time(FldState *s)
{
    if (!s->time_set) {
        return -1;
    }
    return (qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + s->time_offset_ns) /
           NANOSECONDS_PER_SECOND;
}
