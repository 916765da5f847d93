/* The C workload of tests/unit/spin_rv32_c.c. */
#ifndef SPIN_RV32_C_H
#define SPIN_RV32_C_H
unsigned int c_work(unsigned int *v, unsigned int n);
#endif
