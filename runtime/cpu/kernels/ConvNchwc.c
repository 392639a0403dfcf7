/*===- ConvNchwc.c - Dispatch and threading of the NCHWc convolution ------===*
 *
 * Picks the micro-kernels of the ISA the GEMM uses (Gemm.c's CPUID check,
 * and its test hook onnxc_sgemm_force_isa) and spreads the output over the
 * thread pool: group 1 in tasks of (image, group of output blocks, row,
 * chunk of the row). The register tile (output blocks x pixels) is chosen
 * per convolution from the variant's budget by a small cost model of the
 * row's tiles. When the weights fit the cache the output block groups are
 * walked innermost, so that a chunk of X is read from memory once; else
 * outermost, so that a worker's consecutive tasks share one group's
 * weights. Depthwise: tasks of (image, block, row).
 * A 1x1 convolution with unit strides and no padding is a matrix product
 * over the pixels: its H x W pixels are one long row, so tiles span rows.
 * Output pixels whose window crosses X's left or right edge are computed
 * one at a time (a 1-pixel tile reloads every weight vector for one FMA
 * each); when they are more than a sixteenth of a row, X is first copied
 * into a buffer with zero columns on both sides, so that every tile is a
 * full one (group 1 only: a depthwise tile loads as much as it computes, so
 * the copy would cost more than the short tiles). The top and bottom edges
 * cost nothing: a row's tap range is cut instead.
 * Winograd F(2x2, 3x3) (onnxc_conv_nchwc_winograd, further down) reuses the
 * 1x1 rows for its 16 per-position products.
 * A plain NCHW X (nchw_input: an image) goes through the same tiles, with
 * pixel stride 1 and lane stride H x W in place of 16 and 1, and is never
 * copied: its edge pixels are computed one at a time.
 * A group-1 convolution on a narrow map (rows of a few tiles) is first
 * gathered into blocked columns (an im2col) and run as a 1x1 over its
 * output pixels, one long row of full tiles.
 *
 *===----------------------------------------------------------------------===*/

#include "ConvNchwc.h"
#include "../CpuRuntime.h"
#include "../ThreadPool.h"
#include "ConvNchwcKernels.h"
#include "ConvWinogradWeights.h"

#include <string.h>

static const onnxc_conv_nchwc_variant *active_variant(void) {
#if ONNXC_HAVE_X86_KERNELS
  switch (onnxc_sgemm_current_isa()) {
  case ONNXC_SGEMM_ISA_AVX512:
    return &onnxc_conv_nchwc_avx512_variant;
  case ONNXC_SGEMM_ISA_AVX2:
    return &onnxc_conv_nchwc_avx2_variant;
  default:
    break;
  }
#endif
  return &onnxc_conv_nchwc_portable_variant;
}

typedef struct conv_work {
  const onnxc_conv_nchwc_variant *variant;
  onnxc_conv_nchwc_job job;
  int64_t tile_nb; /* output blocks of a task */
  int64_t groups, chunk, chunks;
  int group_inner; /* consecutive tasks: same pixels, next output blocks */
  int group_whole; /* a task is all rows of one (image, group) */
  int prefetch;    /* the tasks of a group prefetch the next group's weights */
} conv_work;

/* Part `part` of `parts` of [begin, begin + floats). */
static onnxc_conv_prefetch prefetch_part(const float *begin, int64_t floats,
                                         int64_t part, int64_t parts) {
  int64_t each = (floats + parts - 1) / parts;
  int64_t first = part * each < floats ? part * each : floats;
  int64_t last = first + each < floats ? first + each : floats;
  onnxc_conv_prefetch p = {begin + first, last - first};
  return p;
}

/* Part `part` of `parts` of the weights of the group after `group` (the
 * first one after the last: the next image's), which the thread that runs
 * this group's tasks runs next (tasks are dealt out in contiguous ranges,
 * ThreadPool.c). */
static onnxc_conv_prefetch next_group_weights(const conv_work *work,
                                              int64_t group, int64_t part,
                                              int64_t parts) {
  onnxc_conv_prefetch none = {NULL, 0};
  if (!work->prefetch)
    return none;
  const onnxc_conv_nchwc_job *job = &work->job;
  const int64_t B = ONNXC_NCHWC_BLOCK;
  int64_t block_floats =
      job->in_blocks * job->s.kernel_h * job->s.kernel_w * B * B;
  int64_t mb = (group + 1) % work->groups * work->tile_nb;
  int64_t nb = job->out_blocks - mb < work->tile_nb ? job->out_blocks - mb
                                                    : work->tile_nb;
  return prefetch_part(job->w + mb * block_floats, nb * block_floats, part,
                       parts);
}

