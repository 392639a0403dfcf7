/*===- CudaAllocator.c - Cached device memory and the weights' copies -----===*
 *
 * cuMemAlloc and cuMemFree cost tens of microseconds and synchronize the
 * device, far too much for every buffer of every run. mgpuMemAlloc serves
 * requests from process-wide free lists instead, one per block size
 * (onnxc_cuda_bucket_size), and calls the driver only when the list of
 * that size is empty; mgpuMemFree puts the block back. Nothing is returned
 * to the driver, except when an allocation runs out of memory: the free
 * blocks are then released and the allocation tried again.
 *
 * Sharing freed blocks between threads is safe only once the stream of the
 * thread that freed one has finished with it. The host code of a partition
 * frees its buffers at its end, after the device-to-host copies of its
 * results, which synchronize the stream; such a free goes straight to the
 * shared lists. A block freed while the thread's stream still has queued
 * work waits on the thread's pending list instead: the same thread may take
 * it again at once (its stream orders the uses), the others get it after
 * that stream's next synchronization (onnxc_cuda_sync).
 *
 * Host-shared (managed) memory is not cached: it is rare, and the host may
 * touch it.
 *
 * The weights' device copies (onnxc_cuda_constant) are separate
 * allocations, made once per (host pointer, size) and kept.
 *
 *===----------------------------------------------------------------------===*/

#include "CpuRuntime.h"
#include "CudaInternal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct onnxc_cuda_block {
  CUdeviceptr ptr;
  uint64_t size; /* a bucket size */
  int managed;
  /* In the live table's chain, a free list or a pending list: a block is
   * in exactly one. */
  onnxc_cuda_block *next;
};

enum {
  SMALL_LIMIT = 1 << 20, /* multiples of 256 bytes up to 1 MiB */
  SMALL_STEP = 256,
  SMALL_CLASSES = SMALL_LIMIT / SMALL_STEP,
  LARGE_FIRST_EXPONENT = 20, /* then four sizes per power of two */
  LARGE_CLASSES = (64 - LARGE_FIRST_EXPONENT) * 4
};

