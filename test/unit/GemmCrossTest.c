/*===- GemmCrossTest.c - The packed GEMM vs the reference, in plain C ------===*
 *
 * The checks of GemmTest.cpp for targets without GoogleTest: built by a
 * cross compiler against that target's runtime archive and run under
 * qemu-user (test/cross/gemm_cross_test.py, ctest label `cross`). Every
 * micro-kernel variant the CPU runs is forced in turn and compared with
 * onnxc_sgemm_reference: odd sizes that hit every edge tile, transposes,
 * leading dimensions wider than the matrices, alpha/beta, every epilogue, K
 * and N over one cache block, several threads, results independent of the
 * thread count, a broadcast operand, and NaN/inf propagation. On AArch64 the
 * NEON kernel must exist and be the default.
 *
 * Prints one line per failure and a summary; exits 1 on any failure.
 *
 *===----------------------------------------------------------------------===*/

#include "runtime/cpu/ThreadPool.h"
#include "runtime/cpu/kernels/Gemm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
static int checks;

#define EXPECT(cond, ...)                                                      \
  do {                                                                         \
    ++checks;                                                                  \
    if (!(cond)) {                                                             \
      ++failures;                                                              \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                              \
      printf(__VA_ARGS__);                                                     \
      printf("\n");                                                            \
    }                                                                          \
  } while (0)

/* Uniform in [-1, 1), the same sequence on every target. */
static float *random_vector(size_t size, unsigned seed) {
  float *v = malloc((size ? size : 1) * sizeof(float));
  uint64_t state = 0x9E3779B97F4A7C15ull * (seed + 1);
  for (size_t i = 0; i < size; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v[i] = (float)((double)(state >> 40) / (double)(1u << 24)) * 2.0f - 1.0f;
  }
  return v;
}

static float *copy_vector(const float *src, size_t size) {
  float *v = malloc((size ? size : 1) * sizeof(float));
  memcpy(v, src, size * sizeof(float));
  return v;
}

typedef struct gemm_case {
  int trans_a, trans_b;
  size_t m, n, k;
  size_t pad; /* extra columns in every leading dimension */
  float alpha, beta;
  onnxc_sgemm_epilogue epilogue;
  int bias_kind; /* 0 none, 1 per column, 2 per row, 3 scalar, 4 matrix */
  int residual;
} gemm_case;

/* Both are the same class of value: finite and close, or equal infinities,
 * or both NaN. */
static int matches(float want, float have, float tolerance) {
  if (isnan(want) || isnan(have))
    return isnan(want) && isnan(have);
  if (isinf(want) || isinf(have))
    return want == have;
  return fabsf(want - have) <= tolerance * (1.0f + fabsf(want));
}

/* Runs `c` through onnxc_sgemm with `isa` forced and through the reference;
 * compares every element and checks the padding columns are untouched.
 * `poison` (if not NULL) edits A and B first. */
