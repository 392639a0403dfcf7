/*===- DnnlEngine.c - The dnnl glue's engine, caches and execution --------===*
 *
 * One CPU engine per process. Each call site owns a slot (a memref<1xi64>
 * global of the artifact) that points at its cache: a short list of
 * primitives keyed by everything they depend on (shapes, scalars, the data
 * pointer of a constant weight). Lookups walk the list without a lock
 * (entries are immutable once published); inserts take the site's mutex,
 * and a full list makes the call build a primitive just for itself.
 *
 * A request may let a primitive choose the layout of an argument whose
 * data is plain; where it chooses another, the entry keeps reorders to and
 * from a temporary of that layout.
 *
 * Execution is reentrant: primitives (reorders included) are created with
 * a user scratchpad; each execution takes one block for the scratchpad and
 * the temporaries from the CPU runtime's pool, and gets its own stream and
 * memory objects.
 *
 *===----------------------------------------------------------------------===*/

#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif

#include "DnnlInternal.h"
#include "MemrefView.h"
#include "ThreadPool.h"
#include "kernels/Gemm.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/*===----------------------------------------------------------------------===*
 * Memrefs and keys
 *===----------------------------------------------------------------------===*/

int onnxc_dnnl_read_elements(const onnxc_unranked_memref *m,
                             int64_t element_size, int min_rank, int max_rank,
                             onnxc_dnnl_tensor *t) {
  onnxc_byte_view v;
  if (!onnxc_read_byte_view(m, element_size, &v) || v.rank < min_rank ||
      v.rank > max_rank)
    return 0;
  int64_t count = 1, volume = 1; /* volume: the sizes but zeros */
  for (int i = 0; i < v.rank; ++i) {
    int64_t size = v.size[i];
    /* Bounds the byte count, so no later product overflows. */
    if (size < 0 || (size > 0 && volume > (INT64_MAX / 8) / size))
      return 0;
    t->size[i] = size;
    count *= size;
    volume *= size > 0 ? size : 1;
  }
  /* An empty tensor is never read: its strides do not matter. */
  int64_t expected = 1;
  for (int i = v.rank - 1; count > 0 && i >= 0; --i) {
    if (v.size[i] > 1 && v.stride[i] != expected)
      return 0;
    expected *= v.size[i];
  }
  t->rank = v.rank;
  t->count = count;
  t->data = v.data;
  return t->data != NULL || count == 0;
}

int onnxc_dnnl_read(const onnxc_unranked_memref *m, int min_rank, int max_rank,
                    onnxc_dnnl_tensor *t) {
  return onnxc_dnnl_read_elements(m, sizeof(float), min_rank, max_rank, t);
}

int onnxc_dnnl_same_shape(const onnxc_dnnl_tensor *a,
                          const onnxc_dnnl_tensor *b) {
  if (a->rank != b->rank)
    return 0;
  for (int i = 0; i < a->rank; ++i)
    if (a->size[i] != b->size[i])
      return 0;
  return 1;
}

int onnxc_dnnl_key_add(onnxc_dnnl_key *key, int64_t value) {
  if (key->length >= ONNXC_DNNL_KEY_MAX)
    return 0;
  key->value[key->length++] = value;
  return 1;
}

int onnxc_dnnl_key_add_float(onnxc_dnnl_key *key, float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  return onnxc_dnnl_key_add(key, bits);
}

int onnxc_dnnl_key_add_dims(onnxc_dnnl_key *key, const onnxc_dnnl_tensor *t) {
  int ok = onnxc_dnnl_key_add(key, t->rank);
  for (int i = 0; ok && i < t->rank; ++i)
    ok = onnxc_dnnl_key_add(key, t->size[i]);
  return ok;
}

static int key_equal(const onnxc_dnnl_key *a, const onnxc_dnnl_key *b) {
  return a->length == b->length && a->extra_bytes == b->extra_bytes &&
         memcmp(a->value, b->value, (size_t)a->length * sizeof a->value[0]) ==
             0 &&
         (a->extra_bytes == 0 ||
          memcmp(a->extra, b->extra, a->extra_bytes) == 0);
}

dnnl_status_t onnxc_dnnl_plain_md(dnnl_memory_desc_t *md, int rank,
                                  const int64_t *dims) {
  return onnxc_dnnl_plain_md_of(md, rank, dims, dnnl_f32);
}