static void conv_task(void *context, size_t task, int worker) {
  (void)worker;
  const conv_work *work = context;
  const onnxc_conv_nchwc_shape *s = &work->job.s;
  int64_t t = (int64_t)task, group;
  if (work->group_whole) {
    group = t % work->groups;
    int64_t n = t / work->groups, mb = group * work->tile_nb;
    int64_t nb = work->job.out_blocks - mb;
    if (nb > work->tile_nb)
      nb = work->tile_nb;
    for (int64_t oh = 0; oh < s->out_h; ++oh)
      work->variant->rows(&work->job, n, mb, nb, oh, 0, s->out_w,
                          next_group_weights(work, group, oh, s->out_h));
    return;
  }
  if (work->group_inner) {
    group = t % work->groups;
    t /= work->groups;
  }
  int64_t chunk = t % work->chunks;
  t /= work->chunks;
  int64_t oh = t % s->out_h;
  t /= s->out_h;
  if (!work->group_inner) {
    group = t % work->groups;
    t /= work->groups;
  }
  int64_t n = t;
  int64_t mb = group * work->tile_nb;
  int64_t nb = work->job.out_blocks - mb;
  if (nb > work->tile_nb)
    nb = work->tile_nb;
  int64_t begin = chunk * work->chunk, end = begin + work->chunk;
  if (end > s->out_w)
    end = s->out_w;
  /* Without group_inner a group's tasks are its rows and chunks; with it,
   * the first chunk's tasks read the groups from memory, the rest find them
   * in L2. */
  onnxc_conv_prefetch next = {NULL, 0};
  if (!work->group_inner)
    next = next_group_weights(work, group, oh * work->chunks + chunk,
                              s->out_h * work->chunks);
  else if (oh == 0 && chunk == 0)
    next = next_group_weights(work, group, 0, 1);
  work->variant->rows(&work->job, n, mb, nb, oh, begin, end, next);
}

/* The time of one input channel of a tile of nb x p, in half cycles: the
 * FMAs (two a cycle), or the loads (weights and broadcasts) where they are
 * more, plus the loop's own. */
static int64_t tile_cost(int64_t nb, int64_t p) {
  int64_t fmas = nb * p, loads = 3 * (nb + p) / 2;
  return (fmas > loads ? fmas : loads) + 4 + nb;
}

/* The cost of a row of `width` pixels of all `blocks` output blocks in tiles
 * of at most nb blocks x cap pixels, cut into tiles of equal width as
 * conv_rows does. */
static int64_t row_cost(int64_t blocks, int64_t width, int64_t nb,
                        int64_t cap) {
  int64_t tiles = (width + cap - 1) / cap;
  int64_t wide = width % tiles, narrow_p = width / tiles;
  int64_t per_group = wide * tile_cost(nb, narrow_p + 1) +
                      (tiles - wide) * tile_cost(nb, narrow_p);
  int64_t cost = blocks / nb * per_group;
  int64_t rest = blocks % nb;
  if (rest)
    cost += wide * tile_cost(rest, narrow_p + 1) +
            (tiles - wide) * tile_cost(rest, narrow_p);
  return cost;
}

/* The register tile for rows of `width` pixels: the output blocks per tile
 * and the widest tile, from the variant's budget, the cheapest by
 * row_cost (ties: more blocks, which reads X fewer times). With `even` > 0,
 * only tiles that cut the blocks into full groups, a multiple of `even` of
 * them in `images` images; returns whether there was one. */
static int choose_tile(const onnxc_conv_nchwc_variant *v, int64_t blocks,
                       int64_t width, int64_t images, int64_t even,
                       int64_t *tile_nb, int64_t *tile_w) {
  int64_t best = -1, best_nb = 1, best_w = v->tile_w;
  for (int64_t nb = 1; nb <= v->max_nb && nb <= blocks; ++nb) {
    int64_t cap = v->max_acc / nb < v->tile_w ? v->max_acc / nb : v->tile_w;
    if (cap < 1)
      break;
    if (even > 0 && (blocks % nb != 0 || images * (blocks / nb) % even != 0))
      continue;
    int64_t cost = row_cost(blocks, width, nb, cap);
    if (best < 0 || cost <= best) {
      best = cost;
      best_nb = nb;
      best_w = cap;
    }
  }
  /* Without `even`, nb = 1 always qualifies. */
  if (even > 0 && best < 0)
    return 0;
  *tile_nb = best_nb;
  *tile_w = best_w;
  return 1;
}

