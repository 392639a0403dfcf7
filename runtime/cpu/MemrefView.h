/*===- MemrefView.h - An f32 memref seen as sizes and strides ------------===*
 *
 * The runtime calls of the CPU lowering (MatMul.c, TransformerOps.c) take
 * their tensors as MLIR unranked memrefs: a rank and a pointer to the
 * ranked descriptor {allocated, aligned, offset, sizes[rank],
 * strides[rank]}. A view copies out the data pointer (offset applied) and
 * the (size, stride) pairs, in elements.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_CPU_MEMREFVIEW_H
#define ONNXC_RUNTIME_CPU_MEMREFVIEW_H

#include "CpuRuntime.h"

#include <stdint.h>

/* Room for two leading dims beyond a tensor's rank (MatMul's batch
 * broadcasting). */
enum { ONNXC_VIEW_MAX_DIMS = ONNXC_MAX_RANK + 2 };

typedef struct onnxc_f32_view {
  float *data;
  int rank;
  int64_t size[ONNXC_VIEW_MAX_DIMS];
  int64_t stride[ONNXC_VIEW_MAX_DIMS];
} onnxc_f32_view;

/* Fills `v` from `m`; 0 for a null memref or a rank the runtime does not
 * take. */
static inline int onnxc_read_f32_view(const onnxc_unranked_memref *m,
                                      onnxc_f32_view *v) {
  if (!m || m->rank < 0 || m->rank > ONNXC_MAX_RANK || !m->descriptor)
    return 0;
  const struct {
    float *allocated, *aligned;
    int64_t offset;
    int64_t dims[];
  } *d = m->descriptor;
  v->data = d->aligned + d->offset;
  v->rank = (int)m->rank;
  for (int i = 0; i < v->rank; ++i) {
    v->size[i] = d->dims[i];
    v->stride[i] = d->dims[v->rank + i];
  }
  return 1;
}

/* Any element type: the data pointer in bytes (offset applied), sizes and
 * strides in elements. */
typedef struct onnxc_byte_view {
  char *data;
  int rank;
  int64_t size[ONNXC_VIEW_MAX_DIMS];
  int64_t stride[ONNXC_VIEW_MAX_DIMS];
} onnxc_byte_view;

static inline int onnxc_read_byte_view(const onnxc_unranked_memref *m,
                                       int64_t element_size,
                                       onnxc_byte_view *v) {
  if (!m || m->rank < 0 || m->rank > ONNXC_MAX_RANK || !m->descriptor)
    return 0;
  const struct {
    char *allocated, *aligned;
    int64_t offset;
    int64_t dims[];
  } *d = m->descriptor;
  v->data = d->aligned + d->offset * element_size;
  v->rank = (int)m->rank;
  for (int i = 0; i < v->rank; ++i) {
    v->size[i] = d->dims[i];
    v->stride[i] = d->dims[v->rank + i];
  }
  return 1;
}

#endif /* ONNXC_RUNTIME_CPU_MEMREFVIEW_H */
