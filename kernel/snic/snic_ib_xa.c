// SPDX-License-Identifier: GPL-2.0
/*
 * snic_ib.ko: the numbers of CQs, QPs and SRQs that the interrupt
 * handlers (completions, async events) look objects up by - publishing an
 * object, dropping it, and waiting until no handler still uses it.
 */
#include <linux/interrupt.h>
#include "snic_ib.h"

/*
 * Publish object @obj under the number @n the device has just handed out.
 * The device frees a number when it completes the object's DESTROY, a
 * moment before the destroyer drops its entry: an entry still there is
 * such a dying object's, and the number is the new object's now.  The
 * destroyer drops only its own entry (snic_ib_xa_drop), then waits for
 * the interrupt handlers (snic_ib_sync_events).
 */
int snic_ib_xa_publish(struct xarray *xa, u32 n, void *obj)
{
	return xa_err(xa_store_irq(xa, n, obj, GFP_KERNEL));
}

void snic_ib_xa_drop(struct xarray *xa, u32 n, void *obj)
{
	xa_cmpxchg_irq(xa, n, obj, NULL, 0);
}

/*
 * After an object left its xarray: wait until no interrupt handler can
 * still be using it (completion handlers, async events).
 */
void snic_ib_sync_events(struct snic_ib_dev *ibd)
{
	if (ibd->irq_on)
		synchronize_irq(ibd->irq);
	synchronize_irq(pci_irq_vector(ibd->sd->pdev, SNIC_AQ_VECTOR));
}
