/*===- QConvIndirect.c - Packing, indirection tables and threading --------===*
 *
 *   per call: bias - x_zero * colsum(W) + K * x_zero * w_zero per output
 *     channel
 *   parallel over (group) x (blocks of output pixels) x (blocks of panels):
 *     the block's table: per tile of MR pixels and tap, each pixel's input
 *     pixel (or a pixel of x_zero bytes where the tap is in the padding)
 *     with W asymmetric, each pixel's window sum of X (from per-pixel
 *     sums, made once per image)
 *     for each panel of NR output channels:
 *       for each tile: micro-kernel, requantized into Y's pixels
 * W's panel for one group: K = (tap, channel) in four-byte groups, NR
 * columns per group (the int8 GEMM's B layout; s8 values as they are, u8
 * ones less 128).
 *
 *===----------------------------------------------------------------------===*/

#include "QConvIndirect.h"
#include "../ThreadPool.h"

#include <stdlib.h>
#include <string.h>

#if ONNXC_HAVE_X86_KERNELS
#include "CpuFeatures.h"
#define TILE_KERNEL onnxc_qconv_indirect_tile_vnni
#else
/* Never called: onnxc_qconv_indirect_supported() is 0 off x86-64. */
static void no_tile_kernel(const onnxc_qconv_indirect_tile *tile) {
  (void)tile;
}
#define TILE_KERNEL no_tile_kernel
#endif

enum { MR = ONNXC_QCONV_INDIRECT_MR, NR = ONNXC_QCONV_INDIRECT_NR };

struct onnxc_qconv_indirect_weights {
  int64_t m, cg, kh, kw, groups, mg, panels;
  /* Channels per group as packed: cg, or with one group cg rounded up to
   * whole four-byte groups (zero weights; X is then read from a copy with
   * as many channels per pixel). */
  int64_t cg_packed;
  size_t panel_bytes; /* taps * cg * NR */
  int8_t *data;       /* group after group, panel after panel */
  int32_t *col_sum;   /* [M]: the sum of W's values of each output channel */
  int32_t *w_zero;    /* [M + NR]: W's zero points as packed, zeros past M */
  int asymmetric;     /* some zero point is not 0 */
};

int onnxc_qconv_indirect_supported(int64_t channels_per_group, int64_t groups) {
#if ONNXC_HAVE_X86_KERNELS
  return channels_per_group > 0 &&
         (channels_per_group % 4 == 0 || groups == 1) &&
         (onnxc_x86_features() & ONNXC_X86_AVX512_VNNI) != 0;
#else
  (void)channels_per_group;
  (void)groups;
  return 0;
#endif
}

void onnxc_qconv_indirect_free(onnxc_qconv_indirect_weights *weights) {
  if (!weights)
    return;
  free(weights->data);
  free(weights->col_sum);
  free(weights->w_zero);
  free(weights);
}

/* Group g's panel jp: W[g * mg + jp * NR + col][c][i][j] at
 * ((tap * cg_packed / 4 + c / 4) * NR + col) * 4 + c % 4, written in
 * order; zeros past M and past cg. */
static void pack_panel(const onnxc_qconv_indirect_weights *e, const int8_t *w,
                       int64_t g, int64_t jp, int8_t *dst) {
  /* w is already s8 (u8 W shifted by signed_weights). */
  int64_t cg = e->cg, taps = e->kh * e->kw;
  for (int64_t tap = 0; tap < taps; ++tap)
    for (int64_t c4 = 0; c4 < e->cg_packed; c4 += 4)
      for (int64_t col = 0; col < NR; ++col, dst += 4) {
        int64_t j = jp * NR + col;
        for (int64_t t = 0; t < 4; ++t)
          dst[t] = j < e->mg && c4 + t < cg
                       ? w[((g * e->mg + j) * cg + c4 + t) * taps + tap]
                       : 0;
      }
}

/* W's zero point `zero` (as W's values) as packed. */
static int32_t packed_zero_point(int32_t zero, int w_signed) {
  return w_signed ? zero : zero - 128;
}

int onnxc_qconv_indirect_has_zero_points(
    const onnxc_qconv_indirect_weights *weights, int w_signed,
    const int32_t *w_zero) {
  for (int64_t j = 0; j < weights->m; ++j)
    if (weights->w_zero[j] != packed_zero_point(w_zero[j], w_signed))
      return 0;
  return 1;
}