static void dw_task(void *context, size_t task, int worker) {
  (void)worker;
  const conv_work *work = context;
  const onnxc_conv_nchwc_shape *s = &work->job.s;
  int64_t t = (int64_t)task;
  int64_t oh = t % s->out_h;
  t /= s->out_h;
  int64_t cb = t % work->job.in_blocks;
  int64_t n = t / work->job.in_blocks;
  work->variant->dw_row(&work->job, n, cb, oh);
}

/* The output columns [lo, hi) whose whole window is inside X. */
static void interior(const onnxc_conv_nchwc_shape *s, int64_t *lo,
                     int64_t *hi) {
  int64_t extent = (s->kernel_w - 1) * s->dilation_w + 1;
  *lo = (s->pad_left + s->stride_w - 1) / s->stride_w;
  int64_t last = s->in_w - extent + s->pad_left; /* the last start, * sw */
  *hi = last < 0 ? 0 : last / s->stride_w + 1;
  if (*hi > s->out_w)
    *hi = s->out_w;
}

typedef struct pad_work {
  const float *x;
  float *buffer;
  int64_t rows, width, left, right, rows_per_task;
} pad_work;

static void pad_task(void *context, size_t task, int worker) {
  (void)worker;
  const int64_t B = ONNXC_NCHWC_BLOCK;
  const pad_work *p = context;
  int64_t padded = p->left + p->width + p->right;
  int64_t begin = (int64_t)task * p->rows_per_task;
  int64_t end = begin + p->rows_per_task;
  if (end > p->rows)
    end = p->rows;
  for (int64_t r = begin; r < end; ++r) {
    float *dst = p->buffer + r * padded * B;
    memset(dst, 0, (size_t)(p->left * B) * sizeof(float));
    memcpy(dst + p->left * B, p->x + r * p->width * B,
           (size_t)(p->width * B) * sizeof(float));
    memset(dst + (p->left + p->width) * B, 0,
           (size_t)(p->right * B) * sizeof(float));
  }
}

/* X with `left` and `right` zero columns: [N * Cb * H][left + W + right]
 * [16] in scratch memory (freed with onnxc_rt_scratch_give(*block)), or
 * NULL when there is no memory. Copied on up to `max_threads` threads. */
static float *pad_columns(const float *x, int64_t rows, int64_t width,
                          int64_t left, int64_t right, void **block,
                          int max_threads) {
  const int64_t B = ONNXC_NCHWC_BLOCK;
  int64_t padded = left + width + right;
  float *buffer =
      onnxc_rt_scratch_take((size_t)(rows * padded * B) * sizeof(float), block);
  if (!buffer)
    return NULL;
  /* Tasks of about 64 KB. */
  int64_t per_task = 4096 / (padded * B) + 1;
  pad_work p = {x, buffer, rows, width, left, right, per_task};
  onnxc_parallel_for((size_t)((rows + per_task - 1) / per_task), max_threads,
                     pad_task, &p);
  return buffer;
}

typedef struct columns_work {
  const onnxc_conv_nchwc_shape *s;
  const float *x;
  float *buffer;
  int64_t in_blocks, rows; /* rows: N * in_blocks * taps * out_h */
} columns_work;

/* Output row `task` of one (image, input block, tap) plane of the columns:
 * X's pixels under that tap, 0 outside X and in the lanes past C. */
static void columns_task(void *context, size_t task, int worker) {
  (void)worker;
  const int64_t B = ONNXC_NCHWC_BLOCK;
  const columns_work *w = context;
  const onnxc_conv_nchwc_shape *s = w->s;
  int64_t taps = s->kernel_h * s->kernel_w;
  int64_t oh = (int64_t)task % s->out_h, t = (int64_t)task / s->out_h;
  int64_t tap = t % taps, plane = t / taps; /* plane: image x input block */
  int64_t kh = tap / s->kernel_w, kw = tap % s->kernel_w;
  int64_t lanes = s->in_channels - plane % w->in_blocks * B;
  if (lanes > B)
    lanes = B;
  int64_t ih = oh * s->stride_h - s->pad_top + kh * s->dilation_h;
  float *dst = w->buffer + (int64_t)task * s->out_w * B;
  const float *src = w->x + (plane * s->in_h + ih) * s->in_w * B;
  for (int64_t ow = 0; ow < s->out_w; ++ow, dst += B) {
    int64_t iw = ow * s->stride_w - s->pad_left + kw * s->dilation_w;
    if (ih >= 0 && ih < s->in_h && iw >= 0 && iw < s->in_w) {
      if (lanes == B) { /* a constant size: inlined (2-3% faster) */
        memcpy(dst, src + iw * B, B * sizeof(float));
        continue;
      }
      memcpy(dst, src + iw * B, (size_t)lanes * sizeof(float));
      memset(dst + lanes, 0, (size_t)(B - lanes) * sizeof(float));
    } else {
      memset(dst, 0, B * sizeof(float));
    }
  }
}

