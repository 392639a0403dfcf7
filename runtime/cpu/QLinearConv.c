/*===- QLinearConv.c - QLinearConv of lowered code through int8 GEMM ------===*
 *
 * Per image: X is turned pixel-major ([H, W, C] bytes, one pass), then for
 * each group and block of output pixels the windows are gathered into rows
 * of A ([pixels, kH * kW * C/group], runs of C/group bytes; a 1x1 stride-1
 * window reads the pixel-major X as it is), multiplied by the group's
 * packed W (kernels/QGemm.h), requantized in its epilogue, into Y's NCHW
 * planes. W is reordered to the same (kh, kw, c) order and packed once per
 * group into the call site's slot. Blocks run on the thread pool; a call
 * with fewer blocks than two per thread gives the threads to the GEMM.
 *
 * With ONNXC_QCONV_CHANNELS_LAST (onnxc.BlockedQLinearConv: the cpu
 * target keeps chains of quantized ops NHWC) X already is pixel-major and
 * the GEMM writes its rows straight into Y's pixels: neither transpose
 * runs. A depthwise convolution then walks output pixels with the
 * channels innermost, one vector of channels per tap.
 *
 *===----------------------------------------------------------------------===*/

#include "CpuRuntime.h"
#include "MemrefView.h"
#include "ThreadPool.h"
#include "kernels/QConvIndirect.h"
#include "kernels/QDepthwise.h"
#include "kernels/QGemm.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* W packed for one call site: for the indirect kernel (kernels/
 * QConvIndirect.h), or per group for the GEMM. */
typedef struct qconv_weights {
  const void *source; /* the W it was packed from */
  int64_t groups;
  struct qconv_weights *next; /* the registry, for the unload */
  onnxc_qconv_indirect_weights *indirect;
  onnxc_qgemm_packed_b *packed[];
} qconv_weights;

static _Atomic(qconv_weights *) weights_registry;

static void free_weights(qconv_weights *e) {
  for (int64_t g = 0; e && g < e->groups; ++g)
    onnxc_qgemm_free_packed_b(e->packed[g]);
  if (e)
    onnxc_qconv_indirect_free(e->indirect);
  free(e);
}

__attribute__((destructor)) static void free_weights_registry(void) {
  qconv_weights *e = atomic_exchange(&weights_registry, NULL);
  while (e) {
    qconv_weights *next = e->next;
    free_weights(e);
    e = next;
  }
}

/* W for the indirect kernel (`indirect`), or group g of W ([M, Cg, kH, kW])
 * as K x Mg with K in (kh, kw, c) order for the GEMM. */
static qconv_weights *pack_weights(const char *w, int64_t m, int64_t cg,
                                   int64_t kh, int64_t kw, int64_t groups,
                                   int w_signed, const int32_t *w_zero,
                                   int indirect) {
  int64_t mg = m / groups, k = cg * kh * kw;
  if (indirect) {
    qconv_weights *e = calloc(1, sizeof *e);
    if (e && !(e->indirect =
                   onnxc_qconv_indirect_pack((const uint8_t *)w, m, cg, kh, kw,
                                             groups, w_signed, w_zero))) {
      free(e);
      return NULL;
    }
    if (e)
      e->source = w;
    return e;
  }
  qconv_weights *e = calloc(1, sizeof *e + (size_t)groups * sizeof(void *));
  char *reordered = malloc((size_t)(k * mg));
  if (!e || !reordered) {
    free(e);
    free(reordered);
    return NULL;
  }
  e->source = w;
  e->groups = groups;
  for (int64_t g = 0; g < groups; ++g) {
    /* reordered[q * mg + j]: row q = (y * kw + x) * cg + c of K, written
     * in order (scattered writes each missed the cache on a large W). */
    int64_t taps = kh * kw;
    for (int64_t p = 0; p < taps; ++p)
      for (int64_t c = 0; c < cg; ++c) {
        char *row = reordered + (p * cg + c) * mg;
        const char *column = w + (g * mg * cg + c) * taps + p;
        for (int64_t j = 0; j < mg; ++j)
          row[j] = column[j * cg * taps];
      }
    e->packed[g] =
        onnxc_qgemm_pack_b((size_t)k, (size_t)mg, reordered, mg, 1, w_signed);
    if (!e->packed[g]) {
      e->groups = g;
      free_weights(e);
      free(reordered);
      return NULL;
    }
  }
  free(reordered);
  return e;
}

