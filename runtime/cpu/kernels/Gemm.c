/*===- Gemm.c - Blocking, packing, threading and dispatch of the GEMM -----===*
 *
 * The loop nest:
 *   for jc in N by NC:
 *     for pc in K by KC:
 *       pack B[pc, jc] into NR-wide panels   (parallel over groups of 8
 *                                             panels; the KC x NC block
 *                                             stays in L2)
 *       parallel over (MC row blocks) x (NR panel chunks):
 *         pack A[ic, pc] into MR-tall panels (per-worker buffer)
 *         for each A panel (MR x KC, stays in L1, its values broadcast):
 *           for each B panel (streamed from L2, loaded as vectors):
 *             micro-kernel
 *         after the last KC block: the epilogue on the finished C block
 * The operand a micro-kernel broadcasts is the one kept in L1; the vector
 * operand streams, which is what the kernels' load ports are sized for.
 * The first KC block applies beta; later ones accumulate (beta = 1). The
 * epilogue runs while the block is still in cache. A few rows of C skip
 * the packing altogether (small_m below): they are bound by reading B.
 *
 *===----------------------------------------------------------------------===*/

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif

#include "Gemm.h"
#include "../CpuRuntime.h"
#include "../ThreadPool.h"
#include "Activation.h"
#include "GemmKernels.h"
#include "GemmPackedLayout.h"

#include <math.h>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include <string.h>
#if defined(__linux__)
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

/* ---- Dispatch ----------------------------------------------------------- */

static _Atomic(const onnxc_sgemm_variant *) forced_variant;

#if ONNXC_HAVE_X86_KERNELS
#include "CpuFeatures.h"
#endif

static const onnxc_sgemm_variant *variant_for(int32_t isa) {
#if ONNXC_HAVE_X86_KERNELS
  int features = onnxc_x86_features();
#endif
  switch (isa) {
  case ONNXC_SGEMM_ISA_PORTABLE:
    return &onnxc_sgemm_portable_variant;
#if ONNXC_HAVE_X86_KERNELS
  case ONNXC_SGEMM_ISA_AVX2:
    return features & ONNXC_X86_AVX2_FMA ? &onnxc_sgemm_avx2_variant : NULL;
  case ONNXC_SGEMM_ISA_AVX512:
    return features & ONNXC_X86_AVX512 ? &onnxc_sgemm_avx512_variant : NULL;
#endif
#if ONNXC_HAVE_NEON_KERNELS
  case ONNXC_SGEMM_ISA_NEON: /* AdvSIMD is in the AArch64 base ISA. */
    return &onnxc_sgemm_neon_variant;
#endif
  default:
    return NULL;
  }
}

static const onnxc_sgemm_variant *best_variant(void) {
  static _Atomic(const onnxc_sgemm_variant *) best;
  const onnxc_sgemm_variant *v = atomic_load(&best);
  if (v)
    return v;
  v = variant_for(ONNXC_SGEMM_ISA_NEON);
  if (!v)
    v = variant_for(ONNXC_SGEMM_ISA_AVX512);
  if (!v)
    v = variant_for(ONNXC_SGEMM_ISA_AVX2);
  if (!v)
    v = &onnxc_sgemm_portable_variant;
  atomic_store(&best, v);
  return v;
}

static const onnxc_sgemm_variant *active_variant(void) {
  const onnxc_sgemm_variant *v = atomic_load(&forced_variant);
  return v ? v : best_variant();
}

int onnxc_sgemm_isa_supported(int32_t isa) { return variant_for(isa) != NULL; }

const onnxc_sgemm_variant *onnxc_sgemm_variant_for_isa(int32_t isa) {
  return variant_for(isa);
}

int onnxc_sgemm_force_isa(int32_t isa) {
  if (isa == ONNXC_SGEMM_ISA_AUTO) {
    atomic_store(&forced_variant, NULL);
    return 1;
  }
  const onnxc_sgemm_variant *v = variant_for(isa);
  if (!v)
    return 0;
  atomic_store(&forced_variant, v);
  return 1;
}

int32_t onnxc_sgemm_current_isa(void) { return active_variant()->isa; }

const char *onnxc_sgemm_isa_name(int32_t isa) {
  switch (isa) {
  case ONNXC_SGEMM_ISA_PORTABLE:
    return "portable";
  case ONNXC_SGEMM_ISA_AVX2:
    return "avx2";
  case ONNXC_SGEMM_ISA_AVX512:
    return "avx512";
  case ONNXC_SGEMM_ISA_NEON:
    return "neon";
  default:
    return "auto";
  }
}

/* ---- Packing ------------------------------------------------------------ */

/* One full MR-tall panel of row-major A (unit column stride), transposed
 * a cache line at a time: the MR source rows are often a multiple of 4 KiB
 * apart and share one L1 set, so reading them element by element in lock
 * step would evict each line before its next element is read. */
enum { PACK_A_STEP = 16 };

static inline void pack_a_rows(size_t kc, size_t mr_tile, const float *src,
                               ptrdiff_t rs, float *dst) {
  size_t p0 = 0;
#if defined(__SSE2__)
  /* Every x86-64 has SSE2: 4 x 4 blocks through a register transpose, the
   * rows past a multiple of 4 one by one. */
  size_t r4 = mr_tile / 4 * 4;
  for (; p0 + PACK_A_STEP <= kc; p0 += PACK_A_STEP) {
    for (size_t r = 0; r < r4; r += 4) {
      const float *row = src + (ptrdiff_t)r * rs + (ptrdiff_t)p0;
      for (size_t p = 0; p < PACK_A_STEP; p += 4) {
        __m128 r0 = _mm_loadu_ps(row + p);
        __m128 r1 = _mm_loadu_ps(row + rs + p);
        __m128 r2 = _mm_loadu_ps(row + 2 * rs + p);
        __m128 r3 = _mm_loadu_ps(row + 3 * rs + p);
        _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
        float *out = dst + (p0 + p) * mr_tile + r;
        _mm_storeu_ps(out, r0);
        _mm_storeu_ps(out + mr_tile, r1);
        _mm_storeu_ps(out + 2 * mr_tile, r2);
        _mm_storeu_ps(out + 3 * mr_tile, r3);
      }
    }
    for (size_t r = r4; r < mr_tile; ++r) {
      const float *row = src + (ptrdiff_t)r * rs + (ptrdiff_t)p0;
      for (size_t p = 0; p < PACK_A_STEP; ++p)
        dst[(p0 + p) * mr_tile + r] = row[p];
    }
  }
#endif
  for (; p0 + PACK_A_STEP <= kc; p0 += PACK_A_STEP)
    for (size_t r = 0; r < mr_tile; ++r) {
      const float *row = src + (ptrdiff_t)r * rs + (ptrdiff_t)p0;
      for (size_t p = 0; p < PACK_A_STEP; ++p)
        dst[(p0 + p) * mr_tile + r] = row[p];
    }
  for (size_t r = 0; r < mr_tile; ++r)
    for (size_t p = p0; p < kc; ++p)
      dst[p * mr_tile + r] = src[(ptrdiff_t)r * rs + (ptrdiff_t)p];
}

