/*===- CudaDriver.c - The CUDA driver, the context and the thread streams -===*
 *
 * The driver (libcuda.so.1, or ONNXC_CUDA_DRIVER: the tests name a missing
 * one) is opened with dlopen on the first call that needs it, its functions
 * resolved with dlsym, and the primary context of device ONNXC_CUDA_DEVICE
 * (default 0) retained, once per process. Any failure there leaves the
 * process without a device: every later call records
 * ONNXC_SHAPE_ERROR_NO_DEVICE with the reason, and the run fails with
 * ONNXC_NO_DEVICE. The driver stays loaded (the status names it hands out
 * are kept in error records).
 *
 * Each thread gets its own non-blocking stream on its first call, so
 * concurrent runs neither serialize on one stream nor synchronize with the
 * legacy default stream; it is destroyed, with the thread's cuBLAS handle,
 * when the thread exits.
 *
 * That destructor, the device memory the caches keep and the loaded modules
 * belong to the artifact this runtime is linked into. Once the driver is
 * loaded, the artifact is therefore pinned (RTLD_NODELETE): unloading it
 * later leaves it mapped, so a thread that exits afterwards does not call
 * into unmapped code. Its device memory is given back at process exit only.
 *
 *===----------------------------------------------------------------------===*/

#ifndef _GNU_SOURCE /* the build may define it already */
#define _GNU_SOURCE /* dladdr, RTLD_NODELETE */
#endif

#include "CpuRuntime.h"
#include "CudaInternal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

onnxc_cuda_driver onnxc_cuda;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int ready;         /* written once, under load_once */
static CUcontext context; /* likewise */
static char no_device_reason[512];
static pthread_key_t thread_key;
static _Thread_local onnxc_cuda_thread *current_thread;

/* mgpuSetDefaultDevice's choice, taken while loading has not started. */
static atomic_int requested_device = -1;
static atomic_int load_started;
static atomic_int host_shared_used;

