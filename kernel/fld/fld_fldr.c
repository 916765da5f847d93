// SPDX-License-Identifier: GPL-2.0
/*
 * fld.ko: FLD-R - RC QPs of a snic whose send ring, receive ring,
 * doorbell record and completion ring are windows of FLD's BAR2, so that
 * the zuc accelerator takes requests as RDMA SENDs and answers by SEND
 * without the host CPU.  The host is an ordinary rdma_cm server: it
 * listens on a port (module parameter / sysfs rdma_port) of every IPv4
 * address, and for a connection request to the snic it takes a free FLD
 * QP slot, creates the snic QP on that slot's windows through snic's peer
 * QP API, moves it INIT -> RTR -> RTS with the attributes
 * rdma_init_qp_attr() gives (as rdma_cm itself does for kernel QPs
 * before it sends the reply) and accepts with the QP's number.  A
 * disconnect (or a failed connection) destroys the QP and frees the slot.
 *
 * Locking: fd->lock guards the slots.  rdma_cm handlers take it; ids are
 * destroyed either by their handler returning non-zero (the handler owns
 * the id) or by fld_fldr_stop() after it took the id out of its slot
 * under the lock, never both.
 */
#include <linux/inet.h>
#include <rdma/rdma_cm.h>
#include "fld.h"

static u64 fldr_win(struct fld_dev *fd, u32 off)
{
	return fd->win_bus + off;
}

/* Frees slot @c: its snic QP and FLD slots; the id is the caller's. */
static void fldr_conn_free(struct fld_dev *fd, struct fld_fldr_conn *c)
{
	struct fld_fldr *r = &fd->r;
	u32 slot = c - r->conns;

	if (c->have_qp) {
		snic_peer_destroy_qp(r->snic, c->qpn);
		fld_cmd(fd, FLD_CMD_QP_CLEAR, &slot, 1, NULL);
	}
	c->have_qp = false;
	c->established = false;
	c->id = NULL;
}

/* rdma_init_qp_attr() for @state, then snic's MODIFY_QP. */
static int fldr_qp_to(struct fld_fldr *r, struct fld_fldr_conn *c,
		      enum ib_qp_state state, u8 resp_res)
{
	struct ib_qp_attr a = {};
	int mask, ret;

	a.qp_state = state;
	ret = rdma_init_qp_attr(c->id, &a, &mask);
	if (ret)
		return ret;
	if (state == IB_QPS_RTR)
		a.max_dest_rd_atomic = resp_res;
	if (state == IB_QPS_RTS)
		a.max_rd_atomic = 0;	/* FLD only SENDs */
	return snic_peer_modify_qp(r->snic, c->qpn, &a, mask);
}