static void check_case(gemm_case c, int isa, int threads,
                       void (*poison)(float *a, size_t lda, float *b,
                                      size_t ldb)) {
  size_t a_rows = c.trans_a ? c.k : c.m, a_cols = c.trans_a ? c.m : c.k;
  size_t b_rows = c.trans_b ? c.n : c.k, b_cols = c.trans_b ? c.k : c.n;
  size_t lda = a_cols + c.pad, ldb = b_cols + c.pad, ldc = c.n + c.pad;
  float *a = random_vector(a_rows * lda, 1);
  float *b = random_vector(b_rows * ldb, 2);
  float *c0 = random_vector(c.m * ldc, 3);
  float *bias = random_vector(c.m * ldc, 4);
  float *residual = random_vector(c.m * ldc, 5);
  if (poison)
    poison(a, lda, b, ldb);
  onnxc_sgemm_epilogue e = c.epilogue;
  e.bias_scale = 0.75f;
  switch (c.bias_kind) {
  case 1:
    e.bias = bias;
    e.bias_col_stride = 1;
    break;
  case 2:
    e.bias = bias;
    e.bias_row_stride = 1;
    break;
  case 3:
    e.bias = bias + 7;
    break;
  case 4:
    e.bias = bias;
    e.bias_row_stride = (ptrdiff_t)ldc;
    e.bias_col_stride = 1;
    break;
  default:
    break;
  }
  if (c.residual) {
    e.residual = residual;
    e.residual_ld = (ptrdiff_t)ldc;
  }
  float *expected = copy_vector(c0, c.m * ldc);
  float *got = copy_vector(c0, c.m * ldc);
  onnxc_sgemm_reference(c.trans_a, c.trans_b, c.m, c.n, c.k, c.alpha, a, lda, b,
                        ldb, c.beta, expected, ldc, &e);
  EXPECT(onnxc_sgemm_force_isa(isa), "cannot force %s",
         onnxc_sgemm_isa_name(isa));
  EXPECT(onnxc_sgemm_current_isa() == isa, "current isa %d, forced %d",
         onnxc_sgemm_current_isa(), isa);
  onnxc_set_num_threads(threads);
  onnxc_sgemm(c.trans_a, c.trans_b, c.m, c.n, c.k, c.alpha, a, lda, b, ldb,
              c.beta, got, ldc, &e);
  onnxc_set_num_threads(0);
  onnxc_sgemm_force_isa(ONNXC_SGEMM_ISA_AUTO);

  float tolerance = 2e-6f * (float)c.k + 1e-5f;
  size_t bad = 0;
  for (size_t i = 0; i < c.m; ++i)
    for (size_t j = 0; j < ldc; ++j) {
      float want = expected[i * ldc + j], have = got[i * ldc + j];
      int ok = j >= c.n ? memcmp(&have, &c0[i * ldc + j], sizeof have) == 0
                        : matches(want, have, tolerance);
      if (!ok && bad++ < 3)
        EXPECT(0,
               "%s threads=%d tA=%d tB=%d M=%zu N=%zu K=%zu pad=%zu "
               "alpha=%g beta=%g act=%d bias=%d residual=%d: C(%zu, %zu) = "
               "%g, expected %g%s",
               onnxc_sgemm_isa_name(isa), threads, c.trans_a, c.trans_b, c.m,
               c.n, c.k, c.pad, c.alpha, c.beta, (int)c.epilogue.activation,
               c.bias_kind, c.residual, i, j, have, want,
               j >= c.n ? " (padding written)" : "");
    }
  ++checks;
  free(a);
  free(b);
  free(c0);
  free(bias);
  free(residual);
  free(expected);
  free(got);
}

static void odd_sizes_transposes_and_padding(int isa) {
  const size_t sizes[] = {1, 3, 17, 31, 100, 257};
  const size_t depths[] = {1, 17, 100};
  for (size_t mi = 0; mi < 6; ++mi)
    for (size_t ni = 0; ni < 6; ++ni)
      for (size_t ki = 0; ki < 3; ++ki) {
        gemm_case c = {0};
        c.m = sizes[mi];
        c.n = sizes[ni];
        c.k = depths[ki];
        c.alpha = 1.0f;
        c.trans_a = (int)((c.m + c.n) % 2);
        c.trans_b = (int)((c.n + c.k) % 2);
        c.pad = (c.m + c.k) % 3 == 0 ? 5 : 0;
        check_case(c, isa, 1, NULL);
      }
}

static void every_transpose_alpha_beta(int isa) {
  const float alphas[] = {1.0f, -0.5f}, betas[] = {0.0f, 1.0f, 0.25f};
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb)
      for (int ai = 0; ai < 2; ++ai)
        for (int bi = 0; bi < 3; ++bi) {
          gemm_case c = {0};
          c.trans_a = ta;
          c.trans_b = tb;
          c.m = 31;
          c.n = 45;
          c.k = 23;
          c.pad = 3;
          c.alpha = alphas[ai];
          c.beta = betas[bi];
          check_case(c, isa, 1, NULL);
        }
}

static void beta_zero_ignores_nan_in_c(int isa) {
  size_t m = 13, n = 35, k = 9;
  float *a = random_vector(m * k, 1), *b = random_vector(k * n, 2);
  float *c = malloc(m * n * sizeof(float));
  float *expected = malloc(m * n * sizeof(float));
  for (size_t i = 0; i < m * n; ++i)
    c[i] = NAN;
  onnxc_sgemm_force_isa(isa);
  onnxc_sgemm(0, 0, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n, NULL);
  onnxc_sgemm_force_isa(ONNXC_SGEMM_ISA_AUTO);
  onnxc_sgemm_reference(0, 0, m, n, k, 1.0f, a, k, b, n, 0.0f, expected, n,
                        NULL);
  size_t bad = 0;
  for (size_t i = 0; i < m * n; ++i)
    bad += !(fabsf(c[i] - expected[i]) <= 1e-4f);
  EXPECT(bad == 0, "%s: beta = 0 read C (%zu elements wrong)",
         onnxc_sgemm_isa_name(isa), bad);
  free(a);
  free(b);
  free(c);
  free(expected);
}