/* W as s8: a copy less 128 when it is u8. */
static const int8_t *signed_weights(const uint8_t *w, int64_t count,
                                    int w_signed, int8_t **copy) {
  *copy = NULL;
  if (w_signed)
    return (const int8_t *)w;
  *copy = malloc((size_t)count + 1);
  for (int64_t q = 0; *copy && q < count; ++q)
    (*copy)[q] = (int8_t)(w[q] ^ 0x80);
  return *copy;
}

onnxc_qconv_indirect_weights *
onnxc_qconv_indirect_pack(const uint8_t *w_bytes, int64_t m, int64_t cg,
                          int64_t kh, int64_t kw, int64_t groups, int w_signed,
                          const int32_t *w_zero) {
  if (groups < 1 || m % groups || !onnxc_qconv_indirect_supported(cg, groups))
    return NULL;
  int64_t k = cg * kh * kw;
  int8_t *shifted;
  const int8_t *w = signed_weights(w_bytes, m * k, w_signed, &shifted);
  if (!w)
    return NULL;
  onnxc_qconv_indirect_weights *e = calloc(1, sizeof *e);
  if (!e) {
    free(shifted);
    return NULL;
  }
  e->m = m, e->cg = cg, e->kh = kh, e->kw = kw, e->groups = groups;
  e->mg = m / groups;
  e->panels = (e->mg + NR - 1) / NR;
  e->cg_packed = (cg + 3) / 4 * 4;
  e->panel_bytes = (size_t)(kh * kw * e->cg_packed * NR);
  size_t bytes = (size_t)(groups * e->panels) * e->panel_bytes;
  e->data = aligned_alloc(64, (bytes + 63) / 64 * 64);
  e->col_sum = calloc((size_t)m + 1, sizeof(int32_t));
  e->w_zero = calloc((size_t)(m + NR), sizeof(int32_t));
  if (!e->data || !e->col_sum || !e->w_zero) {
    free(shifted);
    onnxc_qconv_indirect_free(e);
    return NULL;
  }
  for (int64_t j = 0; j < m; ++j) {
    e->w_zero[j] = packed_zero_point(w_zero[j], w_signed);
    e->asymmetric |= e->w_zero[j] != 0;
  }
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t jp = 0; jp < e->panels; ++jp)
      pack_panel(e, w, g, jp,
                 e->data + (size_t)(g * e->panels + jp) * e->panel_bytes);
  for (int64_t j = 0; j < m; ++j) {
    int32_t sum = 0;
    for (int64_t q = 0; q < k; ++q)
      sum += w[j * k + q];
    e->col_sum[j] = sum;
  }
  free(shifted);
  return e;
}

typedef struct indirect_job {
  const onnxc_qconv_indirect_weights *wt;
  const onnxc_qconv_indirect_params *p;
  const uint8_t *zero_pixel; /* C bytes of x_zero */
  int32_t *bias;             /* [M], corrected for x_zero */
  /* With W asymmetric: [pixel * groups + g], the sum of the pixel's bytes
   * of group g; zero_sum, the zero pixel's. */
  const int32_t *pixel_sum;
  int32_t zero_sum;
  int64_t pixels, tiles_per_block, m_blocks, panels_per_block, n_blocks;
  int failed;
} indirect_job;

/* table[(tile * taps + tap) * MR + r] for the block's tiles: the input
 * pixel of each output pixel under each tap, or the zero pixel (padding,
 * and rows past the last pixel); with `row_sum`, row_sum[tile * MR + r]
 * the sum of group g's bytes over that window. */
