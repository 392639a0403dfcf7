/*===- FakeCuda.c - libcuda.so.1 on host memory, for the tests ------------===*
 *
 * The driver functions runtime/cuda resolves, implemented on the host so
 * that CudaGpuTest.cpp runs where there is no GPU (onnxc-cuda-fake-tests
 * names this library in ONNXC_CUDA_DRIVER). Everything is synchronous.
 * Besides doing the work it checks how it is called, as the real driver
 * would fail: the context must be current on the calling thread, streams
 * must be live, and every device pointer a copy, fill or kernel touches
 * must lie inside a live allocation. The one kernel it knows is `scale`
 * (p[i] *= s for i < n), the PTX kernel of CudaGpuTest.cpp. FakeCublas.c,
 * in the same library, stands in for libcublas.
 *
 *===----------------------------------------------------------------------===*/

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

enum {
  SUCCESS = 0,
  INVALID_VALUE = 1,
  NOT_INITIALIZED = 3,
  INVALID_DEVICE = 101,
  INVALID_IMAGE = 200,
  INVALID_CONTEXT = 201,
  INVALID_HANDLE = 400,
  NOT_FOUND = 500,
  ILLEGAL_ADDRESS = 700
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int initialized;
static char primary_context;
static _Thread_local void *current_context;

typedef struct allocation {
  uintptr_t base;
  size_t size;
  struct allocation *next;
} allocation;
static allocation *allocations;

/* Destroyed streams are kept (later uses must fail, not crash), on a list
 * so that no leak checker counts them. */
typedef struct stream {
  int live;
  struct stream *next;
} stream;
static stream *streams;

#define API __attribute__((visibility("default")))

static int context_current(void) { return current_context == &primary_context; }

/* 1 when [p, p + bytes) lies inside a live allocation (FakeCublas.c checks
 * its operands with it too). */
int fake_cuda_inside(uintptr_t p, size_t bytes) {
  int found = 0;
  pthread_mutex_lock(&lock);
  for (allocation *a = allocations; a && !found; a = a->next)
    found = p >= a->base && bytes <= a->size && p - a->base <= a->size - bytes;
  pthread_mutex_unlock(&lock);
  return found;
}

/* 1 when p is in some live allocation (then it is device memory). */
static int is_device(uintptr_t p) { return fake_cuda_inside(p, 1); }

API CUresult cuInit(unsigned flags) {
  initialized = flags == 0;
  return initialized ? SUCCESS : INVALID_VALUE;
}

API CUresult cuDeviceGet(int *device, int ordinal) {
  if (!initialized)
    return NOT_INITIALIZED;
  if (ordinal != 0)
    return INVALID_DEVICE;
  *device = 0;
  return SUCCESS;
}

API CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  if (device != 0)
    return INVALID_DEVICE;
  *context = &primary_context;
  return SUCCESS;
}

API CUresult cuCtxGetCurrent(void **context) {
  *context = current_context;
  return SUCCESS;
}

API CUresult cuCtxSetCurrent(void *context) {
  current_context = context;
  return SUCCESS;
}

API CUresult cuGetErrorName(CUresult error, const char **name) {
  switch (error) {
  case SUCCESS:
    *name = "CUDA_SUCCESS";
    return SUCCESS;
  case INVALID_VALUE:
    *name = "CUDA_ERROR_INVALID_VALUE";
    return SUCCESS;
  case INVALID_DEVICE:
    *name = "CUDA_ERROR_INVALID_DEVICE";
    return SUCCESS;
  case INVALID_IMAGE:
    *name = "CUDA_ERROR_INVALID_IMAGE";
    return SUCCESS;
  case INVALID_CONTEXT:
    *name = "CUDA_ERROR_INVALID_CONTEXT";
    return SUCCESS;
  case INVALID_HANDLE:
    *name = "CUDA_ERROR_INVALID_HANDLE";
    return SUCCESS;
  case NOT_FOUND:
    *name = "CUDA_ERROR_NOT_FOUND";
    return SUCCESS;
  case ILLEGAL_ADDRESS:
    *name = "CUDA_ERROR_ILLEGAL_ADDRESS";
    return SUCCESS;
  default:
    *name = NULL;
    return INVALID_VALUE;
  }
}

/*===- Modules and the one kernel ----------------------------------------===*/

API CUresult cuModuleLoadData(void **module, const void *image) {
  if (!context_current())
    return INVALID_CONTEXT;
  if (!image || !strstr(image, ".entry"))
    return INVALID_IMAGE;
  *module = (void *)image;
  return SUCCESS;
}

API CUresult cuModuleLoadDataEx(void **module, const void *image,
                                unsigned num_options, int *options,
                                void **values) {
  for (unsigned i = 0; i < num_options; ++i)
    if (options[i] == 7 /* optimization level */ && (uintptr_t)values[i] > 4)
      return INVALID_VALUE;
  return cuModuleLoadData(module, image);
}

typedef CUresult (*kernel)(unsigned threads, void **params);

static CUresult scale(unsigned threads, void **params) {
  float *p = *(float **)params[0];
  float s = *(float *)params[1];
  unsigned n = *(unsigned *)params[2];
  unsigned count = threads < n ? threads : n;
  if (!fake_cuda_inside((uintptr_t)p, count * sizeof(float)))
    return ILLEGAL_ADDRESS;
  for (unsigned i = 0; i < count; ++i)
    p[i] *= s;
  return SUCCESS;
}

