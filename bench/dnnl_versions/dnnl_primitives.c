/*===- dnnl_primitives.c - One binary per oneDNN version, same primitives -===*
 *
 * Times the oneDNN primitives the dnnl target calls (f32 and int8
 * convolutions and matmuls at ResNet-50 and BERT-base shapes) through the C
 * API of whichever oneDNN it is built against: 2.x (Debian's libdnnl-dev)
 * or 3.x (PyPI's onednn + onednn-devel). Weights are reordered once into
 * the layout the primitive picks, as the glue does; activations stay in the
 * layout the primitive picks too, so only the primitive is timed. Prints
 * one TSV row per case: name, median microseconds, runs, and the
 * microseconds the primitive's creation took (descriptor and primitive).
 *
 * Built and run by bench/dnnl_versions.py.
 *
 *===----------------------------------------------------------------------===*/

#include <oneapi/dnnl/dnnl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    dnnl_status_t s_ = (call);                                                 \
    if (s_ != dnnl_success) {                                                  \
      fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call,     \
              (int)s_);                                                        \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

#if DNNL_VERSION_MAJOR >= 3
typedef const_dnnl_memory_desc_t query_md_t;
#define MD(x) (x)
#else
typedef const dnnl_memory_desc_t *query_md_t;
#define MD(x) (&(x))
#endif

static dnnl_engine_t engine;
static dnnl_stream_t stream;
/* How long the last primitive_of took (the load-time cost of a site). */
static double create_us;

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

static int compare_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Plain memory descriptor by tag, for either API. */
static void make_md(dnnl_memory_desc_t *md, int ndims, const dnnl_dims_t dims,
                    dnnl_data_type_t type, dnnl_format_tag_t tag) {
#if DNNL_VERSION_MAJOR >= 3
  CHECK(dnnl_memory_desc_create_with_tag(md, ndims, dims, type, tag));
#else
  CHECK(dnnl_memory_desc_init_by_tag(md, ndims, dims, type, tag));
#endif
}

static dnnl_memory_t filled_memory(query_md_t md, float value) {
  size_t bytes = dnnl_memory_desc_get_size(md);
  void *data = aligned_alloc(64, (bytes + 63) / 64 * 64);
  /* Small bytes: a value that neither overflows int8 nor denormalizes. */
  memset(data, value > 0 ? 1 : 0, bytes);
  dnnl_memory_t m;
  CHECK(dnnl_memory_create(&m, md, engine, data));
  return m;
}

static dnnl_memory_t f32_vector(int64_t n, float value) {
  dnnl_dims_t dims = {n};
  dnnl_memory_desc_t md;
  make_md(&md, 1, dims, dnnl_f32, dnnl_a);
  float *data = aligned_alloc(64, (size_t)((n * 4 + 63) / 64 * 64));
  for (int64_t i = 0; i < n; ++i)
    data[i] = value;
  dnnl_memory_t m;
  CHECK(dnnl_memory_create(&m, MD(md), engine, data));
  return m;
}

/* Executes `p` with `args` until 0.4 s have passed (at least 10, at most
 * 200 runs, after 3 warm-ups); prints the median. */
static void time_primitive(const char *name, dnnl_primitive_t p, int nargs,
                           const dnnl_exec_arg_t *args) {
  for (int i = 0; i < 3; ++i)
    CHECK(dnnl_primitive_execute(p, stream, nargs, args));
  CHECK(dnnl_stream_wait(stream));
  double runs[200];
  int count = 0;
  double start = now_us();
  while (count < 200 && (count < 10 || now_us() - start < 4e5)) {
    double t0 = now_us();
    CHECK(dnnl_primitive_execute(p, stream, nargs, args));
    CHECK(dnnl_stream_wait(stream));
    runs[count++] = now_us() - t0;
  }
  qsort(runs, (size_t)count, sizeof runs[0], compare_double);
  printf("%s\t%.1f\t%d\t%.1f\n", name, runs[count / 2], count, create_us);
  fflush(stdout);
}

/* Creates the primitive of `pd` and the scratchpad it asks for; the
 * descriptor's creation began at `start`. */
static dnnl_primitive_t primitive_of(const_dnnl_primitive_desc_t pd,
                                     double start, dnnl_memory_t *scratchpad) {
  dnnl_primitive_t p;
  CHECK(dnnl_primitive_create(&p, pd));
  create_us = now_us() - start;
  *scratchpad = filled_memory(
      dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0), 0);
  return p;
}