static const struct {
  size_t offset;
  const char *name;
} symbols[] = {
#define ONNXC_CUDA_SYMBOL(field, name)                                         \
  { offsetof(onnxc_cuda_driver, field), name }
    ONNXC_CUDA_SYMBOL(cuInit, "cuInit"),
    ONNXC_CUDA_SYMBOL(cuDeviceGet, "cuDeviceGet"),
    ONNXC_CUDA_SYMBOL(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
    ONNXC_CUDA_SYMBOL(cuCtxGetCurrent, "cuCtxGetCurrent"),
    ONNXC_CUDA_SYMBOL(cuCtxSetCurrent, "cuCtxSetCurrent"),
    ONNXC_CUDA_SYMBOL(cuGetErrorName, "cuGetErrorName"),
    ONNXC_CUDA_SYMBOL(cuModuleLoadData, "cuModuleLoadData"),
    ONNXC_CUDA_SYMBOL(cuModuleLoadDataEx, "cuModuleLoadDataEx"),
    ONNXC_CUDA_SYMBOL(cuModuleGetFunction, "cuModuleGetFunction"),
    ONNXC_CUDA_SYMBOL(cuLaunchKernel, "cuLaunchKernel"),
    ONNXC_CUDA_SYMBOL(cuMemAlloc, "cuMemAlloc_v2"),
    ONNXC_CUDA_SYMBOL(cuMemAllocManaged, "cuMemAllocManaged"),
    ONNXC_CUDA_SYMBOL(cuMemFree, "cuMemFree_v2"),
    ONNXC_CUDA_SYMBOL(cuMemcpyAsync, "cuMemcpyAsync"),
    ONNXC_CUDA_SYMBOL(cuMemsetD32Async, "cuMemsetD32Async"),
    ONNXC_CUDA_SYMBOL(cuMemsetD16Async, "cuMemsetD16Async"),
    ONNXC_CUDA_SYMBOL(cuPointerGetAttribute, "cuPointerGetAttribute"),
    ONNXC_CUDA_SYMBOL(cuStreamCreate, "cuStreamCreate"),
    ONNXC_CUDA_SYMBOL(cuStreamDestroy, "cuStreamDestroy_v2"),
    ONNXC_CUDA_SYMBOL(cuStreamSynchronize, "cuStreamSynchronize"),
#undef ONNXC_CUDA_SYMBOL
};

/* The driver's name of `result` (static storage), or NULL. */
static const char *status_name(CUresult result) {
  const char *name = NULL;
  if (!onnxc_cuda.cuGetErrorName ||
      onnxc_cuda.cuGetErrorName(result, &name) != CUDA_SUCCESS)
    return NULL;
  return name;
}

static void no_device(const char *what, CUresult result) {
  const char *name = status_name(result);
  if (name)
    snprintf(no_device_reason, sizeof no_device_reason, "%s: %s", what, name);
  else
    snprintf(no_device_reason, sizeof no_device_reason, "%s: status %d", what,
             result);
}

static void thread_exit(void *state);

/* The device index: ONNXC_CUDA_DEVICE, else mgpuSetDefaultDevice's, else
 * 0; -1 (reason written) when the variable is not an index. */
static int device_index(void) {
  const char *env = getenv("ONNXC_CUDA_DEVICE");
  if (!env || !*env) {
    int requested = atomic_load(&requested_device);
    return requested >= 0 ? requested : 0;
  }
  char *end;
  long index = strtol(env, &end, 10);
  if (*end || index < 0 || index > 1 << 20) {
    snprintf(no_device_reason, sizeof no_device_reason,
             "ONNXC_CUDA_DEVICE='%s' is not a device index", env);
    return -1;
  }
  return (int)index;
}

/* Keeps the object this code is linked into mapped for good (see the file
 * comment). Nothing to do when it is the executable. */
static void pin_artifact(void) {
  Dl_info info;
  if (!dladdr(no_device_reason, &info) || !info.dli_fname)
    return;
  /* Takes a reference that is never dropped, on an object already loaded. */
  dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

static void load(void) {
  atomic_store(&load_started, 1);
  if (pthread_key_create(&thread_key, thread_exit) != 0) {
    snprintf(no_device_reason, sizeof no_device_reason,
             "pthread_key_create failed");
    return;
  }
  const char *path = getenv("ONNXC_CUDA_DRIVER");
  if (!path || !*path)
    path = "libcuda.so.1";
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *error = dlerror();
    snprintf(no_device_reason, sizeof no_device_reason, "%s",
             error ? error : path);
    return;
  }
  for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; ++i) {
    void *function = dlsym(library, symbols[i].name);
    if (!function) {
      memset(&onnxc_cuda, 0, sizeof onnxc_cuda);
      snprintf(no_device_reason, sizeof no_device_reason,
               "%s has no %s (driver too old)", path, symbols[i].name);
      return;
    }
    memcpy((char *)&onnxc_cuda + symbols[i].offset, &function, sizeof function);
  }
  CUresult result = onnxc_cuda.cuInit(0);
  if (result != CUDA_SUCCESS) {
    no_device("cuInit failed", result);
    return;
  }
  int index = device_index();
  if (index < 0)
    return;
  CUdevice device;
  result = onnxc_cuda.cuDeviceGet(&device, index);
  if (result != CUDA_SUCCESS) {
    char what[64];
    snprintf(what, sizeof what, "device %d: cuDeviceGet failed", index);
    no_device(what, result);
    return;
  }
  result = onnxc_cuda.cuDevicePrimaryCtxRetain(&context, device);
  if (result != CUDA_SUCCESS) {
    char what[64];
    snprintf(what, sizeof what, "device %d: cuDevicePrimaryCtxRetain failed",
             index);
    no_device(what, result);
    return;
  }
  pin_artifact();
  ready = 1;
}