dnnl_status_t onnxc_dnnl_plain_md_of(dnnl_memory_desc_t *md, int rank,
                                     const int64_t *dims,
                                     dnnl_data_type_t type) {
  if (rank < 1 || rank > DNNL_MAX_NDIMS)
    return dnnl_invalid_arguments;
  dnnl_dims_t size, strides;
  int64_t stride = 1;
  for (int i = rank - 1; i >= 0; --i) {
    size[i] = dims[i];
    strides[i] = stride;
    stride *= dims[i] > 1 ? dims[i] : 1;
  }
  return dnnl_memory_desc_init_by_strides(md, rank, size, type, strides);
}

/*===----------------------------------------------------------------------===*
 * Activations
 *===----------------------------------------------------------------------===*/

int onnxc_dnnl_activation(int32_t activation, float alpha, float beta,
                          dnnl_alg_kind_t *alg, float *dnnl_alpha,
                          float *dnnl_beta) {
  *alg = dnnl_alg_kind_undef;
  *dnnl_alpha = 0.0f;
  *dnnl_beta = 0.0f;
  switch (activation) {
  case ONNXC_ACTIVATION_NONE:
    return 1;
  case ONNXC_ACTIVATION_RELU:
    *alg = dnnl_eltwise_relu;
    return 1;
  case ONNXC_ACTIVATION_LEAKY_RELU:
    *alg = dnnl_eltwise_relu;
    *dnnl_alpha = alpha;
    return 1;
  case ONNXC_ACTIVATION_CLIP:
    /* oneDNN gives the lower bound below it even past the upper one, where
     * min(max(x, lo), hi) gives hi: clamp the lower bound to hi. */
    if (isnan(alpha) || isnan(beta))
      return 0;
    *alg = dnnl_eltwise_clip;
    *dnnl_alpha = alpha <= beta ? alpha : beta;
    *dnnl_beta = beta;
    return 1;
  case ONNXC_ACTIVATION_SIGMOID:
    *alg = dnnl_eltwise_logistic;
    return 1;
  case ONNXC_ACTIVATION_TANH:
    *alg = dnnl_eltwise_tanh;
    return 1;
  case ONNXC_ACTIVATION_GELU:
    *alg = dnnl_eltwise_gelu_erf;
    return 1;
  case ONNXC_ACTIVATION_FAST_GELU:
    *alg = dnnl_eltwise_gelu_tanh;
    return 1;
  case ONNXC_ACTIVATION_SILU:
    *alg = dnnl_eltwise_swish;
    *dnnl_alpha = 1.0f;
    return 1;
  case ONNXC_ACTIVATION_HARD_SWISH:
    /* 2.6's hardswish is x * min(max(x + 3, 0), 6) / 6 and ignores its
     * parameters: only ONNX's fixed 1/6 and 1/2 match. */
    if (alpha != 1.0f / 6.0f || beta != 0.5f)
      return 0;
    *alg = dnnl_eltwise_hardswish;
    return 1;
  default:
    /* HARD_SIGMOID: 2.6 has no hardsigmoid. */
    return 0;
  }
}

int32_t onnxc_dnnl_activation_supported(int32_t activation, float alpha,
                                        float beta) {
  dnnl_alg_kind_t alg;
  float a, b;
  return onnxc_dnnl_activation(activation, alpha, beta, &alg, &a, &b);
}

dnnl_status_t onnxc_dnnl_append_activation(dnnl_post_ops_t post_ops,
                                           int32_t activation, float alpha,
                                           float beta) {
  dnnl_alg_kind_t alg;
  float a, b;
  if (!onnxc_dnnl_activation(activation, alpha, beta, &alg, &a, &b))
    return dnnl_invalid_arguments;
  if (alg == dnnl_alg_kind_undef)
    return dnnl_success;
  return dnnl_post_ops_append_eltwise(post_ops, 1.0f, alg, a, b);
}

/*===----------------------------------------------------------------------===*
 * The engine and OpenMP's thread count
 *===----------------------------------------------------------------------===*/

static pthread_once_t engine_once = PTHREAD_ONCE_INIT;
static dnnl_engine_t engine;
static dnnl_status_t engine_status;
/* OpenMP's, looked up rather than linked: the artifact's link line names
 * dnnl only, and libdnnl brings its own OpenMP runtime. */
static int (*omp_get_max_threads_fn)(void);
static void (*omp_set_num_threads_fn)(int);