/* The copy in `*slot` for this W, packing and publishing it on first use;
 * NULL when the slot holds another W (the caller packs for itself). */
static qconv_weights *cached_weights(qconv_weights **slot, const char *w,
                                     int64_t m, int64_t cg, int64_t kh,
                                     int64_t kw, int64_t groups, int w_signed,
                                     const int32_t *w_zero, int indirect) {
  qconv_weights *e = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (!e) {
    qconv_weights *mine =
        pack_weights(w, m, cg, kh, kw, groups, w_signed, w_zero, indirect);
    if (!mine)
      return NULL;
    if (__atomic_compare_exchange_n(slot, &e, mine, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
      e = mine;
      mine->next = atomic_load(&weights_registry);
      while (
          !atomic_compare_exchange_weak(&weights_registry, &mine->next, mine))
        ;
    } else {
      free_weights(mine);
    }
  }
  int same_form = (e->indirect != NULL) == (indirect != 0);
  /* The indirect form holds W's zero points (which need not be constant). */
  int same_zero = !indirect || onnxc_qconv_indirect_has_zero_points(
                                   e->indirect, w_signed, w_zero);
  return e->source == w && (indirect || e->groups == groups) && same_form &&
                 same_zero
             ? e
             : NULL;
}

typedef struct qconv_job {
  const qconv_weights *weights;
  const uint8_t *pixels; /* the image pixel-major: [H, W, C] */
  int64_t c, h, w, cg, mg, kh, kw, oh, ow;
  int64_t pad_top, pad_left, stride_h, stride_w, dilation_h, dilation_w;
  int64_t block, blocks; /* output pixels per block; blocks per group */
  int x_signed, y_signed, direct; /* direct: 1x1, stride 1, no pads */
  int channels_last;              /* X and Y NHWC */
  int32_t x_zero, y_zero;
  const int32_t *w_zero;
  ptrdiff_t w_zero_stride;
  const int32_t *tap_weights; /* NHWC depthwise: [kH * kW][C], w - w_zero */
  const float *multiplier;    /* [M] */
  const int32_t *bias;        /* [M], zeros without one */
  char *y;                    /* the image's [M, OH * OW] */
  int s32;                    /* ConvInteger: int32 sums out, no scales */
  int gemm_threads;
  int failed;
  /* Depthwise (one input and one output channel per group): straight from
   * NCHW, no GEMM. */
  const uint8_t *x;
  const char *weights_data;
  int w_signed;
  ptrdiff_t x_image, y_image; /* bytes from one image to the next */
  char *y_all;
} qconv_job;

/* Rows [p0, p0 + rows) of A for group g: the windows of those pixels. */
static void gather_windows(const qconv_job *job, int64_t g, int64_t p0,
                           int64_t rows, uint8_t *a) {
  int64_t cg = job->cg, k = job->kh * job->kw * cg;
  const uint8_t *base = job->pixels + g * cg;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t p = p0 + r, oy = p / job->ow, ox = p % job->ow;
    uint8_t *row = a + r * k;
    for (int64_t i = 0; i < job->kh; ++i) {
      int64_t iy = oy * job->stride_h - job->pad_top + i * job->dilation_h;
      for (int64_t j = 0; j < job->kw; ++j, row += cg) {
        int64_t ix = ox * job->stride_w - job->pad_left + j * job->dilation_w;
        if (iy < 0 || iy >= job->h || ix < 0 || ix >= job->w) {
          memset(row, (uint8_t)job->x_zero, (size_t)cg);
        } else if (cg < 16) { /* a call per few bytes costs more */
          const uint8_t *src = base + (iy * job->w + ix) * job->c;
          for (int64_t c = 0; c < cg; ++c)
            row[c] = src[c];
        } else {
          memcpy(row, base + (iy * job->w + ix) * job->c, (size_t)cg);
        }
      }
    }
  }
}