onnxc_cuda_thread *onnxc_cuda_enter(void) {
  if (onnxc_rt_shape_error_pending())
    return NULL;
  pthread_once(&load_once, load);
  if (!ready) {
    onnxc_rt_shape_error(no_device_reason, ONNXC_SHAPE_ERROR_NO_DEVICE, 0, 0);
    return NULL;
  }
  /* Another library may have made its own context current on this thread
   * since; asking is cheap (a thread-local read in the driver). */
  CUcontext current = NULL;
  if (onnxc_cuda.cuCtxGetCurrent(&current) != CUDA_SUCCESS ||
      current != context) {
    if (!onnxc_cuda_check("cuCtxSetCurrent",
                          onnxc_cuda.cuCtxSetCurrent(context)))
      return NULL;
  }
  onnxc_cuda_thread *t = current_thread;
  if (t)
    return t;
  t = calloc(1, sizeof *t);
  if (!t) {
    onnxc_cuda_fail("calloc", CUDA_ERROR_OUT_OF_MEMORY);
    return NULL;
  }
  if (!onnxc_cuda_check(
          "cuStreamCreate",
          onnxc_cuda.cuStreamCreate(&t->stream, CU_STREAM_NON_BLOCKING))) {
    free(t);
    return NULL;
  }
  pthread_setspecific(thread_key, t);
  current_thread = t;
  return t;
}

onnxc_cuda_thread *onnxc_cuda_current_thread(void) { return current_thread; }

/* The loaders call it (ONNXC_DEVICE_CHECK_SYMBOL) right after opening an
 * artifact, so one with cuda partitions fails at load, not at its first
 * run, on a machine without the driver or the device. */
__attribute__((visibility("default"))) int onnxc_device_check(char *message,
                                                              size_t size) {
  pthread_once(&load_once, load);
  if (ready)
    return ONNXC_OK;
  if (message && size)
    snprintf(message, size, "no CUDA device: %s", no_device_reason);
  return ONNXC_NO_DEVICE;
}

/* The thread is exiting: its queued work is waited for, its freed blocks go
 * to the shared lists, its handle and stream are destroyed. */
static void thread_exit(void *state) {
  onnxc_cuda_thread *t = state;
  current_thread = NULL;
  onnxc_cuda.cuCtxSetCurrent(context);
  if (t->blas)
    onnxc_cuda_blas_destroy(t->blas);
  if (t->busy)
    onnxc_cuda.cuStreamSynchronize(t->stream);
  t->busy = 0;
  onnxc_cuda_release_pending(t);
  onnxc_cuda.cuStreamDestroy(t->stream);
  free(t);
}

int onnxc_cuda_sync(onnxc_cuda_thread *t) {
  int ok = 1;
  if (t->busy) {
    ok = onnxc_cuda_check("cuStreamSynchronize",
                          onnxc_cuda.cuStreamSynchronize(t->stream));
    t->busy = 0;
  }
  /* Even after a failed wait the stream has stopped using them. */
  if (t->pending)
    onnxc_cuda_release_pending(t);
  return ok;
}

int onnxc_cuda_fail(const char *call, CUresult result) {
  const char *name = status_name(result);
  onnxc_rt_shape_error(call, ONNXC_SHAPE_ERROR_DEVICE, result,
                       (int64_t)(intptr_t)name);
  return 0;
}

int onnxc_cuda_fail_named(const char *call, int64_t status, const char *name) {
  onnxc_rt_shape_error(call, ONNXC_SHAPE_ERROR_DEVICE, status,
                       (int64_t)(intptr_t)name);
  return 0;
}

int onnxc_cuda_host_shared_used(void) {
  return atomic_load_explicit(&host_shared_used, memory_order_relaxed);
}

void onnxc_cuda_note_host_shared(void) {
  atomic_store_explicit(&host_shared_used, 1, memory_order_relaxed);
}

void mgpuSetDefaultDevice(int32_t device) {
  if (device >= 0 && !atomic_load(&load_started))
    atomic_store(&requested_device, device);
}