/* oneDNN and its OpenMP runtime stay loaded once used: OpenMP's idle
 * workers outlive a run, and unloading the artifact (which brought both in)
 * would unmap the code they wait in. The handle also finds OpenMP's
 * functions when the artifact was loaded RTLD_LOCAL, out of the global
 * scope. */
static void *pin_library(const char *name) {
  return dlopen(name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

static void create_engine(void) {
  pin_library("libdnnl.so.2");
  void *omp = pin_library("libgomp.so.1");
  engine_status = dnnl_engine_create(&engine, dnnl_cpu, 0);
  if (!omp)
    return;
  *(void **)&omp_get_max_threads_fn = dlsym(omp, "omp_get_max_threads");
  *(void **)&omp_set_num_threads_fn = dlsym(omp, "omp_set_num_threads");
}

/* OpenMP's count is per thread: set it on the calling thread to the CPU
 * runtime's, only when it differs (setting it is not free). Returns the
 * count the primitives then run with (0: unknown, OpenMP not found). */
static int match_thread_count(void) {
  if (!omp_get_max_threads_fn || !omp_set_num_threads_fn)
    return 0;
  int wanted = onnxc_num_threads();
  if (wanted >= 1 && wanted != omp_get_max_threads_fn())
    omp_set_num_threads_fn(wanted);
  return omp_get_max_threads_fn();
}

/*===----------------------------------------------------------------------===*
 * Primitives
 *===----------------------------------------------------------------------===*/

static size_t round_up(size_t bytes) { return (bytes + 63) / 64 * 64; }

static const dnnl_memory_desc_t *query_md(const_dnnl_primitive_t p,
                                          dnnl_query_t what, int index) {
  const_dnnl_primitive_desc_t pd;
  if (dnnl_primitive_get_primitive_desc(p, &pd) != dnnl_success)
    return NULL;
  return dnnl_primitive_desc_query_md(pd, what, index);
}

static size_t scratch_size(const_dnnl_primitive_t p) {
  const dnnl_memory_desc_t *md = query_md(p, dnnl_query_scratchpad_md, 0);
  return md ? dnnl_memory_desc_get_size(md) : 0;
}

/* Every primitive takes its scratchpad from the caller, so that executions
 * on many threads never share one. */
static dnnl_status_t create_attr(dnnl_primitive_attr_t *attr) {
  dnnl_status_t s = dnnl_primitive_attr_create(attr);
  if (s == dnnl_success)
    s = dnnl_primitive_attr_set_scratchpad_mode(*attr,
                                                dnnl_scratchpad_mode_user);
  return s;
}

static dnnl_status_t create_reorder(const dnnl_memory_desc_t *from,
                                    const dnnl_memory_desc_t *to,
                                    dnnl_primitive_t *reorder) {
  dnnl_primitive_attr_t attr = NULL;
  dnnl_primitive_desc_t pd = NULL;
  dnnl_status_t s = create_attr(&attr);
  if (s == dnnl_success)
    s = dnnl_reorder_primitive_desc_create(&pd, from, engine, to, engine, attr);
  if (s == dnnl_success)
    s = dnnl_primitive_create(reorder, pd);
  if (pd)
    dnnl_primitive_desc_destroy(pd);
  if (attr)
    dnnl_primitive_attr_destroy(attr);
  return s;
}

/* Executes `p` on `n` arguments (`args` has room for one more) and, where
 * it needs one, the scratchpad at `scratch`; returns once it is done. */
static int32_t execute_primitive(const_dnnl_primitive_t p, dnnl_stream_t stream,
                                 int n, dnnl_exec_arg_t *args, void *scratch) {
  const dnnl_memory_desc_t *md = query_md(p, dnnl_query_scratchpad_md, 0);
  dnnl_memory_t mem = NULL;
  dnnl_status_t s = dnnl_success;
  if (md && dnnl_memory_desc_get_size(md) > 0) {
    s = dnnl_memory_create(&mem, md, engine, scratch);
    args[n].arg = DNNL_ARG_SCRATCHPAD;
    args[n++].memory = mem;
  }
  if (s == dnnl_success)
    s = dnnl_primitive_execute(p, stream, n, args);
  if (s == dnnl_success)
    s = dnnl_stream_wait(stream);
  if (mem)
    dnnl_memory_destroy(mem);
  return s;
}

static int32_t run_reorder(const_dnnl_primitive_t reorder, dnnl_stream_t stream,
                           const void *from, void *to, void *scratch) {
  const dnnl_memory_desc_t *from_md = query_md(reorder, dnnl_query_src_md, 0);
  const dnnl_memory_desc_t *to_md = query_md(reorder, dnnl_query_dst_md, 0);
  if (!from_md || !to_md)
    return dnnl_runtime_error;
  dnnl_memory_t src = NULL, dst = NULL;
  /* oneDNN takes a mutable handle but a reorder only reads its source. */
  dnnl_status_t s = dnnl_memory_create(&src, from_md, engine, (void *)from);
  if (s == dnnl_success)
    s = dnnl_memory_create(&dst, to_md, engine, to);
  if (s == dnnl_success) {
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}};
    s = execute_primitive(reorder, stream, 2, args, scratch);
  }
  if (dst)
    dnnl_memory_destroy(dst);
  if (src)
    dnnl_memory_destroy(src);
  return s;
}