/* The rows of the next row tile when `left` rows remain. A full tile,
 * except that 7 or 8 last rows are split into two tiles of at most 4 rather
 * than a full tile and one of 1 or 2: the kernels run a tile of 4 rows at
 * the full FMA rate (8 accumulators) and one of 1 or 2 at the 4-row cost
 * (AVX2 6 x 16: mlp at batch 8 multiplied 12 rows for 8). Either way there
 * are div_up(left, mr) tiles, so the packed sizes do not change. */
static size_t tile_rows(size_t left, size_t mr) {
  enum { SPLIT_TAIL_ROWS = 8 };
  if (left > mr && left <= SPLIT_TAIL_ROWS && left <= 2 * mr)
    return (left + 1) / 2;
  return left < mr ? left : mr;
}

/* Rows [0, mc) x columns [0, kc) of op(A) into MR-tall panels of
 * tile_rows() rows each, zero-padded: the panel of the tile starting at
 * row i0 holds a[p * MR + r] = op(A)[i0 + r][p]. */
static void pack_a(size_t mc, size_t kc, size_t mr_tile, const float *a,
                   ptrdiff_t rs, ptrdiff_t cs, float *dst) {
  for (size_t i0 = 0, rows; i0 < mc; i0 += rows) {
    rows = tile_rows(mc - i0, mr_tile);
    const float *src = a + (ptrdiff_t)i0 * rs;
    if (rs == 1 && rows == mr_tile) {
      /* Transposed A: each column of the panel is contiguous. */
      for (size_t p = 0; p < kc; ++p)
        memcpy(dst + p * mr_tile, src + (ptrdiff_t)p * cs,
               mr_tile * sizeof(float));
    } else if (cs == 1 && rows == mr_tile) {
      /* Constant tile heights let the compiler unroll the row loop. */
      switch (mr_tile) {
      case 12:
        pack_a_rows(kc, 12, src, rs, dst);
        break;
      case 6:
        pack_a_rows(kc, 6, src, rs, dst);
        break;
      case 4:
        pack_a_rows(kc, 4, src, rs, dst);
        break;
      default:
        pack_a_rows(kc, mr_tile, src, rs, dst);
        break;
      }
    } else {
      for (size_t p = 0; p < kc; ++p) {
        size_t r = 0;
        for (; r < rows; ++r)
          dst[p * mr_tile + r] = src[(ptrdiff_t)r * rs + (ptrdiff_t)p * cs];
        for (; r < mr_tile; ++r)
          dst[p * mr_tile + r] = 0.0f;
      }
    }
    dst += mr_tile * kc;
  }
}

static inline void copy_rows(size_t kc, size_t width, const float *src,
                             ptrdiff_t rs, float *dst) {
  for (size_t p = 0; p < kc; ++p)
    for (size_t c = 0; c < width; ++c)
      dst[p * width + c] = src[(ptrdiff_t)p * rs + (ptrdiff_t)c];
}

/* Columns [0, cols) x rows [0, kc) of op(B) into one NR-wide panel,
 * zero-padded: dst[p * NR + c] = op(B)[p][c]. */
static void pack_b_panel(size_t kc, size_t cols, size_t nr_tile, const float *b,
                         ptrdiff_t rs, ptrdiff_t cs, float *dst) {
  if (cs == 1 && cols == nr_tile) {
    /* Row-major B: each panel row is a short contiguous copy; constant
     * widths become a few vector moves instead of memcpy calls. */
    switch (nr_tile) {
    case 32:
      copy_rows(kc, 32, b, rs, dst);
      return;
    case 16:
      copy_rows(kc, 16, b, rs, dst);
      return;
    case 8:
      copy_rows(kc, 8, b, rs, dst);
      return;
    default:
      copy_rows(kc, nr_tile, b, rs, dst);
      return;
    }
  }
  for (size_t p = 0; p < kc; ++p) {
    const float *row = b + (ptrdiff_t)p * rs;
    size_t c = 0;
    for (; c < cols; ++c)
      dst[p * nr_tile + c] = row[(ptrdiff_t)c * cs];
    for (; c < nr_tile; ++c)
      dst[p * nr_tile + c] = 0.0f;
  }
}

/* ---- Epilogue ----------------------------------------------------------- */

/* Bias, residual and activation on C rows [0, rows) x columns [0, cols);
 * `row0`/`col0` locate the block in the whole C for bias and residual. */
static void apply_epilogue(const onnxc_sgemm_epilogue *e, float *c,
                           ptrdiff_t ldc, size_t row0, size_t col0, size_t rows,
                           size_t cols) {
  for (size_t r = 0; r < rows; ++r) {
    float *out = c + (ptrdiff_t)r * ldc;
    size_t i = row0 + r;
    if (e->bias) {
      const float *bias = e->bias + (ptrdiff_t)i * e->bias_row_stride +
                          (ptrdiff_t)col0 * e->bias_col_stride;
      float scale = e->bias_scale;
      if (e->bias_col_stride == 1)
        for (size_t j = 0; j < cols; ++j)
          out[j] += scale * bias[j];
      else if (e->bias_col_stride == 0) {
        float v = scale * bias[0];
        for (size_t j = 0; j < cols; ++j)
          out[j] += v;
      } else
        for (size_t j = 0; j < cols; ++j)
          out[j] += scale * bias[(ptrdiff_t)j * e->bias_col_stride];
    }
    if (e->residual) {
      const float *res = e->residual + (ptrdiff_t)i * e->residual_ld + col0;
      for (size_t j = 0; j < cols; ++j)
        out[j] += res[j];
    }
    /* Vectorized (kernels/Activation.h), while the row is in L1. */
    onnxc_activation_apply(e->activation, e->activation_alpha,
                           e->activation_beta, out, 1, cols, ldc);
  }
}

static int epilogue_is_trivial(const onnxc_sgemm_epilogue *e) {
  return !e ||
         (!e->bias && !e->residual && e->activation == ONNXC_ACTIVATION_NONE);
}

/* ---- The driver --------------------------------------------------------- */

typedef struct gemm_job {
  const onnxc_sgemm_variant *v;
  onnxc_sgemm_ukernel_fn kernel;
  /* v's streamed_kernel when B was packed once, else NULL (then kernel). */
  onnxc_sgemm_streamed_fn streamed;
  size_t m, n, k;
  float alpha, beta;
  const float *a;
  ptrdiff_t a_rs, a_cs;
  const float *b;
  ptrdiff_t b_rs, b_cs;
  float *c;
  ptrdiff_t ldc;
  const onnxc_sgemm_epilogue *epilogue;
  /* The current (jc, pc) block. */
  size_t jc, nc, pc, kc;
  int first_k, last_k;
  size_t mc;       /* rows per task */
  size_t m_blocks; /* row blocks */
  size_t n_chunks; /* panel chunks per row block */
  size_t panels;   /* NR panels in the current NC block */
  float *packed_b; /* panels * NR * kc */
  float *packed_a; /* workers * mc * kc */
  size_t packed_a_stride;
  /* All of op(A) packed once (pack_whole_a_task), or NULL: each task packs
   * its rows per (jc, pc) block. K block pc starts at whole_a_tiles * MR *
   * pc, its tile t at t * MR * kc from there. */
  float *whole_a;
  size_t whole_a_tiles, whole_a_unit;
} gemm_job;

