// SPDX-License-Identifier: GPL-2.0
/*
 * snic sPIN event notification: one EQ for every sPIN context of the
 * device.  After writing an event to a context's ring the device posts
 * SNIC_EQE_SPIN_EVENT (obj = context) to this EQ; the EQ shares MSI-X
 * vector 0 with the admin queue and the async EQ, and its interrupt wakes
 * the wait queue of the file owning the context, so poll()/select() on
 * /dev/snic-spinN returns as soon as a handler is aborted or a message
 * times out.  The events themselves stay on the context's ring until the
 * owner takes them (SNIC_SPIN_IOC_EVENTS).
 *
 * A full EQ drops EQEs on the device (counted there), never events: the
 * ring entry is written before its EQE, and each EQ drain wakes the
 * readers, who then empty the whole ring.
 */
#include <linux/interrupt.h>
#include "snic_spin_state.h"

#define SNIC_SPIN_EQ_LOG	8

int snic_spin_eq_init(struct snic_spin *sp)
{
	struct snic_dev *sd = sp->sd;
	int page, ret;

	page = snic_db_page_alloc(sd);
	if (page < 0)
		return page;
	ret = snic_eq_create(sd, &sp->eq, SNIC_SPIN_EQ_LOG, SNIC_AQ_VECTOR,
			     page);
	if (ret) {
		snic_db_page_free(sd, page);
		return ret;
	}
	/* Publish to the interrupt handler, then arm. */
	smp_store_release(&sp->eq_on, true);
	snic_eq_arm(sd, &sp->eq);
	return 0;
}

/* After every context is destroyed (they hold references to the EQ). */
void snic_spin_eq_cleanup(struct snic_spin *sp)
{
	struct snic_dev *sd = sp->sd;
	int page = sp->eq.db_page;

	if (!sp->eq_on)
		return;
	WRITE_ONCE(sp->eq_on, false);
	synchronize_irq(pci_irq_vector(sd->pdev, SNIC_AQ_VECTOR));
	snic_eq_destroy(sd, &sp->eq);
	snic_db_page_free(sd, page);
}

/* Who gets woken for context @c's events: set at create, cleared before destroy. */
void snic_spin_ev_owner(struct snic_spin *sp, struct snic_spin_ctx *c,
			bool set)
{
	unsigned long flags;

	if (c->id >= SNIC_SPIN_MAX_CTXS)
		return;
	spin_lock_irqsave(&sp->ev_lock, flags);
	sp->owner[c->id] = set ? c : NULL;
	spin_unlock_irqrestore(&sp->ev_lock, flags);
}

static void snic_spin_ev_eqe(struct snic_spin *sp, struct snic_eqe *eqe)
{
	u32 id = le32_to_cpu(eqe->obj);
	struct snic_spin_ctx *c;

	if (eqe->type != SNIC_EQE_SPIN_EVENT || id >= SNIC_SPIN_MAX_CTXS) {
		sp->ev_stray++;
		dev_warn_ratelimited(&sp->sd->pdev->dev,
				     "sPIN: unexpected EQE type %u obj %u\n",
				     eqe->type, id);
		return;
	}
	sp->ev_eqes++;
	c = sp->owner[id];
	if (!c) {
		sp->ev_stray++;	/* destroyed meanwhile */
		return;
	}
	c->ev_notifies++;
	wake_up_interruptible(&c->owner->wq);
}

/* From the admin interrupt handler (vector 0). */
bool snic_spin_eq_poll(struct snic_dev *sd)
{
	struct snic_spin *sp = READ_ONCE(sd->spin);
	struct snic_eqe *eqe;
	int n = 0;

	/* Pairs with the release in snic_spin_eq_init(). */
	if (!sp || !smp_load_acquire(&sp->eq_on))
		return false;
	spin_lock(&sp->ev_lock);
	/* Re-check after arming: an EQE written before the arm raised no IRQ. */
	do {
		while ((eqe = snic_eq_next(&sp->eq))) {
			snic_spin_ev_eqe(sp, eqe);
			sp->eq.cons++;
			n++;
		}
		if (!n)
			break;
		snic_eq_arm(sd, &sp->eq);
	} while (snic_eq_next(&sp->eq));
	if (n)
		sp->ev_irqs++;
	spin_unlock(&sp->ev_lock);
	return n > 0;
}
