/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The part of libibverbs' private provider interface (symbol version
 * IBVERBS_PRIVATE_34, rdma-core 44 as shipped by Debian bookworm) that
 * libsnic uses, declared here because libibverbs-dev does not install
 * the provider header.
 *
 * Written from the documented layout of rdma-core v44: struct verbs_device,
 * verbs_device_ops, verbs_match_ent, verbs_context_ops and the verbs_*
 * object wrappers.  The library reads these structures directly, so their
 * layouts must match exactly; the static asserts below pin the sizes we
 * rely on and the provider checks at run time that libibverbs installed
 * its operations where it expects them.  The public structures
 * (verbs_context, ibv_*) come from <infiniband/verbs.h>, the kernel
 * command layouts from <rdma/ib_user_verbs.h>.
 *
 * The build refuses to link against a libibverbs that does not export
 * IBVERBS_PRIVATE_34 (userspace/Makefile).
 */
#ifndef LIBSNIC_VERBS_PROVIDER_ABI_H
#define LIBSNIC_VERBS_PROVIDER_ABI_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#define VERBS_PRIVATE_ABI	34

/* A doubly linked list link (ccan list_node): two pointers. */
struct verbs_abi_list_node {
	struct verbs_abi_list_node *next, *prev;
};

/* libibverbs' record of a sysfs device; providers only pass it along. */
struct verbs_sysfs_dev;

/* An XRC domain as ibv_cmd_open_xrcd fills it in. */
struct verbs_xrcd {
	struct ibv_xrcd xrcd;
	uint32_t comp_mask;
	uint32_t handle;
};

/* How an entry of a provider's match table identifies a device. */
enum {
	VERBS_MATCH_SENTINEL	= 0,	/* end of the table */
	VERBS_MATCH_PCI		= 1,	/* PCI vendor and device id */
	VERBS_MATCH_MODALIAS	= 2,
	VERBS_MATCH_DRIVER_ID	= 3,	/* kernel enum rdma_driver_id */
};

struct verbs_match_ent {
	void *driver_data;
	union {
		const char *modalias;
		uint64_t driver_id;
	} u;
	uint16_t vendor;
	uint16_t device;
	uint8_t kind;
};

struct verbs_device;
struct verbs_context_ops;

/* What a provider gives libibverbs at registration. */
struct verbs_device_ops {
	const char *name;
	uint32_t match_min_abi_version;	/* the kernel driver's uverbs ABI */
	uint32_t match_max_abi_version;
	const struct verbs_match_ent *match_table;
	const struct verbs_device_ops **static_providers;
	bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);
	struct verbs_context *(*alloc_context)(struct ibv_device *device,
					       int cmd_fd, void *private_data);
	struct verbs_context *(*import_context)(struct ibv_device *device,
						int cmd_fd);
	struct verbs_device *(*alloc_device)(struct verbs_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct verbs_device *device);
};

/* The provider allocates this (first in its own device struct). */
struct verbs_device {
	struct ibv_device device;	/* first */
	const struct verbs_device_ops *ops;
	atomic_int refcount;
	struct verbs_abi_list_node entry;
	struct verbs_sysfs_dev *sysfs;
	uint64_t core_support;
};

/* Object wrappers the ibv_cmd_* helpers fill in. */
enum verbs_mr_type {
	VERBS_MR_TYPE_MR,
	VERBS_MR_TYPE_NULL_MR,
	VERBS_MR_TYPE_IMPORTED_MR,
	VERBS_MR_TYPE_DMABUF_MR,
};

struct verbs_mr {
	struct ibv_mr ibv_mr;
	enum verbs_mr_type mr_type;
	int access;
};

struct verbs_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
	};
	uint32_t comp_mask;
	struct verbs_xrcd *xrcd;
};

struct verbs_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
};

struct verbs_srq {
	struct ibv_srq srq;
	enum ibv_srq_type srq_type;
	struct verbs_xrcd *xrcd;
	struct ibv_cq *cq;
	uint32_t srq_num;
};

/*
 * Every operation a provider may implement, in the library's (alphabetical)
 * order; libibverbs copies the non-NULL ones and answers the rest itself.
 * Members libsnic does not implement are typed as an opaque pointer: only
 * their position matters.
 */
typedef void (*verbs_op_unused)(void);

