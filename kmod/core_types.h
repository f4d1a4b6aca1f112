/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few types and helpers the pure core needs, for both worlds: the
 * module, and userspace (unit tests, the simulator) which compile the very
 * same core files.
 */
#ifndef _INDIGO_CORE_TYPES_H
#define _INDIGO_CORE_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/string.h>
#define core_div_u64(a, b)	div64_u64((a), (b))
#define core_mul_overflow(a, b, d)	check_mul_overflow((a), (b), (d))
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/types.h>
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;
#define core_div_u64(a, b)	((u64)(a) / (u64)(b))
#define core_mul_overflow(a, b, d)	__builtin_mul_overflow((a), (b), (d))
#endif

#define CORE_NSEC_PER_MSEC	1000000ULL
#define CORE_NSEC_PER_SEC	1000000000ULL

#endif /* _INDIGO_CORE_TYPES_H */