static void every_epilogue(int isa) {
  const struct {
    int kind;
    float alpha, beta;
  } activations[] = {{ONNXC_ACTIVATION_NONE, 0, 0},
                     {ONNXC_ACTIVATION_RELU, 0, 0},
                     {ONNXC_ACTIVATION_LEAKY_RELU, 0.1f, 0},
                     {ONNXC_ACTIVATION_CLIP, -0.5f, 0.75f},
                     {ONNXC_ACTIVATION_SIGMOID, 0, 0},
                     {ONNXC_ACTIVATION_TANH, 0, 0},
                     {ONNXC_ACTIVATION_HARD_SIGMOID, 0.2f, 0.5f},
                     {ONNXC_ACTIVATION_GELU, 0, 0},
                     {ONNXC_ACTIVATION_FAST_GELU, 0, 0}};
  for (size_t ai = 0; ai < sizeof activations / sizeof activations[0]; ++ai)
    for (int bias_kind = 0; bias_kind <= 4; ++bias_kind)
      for (int residual = 0; residual < 2; ++residual) {
        gemm_case c = {0};
        c.m = 37;
        c.n = 70;
        c.k = 19;
        c.pad = 2;
        c.alpha = 1.5f;
        c.beta = bias_kind == 4 ? 0.5f : 0.0f;
        c.epilogue.activation = activations[ai].kind;
        c.epilogue.activation_alpha = activations[ai].alpha;
        c.epilogue.activation_beta = activations[ai].beta;
        c.bias_kind = bias_kind;
        c.residual = residual;
        check_case(c, isa, 1, NULL);
      }
}

static void larger_than_one_cache_block(int isa) {
  /* K over KC (beta on the first K block only), N over NC, M over MC. */
  gemm_case c = {0};
  c.m = 5;
  c.n = 2100;
  c.k = 1000;
  c.alpha = 0.5f;
  c.beta = 0.5f;
  c.bias_kind = 1;
  c.epilogue.activation = ONNXC_ACTIVATION_RELU;
  check_case(c, isa, 1, NULL);
  c.m = 530;
  c.n = 40;
  c.k = 800;
  c.trans_a = 1;
  c.bias_kind = 2;
  check_case(c, isa, 1, NULL);
}

static void several_threads(int isa) {
  const int counts[] = {2, 3, 8};
  for (int t = 0; t < 3; ++t) {
    gemm_case c = {0};
    c.m = 300;
    c.n = 257;
    c.k = 130;
    c.pad = 1;
    c.alpha = 1.0f;
    c.beta = 1.0f;
    c.bias_kind = 1;
    c.residual = 1;
    c.epilogue.activation = ONNXC_ACTIVATION_TANH;
    check_case(c, isa, counts[t], NULL);
    c.m = 1; /* the unpacked one-row path, columns split across threads */
    c.n = 1000;
    c.k = 300;
    check_case(c, isa, counts[t], NULL);
    c.m = 3; /* few rows: the columns are split instead */
    c.trans_b = 1;
    check_case(c, isa, counts[t], NULL);
  }
}

static void result_does_not_depend_on_thread_count(int isa) {
  size_t m = 200, n = 190, k = 700;
  float *a = random_vector(m * k, 1), *b = random_vector(k * n, 2);
  float *one = calloc(m * n, sizeof(float));
  float *many = calloc(m * n, sizeof(float));
  onnxc_sgemm_force_isa(isa);
  onnxc_set_num_threads(1);
  onnxc_sgemm(0, 0, m, n, k, 1.0f, a, k, b, n, 0.0f, one, n, NULL);
  onnxc_set_num_threads(4);
  onnxc_sgemm(0, 0, m, n, k, 1.0f, a, k, b, n, 0.0f, many, n, NULL);
  onnxc_set_num_threads(0);
  onnxc_sgemm_force_isa(ONNXC_SGEMM_ISA_AUTO);
  EXPECT(memcmp(one, many, m * n * sizeof(float)) == 0,
         "%s: 1 and 4 threads differ", onnxc_sgemm_isa_name(isa));
  free(a);
  free(b);
  free(one);
  free(many);
}