static int force_direct;

int onnxc_conv_nchwc_force_direct(int direct) {
  int previous = force_direct;
  force_direct = direct;
  return previous;
}

/* The columns of a group-1 convolution (im2col, blocked):
 * [N][in_blocks * taps][out_h][out_w][16], block cb * taps + tap holding
 * input block cb under that tap, in scratch memory (freed with
 * onnxc_rt_scratch_give(*block)); NULL when there is no memory. With the
 * block order of W's [Mb][Cb][KH][KW][16][16], the convolution is then a
 * 1x1 over in_blocks * taps blocks with the same weights. */
static float *gather_columns(const onnxc_conv_nchwc_job *job, void **block,
                             int max_threads) {
  const int64_t B = ONNXC_NCHWC_BLOCK;
  const onnxc_conv_nchwc_shape *s = &job->s;
  int64_t rows =
      s->batch * job->in_blocks * s->kernel_h * s->kernel_w * s->out_h;
  float *buffer = onnxc_rt_scratch_take(
      (size_t)(rows * s->out_w * B) * sizeof(float), block);
  if (!buffer)
    return NULL;
  columns_work w = {s, job->x, buffer, job->in_blocks, rows};
  onnxc_parallel_for((size_t)rows, max_threads, columns_task, &w);
  return buffer;
}

/* The job's X strides (onnxc_conv_nchwc_job), from its final geometry. */
static void set_x_layout(onnxc_conv_nchwc_job *job) {
  const int64_t B = ONNXC_NCHWC_BLOCK;
  const onnxc_conv_nchwc_shape *s = &job->s;
  int64_t plane = s->in_h * s->in_w;
  job->x_image =
      s->nchw_input ? s->in_channels * plane : job->in_blocks * plane * B;
  job->x_pixel = s->nchw_input ? 1 : B;
  job->x_lane = s->nchw_input ? plane : 1;
}

/* The job of a convolution's operands; only the activation of `epilogue`
 * (NULL: none). */
static void init_job(onnxc_conv_nchwc_job *job,
                     const onnxc_conv_nchwc_shape *shape, const float *x,
                     const float *w, const float *bias, const float *z,
                     float *y, const onnxc_sgemm_epilogue *epilogue) {
  const int64_t B = ONNXC_NCHWC_BLOCK;
  job->s = *shape;
  job->in_blocks = (shape->in_channels + B - 1) / B;
  job->out_blocks = (shape->out_channels + B - 1) / B;
  job->x = x;
  job->w = w;
  job->bias = bias;
  job->z = z;
  job->y = y;
  if (epilogue) {
    job->epilogue.activation = epilogue->activation;
    job->epilogue.activation_alpha = epilogue->activation_alpha;
    job->epilogue.activation_beta = epilogue->activation_beta;
  }
  set_x_layout(job);
}

