// SPDX-License-Identifier: GPL-2.0
/*
 * CUresult codes as text. The table follows cuda.h 13.0's enum
 * cudaError_enum; tests/gpu/test_cuerr.c checks it against the cuda.h the
 * build found, so a newer header with new codes fails the tests until the
 * table learns them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cuerr.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct cuerr {
	int code;
	const char *name;
	const char *text;
};

#define E(c, n, t)	{ c, "CUDA_" #n, t }

/* Sorted by code: gpu_cuerr_code_at() hands them out in this order. */
static const struct cuerr table[] = {
	E(0, SUCCESS, "no error"),
	E(1, ERROR_INVALID_VALUE, "invalid argument"),
	E(2, ERROR_OUT_OF_MEMORY, "out of memory"),
	E(3, ERROR_NOT_INITIALIZED, "driver not initialized"),
	E(4, ERROR_DEINITIALIZED, "driver shutting down"),
	E(5, ERROR_PROFILER_DISABLED, "profiler disabled for this run"),
	E(6, ERROR_PROFILER_NOT_INITIALIZED, "profiler not initialized"),
	E(7, ERROR_PROFILER_ALREADY_STARTED, "profiler already started"),
	E(8, ERROR_PROFILER_ALREADY_STOPPED, "profiler already stopped"),
	E(34, ERROR_STUB_LIBRARY, "a stub libcuda was loaded, not the driver's"),
	E(36, ERROR_CALL_REQUIRES_NEWER_DRIVER, "call needs a newer driver"),
	E(46, ERROR_DEVICE_UNAVAILABLE, "device busy (held by another process) or prohibited"),
	E(100, ERROR_NO_DEVICE, "no CUDA-capable device detected"),
	E(101, ERROR_INVALID_DEVICE, "invalid device ordinal"),
	E(102, ERROR_DEVICE_NOT_LICENSED, "device not licensed (vGPU/Grid license missing)"),
	E(200, ERROR_INVALID_IMAGE, "invalid device kernel image"),
	E(201, ERROR_INVALID_CONTEXT, "invalid or no current context"),
	E(202, ERROR_CONTEXT_ALREADY_CURRENT, "context already current"),
	E(205, ERROR_MAP_FAILED, "map or register failed"),
	E(206, ERROR_UNMAP_FAILED, "unmap or unregister failed"),
	E(207, ERROR_ARRAY_IS_MAPPED, "array is mapped"),
	E(208, ERROR_ALREADY_MAPPED, "resource already mapped"),
	E(209, ERROR_NO_BINARY_FOR_GPU, "no kernel image for this GPU"),
	E(210, ERROR_ALREADY_ACQUIRED, "resource already acquired"),
	E(211, ERROR_NOT_MAPPED, "resource not mapped"),
	E(212, ERROR_NOT_MAPPED_AS_ARRAY, "resource not mapped as an array"),
	E(213, ERROR_NOT_MAPPED_AS_POINTER, "resource not mapped as a pointer"),
	E(214, ERROR_ECC_UNCORRECTABLE, "uncorrectable ECC error"),
	E(215, ERROR_UNSUPPORTED_LIMIT, "limit not supported by the device"),
	E(216, ERROR_CONTEXT_ALREADY_IN_USE, "context in use by another thread"),
	E(217, ERROR_PEER_ACCESS_UNSUPPORTED, "peer access not supported between these devices"),
	E(218, ERROR_INVALID_PTX, "PTX JIT compilation failed"),
	E(219, ERROR_INVALID_GRAPHICS_CONTEXT, "invalid OpenGL or DirectX context"),
	E(220, ERROR_NVLINK_UNCORRECTABLE, "uncorrectable NVLink error"),
	E(221, ERROR_JIT_COMPILER_NOT_FOUND, "PTX JIT compiler library not found"),
	E(222, ERROR_UNSUPPORTED_PTX_VERSION, "PTX built by an unsupported toolchain"),
	E(223, ERROR_JIT_COMPILATION_DISABLED, "PTX JIT compilation disabled"),
	E(224, ERROR_UNSUPPORTED_EXEC_AFFINITY, "execution affinity not supported"),
	E(225, ERROR_UNSUPPORTED_DEVSIDE_SYNC, "device-side synchronization not supported"),
	E(226, ERROR_CONTAINED, "device exception contained; the context is unusable"),
	E(300, ERROR_INVALID_SOURCE, "invalid device kernel source"),
	E(301, ERROR_FILE_NOT_FOUND, "file not found"),
	E(302, ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, "shared object symbol not found"),
	E(303, ERROR_SHARED_OBJECT_INIT_FAILED, "shared object initialization failed"),
	E(304, ERROR_OPERATING_SYSTEM, "operating system call failed"),
	E(400, ERROR_INVALID_HANDLE, "invalid resource handle"),
	E(401, ERROR_ILLEGAL_STATE, "resource in an illegal state"),
	E(402, ERROR_LOSSY_QUERY, "query would lose information"),
	E(500, ERROR_NOT_FOUND, "named symbol not found"),
	E(600, ERROR_NOT_READY, "asynchronous work not completed yet"),
	E(700, ERROR_ILLEGAL_ADDRESS, "device accessed an illegal address"),
	E(701, ERROR_LAUNCH_OUT_OF_RESOURCES, "too many resources requested for launch"),
	E(702, ERROR_LAUNCH_TIMEOUT, "kernel ran too long and was stopped"),
	E(703, ERROR_LAUNCH_INCOMPATIBLE_TEXTURING, "launch with incompatible texturing"),
	E(704, ERROR_PEER_ACCESS_ALREADY_ENABLED, "peer access already enabled"),
	E(705, ERROR_PEER_ACCESS_NOT_ENABLED, "peer access not enabled"),
	E(708, ERROR_PRIMARY_CONTEXT_ACTIVE, "primary context already active"),
	E(709, ERROR_CONTEXT_IS_DESTROYED, "context destroyed"),
	E(710, ERROR_ASSERT, "device-side assert triggered"),
	E(711, ERROR_TOO_MANY_PEERS, "peer access resources exhausted"),
	E(712, ERROR_HOST_MEMORY_ALREADY_REGISTERED, "host memory already registered"),
	E(713, ERROR_HOST_MEMORY_NOT_REGISTERED, "host memory not registered"),
	E(714, ERROR_HARDWARE_STACK_ERROR, "device hardware stack error"),
	E(715, ERROR_ILLEGAL_INSTRUCTION, "device hit an illegal instruction"),
	E(716, ERROR_MISALIGNED_ADDRESS, "device hit a misaligned address"),
	E(717, ERROR_INVALID_ADDRESS_SPACE, "device used the wrong address space"),
	E(718, ERROR_INVALID_PC, "device program counter wrapped"),
	E(719, ERROR_LAUNCH_FAILED, "device exception; the context is unusable"),
	E(720, ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "cooperative launch too large"),
	E(721, ERROR_TENSOR_MEMORY_LEAK, "tensor memory not freed at kernel exit"),
	E(800, ERROR_NOT_PERMITTED, "operation not permitted"),
	E(801, ERROR_NOT_SUPPORTED, "operation not supported on this system or device"),
	E(802, ERROR_SYSTEM_NOT_READY, "system not ready (fabric manager or driver still starting?)"),
	E(803, ERROR_SYSTEM_DRIVER_MISMATCH, "kernel driver and libcuda versions differ"),
	E(804, ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, "forward compatibility not supported on this device"),
	E(805, ERROR_MPS_CONNECTION_FAILED, "cannot connect to the MPS daemon"),
	E(806, ERROR_MPS_RPC_FAILURE, "MPS remote call failed"),
	E(807, ERROR_MPS_SERVER_NOT_READY, "MPS server not ready"),
	E(808, ERROR_MPS_MAX_CLIENTS_REACHED, "MPS client limit reached"),
	E(809, ERROR_MPS_MAX_CONNECTIONS_REACHED, "MPS connection limit reached"),
	E(810, ERROR_MPS_CLIENT_TERMINATED, "MPS client terminated by the server"),
	E(811, ERROR_CDP_NOT_SUPPORTED, "dynamic parallelism not supported here"),
	E(812, ERROR_CDP_VERSION_MISMATCH, "mixed dynamic parallelism versions"),
	E(900, ERROR_STREAM_CAPTURE_UNSUPPORTED, "not permitted while the stream is capturing"),
	E(901, ERROR_STREAM_CAPTURE_INVALIDATED, "stream capture invalidated"),
	E(902, ERROR_STREAM_CAPTURE_MERGE, "would merge two capture sequences"),
	E(903, ERROR_STREAM_CAPTURE_UNMATCHED, "capture not started in this stream"),
	E(904, ERROR_STREAM_CAPTURE_UNJOINED, "capture has an unjoined fork"),
	E(905, ERROR_STREAM_CAPTURE_ISOLATION, "dependency would cross a capture boundary"),
	E(906, ERROR_STREAM_CAPTURE_IMPLICIT, "implicit dependency on a capture"),
	E(907, ERROR_CAPTURED_EVENT, "event last recorded in a capturing stream"),
	E(908, ERROR_STREAM_CAPTURE_WRONG_THREAD, "capture ended in another thread"),
	E(909, ERROR_TIMEOUT, "wait timed out"),
	E(910, ERROR_GRAPH_EXEC_UPDATE_FAILURE, "graph update violated its constraints"),
	E(911, ERROR_EXTERNAL_DEVICE, "error in an external device"),
	E(912, ERROR_INVALID_CLUSTER_SIZE, "invalid cluster size"),
	E(913, ERROR_FUNCTION_NOT_LOADED, "function not loaded"),
	E(914, ERROR_INVALID_RESOURCE_TYPE, "invalid resource type"),
	E(915, ERROR_INVALID_RESOURCE_CONFIGURATION, "invalid resource configuration"),
	E(916, ERROR_KEY_ROTATION, "key rotation failed"),
	E(999, ERROR_UNKNOWN, "unknown internal driver error"),
};

