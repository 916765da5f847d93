/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers that a KUnit suite tests are static, unless the kernel has KUnit:
 * then they are visible to the suite, which is linked into the same module
 * (as <kunit/visibility.h> does in later kernels).  The suites
 * (kernel/snic/snic_ib_kunit.c, kernel/hdc/hdc_kunit.c) are built only
 * when CONFIG_KUNIT is set, and run when their module loads.
 */
#ifndef D2D_KUNIT_H
#define D2D_KUNIT_H

#if IS_ENABLED(CONFIG_KUNIT)
#define D2D_VISIBLE_IF_KUNIT
#else
#define D2D_VISIBLE_IF_KUNIT static
#endif

#endif /* D2D_KUNIT_H */