/* A connection request on the listener: a QP slot, the QP, accept. */
static int fldr_connect(struct fld_dev *fd, struct rdma_cm_id *id,
			const struct rdma_conn_param *req)
{
	struct fld_fldr *r = &fd->r;
	struct snic_peer_qp_attr qa = {};
	struct rdma_conn_param cp = {};
	struct snic_peer_qp qp;
	struct fld_fldr_conn *c = NULL;
	u32 a[8], slot, rq_off;
	u64 page;
	int ret;

	/* a non-zero return makes the CM reject and destroy the new id */
	if (!r->up || id->device != snic_peer_ib_device(r->snic)) {
		r->rejects++;
		return -ECONNREFUSED;
	}
	for (slot = 0; slot < FLDR_MAX_CONNS; slot++) {
		if (!r->conns[slot].id && !r->conns[slot].have_qp) {
			c = &r->conns[slot];
			break;
		}
	}
	if (!c) {
		r->rejects++;
		return -EBUSY;
	}
	c->id = id;
	memcpy(&c->peer, &id->route.addr.dst_addr, sizeof(c->peer));
	/* FLD slots first: snic probes the rings when it creates the QP. */
	a[0] = slot; a[1] = FLDR_SQ_SLOT(slot); a[2] = FLDR_SQ_LOG;
	a[3] = FLDR_RQ_LOG; a[4] = FLDR_CQ_SLOT; a[5] = 0; a[6] = 0;
	a[7] = 0;
	ret = fld_cmd(fd, FLD_CMD_QP_SET, a, 8, &rq_off);
	if (ret)
		goto err;
	qa.sq_bus = fldr_win(fd, FLD_WIN_SQ +
			     FLDR_SQ_SLOT(slot) * FLD_SQ_WIN_SIZE);
	qa.rq_bus = fldr_win(fd, rq_off);
	qa.dbr_bus = fldr_win(fd, FLD_WIN_DBR + FLD_DBR_QP + 8 * slot);
	qa.sq_log = FLDR_SQ_LOG;
	qa.rq_log = FLDR_RQ_LOG;
	qa.rq_log_stride = FLD_QP_RQ_LOG_STRIDE;
	qa.send_cqn = r->cq.qn;
	qa.recv_cqn = r->cq.qn;
	ret = snic_peer_create_qp(r->snic, &qa, &qp);
	if (ret) {
		fld_cmd(fd, FLD_CMD_QP_CLEAR, &slot, 1, NULL);
		goto err;
	}
	c->have_qp = true;
	c->qpn = qp.qpn;
	/* FLD rings SNIC_DB_QP_SQ / _RQ on the QP's own doorbell page. */
	page = qp.db_page_bus;
	a[0] = FLD_BIND_QP; a[1] = slot; a[2] = qp.qpn;
	a[3] = lower_32_bits(page); a[4] = upper_32_bits(page);
	ret = fld_cmd(fd, FLD_CMD_BIND, a, 5, NULL);
	if (ret)
		goto err;
	cp.responder_resources = min_t(u8, req->initiator_depth, 4);
	cp.initiator_depth = 0;
	cp.rnr_retry_count = 7;
	cp.qp_num = qp.qpn;
	ret = fldr_qp_to(r, c, IB_QPS_INIT, 0);
	if (!ret)
		ret = fldr_qp_to(r, c, IB_QPS_RTR, cp.responder_resources);
	if (!ret)
		ret = fldr_qp_to(r, c, IB_QPS_RTS, 0);
	if (ret)
		goto err;
	id->context = c;
	ret = rdma_accept(id, &cp);
	if (ret) {
		id->context = &r->lconn;
		goto err;
	}
	r->accepts++;
	dev_info(&fd->pdev->dev, "FLD-R: %pISpc on qp slot %u (snic qpn %u)\n",
		 (struct sockaddr *)&c->peer, slot, c->qpn);
	return 0;
err:
	dev_warn(&fd->pdev->dev, "FLD-R: connection from %pISpc refused: %d\n",
		 (struct sockaddr *)&id->route.addr.dst_addr, ret);
	fldr_conn_free(fd, c);
	r->rejects++;
	return ret;
}

static int fldr_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct fld_fldr_conn *c = id->context;
	struct fld_dev *fd = c->fd;
	struct fld_fldr *r = &fd->r;
	int ret = 0;

	mutex_lock(&fd->lock);
	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		/* a new id (context: the listener's); non-zero destroys it */
		ret = fldr_connect(fd, id, &ev->param.conn);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (c != &r->lconn && c->id == id)
			c->established = true;
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		if (c == &r->lconn && r->listen == id) {
			r->listen = NULL;	/* destroyed on return */
			ret = 1;
			break;
		}
		fallthrough;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		/* still ours (fld_fldr_stop() did not take it): free it */
		if (c != &r->lconn && c->id == id) {
			dev_info(&fd->pdev->dev, "FLD-R: %pISpc gone (event %d)\n",
				 (struct sockaddr *)&c->peer, ev->event);
			fldr_conn_free(fd, c);
			ret = 1;
		}
		break;
	default:
		break;
	}
	mutex_unlock(&fd->lock);
	return ret;
}

static int fldr_listen(struct fld_dev *fd, u16 port)
{
	struct fld_fldr *r = &fd->r;
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_ANY),
		.sin_port = htons(port),
	};
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, fldr_handler, &r->lconn, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	ret = rdma_bind_addr(id, (struct sockaddr *)&sin);
	if (!ret)
		ret = rdma_listen(id, FLDR_MAX_CONNS);
	if (ret) {
		rdma_destroy_id(id);
		return ret;
	}
	r->listen = id;
	r->port = port;
	return 0;
}

