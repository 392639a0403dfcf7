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

/* Copies element by element in row-major order; contiguous pairs take one
 * memcpy. Sizes are the destination's (memref.copy requires equal shapes). */
void memrefCopy(int64_t elem_size, unranked_memref *src, unranked_memref *dst) {
  const ranked_header *s = src->descriptor;
  const ranked_header *d = dst->descriptor;
  int64_t rank = dst->rank;
  const int64_t *sizes = d->sizes_and_strides;
  const int64_t *src_strides = s->sizes_and_strides + rank;
  const int64_t *dst_strides = d->sizes_and_strides + rank;

  int64_t count = 1;
  int contiguous = 1;
  for (int64_t i = rank - 1; i >= 0; --i) {
    if (sizes[i] == 0)
      return;
    if (sizes[i] != 1 &&
        (src_strides[i] != count || dst_strides[i] != count))
      contiguous = 0;
    count *= sizes[i];
  }
  const char *from = s->aligned + s->offset * elem_size;
  char *to = d->aligned + d->offset * elem_size;
  if (contiguous) {
    memmove(to, from, (size_t)(count * elem_size));
    return;
  }

  int64_t index[64] = {0};
  if (rank > 64)
    return; /* MLIR memrefs of rank > 64 do not occur in onnxc's output */
  int64_t src_at = 0, dst_at = 0;
  for (int64_t n = 0; n < count; ++n) {
    memcpy(to + dst_at * elem_size, from + src_at * elem_size,
           (size_t)elem_size);
    /* Advance the multi-index, innermost first. */
    for (int64_t i = rank - 1; i >= 0; --i) {
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
