/*===- CudaBlas.c - MatMul through cuBLAS ---------------------------------===*
 *
 * cuBLAS is loaded with dlopen on the first product (ONNXC_CUDA_CUBLAS, else
 * libcublas.so.13, .12, then libcublas.so), like the driver: no CUDA
 * library at build time. Each thread gets its own handle, bound to its
 * stream.
 *
 * cuBLAS is column-major; our tensors are row-major, and a row-major
 * [M, N] matrix is the column-major [N, M] matrix of its transpose. So
 * C = op(A) op(B) is computed as C^T = op(B)^T op(A)^T: cuBLAS's first
 * operand is B, its second A, with m = N, n = M.
 *
 * Batch dims: C's leading dims are split into an outer part, looped over
 * on the host, and the longest inner part over which A and B each either
 * follow C (a stride of one matrix) or stay put (stride 0): one
 * cublasSgemmStridedBatched call per outer index. When A follows C
 * untransposed and B stays put, the inner batch folds into M instead: one
 * larger GEMM.
 *
 *===----------------------------------------------------------------------===*/

#include "CudaInternal.h"
#include "MemrefView.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int cublasStatus_t;
typedef struct cublasContext *cublasHandle_t;

enum {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_OP_N = 0,
  CUBLAS_OP_T = 1,
  CUBLAS_DEFAULT_MATH = 0,
  CUBLAS_TF32_TENSOR_OP_MATH = 3
};

typedef struct blas_api {
  cublasStatus_t (*create)(cublasHandle_t *handle);
  cublasStatus_t (*destroy)(cublasHandle_t handle);
  cublasStatus_t (*set_stream)(cublasHandle_t handle, CUstream stream);
  cublasStatus_t (*set_math_mode)(cublasHandle_t handle, int mode);
  cublasStatus_t (*sgemm)(cublasHandle_t handle, int trans_a, int trans_b,
                          int m, int n, int k, const float *alpha,
                          const float *a, int lda, const float *b, int ldb,
                          const float *beta, float *c, int ldc);
  cublasStatus_t (*sgemm_strided_batched)(
      cublasHandle_t handle, int trans_a, int trans_b, int m, int n, int k,
      const float *alpha, const float *a, int lda, long long stride_a,
      const float *b, int ldb, long long stride_b, const float *beta, float *c,
      int ldc, long long stride_c, int batch_count);
  const char *(*status_name)(cublasStatus_t status); /* optional */
} blas_api;
static blas_api blas;

static pthread_once_t blas_once = PTHREAD_ONCE_INIT;
static int blas_ready;
static char blas_reason[512]; /* why cuBLAS could not be loaded */

static const struct {
  size_t offset;
  const char *name;
} blas_symbols[] = {
    {offsetof(blas_api, create), "cublasCreate_v2"},
    {offsetof(blas_api, destroy), "cublasDestroy_v2"},
    {offsetof(blas_api, set_stream), "cublasSetStream_v2"},
    {offsetof(blas_api, set_math_mode), "cublasSetMathMode"},
    {offsetof(blas_api, sgemm), "cublasSgemm_v2"},
    {offsetof(blas_api, sgemm_strided_batched), "cublasSgemmStridedBatched"},
};

static void load_blas(void) {
  const char *names[] = {getenv("ONNXC_CUDA_CUBLAS"), "libcublas.so.13",
                         "libcublas.so.12", "libcublas.so"};
  void *library = NULL;
  for (size_t i = 0; i < sizeof names / sizeof names[0] && !library; ++i) {
    if (!names[i] || !*names[i])
      continue;
    library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      const char *error = dlerror();
      snprintf(blas_reason, sizeof blas_reason, "%s", error ? error : names[i]);
    }
    if (i == 0 && names[0])
      break; /* a library named explicitly is the only one tried */
  }
  if (!library)
    return;
  for (size_t i = 0; i < sizeof blas_symbols / sizeof blas_symbols[0]; ++i) {
    void *function = dlsym(library, blas_symbols[i].name);
    if (!function) {
      snprintf(blas_reason, sizeof blas_reason, "cuBLAS has no %s",
               blas_symbols[i].name);
      return;
    }
    memcpy((char *)&blas + blas_symbols[i].offset, &function, sizeof function);
  }
  void *status_name = dlsym(library, "cublasGetStatusName"); /* 11.4+ */
  memcpy(&blas.status_name, &status_name, sizeof status_name);
  blas_ready = 1;
}