/* Reorders `from` at `src` into `to` at `dst`, once. */
static int32_t reorder_once(const dnnl_memory_desc_t *from, const void *src,
                            const dnnl_memory_desc_t *to, void *dst) {
  dnnl_primitive_t reorder = NULL;
  dnnl_stream_t stream = NULL;
  void *block = NULL, *scratch = NULL;
  int32_t status = create_reorder(from, to, &reorder);
  if (status == 0)
    status = dnnl_stream_create(&stream, engine, dnnl_stream_default_flags);
  size_t bytes = status == 0 ? scratch_size(reorder) : 0;
  if (bytes && !(scratch = onnxc_rt_scratch_take(bytes, &block)))
    status = ONNXC_DNNL_ERROR_MEMORY;
  if (status == 0)
    status = run_reorder(reorder, stream, src, dst, scratch);
  onnxc_rt_scratch_give(block);
  if (stream)
    dnnl_stream_destroy(stream);
  if (reorder)
    dnnl_primitive_destroy(reorder);
  return status;
}

/*===----------------------------------------------------------------------===*
 * Cache entries
 *===----------------------------------------------------------------------===*/

typedef struct cache_entry {
  struct cache_entry *next;
  onnxc_dnnl_key key;
  /* OpenMP's thread count when it was created: oneDNN fixes a primitive's
   * threading at creation, so another count needs another primitive. */
  int threads;
  dnnl_primitive_t primitive;
  int num_args;
  int arg_ids[ONNXC_DNNL_MAX_ARGS];
  dnnl_memory_desc_t arg_mds[ONNXC_DNNL_MAX_ARGS];
  /* Per argument kept in a temporary of the chosen layout: where it lies in
   * an execution's block, and the reorders from and to the handle (NULL:
   * none). */
  unsigned char in_temp[ONNXC_DNNL_MAX_ARGS];
  size_t temp_offset[ONNXC_DNNL_MAX_ARGS];
  dnnl_primitive_t reorder_in[ONNXC_DNNL_MAX_ARGS];
  dnnl_primitive_t reorder_out[ONNXC_DNNL_MAX_ARGS];
  /* An execution's block: the temporaries, then one scratchpad that the
   * primitives, run one after another, share. 0: none. */
  size_t scratch_offset, block_bytes;
  int packed_arg;
  void *packed; /* owned; NULL: the weight is used as given */
} cache_entry;

static void destroy_entry(cache_entry *e) {
  if (e->primitive)
    dnnl_primitive_destroy(e->primitive);
  for (int i = 0; i < ONNXC_DNNL_MAX_ARGS; ++i) {
    if (e->reorder_in[i])
      dnnl_primitive_destroy(e->reorder_in[i]);
    if (e->reorder_out[i])
      dnnl_primitive_destroy(e->reorder_out[i]);
  }
  free(e->packed);
  free((void *)e->key.extra);
  free(e);
}

/* Reorders the constant weight into the layout the primitive chose; one
 * that is already in it is used in place (its pointer is in the key). */
static int32_t pack_weight(cache_entry *e, const dnnl_memory_desc_t *from,
                           void *data) {
  const dnnl_memory_desc_t *to = &e->arg_mds[e->packed_arg];
  if (dnnl_memory_desc_equal(from, to))
    return 0;
  size_t bytes = dnnl_memory_desc_get_size(to);
  e->packed = aligned_alloc(64, round_up(bytes) + 64);
  if (!e->packed)
    return ONNXC_DNNL_ERROR_MEMORY;
  return reorder_once(from, data, to, e->packed);
}

