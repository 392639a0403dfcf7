/*===- QGemm.c - Packing, blocking, threading and dispatch of int8 GEMM ---===*
 *
 *   pack A into MR-tall panels, with row sums  (parallel over panel groups)
 *   parallel over (row blocks) x (column blocks of NR panels):
 *     for each B panel (K x NR, stays in L1/L2 across the row block):
 *       for each A panel of the row block:
 *         micro-kernel -> MR x NR tile of int32 sums
 *         epilogue: zero-point corrections, then s32 or scaled f32 out
 * B is packed once per weight (onnxc_qgemm_packed_b_cached), with its
 * column sums. K is not blocked: a panel of B is K x NR bytes (24 KiB for
 * K = 768, NR = 32), and a row block is sized to keep its A panels in L2.
 *
 *===----------------------------------------------------------------------===*/

#include "QGemm.h"
#include "../ThreadPool.h"
#include "QGemmKernels.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if ONNXC_HAVE_X86_KERNELS
#include "CpuFeatures.h"
#endif

/* ---- Dispatch ----------------------------------------------------------- */

static _Atomic(const onnxc_qgemm_variant *) forced_variant;

static const onnxc_qgemm_variant *variant_for(int32_t isa) {
#if ONNXC_HAVE_X86_KERNELS
  int features = onnxc_x86_features();
#endif
  switch (isa) {
  case ONNXC_QGEMM_ISA_PORTABLE:
    return &onnxc_qgemm_portable_variant;
#if ONNXC_HAVE_X86_KERNELS
  case ONNXC_QGEMM_ISA_AVX2:
    return features & ONNXC_X86_AVX2_FMA ? &onnxc_qgemm_avx2_variant : NULL;
  case ONNXC_QGEMM_ISA_AVX512_VNNI:
    return features & ONNXC_X86_AVX512_VNNI ? &onnxc_qgemm_avx512_vnni_variant
                                            : NULL;
#endif
  default:
    return NULL;
  }
}

static const onnxc_qgemm_variant *active_variant(void) {
  const onnxc_qgemm_variant *v = atomic_load(&forced_variant);
  if (v)
    return v;
  static _Atomic(const onnxc_qgemm_variant *) best;
  v = atomic_load(&best);
  if (v)
    return v;
  v = variant_for(ONNXC_QGEMM_ISA_AVX512_VNNI);
  if (!v)
    v = variant_for(ONNXC_QGEMM_ISA_AVX2);
  if (!v)
    v = &onnxc_qgemm_portable_variant;
  atomic_store(&best, v);
  return v;
}

int onnxc_qgemm_isa_supported(int32_t isa) { return variant_for(isa) != NULL; }

int onnxc_qgemm_force_isa(int32_t isa) {
  if (isa == ONNXC_QGEMM_ISA_AUTO) {
    atomic_store(&forced_variant, NULL);
    return 1;
  }
  const onnxc_qgemm_variant *v = variant_for(isa);
  if (!v)
    return 0;
  atomic_store(&forced_variant, v);
  return 1;
}

const char *onnxc_qgemm_isa_name(int32_t isa) {
  switch (isa) {
  case ONNXC_QGEMM_ISA_PORTABLE:
    return "portable";
  case ONNXC_QGEMM_ISA_AVX2:
    return "avx2";
  case ONNXC_QGEMM_ISA_AVX512_VNNI:
    return "avx512_vnni";
  default:
    return "auto";
  }
}

/* ---- Packing ------------------------------------------------------------ */

static size_t div_up(size_t a, size_t b) { return (a + b - 1) / b; }

/* B's value as the kernels take it: u8, an s8 shifted by 128. (A's is s8,
 * a u8 shifted by -128: pack_a_row.) */
static inline int32_t b_value(const void *b, ptrdiff_t index, int b_signed) {
  return b_signed ? (int32_t)((const int8_t *)b)[index] + 128
                  : (int32_t)((const uint8_t *)b)[index];
}

static inline void store_packed(void *dst, size_t index, int32_t value,
                                size_t element_size) {
  if (element_size == 1)
    ((int8_t *)dst)[index] = (int8_t)value; /* u8 B values wrap back */
  else
    ((int16_t *)dst)[index] = (int16_t)value;
}

struct onnxc_qgemm_packed_b {
  const onnxc_qgemm_variant *v;
  size_t k, n, groups, panels;
  int b_signed;
  void *data;       /* panel after panel, each groups * NR * group values */
  int32_t *col_sum; /* panels * NR sums of the shifted values */
  /* What a cached copy was packed from (onnxc_qgemm_packed_b_cached). */
  const void *source;
  ptrdiff_t b_rs, b_cs;
  struct onnxc_qgemm_packed_b *next; /* the registry, for the unload */
};