struct verbs_context_ops {
	verbs_op_unused advise_mr;
	verbs_op_unused alloc_dm;
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	verbs_op_unused alloc_null_mr;
	verbs_op_unused alloc_parent_domain;
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	verbs_op_unused alloc_td;
	void (*async_event)(struct ibv_context *context,
			    struct ibv_async_event *event);
	verbs_op_unused attach_counters_point_flow;
	int (*attach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *mw_bind);
	int (*close_xrcd)(struct ibv_xrcd *xrcd);
	void (*cq_event)(struct ibv_cq *cq);
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd, struct ibv_ah_attr *attr);
	verbs_op_unused create_counters;
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *context,
					  struct ibv_cq_init_attr_ex *attr);
	verbs_op_unused create_flow;
	verbs_op_unused create_flow_action_esp;
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *attr);
	verbs_op_unused create_rwq_ind_table;
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *attr);
	struct ibv_srq *(*create_srq_ex)(struct ibv_context *context,
					 struct ibv_srq_init_attr_ex *attr);
	verbs_op_unused create_wq;
	int (*dealloc_mw)(struct ibv_mw *mw);
	int (*dealloc_pd)(struct ibv_pd *pd);
	verbs_op_unused dealloc_td;
	int (*dereg_mr)(struct verbs_mr *vmr);
	int (*destroy_ah)(struct ibv_ah *ah);
	verbs_op_unused destroy_counters;
	int (*destroy_cq)(struct ibv_cq *cq);
	verbs_op_unused destroy_flow;
	verbs_op_unused destroy_flow_action;
	int (*destroy_qp)(struct ibv_qp *qp);
	verbs_op_unused destroy_rwq_ind_table;
	int (*destroy_srq)(struct ibv_srq *srq);
	verbs_op_unused destroy_wq;
	int (*detach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	void (*free_context)(struct ibv_context *context);
	verbs_op_unused free_dm;
	int (*get_srq_num)(struct ibv_srq *srq, uint32_t *srq_num);
	verbs_op_unused import_dm;
	verbs_op_unused import_mr;
	verbs_op_unused import_pd;
	int (*modify_cq)(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
	verbs_op_unused modify_flow_action_esp;
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask);
	verbs_op_unused modify_qp_rate_limit;
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *attr,
			  int attr_mask);
	verbs_op_unused modify_wq;
	struct ibv_qp *(*open_qp)(struct ibv_context *context,
				  struct ibv_qp_open_attr *attr);
	struct ibv_xrcd *(*open_xrcd)(struct ibv_context *context,
				      struct ibv_xrcd_init_attr *attr);
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	verbs_op_unused post_srq_ops;
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			     struct ibv_recv_wr **bad_wr);
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size);
	verbs_op_unused query_ece;
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			int attr_mask, struct ibv_qp_init_attr *init_attr);
	verbs_op_unused query_qp_data_in_order;
	int (*query_rt_values)(struct ibv_context *context,
			       struct ibv_values_ex *values);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *attr);
	verbs_op_unused read_counters;
	verbs_op_unused reg_dm_mr;
	verbs_op_unused reg_dmabuf_mr;
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access);
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	verbs_op_unused rereg_mr;
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
	verbs_op_unused set_ece;
	verbs_op_unused unimport_dm;
	verbs_op_unused unimport_mr;
	verbs_op_unused unimport_pd;
};

_Static_assert(sizeof(struct verbs_context_ops) == 76 * sizeof(void *),
	       "verbs_context_ops has 76 operations in rdma-core 44");
_Static_assert(sizeof(struct verbs_match_ent) == 24, "verbs_match_ent");
_Static_assert(offsetof(struct verbs_device, ops) ==
	       sizeof(struct ibv_device), "verbs_device: ibv_device first");

/*
 * Command buffers of the write() ABI as the ibv_cmd_* helpers take them:
 * the 8-byte uverbs header, the kernel's core command, then the driver's
 * own words (none for snic: the kernel decides every ring's geometry).
 */
#define VERBS_ABI_CMD(name, core)			\
	struct name {					\
		struct ib_uverbs_cmd_hdr hdr;		\
		struct core core;			\
	}

VERBS_ABI_CMD(verbs_cmd_get_context, ib_uverbs_get_context);
VERBS_ABI_CMD(verbs_cmd_query_port, ib_uverbs_query_port);
VERBS_ABI_CMD(verbs_cmd_alloc_pd, ib_uverbs_alloc_pd);
VERBS_ABI_CMD(verbs_cmd_reg_mr, ib_uverbs_reg_mr);
VERBS_ABI_CMD(verbs_cmd_alloc_mw, ib_uverbs_alloc_mw);
VERBS_ABI_CMD(verbs_cmd_create_cq, ib_uverbs_create_cq);
VERBS_ABI_CMD(verbs_cmd_resize_cq, ib_uverbs_resize_cq);
VERBS_ABI_CMD(verbs_cmd_create_qp, ib_uverbs_create_qp);
VERBS_ABI_CMD(verbs_cmd_query_qp, ib_uverbs_query_qp);
VERBS_ABI_CMD(verbs_cmd_modify_qp, ib_uverbs_modify_qp);
VERBS_ABI_CMD(verbs_cmd_create_srq, ib_uverbs_create_srq);
VERBS_ABI_CMD(verbs_cmd_modify_srq, ib_uverbs_modify_srq);
VERBS_ABI_CMD(verbs_cmd_query_srq, ib_uverbs_query_srq);
VERBS_ABI_CMD(verbs_cmd_open_xrcd, ib_uverbs_open_xrcd);
VERBS_ABI_CMD(verbs_cmd_create_xsrq, ib_uverbs_create_xsrq);
VERBS_ABI_CMD(verbs_cmd_open_qp, ib_uverbs_open_qp);

