/*===- CudaMgpu.c - MLIR's mgpu calls on the driver -----------------------===*
 *
 * The functions MLIR 19's gpu-to-llvm and gpu.launch_func translation emit
 * (see CudaRuntime.h for the model): module loads cached per blob, launches,
 * copies and fills on the calling thread's stream, and the stream and event
 * calls, which the one stream per thread makes (nearly) trivial.
 *
 *===----------------------------------------------------------------------===*/

#ifndef _POSIX_C_SOURCE         /* the build may define it already */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock_t under -std=c11 */
#endif

#include "CpuRuntime.h"
#include "CudaInternal.h"

#include <limits.h>
#include <pthread.h>

/*===- Modules ------------------------------------------------------------===*/

/* Looked up on every launch, filled on the first run: a read-write lock. */
static pthread_rwlock_t module_lock = PTHREAD_RWLOCK_INITIALIZER;
static onnxc_cuda_map modules;   /* (blob, 0) -> CUmodule */
static onnxc_cuda_map functions; /* (CUmodule, name) -> CUfunction */

static void *cached(const onnxc_cuda_map *map, uintptr_t k0, uintptr_t k1) {
  pthread_rwlock_rdlock(&module_lock);
  void *value = onnxc_cuda_map_find(map, k0, k1);
  pthread_rwlock_unlock(&module_lock);
  return value;
}

/* The module of blob `data`, loaded on the first call (PTX is compiled by
 * the driver, at `jit_level` when that is 0..4). */
static void *load_module(const void *data, int jit_level) {
  if (!onnxc_cuda_enter())
    return NULL;
  if (!data) {
    onnxc_cuda_fail("cuModuleLoadData", CUDA_ERROR_INVALID_VALUE);
    return NULL;
  }
  void *module = cached(&modules, (uintptr_t)data, 0);
  if (module)
    return module;
  pthread_rwlock_wrlock(&module_lock);
  module = onnxc_cuda_map_find(&modules, (uintptr_t)data, 0);
  if (!module) {
    CUmodule loaded = NULL;
    int with_level = jit_level >= 0 && jit_level <= 4;
    CUresult result;
    if (with_level) {
      int option = CU_JIT_OPTIMIZATION_LEVEL;
      void *value = (void *)(uintptr_t)jit_level;
      result = onnxc_cuda.cuModuleLoadDataEx(&loaded, data, 1, &option, &value);
    } else {
      result = onnxc_cuda.cuModuleLoadData(&loaded, data);
    }
    if (onnxc_cuda_check(with_level ? "cuModuleLoadDataEx" : "cuModuleLoadData",
                         result)) {
      /* Out of memory for the cache: the module is still good for this
       * launch, and loaded again next time. */
      onnxc_cuda_map_insert(&modules, (uintptr_t)data, 0, loaded);
      module = loaded;
    }
  }
  pthread_rwlock_unlock(&module_lock);
  return module;
}

void *mgpuModuleLoad(void *data, size_t gpuBlobSize) {
  (void)gpuBlobSize;
  return load_module(data, -1);
}

void *mgpuModuleLoadJIT(void *data, int optLevel) {
  return load_module(data, optLevel); /* others: the driver's default */
}

/* Cached modules stay loaded for the process. */
void mgpuModuleUnload(void *module) { (void)module; }

void *mgpuModuleGetFunction(void *module, const char *name) {
  if (!module || !onnxc_cuda_enter())
    return NULL;
  if (!name) {
    onnxc_cuda_fail("cuModuleGetFunction", CUDA_ERROR_INVALID_VALUE);
    return NULL;
  }
  /* Keyed by the name's address: a string constant of the artifact. */
  void *function = cached(&functions, (uintptr_t)module, (uintptr_t)name);
  if (function)
    return function;
  pthread_rwlock_wrlock(&module_lock);
  function =
      onnxc_cuda_map_find(&functions, (uintptr_t)module, (uintptr_t)name);
  if (!function) {
    CUfunction found = NULL;
    if (onnxc_cuda_check("cuModuleGetFunction", onnxc_cuda.cuModuleGetFunction(
                                                    &found, module, name))) {
      onnxc_cuda_map_insert(&functions, (uintptr_t)module, (uintptr_t)name,
                            found);
      function = found;
    }
  }
  pthread_rwlock_unlock(&module_lock);
  return function;
}