static size_t panel_values(const onnxc_qgemm_variant *v, size_t rows,
                           size_t groups) {
  return groups * rows * v->group;
}

static onnxc_qgemm_packed_b *pack_b_for(const onnxc_qgemm_variant *v, size_t k,
                                        size_t n, const void *b, ptrdiff_t b_rs,
                                        ptrdiff_t b_cs, int b_signed) {
  onnxc_qgemm_packed_b *e = calloc(1, sizeof *e);
  if (!e)
    return NULL;
  e->v = v;
  e->k = k;
  e->n = n;
  e->groups = div_up(k, v->group);
  e->panels = div_up(n, v->nr);
  e->b_signed = b_signed;
  size_t per_panel = panel_values(v, v->nr, e->groups);
  e->data = aligned_alloc(
      64, div_up(e->panels * per_panel * v->element_size + 1, 64) * 64);
  e->col_sum = calloc(e->panels * v->nr + 1, sizeof(int32_t));
  if (!e->data || !e->col_sum) {
    onnxc_qgemm_free_packed_b(e);
    return NULL;
  }
  size_t nr = v->nr, group = v->group;
  /* Row after row of each panel, so that a row-major B is read along its
   * rows (a weight of 768 x 3072 read down its columns missed the cache on
   * every value). */
  for (size_t jp = 0; jp < e->panels; ++jp) {
    size_t base = jp * per_panel;
    int32_t sums[64] = {0}; /* nr <= 64 */
    for (size_t g = 0; g < e->groups; ++g)
      for (size_t t = 0; t < group; ++t) {
        size_t p = g * group + t;
        for (size_t c = 0; c < nr; ++c) {
          size_t j = jp * nr + c;
          int32_t value =
              j < n && p < k
                  ? b_value(b, (ptrdiff_t)p * b_rs + (ptrdiff_t)j * b_cs,
                            b_signed)
                  : 0;
          sums[c] += value;
          store_packed(e->data, base + (g * nr + c) * group + t, value,
                       v->element_size);
        }
      }
    for (size_t c = 0; c < nr; ++c)
      e->col_sum[jp * nr + c] = sums[c];
  }
  return e;
}

onnxc_qgemm_packed_b *onnxc_qgemm_pack_b(size_t k, size_t n, const void *b,
                                         ptrdiff_t b_rs, ptrdiff_t b_cs,
                                         int b_signed) {
  return pack_b_for(active_variant(), k, n, b, b_rs, b_cs, b_signed);
}

void onnxc_qgemm_free_packed_b(onnxc_qgemm_packed_b *packed) {
  if (!packed)
    return;
  free(packed->data);
  free(packed->col_sum);
  free(packed);
}

/* Every published copy, freed when the artifact (or program) unloads. */
static _Atomic(onnxc_qgemm_packed_b *) packed_b_registry;

__attribute__((destructor)) static void free_packed_b_registry(void) {
  onnxc_qgemm_packed_b *e = atomic_exchange(&packed_b_registry, NULL);
  while (e) {
    onnxc_qgemm_packed_b *next = e->next;
    onnxc_qgemm_free_packed_b(e);
    e = next;
  }
}

