/*===- DnnlEngine.c - The dnnl glue's engine, caches and execution --------===*
 *
 * One CPU engine per process. Each call site owns a slot (a memref<1xi64>
 * global of the artifact) that points at its cache: a short list of
 * primitives keyed by everything they depend on (shapes, scalars, the data
 * pointer of a constant weight). Lookups walk the list without a lock
 * (entries are immutable once published); inserts take the site's mutex,
 * and a full list makes the call build a primitive just for itself.
 *
 * Execution is reentrant: primitives are created with a user scratchpad,
 * which each execution takes from the CPU runtime's pool, and each
 * execution gets its own stream and memory objects.
 *
 *===----------------------------------------------------------------------===*/

#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif

#include "DnnlInternal.h"
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

int onnxc_dnnl_read(const onnxc_unranked_memref *m, int min_rank, int max_rank,
                    onnxc_dnnl_tensor *t) {
  if (!m || !m->descriptor || m->rank < min_rank || m->rank > max_rank ||
      m->rank > ONNXC_MAX_RANK)
    return 0;
  const struct {
    float *allocated, *aligned;
    int64_t offset;
    int64_t dims[];
  } *d = m->descriptor;
  int rank = (int)m->rank;
  int64_t count = 1, volume = 1; /* volume: the sizes but zeros */
  for (int i = 0; i < rank; ++i) {
    int64_t size = d->dims[i];
    /* Bounds the byte count, so no later product overflows. */
    if (size < 0 || (size > 0 && volume > (INT64_MAX / 8) / size))
      return 0;
    t->size[i] = size;
    count *= size;
    volume *= size > 0 ? size : 1;
  }
  /* An empty tensor is never read: its strides do not matter. */
  int64_t expected = 1;
  for (int i = rank - 1; count > 0 && i >= 0; --i) {
    if (t->size[i] > 1 && d->dims[rank + i] != expected)
      return 0;
    expected *= t->size[i];
  }
  t->rank = rank;
  t->count = count;
  t->data = d->aligned ? d->aligned + d->offset : NULL;
  return t->data != NULL || count == 0;
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
  return a->length == b->length &&
         memcmp(a->value, b->value, (size_t)a->length * sizeof a->value[0]) ==
             0;
}

dnnl_status_t onnxc_dnnl_plain_md(dnnl_memory_desc_t *md, int rank,
                                  const int64_t *dims) {
  if (rank < 1 || rank > DNNL_MAX_NDIMS)
    return dnnl_invalid_arguments;
  dnnl_dims_t size, strides;
  int64_t stride = 1;
  for (int i = rank - 1; i >= 0; --i) {
    size[i] = dims[i];
    strides[i] = stride;
    stride *= dims[i] > 1 ? dims[i] : 1;
  }
  return dnnl_memory_desc_init_by_strides(md, rank, size, dnnl_f32, strides);
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

static void create_engine(void) {
  engine_status = dnnl_engine_create(&engine, dnnl_cpu, 0);
  *(void **)&omp_get_max_threads_fn =
      dlsym(RTLD_DEFAULT, "omp_get_max_threads");
  *(void **)&omp_set_num_threads_fn =
      dlsym(RTLD_DEFAULT, "omp_set_num_threads");
}

/* OpenMP's count is per thread: set it on the calling thread to the CPU
 * runtime's, only when it differs (setting it is not free). */
static void match_thread_count(void) {
  if (!omp_get_max_threads_fn || !omp_set_num_threads_fn)
    return;
  int wanted = onnxc_num_threads();
  if (wanted >= 1 && wanted != omp_get_max_threads_fn())
    omp_set_num_threads_fn(wanted);
}

/*===----------------------------------------------------------------------===*
 * Cache entries
 *===----------------------------------------------------------------------===*/

typedef struct cache_entry {
  struct cache_entry *next;
  onnxc_dnnl_key key;
  dnnl_primitive_t primitive;
  int num_args;
  int arg_ids[ONNXC_DNNL_MAX_ARGS];
  dnnl_memory_desc_t arg_mds[ONNXC_DNNL_MAX_ARGS];
  dnnl_memory_desc_t scratch_md;
  size_t scratch_bytes;
  int packed_arg;
  void *packed; /* owned; NULL: the weight is used as given */
} cache_entry;

static void destroy_entry(cache_entry *e) {
  if (e->primitive)
    dnnl_primitive_destroy(e->primitive);
  free(e->packed);
  free(e);
}

/* Runs a reorder of `from` at `src` into `to` at `dst`, once. */
static dnnl_status_t reorder_once(const dnnl_memory_desc_t *from, void *src,
                                  const dnnl_memory_desc_t *to, void *dst) {
  dnnl_primitive_desc_t pd = NULL;
  dnnl_primitive_t reorder = NULL;
  dnnl_memory_t src_mem = NULL, dst_mem = NULL;
  dnnl_stream_t stream = NULL;
  dnnl_status_t s =
      dnnl_reorder_primitive_desc_create(&pd, from, engine, to, engine, NULL);
  if (s == dnnl_success)
    s = dnnl_primitive_create(&reorder, pd);
  if (s == dnnl_success)
    s = dnnl_memory_create(&src_mem, from, engine, src);
  if (s == dnnl_success)
    s = dnnl_memory_create(&dst_mem, to, engine, dst);
  if (s == dnnl_success)
    s = dnnl_stream_create(&stream, engine, dnnl_stream_default_flags);
  if (s == dnnl_success) {
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, src_mem},
                               {DNNL_ARG_TO, dst_mem}};
    s = dnnl_primitive_execute(reorder, stream, 2, args);
    if (s == dnnl_success)
      s = dnnl_stream_wait(stream);
  }
  if (stream)
    dnnl_stream_destroy(stream);
  if (dst_mem)
    dnnl_memory_destroy(dst_mem);
  if (src_mem)
    dnnl_memory_destroy(src_mem);
  if (reorder)
    dnnl_primitive_destroy(reorder);
  if (pd)
    dnnl_primitive_desc_destroy(pd);
  return s;
}