/*===- Launches -----------------------------------------------------------===*/

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount) {
  (void)stream;
  (void)paramsCount;
  /* No function: its load failed, and that was recorded. */
  if (!function)
    return;
  onnxc_cuda_thread *t = onnxc_cuda_enter();
  if (!t)
    return;
  intptr_t dims[6] = {gridX, gridY, gridZ, blockX, blockY, blockZ};
  for (int i = 0; i < 6; ++i) {
    if (dims[i] == 0)
      return; /* an empty launch: a dynamic dim of 0 */
    if (dims[i] < 0 || (uintmax_t)dims[i] > UINT_MAX) {
      onnxc_cuda_fail("cuLaunchKernel", CUDA_ERROR_INVALID_VALUE);
      return;
    }
  }
  if (smem < 0) {
    onnxc_cuda_fail("cuLaunchKernel", CUDA_ERROR_INVALID_VALUE);
    return;
  }
  if (onnxc_cuda_check(
          "cuLaunchKernel",
          onnxc_cuda.cuLaunchKernel(function, (unsigned)gridX, (unsigned)gridY,
                                    (unsigned)gridZ, (unsigned)blockX,
                                    (unsigned)blockY, (unsigned)blockZ,
                                    (unsigned)smem, t->stream, params, extra)))
    t->busy = 1;
}

/*===- Copies and fills ---------------------------------------------------===*/

/* CUDA's memory type of `ptr`: CU_MEMORYTYPE_* (2 device, 1 page-locked
 * host), or 0 for memory CUDA does not know (pageable host memory). */
static unsigned memory_type(const void *ptr) {
  unsigned type = 0;
  if (onnxc_cuda.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                       (CUdeviceptr)(uintptr_t)ptr) !=
      CUDA_SUCCESS)
    return 0;
  return type;
}

/* The copy is queued on the thread's stream and waited for when the host
 * could see it too early otherwise: a host destination (the host reads it
 * next), or a page-locked host source (the host may overwrite or free it
 * next; a pageable source is staged by the driver before the call returns).
 * Device-to-device copies and uploads from pageable memory stay
 * asynchronous. */
void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream) {
  (void)stream;
  if (!sizeBytes)
    return;
  onnxc_cuda_thread *t = onnxc_cuda_enter();
  if (!t)
    return;
  if (!dst || !src) {
    onnxc_cuda_fail("cuMemcpyAsync", CUDA_ERROR_INVALID_VALUE);
    return;
  }
  if (!onnxc_cuda_check("cuMemcpyAsync",
                        onnxc_cuda.cuMemcpyAsync((CUdeviceptr)(uintptr_t)dst,
                                                 (CUdeviceptr)(uintptr_t)src,
                                                 sizeBytes, t->stream)))
    return;
  t->busy = 1;
  unsigned src_type = memory_type(src);
  if (onnxc_cuda_host_shared_used() ||
      memory_type(dst) != CU_MEMORYTYPE_DEVICE ||
      (src_type != 0 && src_type != CU_MEMORYTYPE_DEVICE))
    onnxc_cuda_sync(t);
}

void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream) {
  (void)stream;
  if (!count)
    return;
  onnxc_cuda_thread *t = onnxc_cuda_enter();
  if (!t)
    return;
  if (!dst) {
    onnxc_cuda_fail("cuMemsetD32Async", CUDA_ERROR_INVALID_VALUE);
    return;
  }
  if (onnxc_cuda_check("cuMemsetD32Async",
                       onnxc_cuda.cuMemsetD32Async((CUdeviceptr)(uintptr_t)dst,
                                                   value, count, t->stream)))
    t->busy = 1;
}

void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream) {
  (void)stream;
  if (!count)
    return;
  onnxc_cuda_thread *t = onnxc_cuda_enter();
  if (!t)
    return;
  if (!dst) {
    onnxc_cuda_fail("cuMemsetD16Async", CUDA_ERROR_INVALID_VALUE);
    return;
  }
  if (onnxc_cuda_check("cuMemsetD16Async",
                       onnxc_cuda.cuMemsetD16Async((CUdeviceptr)(uintptr_t)dst,
                                                   value, count, t->stream)))
    t->busy = 1;
}

/*===- Streams and events -------------------------------------------------===*/

void *mgpuStreamCreate(void) {
  onnxc_cuda_thread *t = onnxc_cuda_enter();
  return t ? (void *)t->stream : NULL;
}

/* The thread's stream lives as long as the thread. */
void mgpuStreamDestroy(void *stream) { (void)stream; }

/* See CudaRuntime.h: only host-shared memory lets the host see device
 * results without a (synchronizing) copy, so only then is there anything
 * to wait for. */
void mgpuStreamSynchronize(void *stream) {
  (void)stream;
  if (!onnxc_cuda_host_shared_used())
    return;
  onnxc_cuda_thread *t = onnxc_cuda_enter();
  if (t)
    onnxc_cuda_sync(t);
}

/* Every event is this token: on one stream, recording and waiting order
 * nothing that is not already ordered. */
static char event_token;

void *mgpuEventCreate(void) { return &event_token; }
void mgpuEventDestroy(void *event) { (void)event; }
void mgpuEventRecord(void *event, void *stream) {
  (void)event;
  (void)stream;
}
void mgpuStreamWaitEvent(void *stream, void *event) {
  (void)stream;
  (void)event;
}
void mgpuEventSynchronize(void *event) {
  (void)event;
  mgpuStreamSynchronize(NULL);
}
