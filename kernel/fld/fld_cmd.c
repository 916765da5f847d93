// SPDX-License-Identifier: GPL-2.0
/*
 * fld.ko: the FLD's registers and its command interface (docs/fld.md),
 * used by the PCI binding, FLD-E, FLD-R and sysfs alike.
 */
#include <linux/io.h>
#include <linux/lockdep.h>
#include "fld.h"

u32 fld_rd(struct fld_dev *fd, u32 reg)
{
	return ioread32(fd->regs + reg);
}

void fld_wr(struct fld_dev *fd, u32 reg, u32 val)
{
	iowrite32(val, fd->regs + reg);
}

u64 fld_rd64(struct fld_dev *fd, u32 reg)
{
	u32 lo = fld_rd(fd, reg);

	return lo | (u64)fld_rd(fd, reg + 4) << 32;
}

void fld_sq_credits(struct fld_dev *fd, u32 slot, u32 *descs, u32 *bytes)
{
	lockdep_assert_held(&fd->lock);	/* FLD_REG_SQ_SEL is shared */
	fld_wr(fd, FLD_REG_SQ_SEL, slot);
	*descs = fld_rd(fd, FLD_REG_SQ_CREDIT_DESCS);
	*bytes = fld_rd(fd, FLD_REG_SQ_CREDIT_BYTES);
}

static const int fld_cmd_errno[] = {
	[FLD_CMD_OK] = 0,
	[FLD_CMD_EINVAL] = -EINVAL,
	[FLD_CMD_EBUSY] = -EBUSY,
	[FLD_CMD_ENOENT] = -ENOENT,
	[FLD_CMD_EOPNOTSUPP] = -EOPNOTSUPP,
	[FLD_CMD_ESTATE] = -EIO,
};

int fld_cmd(struct fld_dev *fd, u32 op, const u32 *args, int n, u32 *result)
{
	u32 st;
	int i;

	lockdep_assert_held(&fd->lock);
	for (i = 0; i < FLD_CMD_NARGS; i++)
		fld_wr(fd, FLD_REG_CMD_ARG0 + 4 * i, i < n ? args[i] : 0);
	fld_wr(fd, FLD_REG_CMD, op);
	st = fld_rd(fd, FLD_REG_CMD_STATUS);
	if (result)
		*result = fld_rd(fd, FLD_REG_CMD_RESULT);
	if (st >= ARRAY_SIZE(fld_cmd_errno))
		return -EIO;
	if (st)
		dev_dbg(&fd->pdev->dev, "command %#x refused: status %u\n", op, st);
	return fld_cmd_errno[st];
}
