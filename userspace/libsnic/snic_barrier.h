/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The provider's memory barriers, named and defined as rdma-core's
 * util/udma_barrier.h defines them for its providers:
 *
 * udma_to_device_barrier()    Stores to memory the device reads by DMA
 *                             (WQEs, doorbell records) are visible to it
 *                             before any later store: memory or MMIO.
 *                             Between a WQE and its record, and between
 *                             the record and the doorbell.
 * udma_from_device_barrier()  Loads of memory the device writes by DMA
 *                             (a CQE's body) are not satisfied before an
 *                             earlier load (its owner bit) and complete
 *                             before any later load or store (handing the
 *                             slot back).
 * mmio_flush_writes()         MMIO stores issued so far (a doorbell) leave
 *                             the CPU: write-combining buffers are flushed.
 * mmio_wc_start()             Before a run of stores to write-combining
 *                             MMIO that must not pass earlier stores.
 *
 * A compiler barrier alone is not a device barrier on weakly ordered
 * CPUs, and neither is __atomic_thread_fence: on arm64 it is "dmb ish",
 * which orders only the inner shareable domain a device is not part of.
 * Every architecture here therefore has its own instructions, and any
 * other one stops the build.
 */
#ifndef LIBSNIC_SNIC_BARRIER_H
#define LIBSNIC_SNIC_BARRIER_H

#if defined(__x86_64__) || defined(__i386__)
/*
 * x86 (TSO): stores are seen in program order and loads are not reordered
 * with other loads or later stores, so the compiler is the only one to
 * stop.  sfence drains write-combining buffers.
 */
#define udma_to_device_barrier()	asm volatile("" ::: "memory")
#define udma_from_device_barrier()	asm volatile("" ::: "memory")
#define mmio_flush_writes()		asm volatile("sfence" ::: "memory")
#elif defined(__aarch64__)
/* Full-system data synchronisation barriers, as rdma-core uses. */
#define udma_to_device_barrier()	asm volatile("dsb st" ::: "memory")
#define udma_from_device_barrier()	asm volatile("dsb ld" ::: "memory")
#define mmio_flush_writes()		asm volatile("dsb st" ::: "memory")
#elif defined(__powerpc64__)
#define udma_to_device_barrier()	asm volatile("sync" ::: "memory")
#define udma_from_device_barrier()	asm volatile("lwsync" ::: "memory")
#define mmio_flush_writes()		asm volatile("sync" ::: "memory")
#elif defined(__riscv)
/* Fences naming the device input/output set as well as memory. */
#define udma_to_device_barrier()	asm volatile("fence ow,ow" ::: "memory")
#define udma_from_device_barrier()	asm volatile("fence ir,iorw" ::: "memory")
#define mmio_flush_writes()		asm volatile("fence ow,ow" ::: "memory")
#else
#error "libsnic: no device memory barriers for this architecture (snic_barrier.h)"
#endif

#define mmio_wc_start()			mmio_flush_writes()

#endif /* LIBSNIC_SNIC_BARRIER_H */