/* int8 output scale attributes: per output channel, as the dnnl target's
 * per-channel requantization. 3.x takes the scales as run-time arguments
 * (src, weights per `weight_mask`, dst); 2.x as one precomputed output
 * scale per channel of dst (`dst_mask`). */
static dnnl_primitive_attr_t int8_attr(int64_t channels, int weight_mask,
                                       int dst_mask) {
  dnnl_primitive_attr_t attr;
  CHECK(dnnl_primitive_attr_create(&attr));
  CHECK(
      dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user));
#if DNNL_VERSION_MAJOR >= 3
  (void)channels;
  (void)dst_mask;
  CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 0));
  CHECK(
      dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_WEIGHTS, weight_mask));
  CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_DST, 0));
#else
  float *scales = malloc((size_t)channels * sizeof(float));
  for (int64_t i = 0; i < channels; ++i)
    scales[i] = 0.01f;
  (void)weight_mask;
  CHECK(
      dnnl_primitive_attr_set_output_scales(attr, channels, dst_mask, scales));
  free(scales);
#endif
  return attr;
}

static dnnl_primitive_attr_t f32_attr(void) {
  dnnl_primitive_attr_t attr;
  CHECK(dnnl_primitive_attr_create(&attr));
  CHECK(
      dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user));
  return attr;
}

/* Appends the run-time scale arguments of int8_attr (3.x only). */
static int add_scale_args(dnnl_exec_arg_t *args, int n, int64_t channels) {
#if DNNL_VERSION_MAJOR >= 3
  args[n++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC,
                                f32_vector(1, 0.1f)};
  args[n++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS,
                                f32_vector(channels, 0.05f)};
  args[n++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST,
                                f32_vector(1, 0.5f)};
#else
  (void)channels;
#endif
  return n;
}

typedef struct conv_shape {
  const char *name;
  int64_t n, c, h, w, m, k, stride, pad;
} conv_shape;

static void bench_conv(const conv_shape *s, int int8) {
  int64_t oh = (s->h + 2 * s->pad - s->k) / s->stride + 1;
  int64_t ow = (s->w + 2 * s->pad - s->k) / s->stride + 1;
  dnnl_dims_t src_dims = {s->n, s->c, s->h, s->w};
  dnnl_dims_t wei_dims = {s->m, s->c, s->k, s->k};
  dnnl_dims_t bias_dims = {s->m};
  dnnl_dims_t dst_dims = {s->n, s->m, oh, ow};
  dnnl_dims_t strides = {s->stride, s->stride};
  dnnl_dims_t dilates = {0, 0};
  dnnl_dims_t pads = {s->pad, s->pad};
  dnnl_data_type_t act = int8 ? dnnl_u8 : dnnl_f32;
  dnnl_data_type_t wei = int8 ? dnnl_s8 : dnnl_f32;
  dnnl_data_type_t bias = int8 ? dnnl_s32 : dnnl_f32;
  dnnl_memory_desc_t src_md, wei_md, bias_md, dst_md;
  make_md(&src_md, 4, src_dims, act, dnnl_format_tag_any);
  make_md(&wei_md, 4, wei_dims, wei, dnnl_format_tag_any);
  make_md(&bias_md, 1, bias_dims, bias, dnnl_x);
  make_md(&dst_md, 4, dst_dims, act, dnnl_format_tag_any);
  dnnl_primitive_attr_t attr = int8 ? int8_attr(s->m, 1, 2) : f32_attr();
  dnnl_primitive_desc_t pd;
  double start = now_us();
#if DNNL_VERSION_MAJOR >= 3
  CHECK(dnnl_convolution_forward_primitive_desc_create(
      &pd, engine, dnnl_forward_inference, dnnl_convolution_direct, src_md,
      wei_md, bias_md, dst_md, strides, dilates, pads, pads, attr));
#else
  dnnl_convolution_desc_t desc;
  CHECK(dnnl_dilated_convolution_forward_desc_init(
      &desc, dnnl_forward_inference, dnnl_convolution_direct, &src_md, &wei_md,
      &bias_md, &dst_md, strides, dilates, pads, pads));
  CHECK(dnnl_primitive_desc_create(&pd, &desc, attr, engine, NULL));
#endif
  dnnl_memory_t scratchpad;
  dnnl_primitive_t p = primitive_of(pd, start, &scratchpad);
  dnnl_exec_arg_t args[10] = {
      {DNNL_ARG_SRC,
       filled_memory(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0),
                     1)},
      {DNNL_ARG_WEIGHTS,
       filled_memory(dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0),
                     1)},
      {DNNL_ARG_BIAS, filled_memory(MD(bias_md), 0)},
      {DNNL_ARG_DST,
       filled_memory(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0),
                     0)},
      {DNNL_ARG_SCRATCHPAD, scratchpad}};
  int nargs = int8 ? add_scale_args(args, 5, s->m) : 5;
  char name[96];
  snprintf(name, sizeof name, "conv_%s_%s", int8 ? "u8s8" : "f32", s->name);
  time_primitive(name, p, nargs, args);
}