static void fill_table(const indirect_job *job, int64_t first_pixel,
                       int64_t tiles, const uint8_t **table, int64_t g,
                       int32_t *row_sum) {
  const onnxc_qconv_indirect_weights *wt = job->wt;
  const onnxc_qconv_indirect_params *p = job->p;
  int64_t kh = wt->kh, kw = wt->kw;
  for (int64_t tile = 0; tile < tiles; ++tile)
    for (int64_t r = 0; r < MR; ++r) {
      const uint8_t **rows = table + tile * kh * kw * MR + r;
      int64_t pixel = first_pixel + tile * MR + r;
      int64_t oy = pixel / p->ow, ox = pixel % p->ow;
      int64_t y0 = oy * p->stride_h - p->pad_top;
      int64_t x0 = ox * p->stride_w - p->pad_left;
      uint32_t sum = 0;
      for (int64_t i = 0; i < kh; ++i) {
        int64_t iy = y0 + i * p->dilation_h;
        int row_inside = pixel < job->pixels && iy >= 0 && iy < p->h;
        for (int64_t j = 0; j < kw; ++j) {
          int64_t ix = x0 + j * p->dilation_w;
          int inside = row_inside && ix >= 0 && ix < p->w;
          rows[(i * kw + j) * MR] =
              inside ? p->x + (iy * p->w + ix) * p->c : job->zero_pixel;
          if (row_sum)
            sum += inside
                       ? (uint32_t)
                             job->pixel_sum[(iy * p->w + ix) * wt->groups + g]
                       : (uint32_t)job->zero_sum;
        }
      }
      if (row_sum)
        row_sum[tile * MR + r] = (int32_t)sum;
    }
}

/* [pixel * groups + g]: the sum of each input pixel's Cg bytes of group g
 * (W's zero-point term needs each window's sum of X). */
static int32_t *pixel_sums(const onnxc_qconv_indirect_weights *wt,
                           const onnxc_qconv_indirect_params *p) {
  int64_t pixels = p->h * p->w;
  int32_t *sums = malloc((size_t)(pixels * wt->groups) * sizeof *sums + 1);
  for (int64_t q = 0; sums && q < pixels; ++q)
    for (int64_t g = 0; g < wt->groups; ++g) {
      const uint8_t *x = p->x + q * p->c + g * wt->cg;
      uint32_t sum = 0;
      for (int64_t c = 0; c < wt->cg; ++c)
        sum += x[c];
      sums[q * wt->groups + g] = (int32_t)sum;
    }
  return sums;
}

static void block_task(void *context, size_t task, int worker) {
  (void)worker;
  indirect_job *job = context;
  const onnxc_qconv_indirect_weights *wt = job->wt;
  const onnxc_qconv_indirect_params *p = job->p;
  int64_t per_group = job->m_blocks * job->n_blocks;
  int64_t g = (int64_t)task / per_group, rest = (int64_t)task % per_group;
  int64_t mb = rest / job->n_blocks, nb = rest % job->n_blocks;
  int64_t first_pixel = mb * job->tiles_per_block * MR;
  int64_t pixels_left = job->pixels - first_pixel;
  int64_t tiles = (pixels_left + MR - 1) / MR;
  if (tiles > job->tiles_per_block)
    tiles = job->tiles_per_block;
  int64_t taps = wt->kh * wt->kw;
  const uint8_t **table = malloc((size_t)(tiles * taps * MR) * sizeof *table);
  if (!table) {
    job->failed = 1;
    return;
  }
  int32_t *row_sum = NULL;
  if (job->pixel_sum &&
      !(row_sum = malloc((size_t)(tiles * MR) * sizeof *row_sum))) {
    free(table);
    job->failed = 1;
    return;
  }
  fill_table(job, first_pixel, tiles, table, g, row_sum);
  int64_t jp0 = nb * job->panels_per_block, jp1 = jp0 + job->panels_per_block;
  jp1 = jp1 < wt->panels ? jp1 : wt->panels;
  onnxc_qconv_indirect_tile t;
  t.offset = (size_t)(g * wt->cg);
  t.taps = (size_t)taps;
  t.groups = (size_t)(wt->cg_packed / 4);
  t.y_zero = p->y_zero;
  t.y_signed = p->y_signed;
  t.ldy = wt->m;
  for (int64_t jp = jp0; jp < jp1; ++jp) {
    int64_t j0 = g * wt->mg + jp * NR, cols = wt->mg - jp * NR;
    t.panel = wt->data + (size_t)(g * wt->panels + jp) * wt->panel_bytes;
    t.cols = (size_t)(cols < NR ? cols : NR);
    t.bias = job->bias + j0;
    t.w_zero = wt->w_zero + j0;
    t.multiplier = p->multiplier + j0;
    for (int64_t tile = 0; tile < tiles; ++tile) {
      int64_t pixel = first_pixel + tile * MR, rows = job->pixels - pixel;
      t.rows = table + tile * taps * MR;
      t.row_sum = row_sum ? row_sum + tile * MR : NULL;
      t.mr = (size_t)(rows < MR ? rows : MR);
      t.y = p->y + pixel * wt->m + j0;
      TILE_KERNEL(&t);
    }
  }
  free(row_sum);
  free(table);
}