/* Extended commands: the uverbs header, then the extended header. */
#define VERBS_ABI_CMD_EX(name, core)			\
	struct name {					\
		struct ib_uverbs_cmd_hdr hdr;		\
		struct ib_uverbs_ex_cmd_hdr ex_hdr;	\
		struct core core;			\
	}

VERBS_ABI_CMD_EX(verbs_cmd_modify_cq, ib_uverbs_ex_modify_cq);
VERBS_ABI_CMD_EX(verbs_cmd_create_cq_ex, ib_uverbs_ex_create_cq);

/* Library entry points (all versioned IBVERBS_PRIVATE_34). */
void verbs_register_driver_34(const struct verbs_device_ops *ops);
void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id);
void verbs_uninit_context(struct verbs_context *context);
void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops);

int ibv_cmd_get_context(struct verbs_context *context,
			struct verbs_cmd_get_context *cmd, size_t cmd_size,
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size);
int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp,
			     size_t *resp_size);
int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr,
		       struct verbs_cmd_query_port *cmd, size_t cmd_size);
int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct verbs_cmd_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);
int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct verbs_mr *vmr,
		   struct verbs_cmd_reg_mr *cmd, size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size);
int ibv_cmd_dereg_mr(struct verbs_mr *vmr);
int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw, struct verbs_cmd_alloc_mw *cmd,
		     size_t cmd_size, struct ib_uverbs_alloc_mw_resp *resp,
		     size_t resp_size);
int ibv_cmd_dealloc_mw(struct ibv_mw *mw);
int ibv_cmd_create_cq(struct ibv_context *context, int cqe,
		      struct ibv_comp_channel *channel, int comp_vector,
		      struct ibv_cq *cq, struct verbs_cmd_create_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_create_cq_resp *resp,
		      size_t resp_size);
int ibv_cmd_create_cq_ex(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 struct verbs_cq *cq,
			 struct verbs_cmd_create_cq_ex *cmd, size_t cmd_size,
			 struct ib_uverbs_ex_create_cq_resp *resp,
			 size_t resp_size, uint32_t cmd_flags);
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe,
		      struct verbs_cmd_resize_cq *cmd, size_t cmd_size,
		      struct ib_uverbs_resize_cq_resp *resp, size_t resp_size);
int ibv_cmd_destroy_cq(struct ibv_cq *cq);
int ibv_cmd_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr,
		      struct verbs_cmd_modify_cq *cmd, size_t cmd_size);
int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp,
		      struct ibv_qp_init_attr *attr,
		      struct verbs_cmd_create_qp *cmd, size_t cmd_size,
		      struct ib_uverbs_create_qp_resp *resp, size_t resp_size);
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
		     int attr_mask, struct ibv_qp_init_attr *qp_init_attr,
		     struct verbs_cmd_query_qp *cmd, size_t cmd_size);
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct verbs_cmd_modify_qp *cmd,
		      size_t cmd_size);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);
int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		       struct ibv_srq_init_attr *attr,
		       struct verbs_cmd_create_srq *cmd, size_t cmd_size,
		       struct ib_uverbs_create_srq_resp *resp,
		       size_t resp_size);
int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		       int srq_attr_mask, struct verbs_cmd_modify_srq *cmd,
		       size_t cmd_size);
int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		      struct verbs_cmd_query_srq *cmd, size_t cmd_size);
int ibv_cmd_destroy_srq(struct ibv_srq *srq);
int ibv_cmd_open_xrcd(struct ibv_context *context, struct verbs_xrcd *xrcd,
		      int vxrcd_size, struct ibv_xrcd_init_attr *attr,
		      struct verbs_cmd_open_xrcd *cmd, size_t cmd_size,
		      struct ib_uverbs_open_xrcd_resp *resp, size_t resp_size);
int ibv_cmd_close_xrcd(struct verbs_xrcd *xrcd);
int ibv_cmd_create_srq_ex(struct ibv_context *context, struct verbs_srq *srq,
			  struct ibv_srq_init_attr_ex *attr_ex,
			  struct verbs_cmd_create_xsrq *cmd, size_t cmd_size,
			  struct ib_uverbs_create_srq_resp *resp,
			  size_t resp_size);
int ibv_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
			 struct ibv_qp_init_attr_ex *attr_ex,
			 struct verbs_cmd_create_qp *cmd, size_t cmd_size,
			 struct ib_uverbs_create_qp_resp *resp,
			 size_t resp_size);
int ibv_cmd_open_qp(struct ibv_context *context, struct verbs_qp *qp,
		    int vqp_sz, struct ibv_qp_open_attr *attr,
		    struct verbs_cmd_open_qp *cmd, size_t cmd_size,
		    struct ib_uverbs_create_qp_resp *resp, size_t resp_size);
int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp, size_t resp_size);
int ibv_cmd_destroy_ah(struct ibv_ah *ah);

#endif /* LIBSNIC_VERBS_PROVIDER_ABI_H */