/* The block's requantized bytes, pixel-major ([rows, Mg]), to Y's channel
 * planes. */
static void to_planes(const qconv_job *job, int64_t g, int64_t p0, int64_t rows,
                      const void *tile) {
  int64_t mg = job->mg, plane = job->oh * job->ow;
  for (int64_t j = 0; j < mg; ++j) {
    int64_t at = (g * mg + j) * plane + p0;
    if (job->s32) {
      int32_t *dst = (int32_t *)job->y + at;
      for (int64_t r = 0; r < rows; ++r)
        dst[r] = ((const int32_t *)tile)[r * mg + j];
    } else {
      uint8_t *dst = (uint8_t *)job->y + at;
      for (int64_t r = 0; r < rows; ++r)
        dst[r] = ((const uint8_t *)tile)[r * mg + j];
    }
  }
}

static void block_task(void *context, size_t task, int worker) {
  (void)worker;
  qconv_job *job = context;
  int64_t g = (int64_t)task / job->blocks;
  int64_t p0 = ((int64_t)task % job->blocks) * job->block;
  int64_t plane = job->oh * job->ow;
  int64_t rows = plane - p0 < job->block ? plane - p0 : job->block;
  int64_t k = job->kh * job->kw * job->cg, m = job->mg * (job->c / job->cg);
  /* NHWC: the rows go straight to Y's pixels p0.., channels g * Mg... */
  void *tile = job->channels_last
                   ? job->y + p0 * m + g * job->mg
                   : malloc((size_t)(rows * job->mg) * (job->s32 ? 4 : 1));
  uint8_t *a = job->direct ? NULL : malloc((size_t)(rows * k));
  if (!tile || (!job->direct && !a)) {
    if (!job->channels_last)
      free(tile);
    free(a);
    job->failed = 1;
    return;
  }
  onnxc_qgemm_params p;
  memset(&p, 0, sizeof p);
  if (job->direct) {
    p.a = job->pixels + p0 * job->c + g * job->cg;
    p.lda = job->c;
  } else {
    gather_windows(job, g, p0, rows, a);
    p.a = a;
    p.lda = k;
  }
  p.a_signed = job->x_signed;
  p.a_zero_point = job->x_zero;
  p.b_zero_point = job->w_zero + g * job->mg * job->w_zero_stride;
  p.b_zero_point_stride = job->w_zero_stride;
  /* Requantized in the GEMM's epilogue (onnxc_requantize); or
   * ConvInteger's int32 sums. */
  p.output = job->s32 ? ONNXC_QGEMM_OUTPUT_S32 : ONNXC_QGEMM_OUTPUT_Q8;
  p.c = tile;
  p.ldc = job->channels_last ? m : job->mg;
  p.q_scale = job->multiplier + g * job->mg;
  p.q_bias = job->bias + g * job->mg;
  p.y_zero_point = job->y_zero;
  p.y_signed = job->y_signed;
  if (onnxc_qgemm((size_t)rows, job->weights->packed[g], &p,
                  job->gemm_threads) != 0)
    job->failed = 1;
  else if (!job->channels_last)
    to_planes(job, g, p0, rows, tile);
  free(a);
  if (!job->channels_last)
    free(tile);
}

/* [C, HW] -> [HW, C], eight channels at a time: eight read streams and
 * eight-byte runs of writes. */
static void to_pixel_major(const uint8_t *src, int64_t c, int64_t hw,
                           uint8_t *dst) {
  int64_t c0 = 0;
  for (; c0 + 8 <= c; c0 += 8)
    for (int64_t q = 0; q < hw; ++q)
      for (int64_t i = 0; i < 8; ++i)
        dst[q * c + c0 + i] = src[(c0 + i) * hw + q];
  for (; c0 < c; ++c0)
    for (int64_t q = 0; q < hw; ++q)
      dst[q * c + c0] = src[c0 * hw + q];
}