/* X with cg_packed channels per pixel (one group), the extra ones 0. */
static uint8_t *padded_channels(const onnxc_qconv_indirect_params *p,
                                int64_t channels) {
  int64_t pixels = p->h * p->w;
  uint8_t *copy = calloc((size_t)(pixels * channels) + 1, 1);
  for (int64_t q = 0; copy && q < pixels; ++q)
    memcpy(copy + q * channels, p->x + q * p->c, (size_t)p->c);
  return copy;
}

static int run_padded(const onnxc_qconv_indirect_weights *wt,
                      const onnxc_qconv_indirect_params *p, int max_threads) {
  uint8_t *copy = padded_channels(p, wt->cg_packed);
  if (!copy)
    return -1;
  onnxc_qconv_indirect_params padded = *p;
  padded.x = copy;
  padded.c = wt->cg_packed;
  int status = onnxc_qconv_indirect(wt, &padded, max_threads);
  free(copy);
  return status;
}

int onnxc_qconv_indirect(const onnxc_qconv_indirect_weights *wt,
                         const onnxc_qconv_indirect_params *p,
                         int max_threads) {
  if (p->c != wt->cg_packed * wt->groups)
    return wt->groups == 1 && p->c == wt->cg ? run_padded(wt, p, max_threads)
                                             : -1;
  indirect_job job;
  memset(&job, 0, sizeof job);
  job.wt = wt;
  job.p = p;
  job.pixels = p->oh * p->ow;
  if (job.pixels == 0 || wt->m == 0)
    return 0;
  uint8_t *zero_pixel = malloc((size_t)p->c + 1);
  int32_t *bias = malloc((size_t)wt->m * sizeof(int32_t));
  if (!zero_pixel || !bias) {
    free(zero_pixel);
    free(bias);
    return -1;
  }
  memset(zero_pixel, (uint8_t)p->x_zero, (size_t)p->c);
  /* sum (x - xz)(w - wz) = sum x w - xz colsum(w) - wz sum x + K xz wz:
   * the per-channel terms, wrapping as the int32 sums. */
  uint32_t k_real = (uint32_t)(wt->kh * wt->kw * wt->cg);
  for (int64_t j = 0; j < wt->m; ++j)
    bias[j] = (int32_t)((uint32_t)p->bias[j] -
                        (uint32_t)p->x_zero * (uint32_t)wt->col_sum[j] +
                        k_real * (uint32_t)p->x_zero * (uint32_t)wt->w_zero[j]);
  job.zero_pixel = zero_pixel;
  job.bias = bias;
  int32_t *pixel_sum = NULL;
  if (wt->asymmetric && !(pixel_sum = pixel_sums(wt, p))) {
    free(zero_pixel);
    free(bias);
    return -1;
  }
  job.pixel_sum = pixel_sum;
  job.zero_sum = (int32_t)((uint32_t)wt->cg * (uint32_t)p->x_zero);

  /* Blocks of pixels whose windows (K bytes each) fit in about half of L2;
   * panel blocks halved until each thread has two tasks. */
  int64_t k = wt->kh * wt->kw * wt->cg_packed;
  int64_t tiles = (job.pixels + MR - 1) / MR;
  int64_t per_block = (128 * 1024) / (k * MR);
  per_block = per_block < 1 ? 1 : per_block > 12 ? 12 : per_block;
  job.tiles_per_block = per_block;
  job.m_blocks = (tiles + per_block - 1) / per_block;
  int threads = onnxc_num_threads();
  if (max_threads > 0 && max_threads < threads)
    threads = max_threads;
  job.panels_per_block = wt->panels;
  while (
      job.panels_per_block > 1 &&
      wt->groups * job.m_blocks *
              ((wt->panels + job.panels_per_block - 1) / job.panels_per_block) <
          2 * (int64_t)threads)
    job.panels_per_block = (job.panels_per_block + 1) / 2;
  job.n_blocks = (wt->panels + job.panels_per_block - 1) / job.panels_per_block;
  onnxc_parallel_for((size_t)(wt->groups * job.m_blocks * job.n_blocks),
                     threads, block_task, &job);
  free(pixel_sum);
  free(zero_pixel);
  free(bias);
  return job.failed ? -1 : 0;
}
