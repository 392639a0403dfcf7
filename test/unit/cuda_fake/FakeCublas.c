/*===- FakeCublas.c - cuBLAS's SGEMM on the host, for the tests -----------===*
 *
 * The cuBLAS functions runtime/cuda resolves, on the host memory of
 * FakeCuda.c, in the same library (onnxc-cuda-fake-tests names it in
 * ONNXC_CUDA_CUBLAS too). The products follow cuBLAS's contract to the
 * letter: column-major operands, op() per operand, leading dims checked as
 * cuBLAS checks them, C not read when beta is 0; and every element they
 * touch must lie inside a live allocation of the fake driver. So the
 * runtime's row-major-to-column-major mapping is tested as it will meet the
 * real library.
 *
 *===----------------------------------------------------------------------===*/

#include <stdint.h>
#include <stdlib.h>

int fake_cuda_inside(uintptr_t p, size_t bytes); /* FakeCuda.c */

/* The stored rows x cols column-major matrix at p (leading dim ld) lies in
 * device memory. */
static int matrix_inside(const float *p, int rows, int cols, int ld) {
  if (!rows || !cols)
    return 1;
  size_t elements = (size_t)(cols - 1) * (size_t)ld + (size_t)rows;
  return fake_cuda_inside((uintptr_t)p, elements * sizeof(float));
}

typedef int cublasStatus_t;

enum { SUCCESS = 0, NOT_INITIALIZED = 1, INVALID_VALUE = 7 };

typedef struct handle {
  void *stream;
  int math_mode;
} handle;

#define API __attribute__((visibility("default")))

API cublasStatus_t cublasCreate_v2(handle **h) {
  *h = calloc(1, sizeof **h);
  return *h ? SUCCESS : 3;
}

API cublasStatus_t cublasDestroy_v2(handle *h) {
  free(h);
  return SUCCESS;
}

API cublasStatus_t cublasSetStream_v2(handle *h, void *stream) {
  if (!h)
    return NOT_INITIALIZED;
  h->stream = stream;
  return SUCCESS;
}

API cublasStatus_t cublasSetMathMode(handle *h, int mode) {
  if (!h)
    return NOT_INITIALIZED;
  if (mode != 0 && mode != 3)
    return INVALID_VALUE;
  h->math_mode = mode;
  return SUCCESS;
}

API const char *cublasGetStatusName(cublasStatus_t status) {
  switch (status) {
  case SUCCESS:
    return "CUBLAS_STATUS_SUCCESS";
  case INVALID_VALUE:
    return "CUBLAS_STATUS_INVALID_VALUE";
  default:
    return "CUBLAS_STATUS_UNKNOWN";
  }
}

static int max1(int x) { return x > 1 ? x : 1; }

/* C = alpha op(A) op(B) + beta C, column-major; op 0: N, 1: T. */
static cublasStatus_t gemm(const handle *h, int ta, int tb, int m, int n, int k,
                           const float *alpha, const float *a, int lda,
                           const float *b, int ldb, const float *beta, float *c,
                           int ldc) {
  if (!h || !h->stream)
    return NOT_INITIALIZED;
  if ((ta != 0 && ta != 1) || (tb != 0 && tb != 1) || m < 0 || n < 0 || k < 0 ||
      lda < max1(ta ? k : m) || ldb < max1(tb ? n : k) || ldc < max1(m))
    return INVALID_VALUE;
  if (!matrix_inside(a, ta ? k : m, ta ? m : k, lda) ||
      !matrix_inside(b, tb ? n : k, tb ? k : n, ldb) ||
      !matrix_inside(c, m, n, ldc))
    return 14; /* CUBLAS_STATUS_INTERNAL_ERROR: the fault a GPU would hit */
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double sum = 0;
      for (int p = 0; p < k; ++p) {
        float x = ta ? a[p + (long)i * lda] : a[i + (long)p * lda];
        float y = tb ? b[j + (long)p * ldb] : b[p + (long)j * ldb];
        sum += (double)x * y;
      }
      float *out = &c[i + (long)j * ldc];
      *out = *alpha * (float)sum + (*beta != 0 ? *beta * *out : 0.0f);
    }
  return SUCCESS;
}

API cublasStatus_t cublasSgemm_v2(handle *h, int ta, int tb, int m, int n,
                                  int k, const float *alpha, const float *a,
                                  int lda, const float *b, int ldb,
                                  const float *beta, float *c, int ldc) {
  return gemm(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

API cublasStatus_t cublasSgemmStridedBatched(
    handle *h, int ta, int tb, int m, int n, int k, const float *alpha,
    const float *a, int lda, long long stride_a, const float *b, int ldb,
    long long stride_b, const float *beta, float *c, int ldc,
    long long stride_c, int batch) {
  if (batch < 0)
    return INVALID_VALUE;
  for (int i = 0; i < batch; ++i) {
    cublasStatus_t s = gemm(h, ta, tb, m, n, k, alpha, a + i * stride_a, lda,
                            b + i * stride_b, ldb, beta, c + i * stride_c, ldc);
    if (s != SUCCESS)
      return s;
  }
  return SUCCESS;
}