/* One channel of one image of a depthwise convolution: each tap's weight
 * times a row of inputs, accumulated over the output plane in int32. Taps
 * that fall in the padding add (x_zero - x_zero) * w = 0 and are skipped. */
static void depthwise_task(void *context, size_t task, int worker) {
  (void)worker;
  qconv_job *job = context;
  int64_t c = job->c, image = (int64_t)task / c, ch = (int64_t)task % c;
  int64_t plane = job->oh * job->ow, ow = job->ow;
  int32_t *acc = calloc((size_t)plane, sizeof(int32_t));
  if (!acc) {
    job->failed = 1;
    return;
  }
  const uint8_t *x = job->x + image * job->x_image + ch * job->h * job->w;
  int32_t x_zero = job->x_zero, x_flip = job->x_signed ? 128 : 0;
  for (int64_t i = 0; i < job->kh; ++i)
    for (int64_t j = 0; j < job->kw; ++j) {
      int64_t tap = (ch * job->kh + i) * job->kw + j;
      const char *weights = job->weights_data;
      int32_t wv = (job->w_signed ? (int32_t)((const int8_t *)weights)[tap]
                                  : (int32_t)((const uint8_t *)weights)[tap]) -
                   job->w_zero[ch];
      if (wv == 0)
        continue;
      /* Output columns whose input column is inside X. */
      int64_t shift = j * job->dilation_w - job->pad_left, sw = job->stride_w;
      int64_t lo = shift >= 0 ? 0 : (-shift + sw - 1) / sw;
      int64_t hi = job->w - 1 - shift < 0 ? 0 : (job->w - 1 - shift) / sw + 1;
      hi = hi > ow ? ow : hi;
      for (int64_t oy = 0; oy < job->oh; ++oy) {
        int64_t iy = oy * job->stride_h - job->pad_top + i * job->dilation_h;
        if (iy < 0 || iy >= job->h)
          continue;
        const uint8_t *row = x + iy * job->w + shift;
        int32_t *out = acc + oy * ow;
        /* An s8 byte read as u8 is x + 256 below 0; (b ^ 0x80) - 128 is x.
         * Unit stride gets its own loop, which the compiler vectorizes. */
        int32_t offset = x_flip + x_zero;
        if (sw == 1)
          for (int64_t ox = lo; ox < hi; ++ox)
            out[ox] += wv * ((int32_t)(row[ox] ^ x_flip) - offset);
        else
          for (int64_t ox = lo; ox < hi; ++ox)
            out[ox] += wv * ((int32_t)(row[ox * sw] ^ x_flip) - offset);
      }
    }
  const int32_t lo = job->y_signed ? -128 : 0, hi = job->y_signed ? 127 : 255;
  float multiplier = job->multiplier[ch];
  int32_t bias = job->bias[ch];
  if (job->s32) {
    memcpy((int32_t *)(job->y_all + image * job->y_image) + ch * plane, acc,
           (size_t)plane * sizeof(int32_t));
    free(acc);
    return;
  }
  uint8_t *y = (uint8_t *)job->y_all + image * job->y_image + ch * plane;
  for (int64_t q = 0; q < plane; ++q)
    y[q] = onnxc_requantize(acc[q], bias, multiplier, job->y_zero, lo, hi);
  free(acc);
}

/* One output row of one image of an NHWC depthwise convolution
 * (kernels/QDepthwise.h). */
static void depthwise_nhwc_task(void *context, size_t task, int worker) {
  (void)worker;
  qconv_job *job = context;
  int64_t c = job->c, image = (int64_t)task / job->oh;
  int64_t oy = (int64_t)task % job->oh;
  int32_t *scratch = malloc((size_t)c * sizeof(int32_t));
  if (!scratch) {
    job->failed = 1;
    return;
  }
  onnxc_qdepthwise_params p = {
      .x = job->x + image * job->x_image,
      .h = job->h,
      .w = job->w,
      .c = c,
      .kh = job->kh,
      .kw = job->kw,
      .ow = job->ow,
      .stride_h = job->stride_h,
      .stride_w = job->stride_w,
      .pad_top = job->pad_top,
      .pad_left = job->pad_left,
      .dilation_h = job->dilation_h,
      .dilation_w = job->dilation_w,
      .tap_weights = job->tap_weights,
      .x_zero = job->x_zero,
      .x_signed = job->x_signed,
      .bias = job->bias,
      .multiplier = job->multiplier,
      .y_zero = job->y_zero,
      .y_signed = job->y_signed,
  };
  uint8_t *y = (uint8_t *)job->y_all + image * job->y_image + oy * job->ow * c;
  onnxc_qdepthwise_nhwc_row(&p, oy, y, scratch);
  free(scratch);
}