void onnxc_conv_nchwc(const onnxc_conv_nchwc_shape *shape, const float *x,
                      const float *w, const float *bias, const float *z,
                      float *y, const onnxc_sgemm_epilogue *epilogue,
                      int max_threads) {
  const int64_t B = ONNXC_NCHWC_BLOCK;
  conv_work work = {0};
  work.variant = active_variant();
  onnxc_conv_nchwc_job *job = &work.job;
  init_job(job, shape, x, w, bias, z, y, epilogue);
  onnxc_conv_nchwc_shape *s = &job->s;
  if (s->batch <= 0 || s->out_h <= 0 || s->out_w <= 0 || job->out_blocks <= 0)
    return;
  /* Below a few microseconds of work, waking workers costs more than it
   * saves. A depthwise convolution does a few FLOPs per byte and runs at a
   * fraction of the FMA rate: MobileNetV2's 7x7 ones (0.85 MFLOP) took
   * 31 us, single-threaded under the dense threshold. */
  double flops =
      2.0 * (double)(s->batch * s->out_h * s->out_w) *
      (double)(job->out_blocks * B) *
      (double)((s->depthwise ? 1 : s->in_channels) * s->kernel_h * s->kernel_w);
  if (flops < (s->depthwise ? 2.0e5 : 1.0e6))
    max_threads = 1;
  void *padded = NULL;
  /* A narrow map (the 14x14 and 7x7 outputs of ResNet-50's strided 1x1
   * and 3x3 convolutions): its rows cut into short tiles, which reload each
   * weight vector for few pixels (73-81% of the FMA peak, bench/conv). As
   * columns (gather_columns) the convolution is a 1x1 over the output's
   * pixels, which the 1x1 fast path below runs as one long row in full
   * tiles. A 1x1's columns are X at the strides; a KxK's are K^2 times the
   * output, and pay off on narrower rows only (ResNet-50's 3x3 s2 to 7x7:
   * -15% on 1 thread, -7% on 2; to 14x14: -2% on 1, +7% on 2). Not for a
   * plain 1x1 (flattened already), nor when the columns would take more
   * than 64 MB. */
  int64_t taps = s->kernel_h * s->kernel_w;
  double column_bytes = (double)(s->batch * job->in_blocks * taps) *
                        (double)(s->out_h * s->out_w * B) * 4.0;
  if (!force_direct && !s->depthwise && !s->nchw_input &&
      s->out_w < (taps > 1 ? 2 : 4) * work.variant->tile_w &&
      (taps > 1 || s->stride_h > 1 || s->stride_w > 1 || s->pad_top > 0 ||
       s->pad_left > 0) &&
      column_bytes <= 64.0 * 1024.0 * 1024.0) {
    const float *columns = gather_columns(job, &padded, max_threads);
    if (columns) {
      job->x = columns;
      /* The padding lanes of every block but the last are zero in the
       * columns, as are W's there: read them as channels. */
      s->in_channels = (job->in_blocks * taps - 1) * B +
                       (s->in_channels - (job->in_blocks - 1) * B);
      job->in_blocks *= taps;
      s->in_h = s->out_h;
      s->in_w = s->out_w;
      s->kernel_h = s->kernel_w = 1;
      s->stride_h = s->stride_w = 1;
      s->dilation_h = s->dilation_w = 1;
      s->pad_top = s->pad_left = 0;
    }
  }
  int64_t lo, hi;
  interior(s, &lo, &hi);
  /* A few edge pixels in a wide row cost less one at a time than the copy
   * (a 7x7 stem, 3x3 convolutions on 56-wide maps: measured). */
  int64_t edge = s->out_w - (hi > lo ? hi - lo : 0);
  if (!s->depthwise && !s->nchw_input && edge > 0 && edge * 16 > s->out_w) {
    int64_t extent = (s->kernel_w - 1) * s->dilation_w + 1;
    int64_t right =
        (s->out_w - 1) * s->stride_w + extent - s->pad_left - s->in_w;
    const float *copy =
        pad_columns(x, s->batch * job->in_blocks * s->in_h, s->in_w,
                    s->pad_left, right > 0 ? right : 0, &padded, max_threads);
    if (copy) {
      job->x = copy;
      s->in_w += s->pad_left + (right > 0 ? right : 0);
      s->pad_left = 0;
    }
  }
  set_x_layout(job);
  if (s->depthwise) {
    size_t tasks = (size_t)(s->batch * job->in_blocks * s->out_h);
    onnxc_parallel_for(tasks, max_threads, dw_task, &work);
    onnxc_rt_scratch_give(padded);
    return;
  }
  if (s->kernel_h == 1 && s->kernel_w == 1 && s->stride_h == 1 &&
      s->stride_w == 1 && s->pad_top == 0 && s->pad_left == 0 &&
      s->in_h == s->out_h && s->in_w == s->out_w) {
    s->in_w = s->out_w = s->in_h * s->in_w;
    s->in_h = s->out_h = 1;
  }
  choose_tile(work.variant, job->out_blocks, s->out_w, s->batch, 0,
              &work.tile_nb, &job->tile_w);
  work.groups = (job->out_blocks + work.tile_nb - 1) / work.tile_nb;
  /* Whole rows, except long (flattened) ones: chunks of a few tiles. Rows
   * are cut further while there are few tasks for the threads (small maps
   * at batch 1), down to two tiles. */
  int threads = onnxc_num_threads();
  if (max_threads > 0 && max_threads < threads)
    threads = max_threads;
  work.chunk = s->out_w;
  if (work.chunk > 16 * job->tile_w)
    work.chunk = 8 * job->tile_w;
  while (threads > 1 && work.chunk >= 4 * job->tile_w &&
         s->batch * work.groups * s->out_h *
                 ((s->out_w + work.chunk - 1) / work.chunk) <
             16 * threads)
    work.chunk = (work.chunk / 2 + job->tile_w - 1) / job->tile_w * job->tile_w;
  /* Chunks of equal width (within a tile), no short last one. */
  work.chunks = (s->out_w + work.chunk - 1) / work.chunk;
  work.chunk = (s->out_w + work.chunks - 1) / work.chunks;
  /* Weights that stay in the cache are cheaper to read again than X: walk
   * the output blocks innermost then, so that a chunk of X is read from
   * memory once. */
  double weight_bytes = (double)(job->out_blocks * job->in_blocks) *
                        (double)(s->kernel_h * s->kernel_w * B * B) * 4.0;
  work.group_inner = weight_bytes <= 1024.0 * 1024.0;
  /* A model's run reads all its convolutions' weights, so past a few
   * hundred KB they come from L3 or DRAM: the tasks of a group fetch the
   * next group's into L2 while they compute. */
  work.prefetch = weight_bytes > 256.0 * 1024.0;
  /* Weights that do not fit and outweigh X (small maps, many channels):
   * threads that share a group each stream its weights from L3. Give each
   * task whole groups instead, when they balance: many of them, or as
   * many full ones on every thread (tasks are taken in order). */
  double x_bytes = (double)job->x_image * 4.0;
  int64_t group_tasks = s->batch * work.groups;
  work.group_whole = threads > 1 && !work.group_inner &&
                     weight_bytes > 2.0 * x_bytes &&
                     (group_tasks >= 4 * threads ||
                      (group_tasks >= threads && group_tasks % threads == 0 &&
                       job->out_blocks % work.tile_nb == 0));
  /* Else a tile of fewer blocks may give every thread as many groups. */
  if (threads > 1 && !work.group_inner && weight_bytes > 2.0 * x_bytes &&
      !work.group_whole &&
      choose_tile(work.variant, job->out_blocks, s->out_w, s->batch, threads,
                  &work.tile_nb, &job->tile_w)) {
    work.groups = job->out_blocks / work.tile_nb;
    group_tasks = s->batch * work.groups;
    work.group_whole = 1;
  }
  size_t tasks = (size_t)(s->batch * work.groups * s->out_h * work.chunks);
  if (work.group_whole)
    tasks = (size_t)group_tasks;
  onnxc_parallel_for(tasks, max_threads, conv_task, &work);
  onnxc_rt_scratch_give(padded);
}