/* Panels packed per task: row-major B is then read PACK_B_PANELS * NR
 * contiguous floats per row, which the hardware prefetchers follow, rather
 * than NR floats from each of KC rows a row stride apart. */
enum { PACK_B_PANELS = 8, PACK_PREFETCH_ROWS = 4 };

static void pack_b_task(void *context, size_t task, int worker) {
  (void)worker;
  gemm_job *job = context;
  size_t nr = job->v->nr, kc = job->kc;
  size_t q0 = task * PACK_B_PANELS;
  size_t q1 =
      q0 + PACK_B_PANELS < job->panels ? q0 + PACK_B_PANELS : job->panels;
  const float *b =
      job->b + (ptrdiff_t)job->pc * job->b_rs + (ptrdiff_t)job->jc * job->b_cs;
  float *dst = job->packed_b;
  /* Full panels of row-major B: row by row across the panels. */
  size_t full = job->nc / nr < q1 ? job->nc / nr : q1;
  if (job->b_cs == 1 && q0 < full) {
    for (size_t p = 0; p < kc; ++p) {
      const float *row = b + (ptrdiff_t)p * job->b_rs;
      /* Rows a page or more apart restart the hardware streamer at every
       * row: fetch a few rows ahead. */
      if (p + PACK_PREFETCH_ROWS < kc) {
        const float *ahead = row + PACK_PREFETCH_ROWS * job->b_rs;
        for (size_t j = q0 * nr; j < full * nr; j += 16)
          __builtin_prefetch(ahead + j);
      }
      for (size_t q = q0; q < full; ++q) {
        float *out = dst + q * nr * kc + p * nr;
        const float *in = row + q * nr;
        switch (nr) {
        case 32:
          memcpy(out, in, 32 * sizeof(float));
          break;
        case 16:
          memcpy(out, in, 16 * sizeof(float));
          break;
        case 8:
          memcpy(out, in, 8 * sizeof(float));
          break;
        default:
          memcpy(out, in, nr * sizeof(float));
          break;
        }
      }
    }
    q0 = full;
  }
  for (size_t q = q0; q < q1; ++q) {
    size_t j = q * nr;
    size_t cols = job->nc - j < nr ? job->nc - j : nr;
    pack_b_panel(kc, cols, nr, b + (ptrdiff_t)j * job->b_cs, job->b_rs,
                 job->b_cs, dst + q * nr * kc);
  }
}

static size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }
static size_t div_up(size_t x, size_t by) { return (x + by - 1) / by; }

/* The tiles of A that the micro-kernel multiplies.
 *
 * pack_a writes a row tile's MR x kc panel in the order the kernel reads
 * it. Every row block used to pack its rows for each (jc, pc) block, so
 * for N > NC the same A was packed again per NC block of columns (gpt2's
 * 50257-wide head: 50 times), and with the columns split between threads
 * each thread packed all of it. When that repeats and A is small enough
 * (gemm_whole_a_floats), sgemm_blocked packs all of A once instead
 * (pack_whole_a_task, one task per K block) and the tasks read their
 * panels from that copy. */
static size_t a_tiles(size_t m, size_t mr) {
  size_t tiles = 0;
  for (size_t i = 0; i < m; i += tile_rows(m - i, mr))
    ++tiles;
  return tiles;
}

/* At most this many floats of packed A are packed once (16 MiB: a
 * 1024 x 3072 A, GPT-2's second FFN product at batch 8). */
enum { WHOLE_A_MAX_FLOATS = 4 << 20, WHOLE_A_TASK_TILES = 16 };

/* The tiles of all of A as the tasks take its rows: units of whole_a_unit
 * rows (a multiple of MR), each tiled as pack_a tiles it alone, so that
 * only the last unit has a short or split tile. */
static size_t whole_a_tiles(size_t m, size_t mr, size_t unit) {
  size_t last = (m - 1) / unit * unit;
  return last / mr + a_tiles(m - last, mr);
}

/* Task t packs chunk t % chunks of K block t / chunks: WHOLE_A_TASK_TILES
 * tiles of a unit, the last chunk of a unit up to 2x that, so that the
 * split tiles of its end are packed by one pack_a, as the tasks tile it. */
static void pack_whole_a_task(void *context, size_t task, int worker) {
  (void)worker;
  const gemm_job *job = context;
  size_t mr = job->v->mr, kc_max = job->v->kc, unit = job->whole_a_unit;
  size_t chunk_rows = WHOLE_A_TASK_TILES * mr;
  size_t per_unit = div_up(unit, chunk_rows);
  size_t chunks = div_up(job->m, unit) * per_unit;
  size_t pc = task / chunks * kc_max, chunk = task % chunks;
  size_t u0 = chunk / per_unit * unit;
  size_t i0 = u0 + chunk % per_unit * chunk_rows;
  size_t u1 = u0 + unit < job->m ? u0 + unit : job->m;
  if (i0 >= u1 || (i0 > u0 && i0 + chunk_rows > u1))
    return; /* past the unit, or the chunk before took these rows */
  size_t kc = job->k - pc < kc_max ? job->k - pc : kc_max;
  size_t rows = i0 + 2 * chunk_rows > u1 ? u1 - i0 : chunk_rows;
  pack_a(rows, kc, mr,
         job->a + (ptrdiff_t)i0 * job->a_rs + (ptrdiff_t)pc * job->a_cs,
         job->a_rs, job->a_cs,
         job->whole_a + job->whole_a_tiles * mr * pc + i0 / mr * mr * kc);
}

/* Rows [i0, i0 + rows) x K columns [pc, pc + kc) of op(A), packed: from
 * the whole copy when there is one (the rows are then one of its units),
 * else packed now into the worker's buffer. */
static const float *packed_a_rows(const gemm_job *job, int worker, size_t i0,
                                  size_t rows, size_t pc, size_t kc) {
  size_t mr = job->v->mr;
  if (job->whole_a)
    return job->whole_a + job->whole_a_tiles * mr * pc + i0 / mr * mr * kc;
  float *packed_a = job->packed_a + (size_t)worker * job->packed_a_stride;
  pack_a(rows, kc, mr,
         job->a + (ptrdiff_t)i0 * job->a_rs + (ptrdiff_t)pc * job->a_cs,
         job->a_rs, job->a_cs, packed_a);
  return packed_a;
}

/* A streamed B in compute_task's order (each call reads the next panel of
 * a row tile's walk, contiguous in memory) is fetched into L2 this many k
 * steps (32 KB at NR = 32) ahead of the kernel, two lines a step: for the
 * first row tile to read a panel, the kernel's own prefetch into L1 (16
 * steps) is too short to hide DRAM. bert_base and vit_b_16 at batch 1, 1
 * thread: -4 to -5% (same-process A/B, when this order was theirs); 64 and
 * 128 steps gained less on bench/gemm BM_SgemmWeightStream. */
enum { FAR_STEPS = 256 };