uint64_t onnxc_cuda_bucket_size(uint64_t bytes) {
  if (bytes <= SMALL_STEP)
    return SMALL_STEP; /* 0 bytes too: a valid, distinct pointer */
  if (bytes <= SMALL_LIMIT)
    return (bytes + SMALL_STEP - 1) / SMALL_STEP * SMALL_STEP;
  if (bytes > UINT64_C(1) << 63)
    return 0;
  /* 2^k < bytes <= 2^(k+1): round up to a multiple of 2^(k-2), so at most
   * a quarter of the block is unused. */
  int k = 63 - __builtin_clzll(bytes - 1);
  uint64_t step = UINT64_C(1) << (k - 2);
  return (bytes + step - 1) / step * step;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static onnxc_cuda_block *free_small[SMALL_CLASSES];
static onnxc_cuda_block *free_large[LARGE_CLASSES];
/* The blocks handed out, by pointer: chains of a table of 2^n heads. */
static onnxc_cuda_block **live;
static size_t live_capacity, live_count;

/* The free list of bucket size `size`. */
static onnxc_cuda_block **free_list(uint64_t size) {
  if (size <= SMALL_LIMIT)
    return &free_small[size / SMALL_STEP - 1];
  /* size = m 2^(e-2), m in 4..7 */
  int e = 63 - __builtin_clzll(size);
  int m = (int)(size >> (e - 2));
  return &free_large[(e - LARGE_FIRST_EXPONENT) * 4 + (m - 4)];
}

static size_t live_slot(CUdeviceptr ptr) {
  uint64_t h = (uint64_t)(ptr >> 8) * 0x9e3779b97f4a7c15ull;
  return (size_t)(h >> 32) & (live_capacity - 1);
}

/* Under `lock`. 0 when out of memory. */
static int live_insert(onnxc_cuda_block *b) {
  if (live_count + 1 > live_capacity) {
    size_t capacity = live_capacity ? 2 * live_capacity : 256;
    onnxc_cuda_block **table = calloc(capacity, sizeof *table);
    if (!table)
      return 0;
    onnxc_cuda_block **old = live;
    size_t old_capacity = live_capacity;
    live = table;
    live_capacity = capacity;
    for (size_t i = 0; i < old_capacity; ++i) {
      for (onnxc_cuda_block *c = old[i], *next; c; c = next) {
        next = c->next;
        size_t slot = live_slot(c->ptr);
        c->next = live[slot];
        live[slot] = c;
      }
    }
    free(old);
  }
  size_t slot = live_slot(b->ptr);
  b->next = live[slot];
  live[slot] = b;
  ++live_count;
  return 1;
}

/* Under `lock`: the block of `ptr`, taken out of the table, or NULL. */
static onnxc_cuda_block *live_remove(CUdeviceptr ptr) {
  if (!live_capacity)
    return NULL;
  for (onnxc_cuda_block **at = &live[live_slot(ptr)]; *at; at = &(*at)->next) {
    onnxc_cuda_block *b = *at;
    if (b->ptr == ptr) {
      *at = b->next;
      --live_count;
      return b;
    }
  }
  return NULL;
}

/* Returns every free block to the driver (after an allocation ran out of
 * memory). The blocks on the lists are used by no stream. */
static void release_free_blocks(void) {
  onnxc_cuda_block *chain = NULL;
  pthread_mutex_lock(&lock);
  for (int list = 0; list < SMALL_CLASSES + LARGE_CLASSES; ++list) {
    onnxc_cuda_block **head = list < SMALL_CLASSES
                                  ? &free_small[list]
                                  : &free_large[list - SMALL_CLASSES];
    while (*head) {
      onnxc_cuda_block *b = *head;
      *head = b->next;
      b->next = chain;
      chain = b;
    }
  }
  pthread_mutex_unlock(&lock);
  for (onnxc_cuda_block *b = chain, *next; b; b = next) {
    next = b->next;
    onnxc_cuda.cuMemFree(b->ptr);
    free(b);
  }
}

/* cuMemAlloc, retried once after releasing the cache (and this thread's
 * pending blocks) when the device is full. 0 on failure (recorded). */
static CUdeviceptr device_alloc(onnxc_cuda_thread *t, uint64_t size,
                                int managed) {
  CUdeviceptr ptr = 0;
  CUresult result =
      managed ? onnxc_cuda.cuMemAllocManaged(&ptr, size, CU_MEM_ATTACH_GLOBAL)
              : onnxc_cuda.cuMemAlloc(&ptr, size);
  if (result == CUDA_ERROR_OUT_OF_MEMORY) {
    onnxc_cuda_sync(t);
    release_free_blocks();
    result =
        managed ? onnxc_cuda.cuMemAllocManaged(&ptr, size, CU_MEM_ATTACH_GLOBAL)
                : onnxc_cuda.cuMemAlloc(&ptr, size);
  }
  if (result != CUDA_SUCCESS) {
    onnxc_cuda_fail(managed ? "cuMemAllocManaged" : "cuMemAlloc", result);
    return 0;
  }
  return ptr;
}

/* A block of `size` this thread freed while busy, or NULL. */
static onnxc_cuda_block *take_pending(onnxc_cuda_thread *t, uint64_t size) {
  for (onnxc_cuda_block **at = &t->pending; *at; at = &(*at)->next) {
    onnxc_cuda_block *b = *at;
    if (b->size == size) {
      *at = b->next;
      return b;
    }
  }
  return NULL;
}

/*===- A partition call's buffers -----------------------------------------===*/

/* The generated code of a cuda partition brackets each call with
 * onnxc_cuda_begin/end and frees none of its device buffers itself: some
 * are allocated inside branches (the broadcasting of dynamic dims) and
 * escape through them. The buffers allocated on this thread in between are
 * recorded here and freed by onnxc_cuda_end. The array is kept for the
 * thread's next call. */
static _Thread_local void **scope;
static _Thread_local size_t scope_len, scope_cap;
static _Thread_local int scoped;
static _Thread_local int call_tf32;

static int scope_add(void *ptr) {
  if (scope_len == scope_cap) {
    size_t cap = scope_cap ? 2 * scope_cap : 64;
    void **grown = realloc(scope, cap * sizeof *grown);
    if (!grown)
      return 0;
    scope = grown;
    scope_cap = cap;
  }
  scope[scope_len++] = ptr;
  return 1;
}

void onnxc_cuda_begin(int32_t options) {
  scoped = 1;
  scope_len = 0;
  call_tf32 = (options & ONNXC_CUDA_ALLOW_TF32) != 0;
}

int onnxc_cuda_call_allows_tf32(void) {
  static int forced = -1; /* ONNXC_CUDA_TF32=1, read once */
  if (forced < 0) {
    const char *env = getenv("ONNXC_CUDA_TF32");
    forced = env && strcmp(env, "1") == 0;
  }
  return call_tf32 || forced;
}

void onnxc_cuda_end(void) {
  /* Queued work may still read the buffers (also in a failed run). */
  onnxc_cuda_thread *t = onnxc_cuda_current_thread();
  if (t)
    onnxc_cuda_sync(t);
  for (size_t i = 0; i < scope_len; ++i)
    mgpuMemFree(scope[i], NULL);
  scope_len = 0;
  scoped = 0;
}

static void *allocate(uint64_t sizeBytes, bool isHostShared);

void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, bool isHostShared) {
  (void)stream;
  void *ptr = allocate(sizeBytes, isHostShared);
  if (ptr && scoped && !scope_add(ptr)) {
    mgpuMemFree(ptr, NULL);
    onnxc_cuda_fail("mgpuMemAlloc", CUDA_ERROR_OUT_OF_MEMORY);
    return NULL;
  }
  return ptr;
}