/* Winograd F(2x2, 3x3) (ConvWinogradTile.inc, ConvWinogradWeights.h):
 * tasks of (image, band of tiles). A band's V and M (16 x (C + M) floats a
 * tile) are sized to stay in L2 while the 16 products read them, and when U
 * outgrows L2 the bands are as wide as that allows, so that U is streamed
 * from L3 as few times as possible. */
int onnxc_conv_nchwc_winograd_applies(const onnxc_conv_nchwc_shape *s) {
  return !s->depthwise && s->kernel_h == 3 && s->kernel_w == 3 &&
         s->stride_h == 1 && s->stride_w == 1 && s->dilation_h == 1 &&
         s->dilation_w == 1 && s->in_channels > 0 && s->out_channels > 0 &&
         s->pad_top >= 0 && s->pad_left >= 0;
}

typedef struct winograd_work {
  const onnxc_conv_nchwc_variant *variant;
  onnxc_conv_nchwc_job job;  /* the 3x3 convolution */
  onnxc_conv_nchwc_job gemm; /* one position's product, a 1x1 convolution */
  const float *u;
  int tile;          /* outputs a side of a Winograd tile: 2 or 4 */
  int64_t positions; /* (tile + 2)^2, onnxc_conv_winograd_positions */
  int64_t tiles_w, tiles, band, bands, tile_nb;
  int64_t slices, slice_blocks; /* output blocks cut among the tasks */
  int prefetch;                 /* U is beyond L2: prefetch it (conv_rows) */
  float *scratch;
  int64_t scratch_floats; /* per worker */
} winograd_work;

