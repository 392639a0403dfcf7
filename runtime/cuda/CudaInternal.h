/*===- CudaInternal.h - What the CUDA runtime's files share ---------------===*
 *
 * The driver API as this runtime declares it (no CUDA headers at build
 * time: the few types are spelled out here, the functions are resolved with
 * dlsym), the per-thread state, and the error helpers. CudaDriver.c owns the
 * process-wide state.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_CUDA_CUDAINTERNAL_H
#define ONNXC_RUNTIME_CUDA_CUDAINTERNAL_H

#include "CudaRuntime.h"

#include <stddef.h>
#include <stdint.h>

/* The driver's types, as cuda.h defines them for 64-bit hosts. */
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CU_STREAM_NON_BLOCKING = 1,
  CU_MEM_ATTACH_GLOBAL = 1,
  CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
  CU_MEMORYTYPE_DEVICE = 2,
  CU_JIT_OPTIMIZATION_LEVEL = 7
};

/* The driver functions used, resolved once (CudaDriver.c). Versioned names
 * (_v2) are the ones cuda.h maps the plain names to. */
typedef struct onnxc_cuda_driver {
  CUresult (*cuInit)(unsigned int flags);
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice device);
  CUresult (*cuCtxGetCurrent)(CUcontext *ctx);
  CUresult (*cuCtxSetCurrent)(CUcontext ctx);
  CUresult (*cuGetErrorName)(CUresult error, const char **name);
  CUresult (*cuModuleLoadData)(CUmodule *module, const void *image);
  CUresult (*cuModuleLoadDataEx)(CUmodule *module, const void *image,
                                 unsigned int num_options, int *options,
                                 void **option_values);
  CUresult (*cuModuleGetFunction)(CUfunction *function, CUmodule module,
                                  const char *name);
  CUresult (*cuLaunchKernel)(CUfunction f, unsigned int grid_x,
                             unsigned int grid_y, unsigned int grid_z,
                             unsigned int block_x, unsigned int block_y,
                             unsigned int block_z, unsigned int shared_bytes,
                             CUstream stream, void **params, void **extra);
  CUresult (*cuMemAlloc)(CUdeviceptr *ptr, size_t bytes);
  CUresult (*cuMemAllocManaged)(CUdeviceptr *ptr, size_t bytes,
                                unsigned int flags);
  CUresult (*cuMemFree)(CUdeviceptr ptr);
  CUresult (*cuMemcpyAsync)(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                            CUstream stream);
  CUresult (*cuMemsetD32Async)(CUdeviceptr dst, unsigned int value,
                               size_t count, CUstream stream);
  CUresult (*cuMemsetD16Async)(CUdeviceptr dst, unsigned short value,
                               size_t count, CUstream stream);
  CUresult (*cuPointerGetAttribute)(void *data, int attribute, CUdeviceptr ptr);
  CUresult (*cuStreamCreate)(CUstream *stream, unsigned int flags);
  CUresult (*cuStreamDestroy)(CUstream stream);
  CUresult (*cuStreamSynchronize)(CUstream stream);
} onnxc_cuda_driver;

/* Valid once onnxc_cuda_enter returned a thread (the driver is loaded). */
extern onnxc_cuda_driver onnxc_cuda;

/* The calling thread's share: its stream, whether work was queued on it
 * since it was last synchronized, blocks freed while it was busy (see
 * CudaAllocator.c), and its cuBLAS handle. Freed when the thread exits. */
typedef struct onnxc_cuda_block onnxc_cuda_block;
typedef struct onnxc_cuda_thread {
  CUstream stream;
  int busy;
  onnxc_cuda_block *pending;
  void *blas;    /* cublasHandle_t, NULL until the first product */
  int blas_tf32; /* the math mode the handle is set to */
} onnxc_cuda_thread;

/* Whether the partition call running on this thread allows TF32 products
 * (onnxc_cuda_begin's options, or ONNXC_CUDA_TF32=1). */
int onnxc_cuda_call_allows_tf32(void);

/* The entry of every call that uses the device: loads the driver and the
 * context once (recording ONNXC_SHAPE_ERROR_NO_DEVICE on failure, every
 * time), makes the context current on this thread, and returns the
 * thread's state with its stream. NULL, with nothing to do for the caller,
 * when there is no device, the setup failed, or the thread already has an
 * error recorded (a failed run skips its remaining device work). */
onnxc_cuda_thread *onnxc_cuda_enter(void);
/* The thread's state if it has one already, without any check: for frees,
 * which also run in a failed run. */
onnxc_cuda_thread *onnxc_cuda_current_thread(void);

/* Records the failure of driver call `call` (a string literal) with
 * `result`. Returns 0, for `return onnxc_cuda_fail(...)`-style use. */
int onnxc_cuda_fail(const char *call, CUresult result);
/* Records a failure with a status of another library (cuBLAS) and its name
 * (static storage, or NULL). */
int onnxc_cuda_fail_named(const char *call, int64_t status, const char *name);
/* 1 when `result` is success, else records it and returns 0. */
static inline int onnxc_cuda_check(const char *call, CUresult result) {
  return result == CUDA_SUCCESS ? 1 : onnxc_cuda_fail(call, result);
}

/* Waits for the thread's queued work (when there is any) and releases the
 * blocks freed meanwhile. 0 if the wait failed (recorded). */
int onnxc_cuda_sync(onnxc_cuda_thread *t);
/* 1 once the process made a host-shared (managed) allocation: the host may
 * then read device results without a copy, so synchronizing must wait. */
int onnxc_cuda_host_shared_used(void);
void onnxc_cuda_note_host_shared(void);

/* CudaMap.c: an insert-only hash map from a pair of words to a non-null
 * pointer (the module, function and constant caches). Not locked: its
 * users hold their own lock. */
typedef struct onnxc_cuda_map_entry {
  uintptr_t key[2];
  void *value; /* NULL: empty */
} onnxc_cuda_map_entry;
typedef struct onnxc_cuda_map {
  onnxc_cuda_map_entry *entries;
  size_t capacity; /* 0 or a power of two */
  size_t count;
} onnxc_cuda_map;
/* The value under (k0, k1), or NULL. */
void *onnxc_cuda_map_find(const onnxc_cuda_map *map, uintptr_t k0,
                          uintptr_t k1);
/* Adds (k0, k1) -> value (not there yet, value non-null); 0 when out of
 * memory. */
int onnxc_cuda_map_insert(onnxc_cuda_map *map, uintptr_t k0, uintptr_t k1,
                          void *value);

/* CudaAllocator.c: moves the blocks a thread freed while busy to the shared
 * free lists (after its stream was synchronized). */
void onnxc_cuda_release_pending(onnxc_cuda_thread *t);
/* CudaBlas.c: destroys a thread's cuBLAS handle. */
void onnxc_cuda_blas_destroy(void *handle);

#endif /* ONNXC_RUNTIME_CUDA_CUDAINTERNAL_H */