/* W - w_zero of a depthwise W ([C, 1, kH, kW]) as [kH * kW][C] int32. */
static int32_t *depthwise_tap_weights(const char *w, int w_signed,
                                      const int32_t *w_zero, int64_t c,
                                      int64_t taps) {
  int32_t *t = malloc((size_t)(taps * c) * sizeof(int32_t) + 1);
  if (!t)
    return NULL;
  for (int64_t ch = 0; ch < c; ++ch)
    for (int64_t p = 0; p < taps; ++p) {
      int64_t at = ch * taps + p;
      int32_t v = w_signed ? (int32_t)((const int8_t *)w)[at]
                           : (int32_t)((const uint8_t *)w)[at];
      t[p * c + ch] = v - w_zero[ch];
    }
  return t;
}

static int read_float(onnxc_unranked_memref *ref, int64_t index, int64_t count,
                      float *out) {
  onnxc_byte_view v;
  if (!onnxc_read_byte_view(ref, 4, &v))
    return 0;
  int64_t total = 1;
  for (int d = 0; d < v.rank; ++d)
    total *= v.size[d];
  if (total != 1 && total != count)
    return 0;
  *out = ((const float *)
              v.data)[total == 1 ? 0 : index * (v.rank ? v.stride[0] : 0)];
  return 1;
}

static int read_byte(onnxc_unranked_memref *ref, int is_signed, int32_t *out) {
  onnxc_byte_view v;
  if (!onnxc_read_byte_view(ref, 1, &v))
    return 0;
  *out = is_signed ? (int32_t) * (const int8_t *)v.data
                   : (int32_t) * (const uint8_t *)v.data;
  return 1;
}

/* One call's operands: QLinearConv's nine, or ConvInteger's four (s32:
 * scales and bias NULL, zero points when flagged). */
typedef struct qconv_call {
  onnxc_unranked_memref *x, *x_scale, *x_zero, *w, *w_scale, *w_zero;
  onnxc_unranked_memref *y_scale, *y_zero, *bias, *y;
  onnxc_memref1 *slot;
  int32_t flags;
  int64_t pad_top, pad_left, stride_h, stride_w, dilation_h, dilation_w;
  int64_t group;
  int s32;
} qconv_call;

/* Per output channel: the requantization multiplier (x_scale * w_scale /
 * y_scale in f32, as ONNX Runtime computes it), the int32 bias, and W's
 * zero point. ConvInteger: multipliers and biases 0, zero points as
 * flagged. */