typedef struct matmul_shape {
  const char *name;
  int64_t m, k, n;
} matmul_shape;

static void bench_matmul(const matmul_shape *s, int int8) {
  dnnl_dims_t src_dims = {s->m, s->k};
  dnnl_dims_t wei_dims = {s->k, s->n};
  dnnl_dims_t dst_dims = {s->m, s->n};
  dnnl_data_type_t act = int8 ? dnnl_u8 : dnnl_f32;
  dnnl_data_type_t wei = int8 ? dnnl_s8 : dnnl_f32;
  dnnl_memory_desc_t src_md, wei_md, dst_md;
  make_md(&src_md, 2, src_dims, act, dnnl_ab);
  make_md(&wei_md, 2, wei_dims, wei, dnnl_format_tag_any);
  make_md(&dst_md, 2, dst_dims, int8 ? dnnl_u8 : dnnl_f32, dnnl_ab);
  dnnl_primitive_attr_t attr = int8 ? int8_attr(s->n, 2, 2) : f32_attr();
  dnnl_primitive_desc_t pd;
  double start = now_us();
#if DNNL_VERSION_MAJOR >= 3
  CHECK(dnnl_matmul_primitive_desc_create(&pd, engine, src_md, wei_md, NULL,
                                          dst_md, attr));
#else
  dnnl_matmul_desc_t desc;
  CHECK(dnnl_matmul_desc_init(&desc, &src_md, &wei_md, NULL, &dst_md));
  CHECK(dnnl_primitive_desc_create(&pd, &desc, attr, engine, NULL));
#endif
  dnnl_memory_t scratchpad;
  dnnl_primitive_t p = primitive_of(pd, start, &scratchpad);
  dnnl_exec_arg_t args[10] = {
      {DNNL_ARG_SRC, filled_memory(MD(src_md), 1)},
      {DNNL_ARG_WEIGHTS,
       filled_memory(dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0),
                     1)},
      {DNNL_ARG_DST, filled_memory(MD(dst_md), 0)},
      {DNNL_ARG_SCRATCHPAD, scratchpad}};
  int nargs = int8 ? add_scale_args(args, 4, s->n) : 4;
  char name[96];
  snprintf(name, sizeof name, "matmul_%s_%s", int8 ? "u8s8" : "f32", s->name);
  time_primitive(name, p, nargs, args);
}

int main(void) {
  CHECK(dnnl_engine_create(&engine, dnnl_cpu, 0));
  CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
  const dnnl_version_t *v = dnnl_version();
  fprintf(stderr, "oneDNN %d.%d.%d (%s), cpu runtime %u\n", v->major, v->minor,
          v->patch, v->hash, v->cpu_runtime);
  /* ResNet-50's convolution kinds, MobileNet's expansion, at batch 1. */
  static const conv_shape convs[] = {
      {"7x7s2_3to64_224", 1, 3, 224, 224, 64, 7, 2, 3},
      {"1x1_64to256_56", 1, 64, 56, 56, 256, 1, 1, 0},
      {"3x3_64to64_56", 1, 64, 56, 56, 64, 3, 1, 1},
      {"3x3_128to128_28", 1, 128, 28, 28, 128, 3, 1, 1},
      {"1x1_1024to256_14", 1, 1024, 14, 14, 256, 1, 1, 0},
      {"3x3_512to512_7", 1, 512, 7, 7, 512, 3, 1, 1},
      {"1x1_96to24_56", 1, 96, 56, 56, 24, 1, 1, 0},
  };
  /* BERT-base's projections at 128 tokens, a small MLP layer. */
  static const matmul_shape matmuls[] = {
      {"128x768x768", 128, 768, 768},
      {"128x768x3072", 128, 768, 3072},
      {"128x3072x768", 128, 3072, 768},
      {"1x512x512", 1, 512, 512},
  };
  for (int int8 = 0; int8 <= 1; ++int8) {
    for (size_t i = 0; i < sizeof convs / sizeof convs[0]; ++i)
      bench_conv(&convs[i], int8);
    for (size_t i = 0; i < sizeof matmuls / sizeof matmuls[0]; ++i)
      bench_matmul(&matmuls[i], int8);
  }
  return 0;
}
