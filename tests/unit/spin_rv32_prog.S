# RV32IMA routines run by tests/unit/test_spin_rv32.c on the sPIN
# interpreter.  Each is entered with a0 = the data window (results are
# stored there), a1 = an argument, ra = the exit address.
	.text
	.option norvc

	.globl t_alu
t_alu:
	li	t0, 7
	li	t1, -3
	add	t2, t0, t1
	sw	t2, 0(a0)
	sub	t2, t0, t1
	sw	t2, 4(a0)
	li	t3, 0x80000000
	srai	t2, t3, 4
	sw	t2, 8(a0)
	srli	t2, t3, 4
	sw	t2, 12(a0)
	slt	t2, t1, t0
	sw	t2, 16(a0)
	sltu	t2, t1, t0
	sw	t2, 20(a0)
	xori	t2, t0, -1
	sw	t2, 24(a0)
	lui	t2, 0x12345
	addi	t2, t2, 0x678
	sw	t2, 28(a0)
1:	auipc	t2, 0
	sw	t2, 32(a0)
	li	t4, 33
	sll	t2, t0, t4
	sw	t2, 36(a0)
	sra	t2, t3, t4
	sw	t2, 40(a0)
	sltiu	t2, t0, -1
	sw	t2, 44(a0)
	andi	t2, t1, 0x0f0
	sw	t2, 48(a0)
	or	t2, t0, t3
	sw	t2, 52(a0)
	la	t2, 1b
	sw	t2, 56(a0)
	ret

	.globl t_muldiv
t_muldiv:
	li	t0, 0x80000000
	li	t1, -1
	div	t2, t0, t1
	sw	t2, 0(a0)
	rem	t2, t0, t1
	sw	t2, 4(a0)
	li	t3, 0
	div	t2, t0, t3
	sw	t2, 8(a0)
	divu	t2, t0, t3
	sw	t2, 12(a0)
	rem	t2, t0, t3
	sw	t2, 16(a0)
	remu	t2, t0, t3
	sw	t2, 20(a0)
	li	t4, -7
	li	t5, 2
	div	t2, t4, t5
	sw	t2, 24(a0)
	rem	t2, t4, t5
	sw	t2, 28(a0)
	mulh	t2, t1, t1
	sw	t2, 32(a0)
	mulhu	t2, t1, t1
	sw	t2, 36(a0)
	mulhsu	t2, t1, t1
	sw	t2, 40(a0)
	mul	t2, t0, t0
	sw	t2, 44(a0)
	li	t4, 123456789
	li	t5, 987654321
	mul	t2, t4, t5
	sw	t2, 48(a0)
	mulhu	t2, t4, t5
	sw	t2, 52(a0)
	divu	t2, t5, t4
	sw	t2, 56(a0)
	remu	t2, t5, t4
	sw	t2, 60(a0)
	ret

	.globl t_branch
t_branch:
	li	t0, 0
	li	t1, 1
1:	add	t0, t0, t1
	addi	t1, t1, 1
	bge	a1, t1, 1b
	sw	t0, 0(a0)
	li	t2, -1
	li	t3, 1
	li	t4, 0
	blt	t2, t3, 2f
	ori	t4, t4, 1
2:	bltu	t2, t3, 3f
	ori	t4, t4, 2
3:	beq	t3, t3, 4f
	ori	t4, t4, 4
4:	bne	t3, t3, 5f
	ori	t4, t4, 8
5:	bgeu	t2, t3, 6f
	ori	t4, t4, 16
6:	sw	t4, 4(a0)
	jal	t5, 7f
7:	sw	t5, 8(a0)
	la	t6, 8f
	jalr	t5, 1(t6)
	ori	t4, t4, 32
8:	sw	t4, 12(a0)
	la	t6, 7b
	sub	t5, t5, t6
	sw	t5, 16(a0)
	ret

	.globl t_mem