/* Tiles [t0, t0 + band) of one image: the input transform, the products
 * (one per position) on the 1x1 micro-kernel, the output transform; V and
 * M in the worker's scratch, sized to stay in L2. */
static void winograd_task(void *context, size_t task, int worker) {
  const int64_t B = ONNXC_NCHWC_BLOCK;
  const winograd_work *work = context;
  int64_t slice = (int64_t)task % work->slices;
  int64_t n = (int64_t)task / work->slices / work->bands;
  int64_t t0 = (int64_t)task / work->slices % work->bands * work->band;
  int64_t count = work->tiles - t0 < work->band ? work->tiles - t0 : work->band;
  int64_t in_blocks = work->job.in_blocks, out_blocks = work->job.out_blocks;
  int64_t mb0 = slice * work->slice_blocks, mb1 = mb0 + work->slice_blocks;
  if (mb1 > out_blocks)
    mb1 = out_blocks;
  float *v = work->scratch + worker * work->scratch_floats;
  const int64_t positions = work->positions;
  float *m = v + positions * in_blocks * work->band * B;
  work->variant->winograd_input(&work->job, work->tile, n, work->tiles_w, t0,
                                count, v);
  onnxc_conv_nchwc_job gemm = work->gemm;
  gemm.s.in_w = gemm.s.out_w = count;
  /* Each product prefetches the U it is followed by (the first one's: the
   * next task's, on this thread), when U is beyond L2. */
  int64_t pos_floats = out_blocks * in_blocks * B * B;
  int64_t block_floats = in_blocks * B * B;
  int64_t next_mb0 = ((int64_t)task + 1) % work->slices * work->slice_blocks;
  for (int64_t pos = 0; pos < positions; ++pos) {
    gemm.x = v + pos * in_blocks * count * B;
    gemm.w = work->u + pos * pos_floats;
    gemm.y = m + pos * out_blocks * count * B;
    for (int64_t mb = mb0; mb < mb1; mb += work->tile_nb) {
      int64_t nb = mb1 - mb < work->tile_nb ? mb1 - mb : work->tile_nb;
      onnxc_conv_prefetch next = {NULL, 0};
      if (work->prefetch) {
        int64_t next_pos = pos, next_mb = mb + nb;
        if (next_mb >= mb1) {
          next_pos = (pos + 1) % positions;
          next_mb = next_pos ? mb0 : next_mb0;
        }
        int64_t next_nb = out_blocks - next_mb < work->tile_nb
                              ? out_blocks - next_mb
                              : work->tile_nb;
        if (next_nb > 0) { /* a last slice may hold no blocks */
          next.next = work->u + next_pos * pos_floats + next_mb * block_floats;
          next.floats = next_nb * block_floats;
        }
      }
      work->variant->rows(&gemm, 0, mb, nb, 0, 0, count, next);
    }
  }
  work->variant->winograd_output(&work->job, work->tile, n, work->tiles_w, t0,
                                 count, mb0, mb1, m);
}