static const char *blas_status_name(cublasStatus_t status) {
  if (blas.status_name)
    return blas.status_name(status);
  switch (status) {
  case 1:
    return "CUBLAS_STATUS_NOT_INITIALIZED";
  case 3:
    return "CUBLAS_STATUS_ALLOC_FAILED";
  case 7:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case 8:
    return "CUBLAS_STATUS_ARCH_MISMATCH";
  case 13:
    return "CUBLAS_STATUS_EXECUTION_FAILED";
  case 14:
    return "CUBLAS_STATUS_INTERNAL_ERROR";
  case 15:
    return "CUBLAS_STATUS_NOT_SUPPORTED";
  default:
    return NULL;
  }
}

static int blas_check(const char *call, cublasStatus_t status) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return 1;
  return onnxc_cuda_fail_named(call, status, blas_status_name(status));
}

/* The thread's handle, created on first use; NULL on failure (recorded). */
static cublasHandle_t thread_handle(onnxc_cuda_thread *t) {
  if (t->blas)
    return t->blas;
  pthread_once(&blas_once, load_blas);
  if (!blas_ready) {
    onnxc_cuda_fail_named("dlopen(libcublas)", 0, blas_reason);
    return NULL;
  }
  cublasHandle_t handle = NULL;
  if (!blas_check("cublasCreate", blas.create(&handle)))
    return NULL;
  if (!blas_check("cublasSetStream", blas.set_stream(handle, t->stream)) ||
      !blas_check("cublasSetMathMode",
                  blas.set_math_mode(handle, CUBLAS_DEFAULT_MATH))) {
    blas.destroy(handle);
    return NULL;
  }
  t->blas_tf32 = 0;
  t->blas = handle;
  return handle;
}

/* FP32 products stay FP32 unless the artifact was compiled with
 * --gpu-math tf32 (or ONNXC_CUDA_TF32=1): TF32 rounds the inputs to 10 bits
 * of mantissa. Set per call, as partitions of different artifacts may run
 * on one thread. */
static int set_math_mode(onnxc_cuda_thread *t, cublasHandle_t handle) {
  int tf32 = onnxc_cuda_call_allows_tf32();
  if (tf32 == t->blas_tf32)
    return 1;
  if (!blas_check("cublasSetMathMode",
                  blas.set_math_mode(handle, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH
                                                  : CUBLAS_DEFAULT_MATH)))
    return 0;
  t->blas_tf32 = tf32;
  return 1;
}

void onnxc_cuda_blas_destroy(void *handle) {
  if (handle && blas.destroy)
    blas.destroy(handle);
}

/*===- The product --------------------------------------------------------===*/

/* The name shape errors carry: the runtime is not told the node's. */
static const char node_name[] = "onnxc_cuda_matmul_f32";

/* Reads a dense row-major memref of rank 2 or more; 0 when it is not one. */
static int read_dense(int64_t rank, void *descriptor, onnxc_f32_view *v) {
  onnxc_unranked_memref m = {rank, descriptor};
  if (!onnxc_read_f32_view(&m, v) || v->rank < 2)
    return 0;
  int64_t count = 1, volume = 1; /* volume: the sizes but zeros */
  for (int i = 0; i < v->rank; ++i) {
    int64_t size = v->size[i];
    /* Bounds the byte count, so no later product overflows. */
    if (size < 0 || (size > 0 && volume > (INT64_MAX / 8) / size))
      return 0;
    count *= size;
    volume *= size > 0 ? size : 1;
  }
  /* An empty tensor is never read: its strides do not matter. */
  int64_t expected = 1;
  for (int i = v->rank - 1; count > 0 && i >= 0; --i) {
    if (v->size[i] > 1 && v->stride[i] != expected)
      return 0;
    expected *= v->size[i];
  }
  return v->data != NULL || count == 0;
}