static int32_t channel_parameters(const qconv_call *call, int64_t m,
                                  int w_signed, float *multiplier,
                                  int32_t *bias, int32_t *zeros) {
  float xs = 1.0f, ys = 1.0f;
  if (!call->s32 && (!read_float(call->x_scale, 0, 1, &xs) ||
                     !read_float(call->y_scale, 0, 1, &ys)))
    return ONNXC_KERNEL_BAD_OPERANDS;
  onnxc_byte_view w_zero, bias_view;
  int has_w_zero = !call->s32 || (call->flags & ONNXC_QCONV_W_ZERO);
  if (has_w_zero && !onnxc_read_byte_view(call->w_zero, 1, &w_zero))
    return ONNXC_KERNEL_BAD_OPERANDS;
  int64_t w_zero_count = has_w_zero && w_zero.rank ? w_zero.size[0] : 1;
  if (w_zero_count != 1 && w_zero_count != m)
    return ONNXC_KERNEL_BAD_OPERANDS;
  const int32_t *bias_values = NULL;
  if ((call->flags & ONNXC_QCONV_BIAS) &&
      onnxc_read_byte_view(call->bias, 4, &bias_view))
    bias_values = (const int32_t *)bias_view.data;
  for (int64_t j = 0; j < m; ++j) {
    float ws = 1.0f;
    if (!call->s32 && !read_float(call->w_scale, j, m, &ws))
      return ONNXC_KERNEL_BAD_OPERANDS;
    float product = xs * ws, quotient = product / ys; /* f32 steps */
    multiplier[j] = call->s32 ? 0.0f : quotient;
    bias[j] = bias_values ? bias_values[j] : 0;
    ptrdiff_t at = w_zero_count == 1 ? 0 : j * w_zero.stride[0];
    zeros[j] = !has_w_zero ? 0
               : w_signed  ? ((const int8_t *)w_zero.data)[at]
                           : ((const uint8_t *)w_zero.data)[at];
  }
  return ONNXC_KERNEL_OK;
}

/* Every image of an NHWC convolution through the indirect kernel. */
static void run_images_indirect(qconv_job *job, const onnxc_byte_view *x,
                                const onnxc_byte_view *y, int64_t n) {
  onnxc_qconv_indirect_params p = {
      .h = job->h,
      .w = job->w,
      .c = job->c,
      .oh = job->oh,
      .ow = job->ow,
      .stride_h = job->stride_h,
      .stride_w = job->stride_w,
      .pad_top = job->pad_top,
      .pad_left = job->pad_left,
      .dilation_h = job->dilation_h,
      .dilation_w = job->dilation_w,
      .x_zero = job->x_zero,
      .bias = job->bias,
      .multiplier = job->multiplier,
      .y_zero = job->y_zero,
      .y_signed = job->y_signed,
  };
  for (int64_t image = 0; image < n && !job->failed; ++image) {
    p.x = (const uint8_t *)x->data + image * x->stride[0];
    p.y = (uint8_t *)y->data + image * y->stride[0];
    if (onnxc_qconv_indirect(job->weights->indirect, &p, 0) != 0)
      job->failed = 1;
  }
}

/* Runs the prepared job over every image: depthwise planes, or blocks of
 * output pixels through the indirect kernel or the GEMM. */
static void run_images(qconv_job *job, const onnxc_byte_view *x,
                       const onnxc_byte_view *y, int64_t n, int depthwise,
                       uint8_t *pixels) {
  size_t y_element = job->s32 ? 4 : 1;
  if (depthwise) {
    job->x = (const uint8_t *)x->data;
    job->x_image = x->stride[0];
    job->y_all = y->data;
    job->y_image = y->stride[0] * (ptrdiff_t)y_element;
    if (job->channels_last)
      onnxc_parallel_for((size_t)(n * job->oh), 0, depthwise_nhwc_task, job);
    else
      onnxc_parallel_for((size_t)(n * job->c), 0, depthwise_task, job);
    return;
  }
  if (job->weights->indirect) {
    run_images_indirect(job, x, y, n);
    return;
  }
  int64_t k = job->kh * job->kw * job->cg, plane = job->oh * job->ow;
  int64_t block = (256 * 1024) / (k > 0 ? k : 1);
  block = block < 12 ? 12 : block > 512 ? 512 : block / 12 * 12;
  job->block = block;
  job->blocks = (plane + block - 1) / block;
  job->pixels = pixels;
  size_t tasks = (size_t)(job->c / job->cg * job->blocks);
  int spread = tasks >= 2 * (size_t)onnxc_num_threads();
  job->gemm_threads = spread ? 1 : 0;
  for (int64_t image = 0; image < n && !job->failed; ++image) {
    const uint8_t *src = (const uint8_t *)x->data + image * x->stride[0];
    if (job->channels_last) {
      job->pixels = src;
    } else {
      to_pixel_major(src, job->c, job->h * job->w, pixels);
    }
    job->y = y->data + image * y->stride[0] * (ptrdiff_t)y_element;
    onnxc_parallel_for(tasks, spread ? 0 : 1, block_task, job);
  }
}

