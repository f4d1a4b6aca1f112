/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CUDA Driver API result codes (CUresult) as readable text.
 *
 * The driver names its own codes (cuGetErrorName, cuGetErrorString), but
 * not when it could not be loaded, is too old to know a code, or is the
 * thing that failed; so INDIGO keeps its own table of every code that
 * cuda.h 13.0 defines. Plain C: no cuda.h needed.
 */
#ifndef INDIGO_GPU_CUERR_H
#define INDIGO_GPU_CUERR_H

#include <stdbool.h>
#include <stddef.h>

#define GPU_CUDA_SUCCESS	0
#define GPU_CUERR_MAX		192	/* room for any message below */

/* "CUDA_ERROR_OUT_OF_MEMORY", or NULL for a code the table lacks. */
const char *gpu_cuerr_name(int code);

/* "out of memory" (short, lower case), or NULL for an unknown code. */
const char *gpu_cuerr_text(int code);

/*
 * Writes "NAME: text" for @code into @buf (always NUL-terminated) and
 * returns @buf. @drv_name and @drv_text, when not NULL, are what the
 * loaded driver said and win over the table; an unknown code without
 * them reads "CUresult 1234: unknown code (a driver newer than INDIGO?)".
 */
const char *gpu_cuerr_describe(int code, const char *drv_name,
			       const char *drv_text, char *buf, size_t n);

/*
 * True for codes after which the device cannot be used any more (it fell
 * off the bus, hit an uncorrectable error, the driver is going away): the
 * GPU tier is dropped, not retried.
 */
bool gpu_cuerr_device_lost(int code);

/*
 * The negative errno the GPU tier reports for @code: 0 for success,
 * -ENODEV (no device, device lost), -EBUSY (device unavailable for now:
 * another process holds it), -ENOMEM, -EPROTO (stub library, driver too
 * old or mismatched), else -EIO.
 */
int gpu_cuerr_errno(int code);

/* The table's @i-th code (increasing order), -1 past its end: for tests. */
int gpu_cuerr_code_at(size_t i);

#endif /* INDIGO_GPU_CUERR_H */
