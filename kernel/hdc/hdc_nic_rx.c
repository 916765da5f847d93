// SPDX-License-Identifier: GPL-2.0
/*
 * hdc: the engine's receive side (docs/hdc.md, "Receiving"): running a
 * receive, a request whose source is a bound UDP/IPv4 socket or a
 * connected TCP/IPv4 one (hdc_tcp_rx.c hands it over and back).  The
 * engine's striding receive queue and its CQ (rings and records in BAR4,
 * buffers in BAR2), the socket's checks and the steering rule are
 * hdc_nic.c's (the one user of snic's peer-queue API); this file only
 * calls down into it and into hdc_build.c.  While the engine's command is
 * in flight a steering rule sends the socket's flow (its local address
 * and port; the peer's too if it is connected) to the engine's RQ, so no
 * datagram of it reaches the host's stack; the engine places the payloads
 * into the file's blocks by the offset of each datagram's application
 * header (struct hdc_rx_hdr).
 *
 * One receive at a time per engine (nic.rx_lock).  It ends with the
 * command: complete, a gap (-EREMOTEIO), the timeout or a signal (the
 * driver aborts the engine's receive: -ETIMEDOUT / -EINTR), the snic
 * going away (its remove callback disables the receive queues: -ENETDOWN)
 * or the engine going away (its remove does the same first: -ENODEV).
 */
#include "hdc.h"

/* Stop the engine's receive now (timeout, signal, no rule). */
static void hdc_nic_rx_abort(struct hdc_dev *hd)
{
	down_read(&hd->gone_lock);
	if (!hd->gone)
		hdc_wr(hd, HDC_REG_NIC_RX_CTRL, HDC_NIC_RX_ABORT);
	up_read(&hd->gone_lock);
}

/*
 * Run a built receive request to its end: queue it, steer the flow to
 * the engine, wait up to @timeout_ms (0: no limit).  Returns 0 or -errno;
 * req->rx_report holds what the engine reported either way.
 */
int hdc_nic_rx_exec(struct hdc_request *req, u32 timeout_ms)
{
	struct hdc_dev *hd = req->hd;
	struct hdc_nic *nic = &hd->nic;
	long drain = msecs_to_jiffies(HDC_DRAIN_TIMEOUT_MS);
	long left, tmo = timeout_ms ? msecs_to_jiffies(timeout_ms) :
			 MAX_SCHEDULE_TIMEOUT;
	int ret, why = 0;
	bool ran = false;

	if (!mutex_trylock(&nic->rx_lock)) {
		hdc_uerr(hd, "another receive is running\n");
		hdc_build_cancel(req);
		return -EBUSY;
	}
	if (req->src_tcp) {
		/* The socket is held from here to the hand-back. */
		ret = hdc_tcp_rx_take(req);
		if (ret) {
			hdc_build_cancel(req);
			goto out;
		}
	}
	ret = hdc_build_submit(req);
	if (ret)
		goto give;
	ran = true;
	ret = hdc_nic_rx_steer(hd, &req->rx);
	if (ret) {
		hdc_uerr(hd, "cannot steer port %u to the engine: %d\n",
			 ntohs(req->rx.dst_port), ret);
		why = ret;
		hdc_nic_rx_abort(hd);
		tmo = 0;
	}
	left = tmo ? wait_for_completion_interruptible_timeout(&req->done, tmo)
		   : 0;
	if (left <= 0) {
		if (!why)
			why = left ? -EINTR : -ETIMEDOUT;
		hdc_nic_rx_abort(hd);
		left = wait_for_completion_timeout(&req->done, drain);
	}
	hdc_nic_rx_unsteer(hd);
	if (!left) {
		dev_err(&hd->pdev->dev, "receive did not stop\n");
		ret = -EIO;
		goto give;
	}
	ret = req->err;
	if (why && (!ret || ret == -ETIMEDOUT))
		ret = why;
give:
	ret = hdc_gone_err(hd, ret);
	if (req->src_tcp)
		hdc_tcp_rx_give(req, ret, ran);
out:
	mutex_unlock(&nic->rx_lock);
	return ret;
}
