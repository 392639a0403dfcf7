/*===- DnnlInternal.h - What the dnnl glue's op files share ---------------===*
 *
 * DnnlEngine.c owns the process-wide state: the engine, the per-site
 * primitive caches and their execution. An op file checks its memrefs,
 * describes the call as an onnxc_dnnl_request (a key of everything the
 * primitive depends on, and how to create it) and hands it over with the
 * data pointers.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_DNNL_DNNLINTERNAL_H
#define ONNXC_RUNTIME_DNNL_DNNLINTERNAL_H

#include "DnnlRuntime.h"

#include <oneapi/dnnl/dnnl.h>

#include <stddef.h>
#include <stdint.h>

/* A dense row-major memref: its data and sizes. */
typedef struct onnxc_dnnl_tensor {
  void *data;
  int rank;
  int64_t size[ONNXC_MAX_RANK];
  int64_t count; /* elements */
} onnxc_dnnl_tensor;

/* Reads the f32 memref `m` into `t`; 0 when it is missing, of a rank
 * outside [min_rank, max_rank], or not dense. */
int onnxc_dnnl_read(const onnxc_unranked_memref *m, int min_rank, int max_rank,
                    onnxc_dnnl_tensor *t);
/* The same for elements of `element_size` bytes. */
int onnxc_dnnl_read_elements(const onnxc_unranked_memref *m,
                             int64_t element_size, int min_rank, int max_rank,
                             onnxc_dnnl_tensor *t);
int onnxc_dnnl_same_shape(const onnxc_dnnl_tensor *a,
                          const onnxc_dnnl_tensor *b);

/* The oneDNN eltwise algorithm and parameters of an onnxc_activation; 0 when
 * it has none. NONE gives dnnl_alg_kind_undef. */
int onnxc_dnnl_activation(int32_t activation, float alpha, float beta,
                          dnnl_alg_kind_t *alg, float *dnnl_alpha,
                          float *dnnl_beta);
/* Appends the activation to `post_ops` (nothing for NONE). */
dnnl_status_t onnxc_dnnl_append_activation(dnnl_post_ops_t post_ops,
                                           int32_t activation, float alpha,
                                           float beta);

/* Quantized ops (DnnlQuantization.c). The one value of an 8-bit zero point
 * (absent: 0); 0 when it is not one element. */
int onnxc_dnnl_zero_point(const onnxc_unranked_memref *m, int present,
                          int is_signed, int32_t *zero);
/* Whether the int8 zero point of a weight (one, or one per channel) is all
 * 0: oneDNN's int8 convolutions take none, its matmuls none per channel. */
int onnxc_dnnl_zero_weights(const onnxc_unranked_memref *m, int present,
                            int64_t channels);
/* scales[c] = x_scale * w_scale[c] / y_scale in f32, as ONNX Runtime
 * computes them, for a w_scale of one element or `channels` (*count says
 * which); 0 when a scale has another size. `scales` has room for
 * `channels`. */
int onnxc_dnnl_output_scales(const onnxc_unranked_memref *x_scale,
                             const onnxc_unranked_memref *w_scale,
                             const onnxc_unranked_memref *y_scale,
                             int64_t channels, float *scales, int *count);
/* 0 when oneDNN runs VNNI kernels here; else ONNXC_DNNL_ERROR_NO_VNNI,
 * with the run's message saying why (onnxc_rt_library_message): without
 * VNNI its int8 kernels add u8 x s8 pairs in saturating 16 bits, which
 * full-range weights overflow (oneDNN documents 7-bit weights for such
 * CPUs). */
int32_t onnxc_dnnl_require_vnni(void);

/* Everything a cached primitive depends on, as integers, and as bytes of
 * any length (`extra`, such as per-channel scales; NULL: none), which the
 * cache entry copies. */
enum { ONNXC_DNNL_KEY_MAX = 96, ONNXC_DNNL_MAX_ARGS = 8 };
typedef struct onnxc_dnnl_key {
  int length;
  int64_t value[ONNXC_DNNL_KEY_MAX];
  const void *extra;
  size_t extra_bytes;
} onnxc_dnnl_key;
/* Appends; returns 0 once the key is full (the request is then refused). */
int onnxc_dnnl_key_add(onnxc_dnnl_key *key, int64_t value);
int onnxc_dnnl_key_add_float(onnxc_dnnl_key *key, float value);
int onnxc_dnnl_key_add_dims(onnxc_dnnl_key *key, const onnxc_dnnl_tensor *t);

/* Creates the primitive descriptor of a request on `engine`; `attr`
 * already asks for a user scratchpad, the callback adds its post-ops. */
typedef dnnl_status_t (*onnxc_dnnl_create_pd_fn)(const void *op,
                                                 dnnl_primitive_attr_t attr,
                                                 dnnl_engine_t engine,
                                                 dnnl_primitive_desc_t *pd);

/* How an argument whose layout the primitive chose (dnnl_format_tag_any)
 * meets its handle, which is plain row-major over the same dims. Where the
 * choice is plain the handle is used as is; elsewhere the argument lives in
 * a temporary of the chosen layout for the execution. */
enum {
  ONNXC_DNNL_REORDER_IN = 1, /* read: the handle is reordered into it first */
  ONNXC_DNNL_REORDER_OUT = 2 /* written: it is reordered into the handle */
};

typedef struct onnxc_dnnl_request {
  onnxc_dnnl_key key;
  onnxc_dnnl_create_pd_fn create_pd;
  const void *op; /* the callback's parameters */
  /* The execute arguments (DNNL_ARG_*), in the order of the handles. */
  int num_args;
  int arg_ids[ONNXC_DNNL_MAX_ARGS];
  /* ONNXC_DNNL_REORDER_* per argument (0: the primitive takes the handle's
   * layout as created). */
  unsigned char reorder[ONNXC_DNNL_MAX_ARGS];
  /* The descriptor of an argument the primitive does not describe (a
   * run-time zero point: DNNL_ARG_ATTR_ZERO_POINTS | ...); NULL: asked of
   * the primitive. */
  const dnnl_memory_desc_t *given_md[ONNXC_DNNL_MAX_ARGS];
  /* A constant weight, args[packed_arg] (-1: none), reordered once from
   * its plain layout `packed_from` into the layout the primitive chose and
   * kept with it. Its data pointer must be part of the key. */
  int packed_arg;
  dnnl_memory_desc_t packed_from;
  /* Per call: an argument the primitive reads and writes (a sum post-op's
   * dst) that starts as a copy of the plain data at `initial` (NULL: as
   * its handle holds), so the caller need not copy it into the handle. */
  int initial_arg;
  const void *initial;
} onnxc_dnnl_request;

/* Finds or creates the primitive of `request` in the cache of `slot` and
 * executes it on `handles` (one per argument). Returns 0 or an error. */
int32_t onnxc_dnnl_run(onnxc_unranked_memref *slot,
                       const onnxc_dnnl_request *request, void *const *handles);

/* A plain row-major f32 memory descriptor of `rank` dims (tag a, ab,
 * abc...), and the same of another data type. */
dnnl_status_t onnxc_dnnl_plain_md(dnnl_memory_desc_t *md, int rank,
                                  const int64_t *dims);
dnnl_status_t onnxc_dnnl_plain_md_of(dnnl_memory_desc_t *md, int rank,
                                     const int64_t *dims,
                                     dnnl_data_type_t type);

#endif /* ONNXC_RUNTIME_DNNL_DNNLINTERNAL_H */