typedef struct gemm_shape {
  int trans_a, trans_b;
  int64_t m, n, k;
  float alpha;
} gemm_shape;

/* `batch` products C_i = op(A_i) op(B_i), A_i at a + i stride_a (likewise
 * B, C); see the file comment for the operand order. */
static int gemm(cublasHandle_t handle, const gemm_shape *s, const float *a,
                int64_t stride_a, const float *b, int64_t stride_b, float *c,
                int64_t batch) {
  int64_t m = s->m;
  /* A follows the batch untransposed and B stays put: one GEMM of
   * batch * M rows (A's and C's batches are contiguous). */
  if (batch > 1 && !s->trans_a && stride_a != 0 && stride_b == 0 &&
      batch <= INT_MAX / m) {
    m *= batch;
    batch = 1;
  }
  if (m > INT_MAX || s->n > INT_MAX || s->k > INT_MAX || batch > INT_MAX)
    return onnxc_cuda_fail_named("cublasSgemm", 0,
                                 "a dim of the product is above 2^31 - 1");
  const float zero = 0.0f;
  int op_a = s->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  int op_b = s->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  /* The leading dims: the row length of each operand as stored. */
  int lda = (int)(s->trans_a ? s->m : s->k);
  int ldb = (int)(s->trans_b ? s->k : s->n);
  int ldc = (int)s->n;
  if (batch == 1)
    return blas_check("cublasSgemm", blas.sgemm(handle, op_b, op_a, (int)s->n,
                                                (int)m, (int)s->k, &s->alpha, b,
                                                ldb, a, lda, &zero, c, ldc));
  return blas_check("cublasSgemmStridedBatched",
                    blas.sgemm_strided_batched(
                        handle, op_b, op_a, (int)s->n, (int)m, (int)s->k,
                        &s->alpha, b, ldb, stride_b, a, lda, stride_a, &zero, c,
                        ldc, s->m * s->n, (int)batch));
}