static int32_t describe_entry(cache_entry *e, const onnxc_dnnl_request *r,
                              dnnl_primitive_desc_t pd) {
  dnnl_status_t s = dnnl_primitive_create(&e->primitive, pd);
  if (s != dnnl_success)
    return s;
  for (int i = 0; i < r->num_args; ++i) {
    const dnnl_memory_desc_t *md =
        r->given_md[i] ? r->given_md[i]
                       : dnnl_primitive_desc_query_md(
                             pd, dnnl_query_exec_arg_md, r->arg_ids[i]);
    if (!md)
      return dnnl_invalid_arguments;
    e->arg_ids[i] = r->arg_ids[i];
    e->arg_mds[i] = *md;
  }
  e->num_args = r->num_args;
  return 0;
}

/* Whether `md` lays out its dims as `plain` does. Strides of unit dims do
 * not matter: an NHWC choice with C = 1, or H = W = 1, needs no reorder. */
static int is_plain(const dnnl_memory_desc_t *md,
                    const dnnl_memory_desc_t *plain) {
  if (dnnl_memory_desc_equal(md, plain))
    return 1;
  const dnnl_blocking_desc_t *blocking = &md->format_desc.blocking;
  if (md->format_kind != dnnl_blocked || blocking->inner_nblks != 0 ||
      md->ndims != plain->ndims || md->data_type != plain->data_type ||
      md->offset0 != 0 || md->extra.flags != 0)
    return 0;
  for (int i = 0; i < md->ndims; ++i)
    if (md->dims[i] != plain->dims[i] || md->padded_dims[i] != md->dims[i] ||
        md->padded_offsets[i] != 0 ||
        (md->dims[i] > 1 &&
         blocking->strides[i] != plain->format_desc.blocking.strides[i]))
      return 0;
  return 1;
}

/* Gives each argument the request lets the primitive lay out, and that it
 * laid out other than plain, a temporary and its reorders; then sizes the
 * execution's block. */
static int32_t plan_block(cache_entry *e, const onnxc_dnnl_request *r) {
  size_t offset = 0, scratch = scratch_size(e->primitive);
  for (int i = 0; i < r->num_args; ++i) {
    const dnnl_memory_desc_t *chosen = &e->arg_mds[i];
    dnnl_memory_desc_t plain;
    if (!r->reorder[i])
      continue;
    int32_t status = onnxc_dnnl_plain_md_of(&plain, chosen->ndims, chosen->dims,
                                            chosen->data_type);
    if (status != 0)
      return status;
    if (is_plain(chosen, &plain))
      continue;
    if (r->reorder[i] & ONNXC_DNNL_REORDER_IN)
      status = create_reorder(&plain, chosen, &e->reorder_in[i]);
    if (status == 0 && (r->reorder[i] & ONNXC_DNNL_REORDER_OUT))
      status = create_reorder(chosen, &plain, &e->reorder_out[i]);
    if (status != 0)
      return status;
    if (e->reorder_in[i] && scratch_size(e->reorder_in[i]) > scratch)
      scratch = scratch_size(e->reorder_in[i]);
    if (e->reorder_out[i] && scratch_size(e->reorder_out[i]) > scratch)
      scratch = scratch_size(e->reorder_out[i]);
    e->in_temp[i] = 1;
    e->temp_offset[i] = offset;
    offset += round_up(dnnl_memory_desc_get_size(chosen));
  }
  e->scratch_offset = offset;
  e->block_bytes = offset + scratch;
  return 0;
}

/* Creates the primitive of `r` (and packs its constant weight). */
static int32_t build_entry(const onnxc_dnnl_request *r, void *const *handles,
                           cache_entry **out) {
  if (r->num_args > ONNXC_DNNL_MAX_ARGS || r->packed_arg >= r->num_args ||
      (r->packed_arg >= 0 && r->reorder[r->packed_arg]))
    return ONNXC_DNNL_ERROR_ARGUMENT;
  cache_entry *e = calloc(1, sizeof *e);
  if (!e)
    return ONNXC_DNNL_ERROR_MEMORY;
  e->key = r->key;
  e->key.extra = NULL; /* the entry's own copy, or none */
  if (r->key.extra_bytes) {
    void *extra = malloc(r->key.extra_bytes);
    if (!extra) {
      free(e);
      return ONNXC_DNNL_ERROR_MEMORY;
    }
    memcpy(extra, r->key.extra, r->key.extra_bytes);
    e->key.extra = extra;
  }
  e->packed_arg = r->packed_arg;
  dnnl_primitive_attr_t attr = NULL;
  dnnl_primitive_desc_t pd = NULL;
  int32_t status = create_attr(&attr);
  if (status == 0)
    status = r->create_pd(r->op, attr, engine, &pd);
  if (status == 0)
    status = describe_entry(e, r, pd);
  if (status == 0)
    status = plan_block(e, r);
  if (status == 0 && r->packed_arg >= 0)
    status = pack_weight(e, &r->packed_from, handles[r->packed_arg]);
  if (pd)
    dnnl_primitive_desc_destroy(pd);
  if (attr)
    dnnl_primitive_attr_destroy(attr);
  if (status != 0) {
    destroy_entry(e);
    return status;
  }
  *out = e;
  return 0;
}