static void compute_task(void *context, size_t task, int worker) {
  gemm_job *job = context;
  const onnxc_sgemm_variant *v = job->v;
  size_t mr = v->mr, nr = v->nr, kc = job->kc;
  size_t block = task / job->n_chunks, chunk = task % job->n_chunks;
  size_t i0 = block * job->mc;
  if (i0 >= job->m)
    return;
  size_t mc = job->m - i0 < job->mc ? job->m - i0 : job->mc;
  size_t per_chunk = (job->panels + job->n_chunks - 1) / job->n_chunks;
  size_t q0 = chunk * per_chunk;
  size_t q1 = q0 + per_chunk < job->panels ? q0 + per_chunk : job->panels;
  if (q0 >= q1)
    return;

  const float *ap = packed_a_rows(job, worker, i0, mc, job->pc, kc);
  float beta = job->first_k ? job->beta : 1.0f;
  for (size_t i = 0, rows; i < mc; i += rows, ap += mr * kc) {
    rows = tile_rows(mc - i, mr);
    float *crow = job->c + (ptrdiff_t)(i0 + i) * job->ldc + job->jc;
    for (size_t q = q0; q < q1; ++q) {
      size_t j = q * nr;
      size_t cols = job->nc - j < nr ? job->nc - j : nr;
      const float *bp = job->packed_b + q * nr * kc;
      if (job->streamed)
        job->streamed(kc, ap, bp, crow + j, job->ldc, rows, cols, job->alpha,
                      beta, bp + FAR_STEPS * nr, nr * sizeof(float));
      else
        job->kernel(kc, ap, bp, crow + j, job->ldc, rows, cols, job->alpha,
                    beta);
    }
  }
  if (job->last_k && !epilogue_is_trivial(job->epilogue)) {
    size_t j0 = q0 * nr;
    size_t j1 = q1 * nr < job->nc ? q1 * nr : job->nc;
    apply_epilogue(job->epilogue,
                   job->c + (ptrdiff_t)i0 * job->ldc + job->jc + j0, job->ldc,
                   i0, job->jc + j0, mc, j1 - j0);
  }
}

/* ---- Constant B, packed once --------------------------------------------- */

/* A constant B (a weight) packed for every (jc, pc) block in the layout the
 * compute tasks read: block (jc, pc) starts at jc * k + panels(jc) * NR * pc
 * (the blocks before jc are full NC blocks of K rows), its panels as
 * pack_b_task writes them. `key` says what it was packed for. */
struct onnxc_sgemm_packed_b {
  const onnxc_sgemm_variant *v;
  const float *b;
  size_t n, k;
  ptrdiff_t b_rs, b_cs;
  float *data;
  struct onnxc_sgemm_packed_b *next; /* the registry, for the unload */
};

/* Every published copy, freed when the artifact (or program) unloads. Only
 * pushed to while running; read only by the destructor. */
static _Atomic(onnxc_sgemm_packed_b *) packed_b_registry;

__attribute__((destructor)) static void free_packed_b(void) {
  onnxc_sgemm_packed_b *e = atomic_exchange(&packed_b_registry, NULL);
  while (e) {
    onnxc_sgemm_packed_b *next = e->next;
    free(e->data);
    free(e);
    e = next;
  }
}

static int packed_b_matches(const onnxc_sgemm_packed_b *e,
                            const onnxc_sgemm_variant *v, const float *b,
                            size_t n, size_t k, ptrdiff_t b_rs,
                            ptrdiff_t b_cs) {
  return e->v == v && e->b == b && e->n == n && e->k == k && e->b_rs == b_rs &&
         e->b_cs == b_cs;
}

/* Packs all of B for `v` into a fresh copy (NULL when out of memory). */
enum { HUGE_PAGE = 2 << 20 };

static onnxc_sgemm_packed_b *pack_whole_b(const onnxc_sgemm_variant *v,
                                          const float *b, size_t n, size_t k,
                                          ptrdiff_t b_rs, ptrdiff_t b_cs,
                                          int threads) {
  size_t nr = v->nr;
  size_t floats = div_up(n, nr) * nr * k;
  onnxc_sgemm_packed_b *e = malloc(sizeof *e);
  void *data = NULL;
  size_t bytes = floats * sizeof(float);
  if (!e || posix_memalign(&data, HUGE_PAGE, bytes) != 0) {
    free(e);
    return NULL;
  }
#if defined(MADV_HUGEPAGE)
  /* The compute tasks stream the copy from memory once per run: 2 MiB
   * pages spare a TLB miss every 4 KiB of it (advice only). */
  if (bytes >= HUGE_PAGE)
    madvise(data, bytes, MADV_HUGEPAGE);
#endif
  *e = (onnxc_sgemm_packed_b){v, b, n, k, b_rs, b_cs, data, NULL};
  gemm_job job = {0};
  job.v = v;
  job.b = b;
  job.b_rs = b_rs;
  job.b_cs = b_cs;
  for (size_t jc = 0; jc < n; jc += v->nc) {
    job.jc = jc;
    job.nc = n - jc < v->nc ? n - jc : v->nc;
    job.panels = div_up(job.nc, nr);
    for (size_t pc = 0; pc < k; pc += v->kc) {
      job.pc = pc;
      job.kc = k - pc < v->kc ? k - pc : v->kc;
      job.packed_b = e->data + jc * k + job.panels * nr * pc;
      onnxc_parallel_for(div_up(job.panels, PACK_B_PANELS), threads,
                         pack_b_task, &job);
    }
  }
  return e;
}

/* Once B is packed, the GEMMs no longer read the original (a weight in the
 * artifact's read-only data): drop this process's mapping of its pages, so
 * that the packed copy does not double the weights' resident memory.
 * MADV_DONTNEED on a clean page of a file mapping keeps the data: a later
 * read (a small-M call) faults the same bytes back in from the page cache,
 * which keeps them for the next process that loads the artifact (where
 * MADV_PAGEOUT would evict them and make that load read the disk). On
 * anonymous memory the same advice would zero the data, so it is given
 * only when dladdr places B inside a loaded object's file. Only whole pages
 * inside B, so that neighbours keep their pages. */
static void release_source(const float *b, size_t n, size_t k, ptrdiff_t b_rs,
                           ptrdiff_t b_cs) {
#if defined(__linux__) && defined(MADV_DONTNEED)
  Dl_info where;
  if (b_rs <= 0 || b_cs <= 0 || !dladdr(b, &where) || !where.dli_fname ||
      !where.dli_fname[0])
    return;
  long page_size = sysconf(_SC_PAGESIZE);
  uintptr_t page = page_size > 0 ? (uintptr_t)page_size : 4096;
  uintptr_t begin = (uintptr_t)b;
  uintptr_t end = (uintptr_t)(b + (ptrdiff_t)(k - 1) * b_rs +
                              (ptrdiff_t)(n - 1) * b_cs + 1);
  begin = (begin + page - 1) / page * page;
  end = end / page * page;
  if (end > begin)
    madvise((void *)begin, end - begin, MADV_DONTNEED);
#else
  (void)b, (void)n, (void)k, (void)b_rs, (void)b_cs;
#endif
}