/* Stops listening and drops every connection; called with fd->lock. */
void fld_fldr_stop(struct fld_dev *fd)
{
	struct fld_fldr *r = &fd->r;
	struct rdma_cm_id *ids[FLDR_MAX_CONNS + 1];
	u32 slot = FLDR_CQ_SLOT;
	int i, n = 0;

	lockdep_assert_held(&fd->lock);
	r->up = false;
	if (r->listen)
		ids[n++] = r->listen;
	r->listen = NULL;
	for (i = 0; i < FLDR_MAX_CONNS; i++) {
		if (r->conns[i].id)
			ids[n++] = r->conns[i].id;
		r->conns[i].id = NULL;
	}
	/* handlers wait for the lock; rdma_destroy_id() waits for them */
	mutex_unlock(&fd->lock);
	for (i = 0; i < n; i++)
		rdma_destroy_id(ids[i]);
	mutex_lock(&fd->lock);
	for (i = 0; i < FLDR_MAX_CONNS; i++)
		fldr_conn_free(fd, &r->conns[i]);
	if (r->snic && r->cq.qn != FLD_QN_NONE)
		snic_peer_destroy_cq(r->snic, r->cq.qn);
	r->cq.qn = FLD_QN_NONE;
	if (r->have_cq_slot)
		fld_cmd(fd, FLD_CMD_CQ_CLEAR, &slot, 1, NULL);
	r->have_cq_slot = false;
	r->port = 0;
	r->snic = NULL;
}

/*
 * FLD-R on fd->snic, the snic FLD-E uses: one FLD CQ slot and its snic CQ
 * for every QP, then the listener on @port (0: none).  Only the zuc
 * accelerator serves RDMA messages.
 */
int fld_fldr_start(struct fld_dev *fd, u16 port)
{
	struct fld_fldr *r = &fd->r;
	struct snic_peer_cq_attr ca = {};
	u32 a[3], off;
	int i, ret;

	lockdep_assert_held(&fd->lock);
	r->lconn.fd = fd;
	for (i = 0; i < FLDR_MAX_CONNS; i++)
		r->conns[i].fd = fd;
	r->cq.qn = FLD_QN_NONE;
	if (!port || fld_rd(fd, FLD_REG_ACCEL) != FLD_ACCEL_ZUC ||
	    !(fld_rd(fd, FLD_REG_CAPS) & FLD_CAP_RDMA))
		return 0;
	r->snic = fd->snic;
	if (!r->snic)
		return -ENODEV;
	if (!snic_peer_ib_device(r->snic))
		return -EOPNOTSUPP;
	a[0] = FLDR_CQ_SLOT; a[1] = FLD_QN_NONE; a[2] = FLDR_CQ_LOG;
	ret = fld_cmd(fd, FLD_CMD_CQ_SET, a, 3, &off);
	if (ret)
		return ret;
	r->have_cq_slot = true;
	ca.ring_bus = fldr_win(fd, off);
	ca.dbr_bus = fldr_win(fd, FLD_WIN_DBR + FLD_DBR_CQ + 4 * FLDR_CQ_SLOT);
	ca.log_size = FLDR_CQ_LOG;
	ret = snic_peer_create_cq(r->snic, &ca, &r->cq);
	if (ret)
		goto err;
	a[0] = FLD_BIND_CQ; a[1] = FLDR_CQ_SLOT; a[2] = r->cq.qn;
	ret = fld_cmd(fd, FLD_CMD_BIND, a, 3, NULL);
	if (ret)
		goto err;
	ret = fldr_listen(fd, port);
	if (ret)
		goto err;
	r->up = true;
	dev_info(&fd->pdev->dev, "FLD-R: listening on RDMA port %u, snic cq %u\n",
		 port, r->cq.qn);
	return 0;
err:
	fld_fldr_stop(fd);
	return ret;
}

int fld_fldr_set_port(struct fld_dev *fd, u16 port)
{
	lockdep_assert_held(&fd->lock);
	if (port && fld_rd(fd, FLD_REG_ACCEL) != FLD_ACCEL_ZUC)
		return -EOPNOTSUPP;
	fld_fldr_stop(fd);
	return fld_fldr_start(fd, port);
}

int fld_fldr_show(struct fld_dev *fd, char *buf, int n)
{
	struct fld_fldr *r = &fd->r;
	int i;

	lockdep_assert_held(&fd->lock);
	if (!r->up)
		return n + sysfs_emit_at(buf, n, "fldr down\n");
	n += sysfs_emit_at(buf, n,
			   "fldr rdma_port %u snic_cq %u accepts %llu rejects %llu\n",
			   r->port, r->cq.qn, r->accepts, r->rejects);
	for (i = 0; i < FLDR_MAX_CONNS; i++) {
		struct fld_fldr_conn *c = &r->conns[i];
		u32 descs, bytes;

		if (!c->have_qp)
			continue;
		fld_sq_credits(fd, FLDR_SQ_SLOT(i), &descs, &bytes);
		n += sysfs_emit_at(buf, n,
				   "fldr_qp %d snic_qpn %u peer %pISpc %s credits descs %u bytes %u\n",
				   i, c->qpn, (struct sockaddr *)&c->peer,
				   c->established ? "established" : "connecting",
				   descs, bytes);
	}
	return n;
}