/* Where the primitive finds argument `i`. */
static void *argument_data(const cache_entry *e, void *const *handles,
                           char *block, int i) {
  if (e->in_temp[i])
    return block + e->temp_offset[i];
  return i == e->packed_arg && e->packed ? e->packed : handles[i];
}

/* Brings what the primitive reads into its arguments: the plain data
 * reordered into the temporaries, the initial copy into its handle. */
static int32_t load_arguments(const cache_entry *e, const onnxc_dnnl_request *r,
                              void *const *handles, char *block,
                              dnnl_stream_t stream) {
  for (int i = 0; i < e->num_args; ++i) {
    const void *from =
        r->initial && i == r->initial_arg ? r->initial : handles[i];
    if (e->reorder_in[i]) {
      int32_t status =
          run_reorder(e->reorder_in[i], stream, from, block + e->temp_offset[i],
                      block + e->scratch_offset);
      if (status != 0)
        return status;
    } else if (from != handles[i]) {
      memmove(handles[i], from, dnnl_memory_desc_get_size(&e->arg_mds[i]));
    }
  }
  return 0;
}

static int32_t store_arguments(const cache_entry *e, void *const *handles,
                               char *block, dnnl_stream_t stream) {
  for (int i = 0; i < e->num_args; ++i) {
    if (!e->reorder_out[i])
      continue;
    int32_t status =
        run_reorder(e->reorder_out[i], stream, block + e->temp_offset[i],
                    handles[i], block + e->scratch_offset);
    if (status != 0)
      return status;
  }
  return 0;
}

static int32_t execute(const cache_entry *e, const onnxc_dnnl_request *r,
                       void *const *handles) {
  dnnl_memory_t mems[ONNXC_DNNL_MAX_ARGS] = {0};
  dnnl_exec_arg_t args[ONNXC_DNNL_MAX_ARGS + 1];
  dnnl_stream_t stream = NULL;
  void *taken = NULL;
  char *block = NULL;
  int n = 0;
  int32_t status =
      dnnl_stream_create(&stream, engine, dnnl_stream_default_flags);
  if (status == 0 && e->block_bytes &&
      !(block = onnxc_rt_scratch_take(e->block_bytes, &taken)))
    status = ONNXC_DNNL_ERROR_MEMORY;
  for (; status == 0 && n < e->num_args; ++n) {
    status = dnnl_memory_create(&mems[n], &e->arg_mds[n], engine,
                                argument_data(e, handles, block, n));
    args[n].arg = e->arg_ids[n];
    args[n].memory = mems[n];
  }
  if (status == 0)
    status = load_arguments(e, r, handles, block, stream);
  if (status == 0)
    status = execute_primitive(e->primitive, stream, n, args,
                               block ? block + e->scratch_offset : NULL);
  if (status == 0)
    status = store_arguments(e, handles, block, stream);
  for (int i = 0; i < n; ++i)
    if (mems[i])
      dnnl_memory_destroy(mems[i]);
  if (stream)
    dnnl_stream_destroy(stream);
  onnxc_rt_scratch_give(taken);
  return status;
}

/*===----------------------------------------------------------------------===*
 * Per-site caches
 *===----------------------------------------------------------------------===*/

/* A site keeps this many shapes; more build a primitive per call. */
enum { SITE_CAPACITY = 16 };

typedef struct site_cache {
  _Atomic(cache_entry *) entries;
  int count; /* under lock */
  pthread_mutex_t lock;
  struct site_cache *next; /* every site, for the unload */
} site_cache;

static pthread_mutex_t sites_lock = PTHREAD_MUTEX_INITIALIZER;
static site_cache *sites;