int onnxc_conv_nchwc_winograd(const onnxc_conv_nchwc_shape *shape, int tile,
                              const float *x, const float *u, const float *bias,
                              const float *z, float *y,
                              const onnxc_sgemm_epilogue *epilogue,
                              int max_threads) {
  const int64_t B = ONNXC_NCHWC_BLOCK;
  winograd_work work = {0};
  work.variant = active_variant();
  onnxc_conv_nchwc_job *job = &work.job;
  init_job(job, shape, x, NULL, bias, z, y, epilogue); /* U goes to `work` */
  const onnxc_conv_nchwc_shape *s = &job->s;
  if (s->batch <= 0 || s->out_h <= 0 || s->out_w <= 0 || job->out_blocks <= 0)
    return 1;
  work.u = u;
  work.tile = tile == 4 ? 4 : 2;
  work.positions = onnxc_conv_winograd_positions(work.tile);
  work.tiles_w = (s->out_w + work.tile - 1) / work.tile;
  work.tiles = work.tiles_w * ((s->out_h + work.tile - 1) / work.tile);
  /* V and M of a band in well under L2 (2 MB on the machines measured);
   * more when U does not fit there either (ResNet-50's 14x14 3x3s: 870 ->
   * 780 us with one band, measured). */
  int64_t u_bytes =
      work.positions * job->in_blocks * job->out_blocks * B * B * 4;
  int64_t budget = u_bytes > (1 << 20) ? 3 << 19 : 3 << 18;
  work.prefetch = u_bytes > (1 << 20);
  int64_t per_tile =
      work.positions * (job->in_blocks + job->out_blocks) * B * 4;
  work.band = budget / per_tile;
  if (work.band < 1)
    work.band = 1;
  if (work.band > work.tiles)
    work.band = work.tiles;
  int threads = onnxc_num_threads();
  if (max_threads > 0 && max_threads < threads)
    threads = max_threads;
  /* Enough tasks for the threads: when U outgrows L2, every task of a
   * band streaming all of it would multiply that traffic, so the threads
   * share a band's output blocks instead (each transforms the band's input;
   * ResNet-50's 14x14 3x3 on 2 threads: 531 -> 412 us, measured); else
   * narrower bands. */
  work.slices = 1;
  if (threads > 1 && u_bytes > (1 << 20) &&
      s->batch * ((work.tiles + work.band - 1) / work.band) < 2 * threads)
    work.slices = threads;
  while (threads > 1 && work.slices == 1 && work.band > 8 &&
         s->batch * ((work.tiles + work.band - 1) / work.band) < 2 * threads)
    work.band = (work.band + 1) / 2;
  work.bands = (work.tiles + work.band - 1) / work.band;
  work.band = (work.tiles + work.bands - 1) / work.bands;
  onnxc_conv_nchwc_job *gemm = &work.gemm;
  gemm->s.batch = 1;
  gemm->s.in_channels = s->in_channels;
  gemm->s.out_channels = s->out_channels;
  gemm->s.in_h = gemm->s.out_h = 1;
  gemm->s.kernel_h = gemm->s.kernel_w = 1;
  gemm->s.stride_h = gemm->s.stride_w = 1;
  gemm->s.dilation_h = gemm->s.dilation_w = 1;
  gemm->in_blocks = job->in_blocks;
  gemm->out_blocks = job->out_blocks;
  choose_tile(work.variant, job->out_blocks, work.band, 1, 0, &work.tile_nb,
              &gemm->tile_w);
  /* Slices of whole tiles' worth of output blocks. */
  int64_t groups = (job->out_blocks + work.tile_nb - 1) / work.tile_nb;
  if (work.slices > groups)
    work.slices = groups;
  work.slice_blocks = (groups + work.slices - 1) / work.slices * work.tile_nb;
  work.scratch_floats =
      work.positions * (job->in_blocks + job->out_blocks) * work.band * B;
  void *block = NULL;
  work.scratch = onnxc_rt_scratch_take(
      (size_t)(threads * work.scratch_floats) * sizeof(float), &block);
  if (!work.scratch) {
    /* Short of memory: one tile at a time on one thread. */
    threads = 1;
    work.band = 1;
    work.bands = work.tiles;
    work.slices = 1;
    work.slice_blocks = job->out_blocks;
    work.scratch_floats =
        work.positions * (job->in_blocks + job->out_blocks) * B;
    choose_tile(work.variant, job->out_blocks, 1, 1, 0, &work.tile_nb,
                &gemm->tile_w);
    work.scratch = onnxc_rt_scratch_take(
        (size_t)work.scratch_floats * sizeof(float), &block);
    if (!work.scratch)
      return 0;
  }
  onnxc_parallel_for((size_t)(s->batch * work.bands * work.slices), threads,
                     winograd_task, &work);
  onnxc_rt_scratch_give(block);
  return 1;
}

typedef struct maxpool_work {
  const onnxc_conv_nchwc_variant *variant;
  const onnxc_maxpool_nchwc_shape *s;
  const float *x;
  float *y;
} maxpool_work;

static void maxpool_task(void *context, size_t task, int worker) {
  (void)worker;
  const maxpool_work *p = context;
  int64_t oh = (int64_t)task % p->s->out_h;
  p->variant->maxpool_row(p->s, p->x, p->y, (int64_t)task / p->s->out_h, oh);
}

/* Tasks of (plane, output row). */
void onnxc_maxpool_nchwc(const onnxc_maxpool_nchwc_shape *shape, const float *x,
                         float *y, int max_threads) {
  int64_t total =
      shape->planes * shape->out_h * shape->out_w * (int64_t)ONNXC_NCHWC_BLOCK;
  if (total <= 0)
    return;
  maxpool_work p = {active_variant(), shape, x, y};
  /* A few hundred kilobytes are not worth waking the workers for. */
  if (total < (1 << 16))
    max_threads = 1;
  onnxc_parallel_for((size_t)(shape->planes * shape->out_h), max_threads,
                     maxpool_task, &p);
}