/* Publishes `mine` in `*slot` unless another thread was first. Returns the
 * copy the slot holds; `*won` (when not NULL) says whether it is `mine`
 * (else `mine` was freed). */
static onnxc_sgemm_packed_b *publish_packed_b(onnxc_sgemm_packed_b **slot,
                                              onnxc_sgemm_packed_b *mine,
                                              int *won) {
  onnxc_sgemm_packed_b *e = NULL;
  int published = __atomic_compare_exchange_n(
      slot, &e, mine, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
  if (won)
    *won = published;
  if (!published) {
    free(mine->data);
    free(mine);
    return e;
  }
  mine->next = atomic_load(&packed_b_registry);
  while (!atomic_compare_exchange_weak(&packed_b_registry, &mine->next, mine))
    ;
  return mine;
}

/* The copy of B in `*slot` when it was packed for these operands; on first
 * use packs one and publishes it. Never blocks: threads that race on the
 * first use each pack, one copy wins the compare-exchange, the others are
 * freed. NULL (pack per run) when the slot holds another key (a forced
 * ISA, another B) or memory runs out. */
static const onnxc_sgemm_packed_b *packed_b_for(onnxc_sgemm_packed_b **slot,
                                                const onnxc_sgemm_variant *v,
                                                const float *b, size_t n,
                                                size_t k, ptrdiff_t b_rs,
                                                ptrdiff_t b_cs, int threads) {
  onnxc_sgemm_packed_b *e = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (!e) {
    onnxc_sgemm_packed_b *mine = pack_whole_b(v, b, n, k, b_rs, b_cs, threads);
    if (!mine)
      return NULL;
    int won;
    e = publish_packed_b(slot, mine, &won);
    if (won)
      release_source(b, n, k, b_rs, b_cs);
  }
  return packed_b_matches(e, v, b, n, k, b_rs, b_cs) ? e : NULL;
}

/* A B the compiler packed in another ISA's `layout`, repacked once for `v`
 * into `*slot` as packed_b_for does (keyed on `prepacked` with strides 0).
 * The repacking goes through a plain K x N copy, freed after. */
static const onnxc_sgemm_packed_b *
repacked_b_for(onnxc_sgemm_packed_b **slot, const onnxc_sgemm_variant *v,
               const onnxc_sgemm_b_layout *layout, const float *prepacked,
               size_t n, size_t k, int threads) {
  onnxc_sgemm_packed_b *e = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (!e) {
    float *plain = malloc(n * k * sizeof(float));
    if (!plain)
      return NULL;
    for (size_t p = 0; p < k; ++p)
      for (size_t j = 0; j < n; ++j)
        plain[p * n + j] =
            prepacked[onnxc_sgemm_packed_b_index(layout, n, k, p, j)];
    onnxc_sgemm_packed_b *mine =
        pack_whole_b(v, plain, n, k, (ptrdiff_t)n, 1, threads);
    free(plain);
    if (!mine)
      return NULL;
    mine->b = prepacked;
    mine->b_rs = mine->b_cs = 0;
    e = publish_packed_b(slot, mine, NULL);
  }
  return packed_b_matches(e, v, prepacked, n, k, 0, 0) ? e : NULL;
}

/* With B packed once (job->packed_b: the whole copy, see
 * onnxc_sgemm_packed_b) a task owns an equal share of B's panels, the
 * columns of C under them, through every row and all of K: one parallel
 * region per call, no barrier per (jc, pc) block, and equal work per
 * thread (row blocks of MR-tall tiles do not split M = 128 evenly in two).
 * The copy comes from memory, not from a packing pass that just left it in
 * L2: a group of up to A_GROUP_FLOATS / KC rows of A is packed per KC block
 * (all of M in a transformer at batch 1; it stays in L2) and each B panel
 * meets every row tile of the group before the next panel, so the kernel
 * call that reads a panel from memory is followed by calls that find it in
 * cache, instead of a whole row tile's worth of panels from memory in a
 * row. Measured (bench/gemm BM_SgemmWeightStream, 1 thread, M = 32..128):
 * 2-4% less time than the row-tile-outer order; KC sub-blocks did not
 * help.
 *
 * The next panel's fetch from memory is spread over the row tiles of the
 * current one (next_panel_of; each kernel call fetches its share into L2).
 * A fetch a fixed distance ahead (FAR_STEPS) came all from the first row
 * tile of each panel, a burst of 48 KB in 1/T of the time, which a core's
 * bandwidth from DRAM does not keep up with when T, the row tiles, is
 * small. Same-process A/B on the Xeon of 2026-11-27 (median of per-pair
 * ratios, 20-30 pairs; an artifact against a copy of itself: 1.02): batch
 * 1, 1 thread, bert_base 0.905, gpt2 0.918 (M = 128, 11 tiles), vit_b_16
 * 1.00 (M = 197, 17 tiles); 2 threads, bert_base 0.93, vit_b_16 0.93.
 * BM_SgemmWeightStream, 1 thread, min of 6: M = 64 -17%, M = 128 -9%,
 * M = 256 +1% (M = 1024, compute_task, unchanged: -1%). */
enum { A_GROUP_FLOATS = 128 * 1024 };

static size_t a_group_rows(size_t m, size_t mr, size_t kc) {
  size_t rows = A_GROUP_FLOATS / kc / mr * mr;
  rows = rows < mr ? mr : rows;
  return m < rows ? m : rows;
}

/* The panel a task of cached_task reads after panel q of the group of rows
 * at (jc, pc), and its 64-byte lines; panel NULL when there is none. */
typedef struct next_panel {
  const float *panel;
  size_t lines;
} next_panel;

static next_panel next_panel_of(const gemm_job *job, size_t last, size_t jc,
                                size_t q0, size_t q1, size_t q, size_t pc,
                                int more_groups) {
  const onnxc_sgemm_variant *v = job->v;
  size_t nr = v->nr, k = job->k;
  size_t nc = job->n - jc < v->nc ? job->n - jc : v->nc;
  size_t panels = div_up(nc, nr);
  size_t kc = k - pc < v->kc ? k - pc : v->kc;
  next_panel none = {NULL, 0};
  if (q + 1 < q1 || more_groups) {
    /* The next panel of this K block, or its first for the next group. */
    size_t next = q + 1 < q1 ? q + 1 : q0;
    next_panel p = {job->packed_b + jc * k + panels * nr * pc + next * nr * kc,
                    kc * nr / 16};
    return p;
  }
  if (pc + kc < k) { /* the first panel of the next K block */
    size_t next_pc = pc + kc;
    size_t next_kc = k - next_pc < v->kc ? k - next_pc : v->kc;
    next_panel p = {job->packed_b + jc * k + panels * nr * next_pc +
                        q0 * nr * next_kc,
                    next_kc * nr / 16};
    return p;
  }
  /* The next NC block's first panel, at K block 0, if the task has one. */
  size_t next_first = jc / nr + q1;
  if (next_first >= last)
    return none;
  size_t next_jc = next_first * nr;
  next_panel p = {job->packed_b + next_jc * k,
                  (k < v->kc ? k : v->kc) * nr / 16};
  return p;
}

static void cached_task(void *context, size_t task, int worker) {
  const gemm_job *job = context;
  const onnxc_sgemm_variant *v = job->v;
  size_t mr = v->mr, nr = v->nr, k = job->k, m = job->m;
  size_t all_panels = div_up(job->n, nr);
  size_t per_task = div_up(all_panels, job->n_chunks);
  size_t first = task * per_task;
  size_t last = first + per_task < all_panels ? first + per_task : all_panels;
  while (first < last) {
    /* The NC block holding panel `first`, and this task's panels in it. */
    size_t jc = first * nr / v->nc * v->nc;
    size_t nc = job->n - jc < v->nc ? job->n - jc : v->nc;
    size_t panels = div_up(nc, nr);
    size_t q0 = first - jc / nr;
    size_t q1 = last - jc / nr < panels ? last - jc / nr : panels;
    for (size_t pc = 0; pc < k; pc += v->kc) {
      size_t kc = k - pc < v->kc ? k - pc : v->kc;
      const float *packed_b = job->packed_b + jc * k + panels * nr * pc;
      float beta = pc == 0 ? job->beta : 1.0f;
      size_t group = a_group_rows(m, mr, v->kc);
      for (size_t i0 = 0; i0 < m; i0 += group) {
        size_t mg = m - i0 < group ? m - i0 : group;
        const float *packed_a = packed_a_rows(job, worker, i0, mg, pc, kc);
        size_t tiles = div_up(mg, mr);
        for (size_t q = q0; q < q1; ++q) {
          size_t j = q * nr;
          size_t cols = nc - j < nr ? nc - j : nr;
          const float *ap = packed_a;
          next_panel next =
              next_panel_of(job, last, jc, q0, q1, q, pc, i0 + mg < m);
          for (size_t i = 0, t = 0, rows; i < mg;
               i += rows, ap += mr * kc, ++t) {
            rows = tile_rows(mg - i, mr);
            float *cp = job->c + (ptrdiff_t)(i0 + i) * job->ldc + jc + j;
            const float *bp = packed_b + q * nr * kc;
            if (!job->streamed) {
              job->kernel(kc, ap, bp, cp, job->ldc, rows, cols, job->alpha,
                          beta);
              continue;
            }
            /* Tile t of `tiles` fetches its share of the next panel. */
            size_t from = next.lines * t / tiles;
            size_t to = next.lines * (t + 1) / tiles;
            job->streamed(kc, ap, bp, cp, job->ldc, rows, cols, job->alpha,
                          beta, next.panel ? next.panel + from * 16 : NULL,
                          div_up((to - from) * 64, kc));
          }
        }
      }
    }
    if (!epilogue_is_trivial(job->epilogue)) {
      size_t j0 = q0 * nr, j1 = q1 * nr < nc ? q1 * nr : nc;
      apply_epilogue(job->epilogue, job->c + jc + j0, job->ldc, 0, jc + j0,
                     job->m, j1 - j0);
    }
    first = jc / nr + q1;
  }
}

/* Packing buffers come from the runtime's scratch pool (Run.c), which keeps
 * them between calls: fresh memory would cost a page fault per 4 KiB on
 * every first use. Free with onnxc_rt_scratch_give(*base). */
static void *aligned_buffer(size_t floats, void **base) {
  return onnxc_rt_scratch_take(floats * sizeof(float), base);
}

/* C = beta * C, then the epilogue: the product is empty or alpha is 0. */
static void scale_only(size_t m, size_t n, float beta, float *c, ptrdiff_t ldc,
                       const onnxc_sgemm_epilogue *e) {
  for (size_t i = 0; i < m; ++i) {
    float *row = c + (ptrdiff_t)i * ldc;
    for (size_t j = 0; j < n; ++j)
      row[j] = beta == 0.0f ? 0.0f : beta * row[j];
  }
  if (!epilogue_is_trivial(e))
    apply_epilogue(e, c, ldc, 0, 0, m, n);
}

/* A few rows (a token, a small batch through a layer; see GemmKernels.h): bound
 * by reading B, so B is read once, without packing, by the variant's small-M
 * kernel; threads split the columns. */
typedef struct small_job {
  onnxc_sgemm_small_fn kernel;
  int trans_b;
  size_t m, n, k;
  float alpha, beta;
  const float *a;
  ptrdiff_t a_rs, a_cs;
  const float *b;
  ptrdiff_t ldb;
  float *c;
  ptrdiff_t ldc;
  const onnxc_sgemm_epilogue *epilogue;
  size_t chunk; /* columns per task */
} small_job;

static void small_task(void *context, size_t task, int worker) {
  (void)worker;
  small_job *job = context;
  size_t j0 = task * job->chunk;
  size_t cols = job->n - j0 < job->chunk ? job->n - j0 : job->chunk;
  const float *b = job->b + (ptrdiff_t)j0 * (job->trans_b ? job->ldb : 1);
  float *c = job->c + j0;
  job->kernel(job->m, cols, job->k, job->alpha, job->a, job->a_rs, job->a_cs, b,
              job->ldb, job->beta, c, job->ldc);
  if (!epilogue_is_trivial(job->epilogue))
    apply_epilogue(job->epilogue, c, job->ldc, 0, j0, job->m, cols);
}

/* Runs the small-M path when the operands suit it; returns 0 otherwise. */
static int small_m(const onnxc_sgemm_variant *v, size_t m, size_t n, size_t k,
                   float alpha, const float *a, ptrdiff_t a_rs, ptrdiff_t a_cs,
                   const float *b, ptrdiff_t b_rs, ptrdiff_t b_cs, float beta,
                   float *c, ptrdiff_t ldc,
                   const onnxc_sgemm_epilogue *epilogue, int max_threads) {
  small_job job = {0};
  if (b_cs == 1 && m <= ONNXC_SGEMM_SMALL_M_N) {
    job.kernel = v->small_n ? v->small_n : onnxc_sgemm_portable_variant.small_n;
    job.ldb = b_rs;
  } else if (b_rs == 1 && a_cs == 1 && m <= ONNXC_SGEMM_SMALL_M_T) {
    job.kernel = v->small_t ? v->small_t : onnxc_sgemm_portable_variant.small_t;
    job.trans_b = 1;
    job.ldb = b_cs;
  } else {
    return 0;
  }
  job.m = m;
  job.n = n;
  job.k = k;
  job.alpha = alpha;
  job.beta = beta;
  job.a = a;
  job.a_rs = a_rs;
  job.a_cs = a_cs;
  job.b = b;
  job.c = c;
  job.ldc = ldc;
  job.epilogue = epilogue;
  job.chunk = n;
  int threads = onnxc_num_threads();
  if (max_threads > 0 && max_threads < threads)
    threads = max_threads;
  size_t tasks = 1;
  if (threads > 1 && 2.0 * (double)m * (double)n * (double)k >= 4.0e5) {
    /* A few column chunks per thread, each a multiple of 64 columns. */
    enum { CHUNK_ALIGN = 64 };
    size_t want = (size_t)threads * 2;
    job.chunk = round_up(div_up(n, want), CHUNK_ALIGN);
    tasks = div_up(n, job.chunk);
  }
  if (tasks == 1)
    small_task(&job, 0, 0);
  else
    onnxc_parallel_for(tasks, threads, small_task, &job);
  return 1;
}

/* The threads a product of this size is worth (at most max_threads when
 * > 0): small products are not worth waking anyone. */
static int gemm_threads(size_t m, size_t n, size_t k, int max_threads) {
  int threads = onnxc_num_threads();
  if (max_threads > 0 && max_threads < threads)
    threads = max_threads;
  double flops = 2.0 * (double)m * (double)n * (double)k;
  if (flops < 4.0e5)
    threads = 1;
  else if (threads > 1 && flops / threads < 2.0e5)
    threads = (int)(flops / 2.0e5) > 1 ? (int)(flops / 2.0e5) : 1;
  return threads;
}

/* op(B)[p][j] from strided B, or from `whole_b` (all of B packed for `v`)
 * when b is NULL: for the loop that runs when memory runs out. */
static float b_element(const onnxc_sgemm_variant *v, const float *b,
                       ptrdiff_t b_rs, ptrdiff_t b_cs, const float *whole_b,
                       size_t n, size_t k, size_t p, size_t j) {
  if (b)
    return b[(ptrdiff_t)p * b_rs + (ptrdiff_t)j * b_cs];
  onnxc_sgemm_b_layout layout = {v->nr, v->kc, v->nc};
  return whole_b[onnxc_sgemm_packed_b_index(&layout, n, k, p, j)];
}

/* The product one element at a time, for when there is no memory for the
 * packed blocks: slow, but right. B as for b_element. */
static void slow_product(const onnxc_sgemm_variant *v, size_t m, size_t n,
                         size_t k, float alpha, const float *a, ptrdiff_t a_rs,
                         ptrdiff_t a_cs, const float *b, ptrdiff_t b_rs,
                         ptrdiff_t b_cs, const float *whole_b, float beta,
                         float *c, ptrdiff_t ldc,
                         const onnxc_sgemm_epilogue *epilogue) {
  onnxc_sgemm_epilogue none = {0};
  const onnxc_sgemm_epilogue *e = epilogue ? epilogue : &none;
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) {
      float sum = 0.0f;
      for (size_t p = 0; p < k; ++p)
        sum += a[(ptrdiff_t)i * a_rs + (ptrdiff_t)p * a_cs] *
               b_element(v, b, b_rs, b_cs, whole_b, n, k, p, j);
      float *out = c + (ptrdiff_t)i * ldc + j;
      *out = alpha * sum + (beta == 0.0f ? 0.0f : beta * *out);
    }
  if (!epilogue_is_trivial(e))
    apply_epilogue(e, c, ldc, 0, 0, m, n);
}

/* The blocked product with variant `v` on `threads` threads. `whole_b` is
 * all of B already packed for `v` (then `b` may be NULL), or NULL: B is
 * packed block by block during the call. */
static void sgemm_blocked(const onnxc_sgemm_variant *v, size_t m, size_t n,
                          size_t k, float alpha, const float *a, ptrdiff_t a_rs,
                          ptrdiff_t a_cs, const float *b, ptrdiff_t b_rs,
                          ptrdiff_t b_cs, float beta, float *c, ptrdiff_t ldc,
                          const onnxc_sgemm_epilogue *epilogue, int threads,
                          const float *whole_b) {
  size_t mr = v->mr, nr = v->nr;
  size_t kc_max = k < v->kc ? k : v->kc;
  size_t nc_max = n < v->nc ? round_up(n, nr) : v->nc;

  /* Row blocks: a multiple of the thread count, each a multiple of MR.
   * With B packed once and few row blocks (a sequence or two through a
   * transformer layer), the threads split the columns instead
   * (cached_task); many row blocks keep the split below, whose tasks the
   * threads balance block by block. An M whose rows all fit one group of
   * cached_task (a_group_rows: A's K block stays in L2) splits the columns
   * on any thread count: each panel of B then comes from memory once for
   * all of M (ViT-B/16 at batch 1, M = 197, on 1 thread: 0.93-0.94 of the
   * time of the row-block split; docs/gemm.md). */
  size_t m_blocks = div_up(m, v->mc);
  int by_columns = whole_b && (m_blocks < 4 * (size_t)threads ||
                               a_group_rows(m, mr, v->kc) == m);
  if (threads > 1 && !by_columns)
    m_blocks = round_up(m_blocks, (size_t)threads);
  size_t mc = round_up(div_up(m, m_blocks), mr);
  m_blocks = div_up(m, mc);

  gemm_job job = {0};
  job.v = v;
  job.kernel = v->kernel;
  job.streamed = whole_b ? v->streamed_kernel : NULL;
  job.m = m;
  job.n = n;
  job.k = k;
  job.alpha = alpha;
  job.beta = beta;
  job.a = a;
  job.a_rs = a_rs;
  job.a_cs = a_cs;
  job.b = b;
  job.b_rs = b_rs;
  job.b_cs = b_cs;
  job.c = c;
  job.ldc = ldc;
  job.epilogue = epilogue;
  job.mc = mc;
  job.m_blocks = m_blocks;
  /* cached_task packs a group of rows of A at once. */
  job.packed_a_stride = round_up(
      (by_columns ? round_up(a_group_rows(m, mr, v->kc), mr) : mc) * kc_max,
      16);

  /* Pack all of A once when it would be packed again otherwise: per NC
   * block of columns, or per thread when the threads split the columns. */
  void *whole_a_base = NULL;
  size_t nc_blocks = div_up(n, v->nc);
  if (nc_blocks > 1 || (by_columns && threads > 1)) {
    job.whole_a_unit = by_columns ? a_group_rows(m, mr, v->kc) : mc;
    job.whole_a_tiles = whole_a_tiles(m, mr, job.whole_a_unit);
    size_t floats = job.whole_a_tiles * mr * k;
    if (floats <= WHOLE_A_MAX_FLOATS)
      job.whole_a = aligned_buffer(floats, &whole_a_base);
  }

  void *b_base = NULL, *a_base;
  job.packed_b = whole_b
                     ? (float *)whole_b
                     : aligned_buffer(round_up(nc_max, nr) * kc_max, &b_base);
  job.packed_a = aligned_buffer(job.packed_a_stride * (size_t)threads, &a_base);
  if (!job.packed_b || !job.packed_a) {
    /* No memory for the packed blocks: the slow loop still gets it right. */
    onnxc_rt_scratch_give(b_base);
    onnxc_rt_scratch_give(a_base);
    onnxc_rt_scratch_give(whole_a_base);
    slow_product(v, m, n, k, alpha, a, a_rs, a_cs, b, b_rs, b_cs, whole_b, beta,
                 c, ldc, epilogue);
    return;
  }
  if (job.whole_a)
    onnxc_parallel_for(div_up(k, v->kc) * div_up(m, job.whole_a_unit) *
                           div_up(job.whole_a_unit, WHOLE_A_TASK_TILES * mr),
                       threads, pack_whole_a_task, &job);

  if (by_columns) {
    size_t panels = div_up(n, nr);
    job.n_chunks = (size_t)threads < panels ? (size_t)threads : panels;
    onnxc_parallel_for(job.n_chunks, threads, cached_task, &job);
    onnxc_rt_scratch_give(a_base);
    onnxc_rt_scratch_give(whole_a_base);
    return;
  }

  for (size_t jc = 0; jc < n; jc += v->nc) {
    job.jc = jc;
    job.nc = n - jc < v->nc ? n - jc : v->nc;
    job.panels = div_up(job.nc, nr);
    /* Few row blocks: split the columns too so every thread has work. */
    job.n_chunks = 1;
    if (m_blocks < (size_t)threads)
      job.n_chunks = div_up((size_t)threads, m_blocks);
    if (job.n_chunks > job.panels)
      job.n_chunks = job.panels;
    for (size_t pc = 0; pc < k; pc += v->kc) {
      job.pc = pc;
      job.kc = k - pc < v->kc ? k - pc : v->kc;
      job.first_k = pc == 0;
      job.last_k = pc + job.kc == k;
      if (whole_b)
        job.packed_b = (float *)whole_b + jc * k + job.panels * nr * pc;
      else
        onnxc_parallel_for(div_up(job.panels, PACK_B_PANELS), threads,
                           pack_b_task, &job);
      onnxc_parallel_for(m_blocks * job.n_chunks, threads, compute_task, &job);
    }
  }
  onnxc_rt_scratch_give(b_base);
  onnxc_rt_scratch_give(a_base);
  onnxc_rt_scratch_give(whole_a_base);
}