static void strided_broadcast_operand(int isa) {
  /* A row broadcast over M (row stride 0): every output row is the same. */
  size_t m = 20, n = 33, k = 40;
  float *a = random_vector(k, 1), *b = random_vector(k * n, 2);
  float *c = malloc(m * n * sizeof(float)), *row = malloc(n * sizeof(float));
  onnxc_sgemm_force_isa(isa);
  onnxc_set_num_threads(2);
  onnxc_sgemm_strided(m, n, k, 1.0f, a, 0, 1, b, (ptrdiff_t)n, 1, 0.0f, c,
                      (ptrdiff_t)n, NULL, 0);
  onnxc_set_num_threads(0);
  onnxc_sgemm_force_isa(ONNXC_SGEMM_ISA_AUTO);
  onnxc_sgemm_reference(0, 0, 1, n, k, 1.0f, a, k, b, n, 0.0f, row, n, NULL);
  size_t bad = 0;
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j)
      bad += !(fabsf(c[i * n + j] - row[j]) <= 1e-4f);
  EXPECT(bad == 0, "%s: broadcast A: %zu elements wrong",
         onnxc_sgemm_isa_name(isa), bad);
  free(a);
  free(b);
  free(c);
  free(row);
}

/* A NaN in one A row and an infinity in one B column (row-major, no
 * transposes): that row is NaN, that column infinite, and the zero padding
 * of the packed edge panels must not turn 0 * inf into NaNs elsewhere. */
static void poison_a_and_b(float *a, size_t lda, float *b, size_t ldb) {
  a[3 * lda + 5] = NAN;
  b[7 * ldb + 2] = INFINITY;
  b[4 * ldb + 28] = -INFINITY;
}

static void nan_and_inf_propagate(int isa) {
  gemm_case c = {0};
  c.m = 29; /* edge tiles in both directions for every MR, NR */
  c.n = 29;
  c.k = 13;
  c.pad = 1;
  c.alpha = 1.0f;
  c.beta = 0.5f;
  check_case(c, isa, 1, poison_a_and_b);
  c.epilogue.activation = ONNXC_ACTIVATION_RELU;
  c.bias_kind = 1;
  check_case(c, isa, 2, poison_a_and_b);
}

int main(void) {
  const int all_isas[] = {ONNXC_SGEMM_ISA_PORTABLE, ONNXC_SGEMM_ISA_AVX2,
                          ONNXC_SGEMM_ISA_AVX512, ONNXC_SGEMM_ISA_NEON};
  int best = ONNXC_SGEMM_ISA_PORTABLE;
  for (size_t i = 0; i < sizeof all_isas / sizeof all_isas[0]; ++i) {
    int isa = all_isas[i];
    if (!onnxc_sgemm_isa_supported(isa))
      continue;
    best = isa;
    printf("gemm: testing %s\n", onnxc_sgemm_isa_name(isa));
    fflush(stdout);
    odd_sizes_transposes_and_padding(isa);
    every_transpose_alpha_beta(isa);
    beta_zero_ignores_nan_in_c(isa);
    every_epilogue(isa);
    larger_than_one_cache_block(isa);
    several_threads(isa);
    result_does_not_depend_on_thread_count(isa);
    strided_broadcast_operand(isa);
    nan_and_inf_propagate(isa);
  }
#if defined(__aarch64__)
  EXPECT(onnxc_sgemm_isa_supported(ONNXC_SGEMM_ISA_NEON),
         "AArch64 runtime without the NEON kernel");
#endif
  EXPECT(onnxc_sgemm_current_isa() == best,
         "default isa %s, expected the best supported, %s",
         onnxc_sgemm_isa_name(onnxc_sgemm_current_isa()),
         onnxc_sgemm_isa_name(best));
  EXPECT(!onnxc_sgemm_force_isa(99), "isa 99 accepted");
  printf("gemm: %d checks, %d failures (default kernel: %s)\n", checks,
         failures, onnxc_sgemm_isa_name(onnxc_sgemm_current_isa()));
  return failures ? 1 : 0;
}
