/*===- BufferPool.c - The heap buffers of compiled graphs, kept warm ------===*
 *
 * A graph with dynamic shapes allocates its intermediates at run time (the
 * workspace plan only takes static sizes). The compiler routes those
 * allocations here (compiler/emit/ObjectFile.cpp renames the graph's
 * aligned_alloc and free after LLVM's optimizer has used their meaning).
 *
 * Why: glibc gives a run's freed buffers back to the kernel (it trims the
 * heap's top and unmaps mmap'd chunks), so the next run faults every page
 * in again and the kernel zeroes it. BERT-base with a dynamic batch spent
 * 14% of a run there (298 ms against 256 ms with glibc's trimming turned
 * off, and 255 ms compiled with static shapes, on a Zen 3).
 *
 * Freed blocks of POOL_MIN_BYTES or more go into POOL_SLOTS lock-free slots
 * instead; an allocation takes the smallest pooled block that fits (and is
 * at most twice its size, so that a small request does not hold a large
 * block) and is aligned as asked. Every block is one that aligned_alloc
 * returned, so a buffer handed to the caller may still be released with
 * free(). The pool keeps at most POOL_SLOTS blocks and POOL_MAX_BYTES: the
 * big buffers one run frees (BERT-base's dynamic graph frees about 120 at
 * its end, which 64 slots did not hold), as ONNX Runtime's arena keeps its
 * peak.
 *
 *===----------------------------------------------------------------------===*/

#include "CpuRuntime.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
#define HAVE_USABLE_SIZE 1
#endif

#define POOL_SLOTS 256
#define POOL_MIN_BYTES ((size_t)64 << 10)
#define POOL_MAX_BYTES ((size_t)4 << 30)

static _Atomic(void *) buffer_pool[POOL_SLOTS];
/* The usable bytes of the pooled blocks (approximate while threads race). */
static _Atomic size_t pooled_bytes;

void *onnxc_rt_alloc(size_t alignment, size_t size) {
  if (alignment == 0)
    alignment = 1;
#if HAVE_USABLE_SIZE
  if (size >= POOL_MIN_BYTES) {
    /* Best fit over a snapshot of the slots; a slot emptied by another
     * thread in between only costs a second look. */
    for (int attempt = 0; attempt < 2; ++attempt) {
      int best = -1;
      size_t best_size = SIZE_MAX;
      for (int i = 0; i < POOL_SLOTS; ++i) {
        void *block =
            atomic_load_explicit(&buffer_pool[i], memory_order_acquire);
        if (!block || (uintptr_t)block % alignment != 0)
          continue;
        size_t usable = malloc_usable_size(block);
        if (usable >= size && usable / 2 <= size && usable < best_size) {
          best = i;
          best_size = usable;
        }
      }
      if (best < 0)
        break;
      void *block = atomic_exchange(&buffer_pool[best], NULL);
      if (!block)
        continue;
      size_t usable = malloc_usable_size(block);
      atomic_fetch_sub(&pooled_bytes, usable);
      if ((uintptr_t)block % alignment == 0 && usable >= size)
        return block;
      onnxc_rt_free(block);
    }
  }
#endif
  /* aligned_alloc wants a multiple of the alignment. */
  size_t rounded = (size + alignment - 1) / alignment * alignment;
  return aligned_alloc(alignment, rounded ? rounded : alignment);
}

void onnxc_rt_free(void *ptr) {
  if (!ptr)
    return;
#if HAVE_USABLE_SIZE
  size_t usable = malloc_usable_size(ptr);
  if (usable >= POOL_MIN_BYTES) {
    /* Counted before the block is visible, so that a taker never
     * subtracts it first. */
    if (atomic_fetch_add(&pooled_bytes, usable) + usable <= POOL_MAX_BYTES)
      for (int i = 0; i < POOL_SLOTS; ++i) {
        void *empty = NULL;
        if (atomic_compare_exchange_strong(&buffer_pool[i], &empty, ptr))
          return;
      }
    atomic_fetch_sub(&pooled_bytes, usable);
  }
#endif
  free(ptr);
}
