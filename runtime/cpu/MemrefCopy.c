/*===- MemrefCopy.c - The copy routine MLIR's memref.copy lowers to -------===*
 *
 * memref.copy between buffers that are not both contiguous (a strided view,
 * a transposed layout) lowers to a call `memrefCopy(elemSize, src, dst)` on
 * unranked descriptors. MLIR ships it in its runner utilities; artifacts
 * need nothing but libc, so the runtime carries its own.
 *
 *===----------------------------------------------------------------------===*/

#include <stdint.h>
#include <string.h>

typedef struct unranked_memref {
  int64_t rank;
  void *descriptor;
} unranked_memref;

typedef struct ranked_header {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizes_and_strides[];
} ranked_header;

/* Copies in row-major order, a run at a time: the run is the innermost dims
 * that both sides store contiguously (the whole buffer when both are
 * dense; a row of a strided view, such as one of the Q, K, V slices of a
 * fused projection; one element of a transposed one). Sizes are the
 * destination's (memref.copy requires equal shapes). */
void memrefCopy(int64_t elem_size, unranked_memref *src, unranked_memref *dst) {
  const ranked_header *s = src->descriptor;
  const ranked_header *d = dst->descriptor;
  int64_t rank = dst->rank;
  const int64_t *sizes = d->sizes_and_strides;
  const int64_t *src_strides = s->sizes_and_strides + rank;
  const int64_t *dst_strides = d->sizes_and_strides + rank;
  if (rank > 64)
    return; /* MLIR memrefs of rank > 64 do not occur in onnxc's output */

  int64_t count = 1;
  for (int64_t i = 0; i < rank; ++i) {
    if (sizes[i] == 0)
      return;
    count *= sizes[i];
  }
  /* dims [inner, rank) form the run. */
  int64_t run = 1, inner = rank;
  while (inner > 0 &&
         (sizes[inner - 1] == 1 ||
          (src_strides[inner - 1] == run && dst_strides[inner - 1] == run))) {
    run *= sizes[inner - 1];
    --inner;
  }
  const char *from = s->aligned + s->offset * elem_size;
  char *to = d->aligned + d->offset * elem_size;
  size_t run_bytes = (size_t)(run * elem_size);

  int64_t index[64] = {0};
  int64_t src_at = 0, dst_at = 0;
  for (int64_t n = count / run; n > 0; --n) {
    memmove(to + dst_at * elem_size, from + src_at * elem_size, run_bytes);
    /* Advance the multi-index over the dims outside the run, innermost
     * first. */
    for (int64_t i = inner - 1; i >= 0; --i) {
      ++index[i];
      src_at += src_strides[i];
      dst_at += dst_strides[i];
      if (index[i] < sizes[i])
        break;
      src_at -= src_strides[i] * sizes[i];
      dst_at -= dst_strides[i] * sizes[i];
      index[i] = 0;
    }
  }
}