static void *allocate(uint64_t sizeBytes, bool isHostShared) {
  onnxc_cuda_thread *t = onnxc_cuda_enter();
  if (!t)
    return NULL;
  uint64_t size = onnxc_cuda_bucket_size(sizeBytes);
  if (!size) {
    onnxc_cuda_fail("cuMemAlloc", CUDA_ERROR_OUT_OF_MEMORY);
    return NULL;
  }
  onnxc_cuda_block *b = isHostShared ? NULL : take_pending(t, size);
  pthread_mutex_lock(&lock);
  if (!b && !isHostShared) {
    onnxc_cuda_block **head = free_list(size);
    b = *head;
    if (b)
      *head = b->next;
  }
  int inserted = b && live_insert(b);
  pthread_mutex_unlock(&lock);
  if (inserted)
    return (void *)(uintptr_t)b->ptr;
  if (b) {
    /* Kept for this thread: it may come from its pending list. */
    b->next = t->pending;
    t->pending = b;
    onnxc_cuda_fail("mgpuMemAlloc", CUDA_ERROR_OUT_OF_MEMORY);
    return NULL;
  }

  b = malloc(sizeof *b);
  if (!b) {
    onnxc_cuda_fail("mgpuMemAlloc", CUDA_ERROR_OUT_OF_MEMORY);
    return NULL;
  }
  b->ptr = device_alloc(t, size, isHostShared);
  b->size = size;
  b->managed = isHostShared;
  if (!b->ptr) {
    free(b);
    return NULL;
  }
  if (isHostShared)
    onnxc_cuda_note_host_shared();
  pthread_mutex_lock(&lock);
  inserted = live_insert(b);
  pthread_mutex_unlock(&lock);
  if (!inserted) {
    onnxc_cuda.cuMemFree(b->ptr);
    free(b);
    onnxc_cuda_fail("mgpuMemAlloc", CUDA_ERROR_OUT_OF_MEMORY);
    return NULL;
  }
  return (void *)(uintptr_t)b->ptr;
}

void mgpuMemFree(void *ptr, void *stream) {
  (void)stream;
  if (!ptr)
    return;
  pthread_mutex_lock(&lock);
  onnxc_cuda_block *b = live_remove((CUdeviceptr)(uintptr_t)ptr);
  pthread_mutex_unlock(&lock);
  if (!b)
    return; /* not ours */
  /* Frees run in failed runs too (no onnxc_cuda_enter): the thread made
   * the allocation, so it has its state. */
  onnxc_cuda_thread *t = onnxc_cuda_current_thread();
  if (b->managed) {
    if (t)
      onnxc_cuda_sync(t);
    onnxc_cuda.cuMemFree(b->ptr);
    free(b);
    return;
  }
  if (t && t->busy) {
    b->next = t->pending;
    t->pending = b;
    return;
  }
  pthread_mutex_lock(&lock);
  b->next = *free_list(b->size);
  *free_list(b->size) = b;
  pthread_mutex_unlock(&lock);
}

void onnxc_cuda_release_pending(onnxc_cuda_thread *t) {
  if (!t->pending)
    return;
  pthread_mutex_lock(&lock);
  while (t->pending) {
    onnxc_cuda_block *b = t->pending;
    t->pending = b->next;
    b->next = *free_list(b->size);
    *free_list(b->size) = b;
  }
  pthread_mutex_unlock(&lock);
}

/*===- The weights' device copies -----------------------------------------===*/

static pthread_mutex_t constant_lock = PTHREAD_MUTEX_INITIALIZER;
static onnxc_cuda_map constants; /* (host, bytes) -> device pointer */

void *onnxc_cuda_constant(const void *host, int64_t bytes) {
  onnxc_cuda_thread *t = onnxc_cuda_enter();
  if (!t)
    return NULL;
  if (bytes < 0 || (bytes > 0 && !host)) {
    onnxc_cuda_fail("onnxc_cuda_constant", CUDA_ERROR_INVALID_VALUE);
    return NULL;
  }
  uintptr_t k0 = (uintptr_t)host, k1 = (uintptr_t)bytes;
  /* Held through the upload: two threads missing at once upload once, and
   * uploads happen on the first run only. */
  pthread_mutex_lock(&constant_lock);
  void *found = onnxc_cuda_map_find(&constants, k0, k1);
  if (found) {
    pthread_mutex_unlock(&constant_lock);
    return found;
  }
  CUdeviceptr ptr = device_alloc(t, onnxc_cuda_bucket_size((uint64_t)bytes),
                                 /*managed=*/0);
  int ok = ptr != 0;
  if (ok && bytes > 0) {
    ok = onnxc_cuda_check("cuMemcpyAsync",
                          onnxc_cuda.cuMemcpyAsync(ptr, (CUdeviceptr)k0,
                                                   (size_t)bytes, t->stream));
    t->busy |= ok;
    /* Complete before the pointer is shared with other threads' streams. */
    ok = ok && onnxc_cuda_sync(t);
  }
  if (ok && !onnxc_cuda_map_insert(&constants, k0, k1, (void *)(uintptr_t)ptr))
    ok = onnxc_cuda_fail("onnxc_cuda_constant", CUDA_ERROR_OUT_OF_MEMORY);
  if (!ok && ptr)
    onnxc_cuda.cuMemFree(ptr);
  pthread_mutex_unlock(&constant_lock);
  return ok ? (void *)(uintptr_t)ptr : NULL;
}
