/*
 * d2d device models: guest errors that are trace events too.
 *
 * Every model's trace events are in hw/d2d/trace-events (this folder's
 * parent); a model file includes "hw/d2d/trace.h" for the trace_*()
 * functions.  D2D_GUEST_ERR(ev, fmt, ...) fires trace event @ev with the
 * arguments and logs the same arguments with LOG_GUEST_ERROR (-d
 * guest_errors) as "ev: fmt", like hw/nvme's NVME_GUEST_ERR: a guest
 * error shows in the log and in a trace, whichever is on.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_D2D_COMMON_D2D_TRACE_H
#define HW_D2D_COMMON_D2D_TRACE_H

#include "qemu/log.h"

#define D2D_GUEST_ERR(ev, fmt, ...) \
    do { \
        (trace_##ev)(__VA_ARGS__); \
        qemu_log_mask(LOG_GUEST_ERROR, #ev ": " fmt "\n", ## __VA_ARGS__); \
    } while (0)

#endif