const onnxc_qgemm_packed_b *
onnxc_qgemm_packed_b_cached(onnxc_qgemm_packed_b **slot, size_t k, size_t n,
                            const void *b, ptrdiff_t b_rs, ptrdiff_t b_cs,
                            int b_signed) {
  const onnxc_qgemm_variant *v = active_variant();
  onnxc_qgemm_packed_b *e = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (!e) {
    onnxc_qgemm_packed_b *mine = pack_b_for(v, k, n, b, b_rs, b_cs, b_signed);
    if (!mine)
      return NULL;
    mine->source = b;
    mine->b_rs = b_rs;
    mine->b_cs = b_cs;
    if (__atomic_compare_exchange_n(slot, &e, mine, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
      e = mine;
      mine->next = atomic_load(&packed_b_registry);
      while (
          !atomic_compare_exchange_weak(&packed_b_registry, &mine->next, mine))
        ;
    } else {
      onnxc_qgemm_free_packed_b(mine); /* another thread published first */
    }
  }
  int same = e->v == v && e->source == b && e->k == k && e->n == n &&
             e->b_rs == b_rs && e->b_cs == b_cs && e->b_signed == b_signed;
  return same ? e : NULL;
}

/* ---- The product ----------------------------------------------------------
 */

enum { MAX_TILE = 12 * 32, A_BLOCK_BYTES = 256 * 1024, MAX_NC_PANELS = 4 };

typedef struct qgemm_job {
  const onnxc_qgemm_variant *v;
  const onnxc_qgemm_packed_b *b;
  const onnxc_qgemm_params *p;
  size_t m, a_panels, mc_panels, nc_panels, n_blocks;
  size_t a_panel_bytes, b_panel_bytes;
  char *packed_a;
  int32_t *row_sum; /* a_panels * MR */
  /* Per column: the zero-point terms that do not depend on the row, and
   * B's shifted zero point; per column scale (F32 output). */
  uint32_t *col_term;
  int32_t *b_zero;
  float *scale;
  int row_terms; /* some B zero point is not 0 after the shift */
} qgemm_job;

/* One row of A into its panel: the values shifted to s8, K padded with
 * zeros to whole groups; returns their sum. */
static int32_t pack_a_row(const onnxc_qgemm_variant *v, const void *row,
                          size_t k, size_t groups, int a_signed, void *panel,
                          size_t r) {
  size_t mr = v->mr, group = v->group;
  const uint8_t *src = row;
  uint8_t flip = a_signed ? 0 : 0x80; /* u8 - 128 as s8 is x ^ 0x80 */
  int32_t sum = 0;
  for (size_t q = 0; q < k; ++q)
    sum += (int8_t)(src[q] ^ flip);
  size_t full = k / group; /* groups with no padding */
  if (v->element_size == 1 && group == 4) {
    uint32_t flip4 = flip * 0x01010101u;
    uint8_t *dst = (uint8_t *)panel + r * 4;
    for (size_t g = 0; g < full; ++g) {
      uint32_t word;
      memcpy(&word, src + g * 4, 4);
      word ^= flip4;
      memcpy(dst + g * mr * 4, &word, 4);
    }
  } else if (v->element_size == 2) {
    int16_t *dst = (int16_t *)panel + r * group;
    for (size_t g = 0; g < full; ++g)
      for (size_t t = 0; t < group; ++t)
        dst[g * mr * group + t] = (int8_t)(src[g * group + t] ^ flip);
  } else {
    full = 0;
  }
  for (size_t g = full; g < groups; ++g)
    for (size_t t = 0; t < group; ++t) {
      size_t q = g * group + t;
      int8_t value = q < k ? (int8_t)(src[q] ^ flip) : 0;
      size_t index = (g * mr + r) * group + t;
      if (v->element_size == 1)
        ((int8_t *)panel)[index] = value;
      else
        ((int16_t *)panel)[index] = value;
    }
  return sum;
}

static void pack_a_task(void *context, size_t task, int worker) {
  (void)worker;
  const qgemm_job *job = context;
  const onnxc_qgemm_variant *v = job->v;
  const onnxc_qgemm_params *p = job->p;
  size_t mr = v->mr, groups = job->b->groups, k = job->b->k;
  size_t first = task * 16, last = first + 16;
  if (last > job->a_panels)
    last = job->a_panels;
  for (size_t ip = first; ip < last; ++ip) {
    char *panel = job->packed_a + ip * job->a_panel_bytes;
    size_t rows = job->m - ip * mr < mr ? job->m - ip * mr : mr;
    /* Rows past M stay zero: their tiles' rows are never stored. */
    if (rows < mr)
      memset(panel, 0, job->a_panel_bytes);
    for (size_t r = 0; r < rows; ++r) {
      size_t i = ip * mr + r;
      const uint8_t *row = (const uint8_t *)p->a + (ptrdiff_t)i * p->lda;
      job->row_sum[i] = pack_a_row(v, row, k, groups, p->a_signed, panel, r);
    }
  }
}

static void multiply_task(void *context, size_t task, int worker) {
  (void)worker;
  const qgemm_job *job = context;
  const onnxc_qgemm_variant *v = job->v;
  const onnxc_qgemm_params *p = job->p;
  size_t mr = v->mr, nr = v->nr, n = job->b->n;
  size_t mb = task / job->n_blocks, nb = task % job->n_blocks;
  size_t ip0 = mb * job->mc_panels, ip1 = ip0 + job->mc_panels;
  size_t jp0 = nb * job->nc_panels, jp1 = jp0 + job->nc_panels;
  if (ip1 > job->a_panels)
    ip1 = job->a_panels;
  if (jp1 > job->b->panels)
    jp1 = job->b->panels;
  _Alignas(64) int32_t tile[MAX_TILE];
  for (size_t jp = jp0; jp < jp1; ++jp) {
    const char *b_panel = (const char *)job->b->data + jp * job->b_panel_bytes;
    size_t j0 = jp * nr, cols = n - j0 < nr ? n - j0 : nr;
    for (size_t ip = ip0; ip < ip1; ++ip) {
      size_t i0 = ip * mr, rows = job->m - i0 < mr ? job->m - i0 : mr;
      v->kernel(job->b->groups, job->packed_a + ip * job->a_panel_bytes,
                b_panel, tile, rows);
      v->store(tile, rows, cols, job->row_sum + i0, job->col_term + j0,
               job->b_zero + j0, job->row_terms, job->scale + j0, p, i0, j0);
    }
  }
}

/* The per-column terms of the zero points and the output scale. */
static void column_terms(qgemm_job *job) {
  const onnxc_qgemm_params *p = job->p;
  const onnxc_qgemm_packed_b *b = job->b;
  uint32_t a_zero = (uint32_t)(p->a_zero_point - (p->a_signed ? 0 : 128));
  uint32_t k = (uint32_t)b->k;
  job->row_terms = 0;
  for (size_t j = 0; j < b->n; ++j) {
    int32_t zero = p->b_zero_point
                       ? p->b_zero_point[(ptrdiff_t)j * p->b_zero_point_stride]
                       : 0;
    zero += b->b_signed ? 128 : 0;
    job->b_zero[j] = zero;
    job->row_terms |= zero != 0;
    /* K * az * bz - az * colsum(B), wrapping like the int32 sums. */
    job->col_term[j] =
        k * a_zero * (uint32_t)zero - a_zero * (uint32_t)b->col_sum[j];
    if (p->output == ONNXC_QGEMM_OUTPUT_F32)
      job->scale[j] = p->a_scale * p->b_scale[(ptrdiff_t)j * p->b_scale_stride];
  }
}

int onnxc_qgemm(size_t m, const onnxc_qgemm_packed_b *b,
                const onnxc_qgemm_params *params, int max_threads) {
  if (m == 0 || b->n == 0)
    return 0;
  const onnxc_qgemm_variant *v = b->v;
  qgemm_job job;
  memset(&job, 0, sizeof job);
  job.v = v;
  job.b = b;
  job.p = params;
  job.m = m;
  job.a_panels = div_up(m, v->mr);
  job.a_panel_bytes = panel_values(v, v->mr, b->groups) * v->element_size;
  job.b_panel_bytes = panel_values(v, v->nr, b->groups) * v->element_size;
  size_t n = b->n;
  size_t a_bytes = job.a_panels * job.a_panel_bytes;
  size_t bytes = a_bytes + job.a_panels * v->mr * sizeof(int32_t) +
                 n * (sizeof(uint32_t) + sizeof(int32_t) + sizeof(float));
  char *scratch = aligned_alloc(64, div_up(bytes, 64) * 64);
  if (!scratch)
    return -1;
  job.packed_a = scratch;
  job.row_sum = (int32_t *)(scratch + a_bytes);
  job.col_term = (uint32_t *)(job.row_sum + job.a_panels * v->mr);
  job.b_zero = (int32_t *)(job.col_term + n);
  job.scale = (float *)(job.b_zero + n);
  column_terms(&job);

  int threads = onnxc_num_threads();
  if (max_threads > 0 && max_threads < threads)
    threads = max_threads;
  onnxc_parallel_for(div_up(job.a_panels, 16), threads, pack_a_task, &job);

  /* Row blocks whose A panels fit in L2; column blocks of up to 4 panels,
   * fewer when that leaves a thread without two tasks. */
  size_t mc = A_BLOCK_BYTES / (job.a_panel_bytes ? job.a_panel_bytes : 1);
  job.mc_panels = mc < 1 ? 1 : mc;
  size_t m_blocks = div_up(job.a_panels, job.mc_panels);
  job.nc_panels = MAX_NC_PANELS;
  while (job.nc_panels > 1 &&
         m_blocks * div_up(b->panels, job.nc_panels) < 2 * (size_t)threads)
    job.nc_panels /= 2;
  job.n_blocks = div_up(b->panels, job.nc_panels);
  onnxc_parallel_for(m_blocks * job.n_blocks, threads, multiply_task, &job);
  free(scratch);
  return 0;
}