/* The cache the slot points at, created on the first call. */
static int32_t site_of(onnxc_unranked_memref *slot, site_cache **out) {
  if (!slot || slot->rank != 1 || !slot->descriptor)
    return ONNXC_DNNL_ERROR_ARGUMENT;
  const struct {
    int64_t *allocated, *aligned;
    int64_t offset, size, stride;
  } *d = slot->descriptor;
  if (!d->aligned || d->size < 1)
    return ONNXC_DNNL_ERROR_ARGUMENT;
  int64_t *cell = d->aligned + d->offset;
  int64_t current = __atomic_load_n(cell, __ATOMIC_ACQUIRE);
  if (!current) {
    site_cache *fresh = calloc(1, sizeof *fresh);
    if (!fresh)
      return ONNXC_DNNL_ERROR_MEMORY;
    pthread_mutex_init(&fresh->lock, NULL);
    /* Concurrent first runs race here; the loser frees its cache. */
    if (__atomic_compare_exchange_n(cell, &current, (int64_t)(intptr_t)fresh, 0,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      pthread_mutex_lock(&sites_lock);
      fresh->next = sites;
      sites = fresh;
      pthread_mutex_unlock(&sites_lock);
      current = (int64_t)(intptr_t)fresh;
    } else {
      pthread_mutex_destroy(&fresh->lock);
      free(fresh);
    }
  }
  *out = (site_cache *)(intptr_t)current;
  return 0;
}

static const cache_entry *find_entry(site_cache *site,
                                     const onnxc_dnnl_key *key, int threads) {
  const cache_entry *e =
      atomic_load_explicit(&site->entries, memory_order_acquire);
  for (; e; e = e->next)
    if (e->threads == threads && key_equal(&e->key, key))
      return e;
  return NULL;
}

/* Finds or builds the entry of `r`. *own is set when the site was full:
 * the caller executes that entry once and destroys it. */
static int32_t insert_entry(site_cache *site, const onnxc_dnnl_request *r,
                            int threads, void *const *handles,
                            const cache_entry **found, cache_entry **own) {
  pthread_mutex_lock(&site->lock);
  int32_t status = 0;
  /* Another thread may have built it. */
  *found = find_entry(site, &r->key, threads);
  if (!*found) {
    cache_entry *e = NULL;
    status = build_entry(r, handles, &e);
    if (e)
      e->threads = threads;
    if (status == 0 && site->count < SITE_CAPACITY) {
      e->next = atomic_load_explicit(&site->entries, memory_order_relaxed);
      atomic_store_explicit(&site->entries, e, memory_order_release);
      ++site->count;
    } else if (status == 0) {
      *own = e;
    }
    *found = e;
  }
  pthread_mutex_unlock(&site->lock);
  return status;
}

int32_t onnxc_dnnl_run(onnxc_unranked_memref *slot,
                       const onnxc_dnnl_request *request,
                       void *const *handles) {
  pthread_once(&engine_once, create_engine);
  if (engine_status != dnnl_success)
    return engine_status;
  /* The initial data goes through the handle or the reorder in. */
  if (request->initial &&
      (request->initial_arg < 0 || request->initial_arg >= request->num_args ||
       request->reorder[request->initial_arg] == ONNXC_DNNL_REORDER_OUT))
    return ONNXC_DNNL_ERROR_ARGUMENT;
  site_cache *site;
  int32_t status = site_of(slot, &site);
  if (status != 0)
    return status;
  int threads = match_thread_count();
  const cache_entry *e = find_entry(site, &request->key, threads);
  cache_entry *own = NULL;
  if (!e)
    status = insert_entry(site, request, threads, handles, &e, &own);
  if (status == 0)
    status = execute(e, request, handles);
  if (own)
    destroy_entry(own);
  return status;
}

/* At unload: every cache, then the engine. */
__attribute__((destructor)) static void release_all(void) {
  pthread_mutex_lock(&sites_lock);
  while (sites) {
    site_cache *site = sites;
    sites = site->next;
    cache_entry *e = atomic_load(&site->entries);
    while (e) {
      cache_entry *next = e->next;
      destroy_entry(e);
      e = next;
    }
    pthread_mutex_destroy(&site->lock);
    free(site);
  }
  pthread_mutex_unlock(&sites_lock);
  if (engine) {
    dnnl_engine_destroy(engine);
    engine = NULL;
  }
}