/* Reorders the constant weight into the layout the primitive chose; one
 * that is already in it is used in place (its pointer is in the key). */
static int32_t pack_weight(cache_entry *e, const dnnl_memory_desc_t *from,
                           void *data) {
  const dnnl_memory_desc_t *to = &e->arg_mds[e->packed_arg];
  if (dnnl_memory_desc_equal(from, to))
    return 0;
  size_t bytes = dnnl_memory_desc_get_size(to);
  e->packed = aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
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
        dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, r->arg_ids[i]);
    if (!md)
      return dnnl_invalid_arguments;
    e->arg_ids[i] = r->arg_ids[i];
    e->arg_mds[i] = *md;
  }
  e->num_args = r->num_args;
  const dnnl_memory_desc_t *scratch =
      dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
  if (scratch) {
    e->scratch_md = *scratch;
    e->scratch_bytes = dnnl_memory_desc_get_size(scratch);
  }
  return 0;
}

/* Creates the primitive of `r` (and packs its constant weight). */
static int32_t build_entry(const onnxc_dnnl_request *r, void *const *handles,
                           cache_entry **out) {
  if (r->num_args > ONNXC_DNNL_MAX_ARGS || r->packed_arg >= r->num_args)
    return ONNXC_DNNL_ERROR_ARGUMENT;
  cache_entry *e = calloc(1, sizeof *e);
  if (!e)
    return ONNXC_DNNL_ERROR_MEMORY;
  e->key = r->key;
  e->packed_arg = r->packed_arg;
  dnnl_primitive_attr_t attr = NULL;
  dnnl_primitive_desc_t pd = NULL;
  int32_t status = dnnl_primitive_attr_create(&attr);
  if (status == 0)
    status = dnnl_primitive_attr_set_scratchpad_mode(attr,
                                                     dnnl_scratchpad_mode_user);
  if (status == 0)
    status = r->create_pd(r->op, attr, engine, &pd);
  if (status == 0)
    status = describe_entry(e, r, pd);
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

static int32_t execute(const cache_entry *e, void *const *handles) {
  dnnl_memory_t mems[ONNXC_DNNL_MAX_ARGS + 1] = {0};
  dnnl_exec_arg_t args[ONNXC_DNNL_MAX_ARGS + 1];
  dnnl_stream_t stream = NULL;
  void *block = NULL;
  int n = 0;
  int32_t status =
      dnnl_stream_create(&stream, engine, dnnl_stream_default_flags);
  for (; status == 0 && n < e->num_args; ++n) {
    void *data = n == e->packed_arg && e->packed ? e->packed : handles[n];
    status = dnnl_memory_create(&mems[n], &e->arg_mds[n], engine, data);
    args[n].arg = e->arg_ids[n];
    args[n].memory = mems[n];
  }
  if (status == 0 && e->scratch_bytes) {
    void *scratch = onnxc_rt_scratch_take(e->scratch_bytes, &block);
    status = scratch
                 ? dnnl_memory_create(&mems[n], &e->scratch_md, engine, scratch)
                 : ONNXC_DNNL_ERROR_MEMORY;
    args[n].arg = DNNL_ARG_SCRATCHPAD;
    args[n].memory = mems[n];
    ++n;
  }
  if (status == 0)
    status = dnnl_primitive_execute(e->primitive, stream, n, args);
  if (status == 0)
    status = dnnl_stream_wait(stream);
  for (int i = 0; i < n; ++i)
    if (mems[i])
      dnnl_memory_destroy(mems[i]);
  if (stream)
    dnnl_stream_destroy(stream);
  onnxc_rt_scratch_give(block);
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
                                     const onnxc_dnnl_key *key) {
  const cache_entry *e =
      atomic_load_explicit(&site->entries, memory_order_acquire);
  for (; e; e = e->next)
    if (key_equal(&e->key, key))
      return e;
  return NULL;
}

/* Finds or builds the entry of `r`. *own is set when the site was full:
 * the caller executes that entry once and destroys it. */
static int32_t insert_entry(site_cache *site, const onnxc_dnnl_request *r,
                            void *const *handles, const cache_entry **found,
                            cache_entry **own) {
  pthread_mutex_lock(&site->lock);
  int32_t status = 0;
  *found = find_entry(site, &r->key); /* another thread may have built it */
  if (!*found) {
    cache_entry *e = NULL;
    status = build_entry(r, handles, &e);
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
  site_cache *site;
  int32_t status = site_of(slot, &site);
  if (status != 0)
    return status;
  match_thread_count();
  const cache_entry *e = find_entry(site, &request->key);
  cache_entry *own = NULL;
  if (!e)
    status = insert_entry(site, request, handles, &e, &own);
  if (status == 0)
    status = execute(e, handles);
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