/* Whether the indirect kernel (kernels/QConvIndirect.h) takes this
 * convolution: NHWC, u8 X, a requantized output, and channels per group it
 * reads in four-byte groups (or one group). */
static int takes_indirect_kernel(const qconv_job *job) {
  return job->channels_last && !job->s32 && !job->x_signed &&
         onnxc_qconv_indirect_supported(job->cg, job->c / job->cg);
}

/* Whether a 4-D byte view is dense in row-major order (batch aside). */
static int is_contiguous(const onnxc_byte_view *v) {
  return v->stride[3] == 1 && v->stride[2] == v->size[3] &&
         v->stride[1] == v->size[2] * v->size[3];
}

static int32_t quantized_conv2d(const qconv_call *call) {
  onnxc_byte_view x, w, y;
  if (!onnxc_read_byte_view(call->x, 1, &x) ||
      !onnxc_read_byte_view(call->w, 1, &w) ||
      !onnxc_read_byte_view(call->y, call->s32 ? 4 : 1, &y) || x.rank != 4 ||
      w.rank != 4 || y.rank != 4 || call->group < 1)
    return ONNXC_KERNEL_BAD_OPERANDS;
  int last = (call->flags & ONNXC_QCONV_CHANNELS_LAST) != 0;
  if (last && (call->s32 || !is_contiguous(&x) || !is_contiguous(&y)))
    return ONNXC_KERNEL_BAD_OPERANDS;
  int channel_dim = last ? 3 : 1, spatial_dim = last ? 1 : 2;
  int64_t n = x.size[0], c = x.size[channel_dim], h = x.size[spatial_dim];
  int64_t wd = x.size[spatial_dim + 1];
  int64_t m = w.size[0], cg = w.size[1], kh = w.size[2], kw = w.size[3];
  int64_t oh = y.size[spatial_dim], ow = y.size[spatial_dim + 1];
  int64_t group = call->group;
  if (y.size[0] != n || y.size[channel_dim] != m || cg * group != c ||
      m % group)
    return ONNXC_KERNEL_BAD_OPERANDS;
  if (n == 0 || m == 0 || oh == 0 || ow == 0)
    return ONNXC_KERNEL_OK; /* nothing to write */
  int32_t flags = call->flags;
  int w_signed = (flags & ONNXC_QCONV_W_SIGNED) != 0;
  qconv_job job;
  memset(&job, 0, sizeof job);
  job.c = c, job.h = h, job.w = wd, job.cg = cg, job.mg = m / group;
  job.kh = kh, job.kw = kw, job.oh = oh, job.ow = ow;
  job.pad_top = call->pad_top, job.pad_left = call->pad_left;
  job.stride_h = call->stride_h, job.stride_w = call->stride_w;
  job.dilation_h = call->dilation_h, job.dilation_w = call->dilation_w;
  job.x_signed = (flags & ONNXC_QCONV_X_SIGNED) != 0;
  job.y_signed = (flags & ONNXC_QCONV_Y_SIGNED) != 0;
  job.s32 = call->s32;
  job.channels_last = last;
  job.direct = kh == 1 && kw == 1 && call->stride_h == 1 &&
               call->stride_w == 1 && call->pad_top == 0 &&
               call->pad_left == 0 && oh == h && ow == wd;
  if ((!call->s32 || (flags & ONNXC_QCONV_X_ZERO)) &&
      !read_byte(call->x_zero, job.x_signed, &job.x_zero))
    return ONNXC_KERNEL_BAD_OPERANDS;
  if ((flags & ONNXC_QCONV_Y_ZERO) &&
      !read_byte(call->y_zero, job.y_signed, &job.y_zero))
    return ONNXC_KERNEL_BAD_OPERANDS;

  float *multiplier = malloc((size_t)m * sizeof(float));
  int32_t *bias = malloc((size_t)m * sizeof(int32_t));
  int32_t *zeros = malloc((size_t)m * sizeof(int32_t));
  int depthwise = cg == 1 && m == c && group == c;
  uint8_t *pixels = last ? NULL : malloc((size_t)(h * wd * c) + 1);
  qconv_weights **cache =
      !depthwise && call->slot && call->slot->size >= 1
          ? (qconv_weights **)((int64_t *)call->slot->aligned +
                               call->slot->offset)
          : NULL;
  int32_t status = ONNXC_KERNEL_OUT_OF_MEMORY;
  if (multiplier && bias && zeros && (pixels || last))
    status = channel_parameters(call, m, w_signed, multiplier, bias, zeros);
  int indirect =
      status == ONNXC_KERNEL_OK && !depthwise && takes_indirect_kernel(&job);
  qconv_weights *own = NULL;
  const qconv_weights *weights =
      cache && status == ONNXC_KERNEL_OK
          ? cached_weights(cache, w.data, m, cg, kh, kw, group, w_signed, zeros,
                           indirect)
          : NULL;
  if (status == ONNXC_KERNEL_OK && !weights && !depthwise &&
      !(weights = own = pack_weights(w.data, m, cg, kh, kw, group, w_signed,
                                     zeros, indirect)))
    status = ONNXC_KERNEL_OUT_OF_MEMORY;
  int32_t *taps = NULL;
  if (status == ONNXC_KERNEL_OK && depthwise && last &&
      !(taps = depthwise_tap_weights(w.data, w_signed, zeros, c, kh * kw)))
    status = ONNXC_KERNEL_OUT_OF_MEMORY;
  if (status == ONNXC_KERNEL_OK) {
    job.weights = weights;
    job.multiplier = multiplier;
    job.bias = bias;
    job.w_zero = zeros;
    job.w_zero_stride = 1;
    job.weights_data = w.data;
    job.w_signed = w_signed;
    job.tap_weights = taps;
    run_images(&job, &x, &y, n, depthwise, pixels);
    if (job.failed)
      status = ONNXC_KERNEL_OUT_OF_MEMORY;
  }
  free_weights(own);
  free(taps);
  free(pixels);
  free(zeros);
  free(bias);
  free(multiplier);
  return status;
}