t_mem:
	li	t0, 0x80ff7f01
	sw	t0, 0(a0)
	sw	zero, 4(a0)
	lb	t1, 0(a0)
	sw	t1, 8(a0)
	lb	t1, 3(a0)
	sw	t1, 12(a0)
	lbu	t1, 3(a0)
	sw	t1, 16(a0)
	lh	t1, 2(a0)
	sw	t1, 20(a0)
	lhu	t1, 2(a0)
	sw	t1, 24(a0)
	li	t2, -1
	sw	t2, 28(a0)
	sb	t0, 28(a0)
	sw	t2, 32(a0)
	sh	t0, 33(a0)
	li	t1, 0x55
	sb	t1, 4(a0)
	lw	t1, 1(a0)
	sw	t1, 36(a0)
	ret

	.globl t_amo
t_amo:
	li	t0, 5
	sw	t0, 0(a0)
	li	t1, 3
	amoadd.w t2, t1, (a0)
	sw	t2, 4(a0)
	li	t1, -1
	amomax.w t2, t1, (a0)
	sw	t2, 8(a0)
	amomaxu.w t2, t1, (a0)
	sw	t2, 12(a0)
	li	t1, 0x0f0f
	amoand.w t2, t1, (a0)
	amoor.w	t2, t0, (a0)
	sw	t2, 16(a0)
	amoxor.w t2, t1, (a0)
	amomin.w t2, t1, (a0)
	amominu.w t2, t1, (a0)
	sw	t2, 20(a0)
	amoswap.w t2, t0, (a0)
	sw	t2, 24(a0)
	lr.w	t3, (a0)
	addi	t3, t3, 1
	sc.w	t4, t3, (a0)
	sw	t4, 28(a0)
	sc.w	t4, t3, (a0)
	sw	t4, 32(a0)
	lr.w	t3, (a0)
	sw	t0, 0(a0)
	sc.w	t4, t3, (a0)
	sw	t4, 36(a0)
	lw	t3, 0(a0)
	sw	t3, 40(a0)
	ret

	.globl t_amo_misaligned
t_amo_misaligned:
	addi	a0, a0, 2
	amoadd.w t2, t1, (a0)
	ret

	.globl t_cost
t_cost:
	lw	t0, 0(a0)
	sw	t0, 4(a0)
	lw	t0, 8(a0)
	ret

	.globl t_csr
t_csr:
	csrr	t0, mhartid
	sw	t0, 0(a0)
	rdinstret t0
	sw	t0, 4(a0)
	rdcycle	t0
	sw	t0, 8(a0)
	rdcycleh t0
	sw	t0, 12(a0)
	ret

	.globl t_csr_write
t_csr_write:
	csrw	mscratch, a1
	ret

	.globl t_null_load
t_null_load:
	lw	a0, 0(zero)
	ret

	.globl t_store_code
t_store_code:
	la	t0, t_store_code
	sw	zero, 0(t0)
	ret

	.globl t_load_code
t_load_code:
	la	t0, t_load_code
	lw	a0, 0(t0)
	ret

	.globl t_edge
t_edge:
	lw	a0, -2(a0)
	ret

	.globl t_illegal
t_illegal:
	.word	0
	ret

	.globl t_ecall
t_ecall:
	ecall
	ret

	.globl t_ebreak
t_ebreak:
	ebreak
	ret

	.globl t_loop
t_loop:
	addi	a1, a1, 1
	j	t_loop

	.globl t_wild_jump
t_wild_jump:
	li	t0, 0x00200000
	jr	t0

	.globl t_misaligned_jump
t_misaligned_jump:
	la	t0, t_loop
	addi	t0, t0, 2
	jr	t0

	.globl t_mmio
t_mmio:
	li	t0, 0x40000000
	li	t1, 77
	sw	t1, 4(t0)
	lw	a0, 8(t0)
	ret

	.globl t_mmio_abort
t_mmio_abort:
	li	t0, 0x40000000
	lw	a0, 12(t0)
	ret

	.globl t_x0
t_x0:
	li	zero, 5
	addi	a0, zero, 0
	ret

	.globl t_end
t_end:
