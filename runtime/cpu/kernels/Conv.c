/*===- Conv.c - Picks a convolution algorithm and spreads it over threads --===*
 *
 * See Conv.h for the three paths. Scratch memory (the im2col tiles, the
 * padded depthwise planes) is allocated per call, one slot per thread, and
 * sized to stay near the L2 cache: this file is reached only through the
 * wrapper form of the lowering, which `--emit static` (no allocation during
 * a run) does not use.
 *
 *===----------------------------------------------------------------------===*/

#include "Conv.h"

#include "../ThreadPool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Validity ------------------------------------------------------------ */

int onnxc_conv2d_shape_valid(const onnxc_conv2d_shape *s) {
  return s && s->in_channels && s->in_height && s->in_width &&
         s->out_channels && s->kernel_height && s->kernel_width &&
         s->stride_height && s->stride_width && s->dilation_height &&
         s->dilation_width && s->group && s->in_channels % s->group == 0 &&
         s->out_channels % s->group == 0;
}

/* ---- Depthwise ISA choice ------------------------------------------------ */

static onnxc_dw_kernel dw_variant_for(int32_t isa) {
  if (!onnxc_sgemm_isa_supported(isa))
    return NULL;
  switch (isa) {
#ifdef ONNXC_HAVE_X86_KERNELS
  case ONNXC_SGEMM_ISA_AVX512:
    return onnxc_dw_plane_avx512;
  case ONNXC_SGEMM_ISA_AVX2:
    return onnxc_dw_plane_avx2;
#endif
  case ONNXC_SGEMM_ISA_PORTABLE:
    return onnxc_dw_plane_portable;
  default:
    return NULL;
  }
}

static int32_t dw_best_isa(void) {
  static const int32_t order[] = {ONNXC_SGEMM_ISA_AVX512, ONNXC_SGEMM_ISA_AVX2,
                                  ONNXC_SGEMM_ISA_PORTABLE};
  for (size_t i = 0; i < sizeof order / sizeof order[0]; ++i)
    if (dw_variant_for(order[i]))
      return order[i];
  return ONNXC_SGEMM_ISA_PORTABLE;
}

static int32_t dw_forced_isa = ONNXC_SGEMM_ISA_AUTO;

int onnxc_conv_depthwise_force_isa(int32_t isa) {
  if (isa != ONNXC_SGEMM_ISA_AUTO && !dw_variant_for(isa))
    return 0;
  dw_forced_isa = isa;
  return 1;
}

int32_t onnxc_conv_depthwise_current_isa(void) {
  return dw_forced_isa == ONNXC_SGEMM_ISA_AUTO ? dw_best_isa() : dw_forced_isa;
}

/* ---- Helpers ------------------------------------------------------------- */

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/* The first output index o with o * stride + offset >= 0, given
 * offset = tap - pad. */
static size_t first_inside(ptrdiff_t offset, size_t stride) {
  if (offset >= 0)
    return 0;
  return (size_t)((-offset + (ptrdiff_t)stride - 1) / (ptrdiff_t)stride);
}

/* One past the last output index o with o * stride + offset < limit. */
static size_t end_inside(ptrdiff_t offset, size_t stride, size_t limit) {
  ptrdiff_t room = (ptrdiff_t)limit - offset;
  if (room <= 0)
    return 0;
  return (size_t)((room + (ptrdiff_t)stride - 1) / (ptrdiff_t)stride);
}

static void fill_nan(float *y, size_t count) {
  for (size_t i = 0; i < count; ++i)
    y[i] = NAN;
}

/* ---- Depthwise ------------------------------------------------------------
 */

typedef struct dw_job {
  const onnxc_conv2d_shape *s;
  const float *x, *w, *bias, *residual;
  float *y;
  const onnxc_sgemm_epilogue *activation;
  onnxc_dw_kernel kernel;
  float *scratch; /* one plane per worker */
  size_t rows, row_stride, plane_floats;
  size_t planes, chunk; /* planes (batch * channels) per task */
} dw_job;

/* Copies input channel `xc` into the padded, phase-split plane. */
static void dw_pad_plane(const dw_job *job, const float *xc, float *plane) {
  const onnxc_conv2d_shape *s = job->s;
  size_t q_size = job->row_stride, sw = s->stride_width;
  for (size_t phase = 0; phase < sw; ++phase) {
    /* Column q of this phase reads input column q * sw + phase - pad_left. */
    ptrdiff_t offset = (ptrdiff_t)phase - (ptrdiff_t)s->pad_left;
    size_t lo = min_size(first_inside(offset, sw), q_size);
    size_t hi = min_size(end_inside(offset, sw, s->in_width), q_size);
    if (hi < lo)
      hi = lo;
    for (size_t r = 0; r < job->rows; ++r) {
      float *dst = plane + (phase * job->rows + r) * q_size;
      ptrdiff_t ih = (ptrdiff_t)r - (ptrdiff_t)s->pad_top;
      if (ih < 0 || ih >= (ptrdiff_t)s->in_height) {
        memset(dst, 0, q_size * sizeof(float));
        continue;
      }
      const float *src = xc + (size_t)ih * s->in_width;
      memset(dst, 0, lo * sizeof(float));
      if (sw == 1) {
        if (hi > lo)
          memcpy(dst + lo, src + (ptrdiff_t)lo + offset,
                 (hi - lo) * sizeof(float));
      } else {
        for (size_t q = lo; q < hi; ++q)
          dst[q] = src[(ptrdiff_t)(q * sw) + offset];
      }
      memset(dst + hi, 0, (q_size - hi) * sizeof(float));
    }
  }
}

static void dw_task(void *context, size_t task, int worker) {
  const dw_job *job = context;
  const onnxc_conv2d_shape *s = job->s;
  float *plane = job->scratch + (size_t)worker * job->plane_floats;
  size_t in_plane = s->in_height * s->in_width;
  size_t out_plane = s->out_height * s->out_width;
  size_t khw = s->kernel_height * s->kernel_width;
  size_t end = min_size((task + 1) * job->chunk, job->planes);
  for (size_t i = task * job->chunk; i < end; ++i) {
    size_t c = i % s->in_channels;
    dw_pad_plane(job, job->x + i * in_plane, plane);
    onnxc_dw_plane p = {plane,
                        job->row_stride,
                        job->rows * job->row_stride,
                        job->w + c * khw,
                        job->bias ? job->bias[c] : 0.0f,
                        job->residual ? job->residual + i * out_plane : NULL,
                        job->y + i * out_plane};
    job->kernel(s, &p, job->activation);
  }
}

static int conv_depthwise(const onnxc_conv2d_shape *s, const float *x,
                          const float *w, const float *bias,
                          const float *residual, float *y,
                          const onnxc_sgemm_epilogue *activation) {
  dw_job job = {s,    x,    w, bias, residual, y, activation,
                NULL, NULL, 0, 0,    0,        0, 0};
  job.kernel = dw_variant_for(onnxc_conv_depthwise_current_isa());
  if (!job.kernel)
    job.kernel = onnxc_dw_plane_portable;
  size_t sw = s->stride_width;
  job.rows = (s->out_height - 1) * s->stride_height +
             (s->kernel_height - 1) * s->dilation_height + 1;
  /* Every vector of outputs, the last one's spare lanes included, reads
   * columns q < out_width + lanes - 1 + max tap / sw of its phase. */
  job.row_stride = s->out_width + ONNXC_DW_MAX_LANES +
                   (s->kernel_width - 1) * s->dilation_width / sw;
  job.plane_floats = sw * job.rows * job.row_stride;
  /* Keep each slot on its own cache lines. */
  job.plane_floats = (job.plane_floats + 15) & ~(size_t)15;
  job.planes = s->batch * s->in_channels;
  int threads = onnxc_num_threads();
  size_t tasks = min_size(job.planes, (size_t)threads * 4);
  job.chunk = (job.planes + tasks - 1) / tasks;
  tasks = (job.planes + job.chunk - 1) / job.chunk;
  size_t slots = min_size((size_t)threads, tasks);
  job.scratch = aligned_alloc(64, slots * job.plane_floats * sizeof(float));
  if (!job.scratch)
    return -1;
  if (slots > 1)
    onnxc_parallel_for(tasks, (int)slots, dw_task, &job);
  else
    for (size_t t = 0; t < tasks; ++t)
      dw_task(&job, t, 0);
  free(job.scratch);
  return 0;
}

/* ---- GEMM paths -----------------------------------------------------------
 */

typedef struct gemm_conv_job {
  const onnxc_conv2d_shape *s;
  const float *x, *w, *bias, *residual;
  float *y;
  const onnxc_sgemm_epilogue *activation;
  int direct;          /* 1x1, stride 1, no pad: X is the GEMM's B */
  size_t k;            /* (C / group) * KH * KW */
  size_t tile_columns; /* im2col columns per tile */
  float *scratch;      /* k * tile_columns floats per slot */
  int gemm_threads;    /* max_threads of each GEMM */
} gemm_conv_job;

/* im2col of output columns [j0, j0 + count) of input channels `xg` (one
 * group of one image) into `col` (k rows of `count`). */
static void im2col(const onnxc_conv2d_shape *s, const float *xg, size_t cg,
                   size_t j0, size_t count, float *col) {
  size_t ow_size = s->out_width;
  for (size_t c = 0; c < cg; ++c) {
    const float *xc = xg + c * s->in_height * s->in_width;
    for (size_t kh = 0; kh < s->kernel_height; ++kh)
      for (size_t kw = 0; kw < s->kernel_width; ++kw) {
        float *dst = col;
        col += count;
        ptrdiff_t h_offset =
            (ptrdiff_t)(kh * s->dilation_height) - (ptrdiff_t)s->pad_top;
        ptrdiff_t w_offset =
            (ptrdiff_t)(kw * s->dilation_width) - (ptrdiff_t)s->pad_left;
        size_t lo = first_inside(w_offset, s->stride_width);
        size_t hi = end_inside(w_offset, s->stride_width, s->in_width);
        size_t j = j0, end = j0 + count;
        while (j < end) {
          size_t oh = j / ow_size, ow0 = j % ow_size;
          size_t ow1 = min_size(ow_size, ow0 + (end - j));
          size_t run = ow1 - ow0;
          ptrdiff_t ih = (ptrdiff_t)(oh * s->stride_height) + h_offset;
          if (ih < 0 || ih >= (ptrdiff_t)s->in_height || lo >= hi) {
            memset(dst, 0, run * sizeof(float));
          } else {
            const float *src = xc + (size_t)ih * s->in_width;
            size_t a = lo > ow0 ? min_size(lo, ow1) : ow0;
            size_t b = hi < ow1 ? (hi > a ? hi : a) : ow1;
            memset(dst, 0, (a - ow0) * sizeof(float));
            if (s->stride_width == 1) {
              memcpy(dst + (a - ow0), src + (ptrdiff_t)a + w_offset,
                     (b - a) * sizeof(float));
            } else {
              for (size_t o = a; o < b; ++o)
                dst[o - ow0] = src[(ptrdiff_t)(o * s->stride_width) + w_offset];
            }
            memset(dst + (b - ow0), 0, (ow1 - b) * sizeof(float));
          }
          dst += run;
          j += run;
        }
      }
  }
}

/* Clip (min(max(v, lo), hi), NaN kept) on `rows` rows of `count`. */
static void clip_rows(float *c, size_t ldc, size_t rows, size_t count, float lo,
                      float hi) {
  for (size_t r = 0; r < rows; ++r) {
    float *out = c + r * ldc;
    for (size_t j = 0; j < count; ++j) {
      float v = out[j] < lo ? lo : out[j];
      out[j] = v > hi ? hi : v;
    }
  }
}

/* im2col of one tile split by input channel over the pool: the GEMM after
 * it threads itself, this copy would otherwise run on one thread. */
typedef struct im2col_job {
  const onnxc_conv2d_shape *s;
  const float *xg;
  size_t channels_per_task, channels, j0, count;
  float *col;
} im2col_job;

static void im2col_task(void *context, size_t task, int worker) {
  (void)worker;
  const im2col_job *job = context;
  const onnxc_conv2d_shape *s = job->s;
  size_t c0 = task * job->channels_per_task;
  size_t cs = min_size(job->channels_per_task, job->channels - c0);
  size_t rows_per_channel = s->kernel_height * s->kernel_width;
  im2col(s, job->xg + c0 * s->in_height * s->in_width, cs, job->j0, job->count,
         job->col + c0 * rows_per_channel * job->count);
}

static void im2col_parallel(const onnxc_conv2d_shape *s, const float *xg,
                            size_t cg, size_t j0, size_t count, float *col) {
  int threads = onnxc_num_threads();
  if (threads <= 1 || cg < 2) {
    im2col(s, xg, cg, j0, count, col);
    return;
  }
  size_t tasks = min_size(cg, (size_t)threads * 2);
  im2col_job job = {s, xg, (cg + tasks - 1) / tasks, cg, j0, count, col};
  tasks = (cg + job.channels_per_task - 1) / job.channels_per_task;
  onnxc_parallel_for(tasks, threads, im2col_task, &job);
}