API CUresult cuModuleGetFunction(void **function, void *module,
                                 const char *name) {
  if (!module)
    return INVALID_HANDLE;
  if (strcmp(name, "scale") != 0 || !strstr(module, ".entry scale"))
    return NOT_FOUND;
  kernel k = scale;
  memcpy(function, &k, sizeof k);
  return SUCCESS;
}

static int stream_live(void *s) { return s && ((stream *)s)->live; }

API CUresult cuLaunchKernel(void *function, unsigned gx, unsigned gy,
                            unsigned gz, unsigned bx, unsigned by, unsigned bz,
                            unsigned shared, void *s, void **params,
                            void **extra) {
  if (!context_current())
    return INVALID_CONTEXT;
  if (!function || !stream_live(s) || extra)
    return INVALID_HANDLE;
  if (!gx || !gy || !gz || !bx || !by || !bz || (uint64_t)bx * by * bz > 1024 ||
      shared > 48 * 1024 || !params)
    return INVALID_VALUE;
  kernel k;
  memcpy(&k, &function, sizeof k);
  return k(gx * gy * gz * bx * by * bz, params);
}

/*===- Memory ------------------------------------------------------------===*/

static CUresult allocate(CUdeviceptr *ptr, size_t bytes) {
  if (!context_current())
    return INVALID_CONTEXT;
  if (!bytes)
    return INVALID_VALUE;
  allocation *a = malloc(sizeof *a);
  void *p = aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!a || !p) {
    free(a);
    free(p);
    return 2; /* out of memory */
  }
  memset(p, 0xcd, bytes);
  a->base = (uintptr_t)p;
  a->size = bytes;
  pthread_mutex_lock(&lock);
  a->next = allocations;
  allocations = a;
  pthread_mutex_unlock(&lock);
  *ptr = (CUdeviceptr)a->base;
  return SUCCESS;
}

API CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes) {
  return allocate(ptr, bytes);
}

API CUresult cuMemAllocManaged(CUdeviceptr *ptr, size_t bytes, unsigned flags) {
  return flags == 1 ? allocate(ptr, bytes) : INVALID_VALUE;
}

API CUresult cuMemFree_v2(CUdeviceptr ptr) {
  allocation *found = NULL;
  pthread_mutex_lock(&lock);
  for (allocation **at = &allocations; *at; at = &(*at)->next)
    if ((*at)->base == ptr) {
      found = *at;
      *at = found->next;
      break;
    }
  pthread_mutex_unlock(&lock);
  if (!found)
    return INVALID_VALUE;
  free((void *)found->base);
  free(found);
  return SUCCESS;
}

/* A device pointer must have its whole range inside its allocation. */
static int range_ok(CUdeviceptr p, size_t bytes) {
  return !is_device((uintptr_t)p) || fake_cuda_inside((uintptr_t)p, bytes);
}

API CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                           void *s) {
  if (!context_current())
    return INVALID_CONTEXT;
  if (!stream_live(s))
    return INVALID_HANDLE;
  if (!dst || !src || !range_ok(dst, bytes) || !range_ok(src, bytes))
    return INVALID_VALUE;
  memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
  return SUCCESS;
}

API CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned value, size_t count,
                              void *s) {
  if (!context_current())
    return INVALID_CONTEXT;
  if (!stream_live(s))
    return INVALID_HANDLE;
  if (!fake_cuda_inside((uintptr_t)dst, count * 4))
    return INVALID_VALUE;
  for (size_t i = 0; i < count; ++i)
    memcpy((char *)(uintptr_t)dst + 4 * i, &value, 4);
  return SUCCESS;
}

API CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value,
                              size_t count, void *s) {
  if (!context_current())
    return INVALID_CONTEXT;
  if (!stream_live(s))
    return INVALID_HANDLE;
  if (!fake_cuda_inside((uintptr_t)dst, count * 2))
    return INVALID_VALUE;
  for (size_t i = 0; i < count; ++i)
    memcpy((char *)(uintptr_t)dst + 2 * i, &value, 2);
  return SUCCESS;
}

API CUresult cuPointerGetAttribute(void *data, int attribute, CUdeviceptr ptr) {
  if (attribute != 2 /* memory type */ || !is_device((uintptr_t)ptr))
    return INVALID_VALUE; /* as for pageable host memory */
  *(unsigned *)data = 2;  /* device */
  return SUCCESS;
}

/*===- Streams -----------------------------------------------------------===*/

API CUresult cuStreamCreate(void **s, unsigned flags) {
  if (!context_current())
    return INVALID_CONTEXT;
  if (flags > 1)
    return INVALID_VALUE;
  stream *created = calloc(1, sizeof *created);
  if (!created)
    return 2;
  created->live = 1;
  pthread_mutex_lock(&lock);
  created->next = streams;
  streams = created;
  pthread_mutex_unlock(&lock);
  *s = created;
  return SUCCESS;
}

API CUresult cuStreamDestroy_v2(void *s) {
  if (!stream_live(s))
    return INVALID_HANDLE;
  ((stream *)s)->live = 0;
  return SUCCESS;
}

API CUresult cuStreamSynchronize(void *s) {
  return stream_live(s) ? SUCCESS : INVALID_HANDLE;
}