static const struct cuerr *find(int code)
{
	size_t lo = 0, hi = ARRAY_SIZE(table);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (table[mid].code == code)
			return &table[mid];
		if (table[mid].code < code)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *gpu_cuerr_name(int code)
{
	const struct cuerr *e = find(code);

	return e ? e->name : NULL;
}

const char *gpu_cuerr_text(int code)
{
	const struct cuerr *e = find(code);

	return e ? e->text : NULL;
}

const char *gpu_cuerr_describe(int code, const char *drv_name,
			       const char *drv_text, char *buf, size_t n)
{
	const char *name = drv_name ? drv_name : gpu_cuerr_name(code);
	const char *text = drv_text ? drv_text : gpu_cuerr_text(code);

	if (!n)
		return buf;
	if (name && text)
		snprintf(buf, n, "%s: %s", name, text);
	else if (name || text)
		snprintf(buf, n, "CUresult %d: %s", code, name ? name : text);
	else
		snprintf(buf, n, "CUresult %d: unknown code (a driver newer than INDIGO?)",
			 code);
	return buf;
}

bool gpu_cuerr_device_lost(int code)
{
	switch (code) {
	case 3:		/* NOT_INITIALIZED: the driver went away */
	case 4:		/* DEINITIALIZED */
	case 101:	/* INVALID_DEVICE: the ordinal is gone */
	case 214:	/* ECC_UNCORRECTABLE */
	case 220:	/* NVLINK_UNCORRECTABLE */
	case 226:	/* CONTAINED */
	case 700:	/* ILLEGAL_ADDRESS: sticky, the context is dead */
	case 709:	/* CONTEXT_IS_DESTROYED */
	case 719:	/* LAUNCH_FAILED: sticky */
	case 911:	/* EXTERNAL_DEVICE */
	case 999:	/* UNKNOWN */
		return true;
	default:
		return false;
	}
}

int gpu_cuerr_errno(int code)
{
	if (!code)
		return 0;
	if (code == 100 || gpu_cuerr_device_lost(code))	/* NO_DEVICE */
		return -ENODEV;
	if (code == 2)		/* OUT_OF_MEMORY */
		return -ENOMEM;
	/*
	 * DEVICE_UNAVAILABLE: "unavailable at the current time" (cuda.h),
	 * i.e. held by another process in exclusive-process mode or
	 * prohibited; it frees up, so not a lost device.
	 */
	if (code == 46)
		return -EBUSY;
	if (code == 34 || code == 36 || code == 803)	/* stub, old, mismatch */
		return -EPROTO;
	return -EIO;
}

int gpu_cuerr_code_at(size_t i)
{
	return i < ARRAY_SIZE(table) ? table[i].code : -1;
}
