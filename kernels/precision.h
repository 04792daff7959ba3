/*
 * precision.h -- what every polymask kernel includes before crossing.h.
 *
 * Picks the arithmetic type of the shared predicate and turns contraction
 * off, because the mask contract is "same operations, same order, no fused
 * multiply-add".  The host sets PM_USE_DOUBLE (1 where the device has fp64
 * and double was asked for, else 0).
 */
#ifndef POLYMASK_KERNEL_PRECISION_H
#define POLYMASK_KERNEL_PRECISION_H

/* a * b + c must stay two roundings, exactly like the C++ core. */
#pragma OPENCL FP_CONTRACT OFF

#ifndef PM_USE_DOUBLE
#define PM_USE_DOUBLE 1
#endif

#if PM_USE_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define PM_REAL double
#else
#define PM_REAL float
#endif

#endif /* POLYMASK_KERNEL_PRECISION_H */