/* One image of one group, all its column tiles, using scratch `slot`. */
static void gemm_conv_one(const gemm_conv_job *job, size_t n, size_t g,
                          float *slot) {
  const onnxc_conv2d_shape *s = job->s;
  size_t cg = s->in_channels / s->group, mg = s->out_channels / s->group;
  size_t columns = s->out_height * s->out_width;
  const float *xg =
      job->x + (n * s->in_channels + g * cg) * s->in_height * s->in_width;
  const float *wg = job->w + g * mg * job->k;
  size_t y_offset = (n * s->out_channels + g * mg) * columns;
  onnxc_sgemm_epilogue e = {0};
  if (job->activation) {
    e.activation = job->activation->activation;
    e.activation_alpha = job->activation->activation_alpha;
    e.activation_beta = job->activation->activation_beta;
  }
  if (job->bias) {
    e.bias = job->bias + g * mg;
    e.bias_row_stride = 1;
    e.bias_col_stride = 0;
    e.bias_scale = 1.0f;
  }
  e.residual_ld = (ptrdiff_t)columns;
  /* The GEMM's epilogue applies Clip one element at a time: it runs here
   * instead, vectorized, on each tile while the tile is in cache. */
  int clip = e.activation == ONNXC_ACTIVATION_CLIP;
  if (clip)
    e.activation = ONNXC_ACTIVATION_NONE;
  for (size_t j0 = 0; j0 < columns; j0 += job->tile_columns) {
    size_t count = min_size(job->tile_columns, columns - j0);
    const float *b = xg + j0;
    ptrdiff_t ldb = (ptrdiff_t)columns;
    if (!job->direct) {
      if (job->gemm_threads == 1)
        im2col(s, xg, cg, j0, count, slot);
      else
        im2col_parallel(s, xg, cg, j0, count, slot);
      b = slot;
      ldb = (ptrdiff_t)count;
    }
    if (job->residual)
      e.residual = job->residual + y_offset + j0;
    float *c = job->y + y_offset + j0;
    onnxc_sgemm_strided(mg, count, job->k, 1.0f, wg, (ptrdiff_t)job->k, 1, b,
                        ldb, 1, 0.0f, c, (ptrdiff_t)columns, &e,
                        job->gemm_threads);
    if (clip)
      clip_rows(c, columns, mg, count, job->activation->activation_alpha,
                job->activation->activation_beta);
  }
}

static void gemm_conv_task(void *context, size_t task, int worker) {
  const gemm_conv_job *job = context;
  size_t group = job->s->group;
  float *slot = job->scratch
                    ? job->scratch + (size_t)worker * job->k * job->tile_columns
                    : NULL;
  gemm_conv_one(job, task / group, task % group, slot);
}

/* Floats of im2col scratch per thread: about half the L2 cache. */
enum { IM2COL_BUDGET_FLOATS = 256 * 1024, IM2COL_MIN_COLUMNS = 64 };

static int conv_gemm(const onnxc_conv2d_shape *s, const float *x,
                     const float *w, const float *bias, const float *residual,
                     float *y, const onnxc_sgemm_epilogue *activation) {
  gemm_conv_job job = {s,          x, w, bias, residual, y,
                       activation, 0, 0, 0,    NULL,     0};
  size_t cg = s->in_channels / s->group;
  size_t columns = s->out_height * s->out_width;
  job.k = cg * s->kernel_height * s->kernel_width;
  job.direct = s->kernel_height == 1 && s->kernel_width == 1 &&
               s->stride_height == 1 && s->stride_width == 1 &&
               s->pad_top == 0 && s->pad_left == 0 &&
               s->out_height == s->in_height && s->out_width == s->in_width;
  size_t units = s->batch * s->group;
  int threads = onnxc_num_threads();
  /* Enough independent GEMMs: one per thread, each single-threaded (and
   * im2col runs in parallel too). Otherwise each GEMM threads itself. */
  int per_unit = threads > 1 && units >= (size_t)threads;
  size_t slots = per_unit ? (size_t)threads : 1;
  job.gemm_threads = per_unit ? 1 : 0;
  /* Column tiles: the im2col scratch (K x tile) about half the L2; a 1x1
   * conv reads X in place and is tiled only for the Clip pass. */
  size_t tile = IM2COL_BUDGET_FLOATS / job.k;
  tile = tile < IM2COL_MIN_COLUMNS ? IM2COL_MIN_COLUMNS : tile & ~(size_t)15;
  job.tile_columns = min_size(tile, columns);
  int clip = activation && activation->activation == ONNXC_ACTIVATION_CLIP;
  if (job.direct && !clip)
    job.tile_columns = columns;
  if (!job.direct) {
    job.scratch = malloc(slots * job.k * job.tile_columns * sizeof(float));
    if (!job.scratch)
      return -1;
  }
  if (per_unit) {
    onnxc_parallel_for(units, threads, gemm_conv_task, &job);
  } else {
    for (size_t u = 0; u < units; ++u)
      gemm_conv_task(&job, u, 0);
  }
  free(job.scratch);
  return 0;
}

/* ---- Entry ----------------------------------------------------------------
 */

int onnxc_conv2d(const onnxc_conv2d_shape *s, const float *x, const float *w,
                 const float *bias, const float *residual, float *y,
                 const onnxc_sgemm_epilogue *activation) {
  size_t total = s->batch * s->out_channels * s->out_height * s->out_width;
  if (total == 0)
    return 0;
  int status;
  if (s->group > 1 && s->group == s->in_channels && s->group == s->out_channels)
    status = conv_depthwise(s, x, w, bias, residual, y, activation);
  else
    status = conv_gemm(s, x, w, bias, residual, y, activation);
  if (status != 0)
    fill_nan(y, total);
  return status;
}