/* An empty C, or a product that contributes nothing (K = 0, alpha = 0):
 * C = beta * C and the epilogue. Returns whether that was all. */
static int without_product(size_t m, size_t n, size_t k, float alpha,
                           float beta, float *c, ptrdiff_t ldc,
                           const onnxc_sgemm_epilogue *epilogue) {
  if (m == 0 || n == 0)
    return 1;
  if (k != 0 && alpha != 0.0f)
    return 0;
  scale_only(m, n, beta, c, ldc, epilogue);
  return 1;
}

void onnxc_sgemm_strided_cached(size_t m, size_t n, size_t k, float alpha,
                                const float *a, ptrdiff_t a_rs, ptrdiff_t a_cs,
                                const float *b, ptrdiff_t b_rs, ptrdiff_t b_cs,
                                float beta, float *c, ptrdiff_t ldc,
                                const onnxc_sgemm_epilogue *epilogue,
                                int max_threads, onnxc_sgemm_packed_b **slot) {
  if (without_product(m, n, k, alpha, beta, c, ldc, epilogue))
    return;
  const onnxc_sgemm_variant *v = active_variant();
  /* A constant B packed once is read faster by the micro-kernel than the
   * unpacked B by the small-M kernels, from 5 rows on (mlp at 8 rows:
   * 0.30 vs 0.38 ms): with a slot, only up to ONNXC_SGEMM_SMALL_M_N rows
   * skip the packing. */
  if ((!slot || m <= ONNXC_SGEMM_SMALL_M_N) &&
      small_m(v, m, n, k, alpha, a, a_rs, a_cs, b, b_rs, b_cs, beta, c, ldc,
              epilogue, max_threads))
    return;
  int threads = gemm_threads(m, n, k, max_threads);
  /* A constant B is packed once (packed_b_for); then only A is. */
  const onnxc_sgemm_packed_b *cached =
      slot ? packed_b_for(slot, v, b, n, k, b_rs, b_cs, threads) : NULL;
  sgemm_blocked(v, m, n, k, alpha, a, a_rs, a_cs, b, b_rs, b_cs, beta, c, ldc,
                epilogue, threads, cached ? cached->data : NULL);
}

