/*===- CudaRuntime.h - The functions a cuda artifact's partitions call ----===*
 *
 * Private to onnxc: the host code of a CUDA partition, lowered through
 * MLIR 19's gpu-to-llvm and its gpu.binary / gpu.launch_func translation,
 * calls the "mgpu" functions below, with the argument types that lowering
 * gives them (index is intptr_t, streams, events, modules and functions are
 * opaque pointers). MLIR's own implementation (CudaRuntimeWrappers.cpp)
 * links libcuda; this one loads the driver at run time (dlopen), so an
 * artifact with CUDA partitions loads on a machine without one and its run
 * fails with ONNXC_NO_DEVICE instead.
 *
 * Model of execution: one primary context per process (device
 * ONNXC_CUDA_DEVICE, default 0), made current on whichever thread calls in;
 * one stream per thread, so the runs of many threads overlap and the work of
 * one run is ordered. The `stream` and `event` arguments are accepted and
 * ignored: mgpuStreamCreate hands out the calling thread's stream, and
 * everything goes to it. Events are therefore no-ops (a single stream is
 * already ordered).
 *
 * Synchronization: the host sees device memory only through mgpuMemcpy,
 * which synchronizes the stream whenever the destination (or a page-locked
 * source) is host memory, and through host-shared (managed) allocations.
 * mgpuStreamSynchronize and mgpuEventSynchronize therefore wait only once
 * the process has made a host-shared allocation; before, they return at
 * once, which keeps MLIR's synchronous gpu.launch_func (launch, synchronize,
 * destroy) from stalling the host after every kernel. Asynchronous failures
 * of kernels surface at the next synchronizing copy.
 *
 * Errors: a failed driver or cuBLAS call is recorded through the CPU
 * runtime's error record (onnxc_rt_shape_error, kind
 * ONNXC_SHAPE_ERROR_DEVICE; ONNXC_SHAPE_ERROR_NO_DEVICE without a device);
 * nothing aborts or prints. While the calling thread has an error recorded
 * (the rest of a failed run), every function here is a no-op: allocations
 * and module loads return NULL, launches, copies and products are skipped;
 * frees still return memory. Kernels are never launched with a NULL buffer.
 *
 * Thread-safe. Plain C; needs libc, libdl and pthreads only.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_CUDA_CUDARUNTIME_H
#define ONNXC_RUNTIME_CUDA_CUDARUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===- Modules and launches (CudaMgpu.c) ---------------------------------===*/

/* MLIR 19 loads the module around every launch (load, get function, launch,
 * unload). The module of a `data` pointer (the artifact's constant blob:
 * cubin, fatbin, or PTX with its NUL) is therefore loaded once and kept for
 * the life of the process; unload is a no-op. `gpuBlobSize` is unused. */
void *mgpuModuleLoad(void *data, size_t gpuBlobSize);
/* PTX (NUL-terminated) compiled by the driver at `optLevel` (0..4; others:
 * the driver's default). Cached like mgpuModuleLoad. */
void *mgpuModuleLoadJIT(void *data, int optLevel);
void mgpuModuleUnload(void *module);
/* NULL when `module` is NULL (its load failed) or lacks `name`. Cached. */
void *mgpuModuleGetFunction(void *module, const char *name);
/* cuLaunchKernel on the calling thread's stream. Skipped when `function` is
 * NULL or a grid or block dim is 0; `stream` and `paramsCount` are unused. */
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount);

/*===- Streams and events (CudaMgpu.c) ------------------------------------===*/

/* The calling thread's stream (created on first use, destroyed when the
 * thread exits); NULL without a device. */
void *mgpuStreamCreate(void);
void mgpuStreamDestroy(void *stream); /* no-op */
void mgpuStreamSynchronize(void *stream);
/* Events: a non-null token; record, wait and destroy are no-ops on the one
 * stream, synchronize is mgpuStreamSynchronize. */
void *mgpuEventCreate(void);
void mgpuEventDestroy(void *event);
void mgpuEventSynchronize(void *event);
void mgpuEventRecord(void *event, void *stream);
void mgpuStreamWaitEvent(void *stream, void *event);
/* Picks the device of the process while no CUDA call was made yet and
 * ONNXC_CUDA_DEVICE is unset; ignored afterwards (one context per
 * process). */
void mgpuSetDefaultDevice(int32_t device);

/*===- Memory (CudaAllocator.c, CudaMgpu.c) -------------------------------===*/

/* Device memory from a process-wide cache: freed blocks are kept in
 * size-bucketed free lists (onnxc_cuda_bucket_size) and handed out again,
 * so a run does not call cuMemAlloc after the first. 0 bytes gives a valid
 * block. `isHostShared` gives managed memory (cuMemAllocManaged), which is
 * not cached. NULL on failure (an error is recorded). */
void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, bool isHostShared);
/* Gives a block of mgpuMemAlloc back (NULL and unknown pointers are
 * ignored). */
void mgpuMemFree(void *ptr, void *stream);
/* Any direction (unified addressing). */
void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream);
void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream);
void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream);

/* The block size a request of `bytes` is served with: 256 bytes for 0,
 * multiples of 256 bytes up to 1 MiB, then four sizes per power of two
 * (2^k, 1.25 2^k, 1.5 2^k, 1.75 2^k); 0 when it would overflow. Pure: the
 * unit tests check it. */
/* Bracket one call of a cuda partition: every device buffer mgpuMemAlloc
 * gives this thread in between is freed by onnxc_cuda_end, after the
 * thread's queued work finished. `options` are the artifact's
 * (ONNXC_CUDA_ALLOW_TF32: --gpu-math tf32). */
#define ONNXC_CUDA_ALLOW_TF32 1
void onnxc_cuda_begin(int32_t options);
void onnxc_cuda_end(void);

/* ONNXC_DEVICE_CHECK_SYMBOL (onnxc.h): whether the device is usable,
 * without recording a run error. */
int onnxc_device_check(char *message, size_t size);

uint64_t onnxc_cuda_bucket_size(uint64_t bytes);

/* A device copy of `bytes` bytes at `host` (a weight of the artifact),
 * uploaded on the first call for that (host, bytes) and kept for the life of
 * the process; later calls return the same pointer. NULL on failure. */
void *onnxc_cuda_constant(const void *host, int64_t bytes);

/*===- cuBLAS (CudaBlas.c) ------------------------------------------------===*/

/* C = alpha * op(A) op(B) over the last two dims, numpy MatMul broadcasting
 * over the leading ones (A's and B's batch dims are 1 or C's; a rank-2
 * operand is reused for every batch). Each operand is an unranked memref as
 * lowered to LLVM: its rank and a pointer to the ranked descriptor
 * {allocated, aligned, offset, sizes[rank], strides[rank]} of a dense
 * row-major f32 tensor in DEVICE memory, of rank 2 or more. op transposes
 * the last two dims when transX != 0. cuBLAS (libcublas.so.13 / .12, or
 * ONNXC_CUDA_CUBLAS) is loaded on first use; FP32 math unless
 * ONNXC_CUDA_TF32=1. Returns 0, or nonzero with an error recorded (shapes
 * that disagree, a malformed memref, a cuBLAS failure). */
int32_t onnxc_cuda_matmul_f32(int64_t rankA, void *descA, int64_t rankB,
                              void *descB, int64_t rankC, void *descC,
                              int64_t transA, int64_t transB, float alpha);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ONNXC_RUNTIME_CUDA_CUDARUNTIME_H */