int32_t _mlir_ciface_onnxc_rt_qlinear_conv2d(
    onnxc_unranked_memref *x, onnxc_unranked_memref *x_scale,
    onnxc_unranked_memref *x_zero, onnxc_unranked_memref *w,
    onnxc_unranked_memref *w_scale, onnxc_unranked_memref *w_zero,
    onnxc_unranked_memref *y_scale, onnxc_unranked_memref *y_zero,
    onnxc_unranked_memref *bias, onnxc_unranked_memref *y, onnxc_memref1 *slot,
    int32_t flags, int64_t pad_top, int64_t pad_left, int64_t stride_h,
    int64_t stride_w, int64_t dilation_h, int64_t dilation_w, int64_t group) {
  qconv_call call = {x,        x_scale,    x_zero,     w,        w_scale,
                     w_zero,   y_scale,    y_zero,     bias,     y,
                     slot,     flags,      pad_top,    pad_left, stride_h,
                     stride_w, dilation_h, dilation_w, group,    0};
  return quantized_conv2d(&call);
}

int32_t _mlir_ciface_onnxc_rt_conv_integer2d(
    onnxc_unranked_memref *x, onnxc_unranked_memref *x_zero,
    onnxc_unranked_memref *w, onnxc_unranked_memref *w_zero,
    onnxc_unranked_memref *y, onnxc_memref1 *slot, int32_t flags,
    int64_t pad_top, int64_t pad_left, int64_t stride_h, int64_t stride_w,
    int64_t dilation_h, int64_t dilation_w, int64_t group) {
  qconv_call call = {x,        NULL,       x_zero,     w,        NULL,
                     w_zero,   NULL,       NULL,       NULL,     y,
                     slot,     flags,      pad_top,    pad_left, stride_h,
                     stride_w, dilation_h, dilation_w, group,    1};
  call.flags &= ~(ONNXC_QCONV_BIAS | ONNXC_QCONV_Y_ZERO);
  return quantized_conv2d(&call);
}