void onnxc_sgemm_prepacked(size_t m, size_t n, size_t k, float alpha,
                           const float *a, ptrdiff_t a_rs, ptrdiff_t a_cs,
                           const float *packed_b, int32_t packed_isa,
                           float beta, float *c, ptrdiff_t ldc,
                           const onnxc_sgemm_epilogue *epilogue,
                           int max_threads, onnxc_sgemm_packed_b **slot) {
  if (without_product(m, n, k, alpha, beta, c, ldc, epilogue))
    return;
  const onnxc_sgemm_variant *v = active_variant();
  int threads = gemm_threads(m, n, k, max_threads);
  onnxc_sgemm_b_layout layout;
  if (!onnxc_sgemm_b_layout_for_isa(packed_isa, &layout)) {
    /* Not a layout this runtime knows: nothing can read B. NaNs rather
     * than a made-up product (the compiler emits only known ISAs). */
    for (size_t i = 0; i < m; ++i)
      for (size_t j = 0; j < n; ++j)
        c[(ptrdiff_t)i * ldc + j] = NAN;
    return;
  }
  if (layout.nr == v->nr && layout.kc == v->kc && layout.nc == v->nc) {
    sgemm_blocked(v, m, n, k, alpha, a, a_rs, a_cs, NULL, 0, 0, beta, c, ldc,
                  epilogue, threads, packed_b);
    return;
  }
  /* Packed for another CPU than this one (or a test forced another ISA):
   * repacked once for this one into the slot. */
  const onnxc_sgemm_packed_b *cached =
      slot ? repacked_b_for(slot, v, &layout, packed_b, n, k, threads) : NULL;
  if (cached) {
    sgemm_blocked(v, m, n, k, alpha, a, a_rs, a_cs, NULL, 0, 0, beta, c, ldc,
                  epilogue, threads, cached->data);
    return;
  }
  /* No slot or no memory for a copy: B read through the layout. */
  onnxc_sgemm_variant as_packed = *v;
  as_packed.nr = layout.nr;
  as_packed.kc = layout.kc;
  as_packed.nc = layout.nc;
  slow_product(&as_packed, m, n, k, alpha, a, a_rs, a_cs, NULL, 0, 0, packed_b,
               beta, c, ldc, epilogue);
}

void onnxc_sgemm_strided(size_t m, size_t n, size_t k, float alpha,
                         const float *a, ptrdiff_t a_rs, ptrdiff_t a_cs,
                         const float *b, ptrdiff_t b_rs, ptrdiff_t b_cs,
                         float beta, float *c, ptrdiff_t ldc,
                         const onnxc_sgemm_epilogue *epilogue,
                         int max_threads) {
  onnxc_sgemm_strided_cached(m, n, k, alpha, a, a_rs, a_cs, b, b_rs, b_cs, beta,
                             c, ldc, epilogue, max_threads, NULL);
}

void onnxc_sgemm(int trans_a, int trans_b, size_t m, size_t n, size_t k,
                 float alpha, const float *a, ptrdiff_t lda, const float *b,
                 ptrdiff_t ldb, float beta, float *c, ptrdiff_t ldc,
                 const onnxc_sgemm_epilogue *epilogue) {
  onnxc_sgemm_strided(m, n, k, alpha, a, trans_a ? 1 : lda, trans_a ? lda : 1,
                      b, trans_b ? 1 : ldb, trans_b ? ldb : 1, beta, c, ldc,
                      epilogue, 0);
}