int32_t onnxc_cuda_matmul_f32(int64_t rankA, void *descA, int64_t rankB,
                              void *descB, int64_t rankC, void *descC,
                              int64_t transA, int64_t transB, float alpha) {
  onnxc_cuda_thread *t = onnxc_cuda_enter();
  if (!t)
    return 1;
  onnxc_f32_view a, b, c;
  if (!read_dense(rankA, descA, &a) || !read_dense(rankB, descB, &b) ||
      !read_dense(rankC, descC, &c) || a.rank > c.rank || b.rank > c.rank) {
    onnxc_cuda_fail_named(node_name, 0,
                          "a malformed memref (null, rank below 2 or above "
                          "C's, or not dense row-major)");
    return 1;
  }
  gemm_shape s = {
      .trans_a = transA != 0, .trans_b = transB != 0, .alpha = alpha};
  int r = c.rank, nb = r - 2;
  s.m = a.size[a.rank - (s.trans_a ? 1 : 2)];
  s.k = a.size[a.rank - (s.trans_a ? 2 : 1)];
  int64_t kb = b.size[b.rank - (s.trans_b ? 1 : 2)];
  s.n = b.size[b.rank - (s.trans_b ? 2 : 1)];
  if (s.k != kb) {
    onnxc_rt_shape_error(node_name, ONNXC_SHAPE_ERROR_INNER_DIMS, s.k, kb);
    return 1;
  }
  if (c.size[r - 2] != s.m || c.size[r - 1] != s.n) {
    int rows = c.size[r - 2] != s.m;
    onnxc_rt_shape_error(node_name, ONNXC_SHAPE_ERROR_BROADCAST,
                         rows ? s.m : s.n, c.size[rows ? r - 2 : r - 1]);
    return 1;
  }

  /* Batch dims, A's and B's padded with leading 1s to C's count; each must
   * be 1 or C's, and C's must come from one of them. Strides in
   * elements (0: the operand stays put along that dim). */
  int64_t cd[ONNXC_MAX_RANK], stride_a[ONNXC_MAX_RANK],
      stride_b[ONNXC_MAX_RANK], stride_c[ONNXC_MAX_RANK];
  int64_t batch = 1, next_a = s.m * s.k, next_b = s.k * s.n, next_c = s.m * s.n;
  for (int i = nb - 1; i >= 0; --i) {
    int ia = i - (r - a.rank), ib = i - (r - b.rank);
    int64_t ad = ia >= 0 ? a.size[ia] : 1, bd = ib >= 0 ? b.size[ib] : 1;
    cd[i] = c.size[i];
    if ((ad != 1 && ad != cd[i]) || (bd != 1 && bd != cd[i]) ||
        (cd[i] != 1 && ad != cd[i] && bd != cd[i])) {
      onnxc_rt_shape_error(node_name, ONNXC_SHAPE_ERROR_BROADCAST,
                           ad != cd[i] ? ad : bd, cd[i]);
      return 1;
    }
    stride_a[i] = ad == 1 ? 0 : next_a;
    stride_b[i] = bd == 1 ? 0 : next_b;
    stride_c[i] = next_c;
    next_a *= ad;
    next_b *= bd;
    next_c *= cd[i];
    batch *= cd[i];
  }
  if (batch == 0 || s.m == 0 || s.n == 0)
    return 0;
  if (s.k == 0) { /* an empty sum: C = 0 */
    if (!onnxc_cuda_check("cuMemsetD32Async",
                          onnxc_cuda.cuMemsetD32Async(
                              (CUdeviceptr)(uintptr_t)c.data, 0,
                              (size_t)(batch * s.m * s.n), t->stream)))
      return 1;
    t->busy = 1;
    return 0;
  }
  cublasHandle_t handle = thread_handle(t);
  if (!handle || !set_math_mode(t, handle))
    return 1;

  /* The inner part [split, nb): along the dims of size > 1 there, A's
   * stride is always one matrix or always 0, and B's likewise. */
  int split = nb, first = -1;
  while (split > 0) {
    int i = split - 1;
    if (cd[i] != 1) {
      if (first >= 0 && ((stride_a[i] == 0) != (stride_a[first] == 0) ||
                         (stride_b[i] == 0) != (stride_b[first] == 0)))
        break;
      if (first < 0)
        first = i;
    }
    --split;
  }
  int64_t inner = 1;
  for (int i = split; i < nb; ++i)
    inner *= cd[i];
  int64_t inner_a = first >= 0 && stride_a[first] ? s.m * s.k : 0;
  int64_t inner_b = first >= 0 && stride_b[first] ? s.k * s.n : 0;

  /* The outer dims, as a counter over cd[0..split). */
  int64_t index[ONNXC_MAX_RANK] = {0};
  int64_t outer = batch / inner;
  for (int64_t o = 0; o < outer; ++o) {
    int64_t off_a = 0, off_b = 0, off_c = 0;
    for (int i = 0; i < split; ++i) {
      off_a += index[i] * stride_a[i];
      off_b += index[i] * stride_b[i];
      off_c += index[i] * stride_c[i];
    }
    if (!gemm(handle, &s, a.data + off_a, inner_a, b.data + off_b, inner_b,
              c.data + off_c, inner))
      return 1;
    t->busy = 1;
    for (int i = split - 1; i >= 0 && ++index[i] == cd[i]; --i)
      index[i] = 0;
  }
  return 0;
}
