/* Runs two `--emit static` artifacts (a small CNN and an MLP, linked into
 * this program) with a workspace and output buffers in static storage, and
 * fails if anything calls the allocator during a run: this program defines
 * malloc, calloc, realloc, free, posix_memalign, aligned_alloc, memalign and
 * valloc (they preempt the C library's; the runtime archive linked in uses
 * them), counting the calls made while a run is in progress. The outputs are
 * compared with ONNX Runtime's, saved next to each model.
 *
 *   onnxc-static-noalloc-test CNN_INPUT.npy CNN_EXPECTED.npy MLP_INPUT.npy
 *                             MLP_EXPECTED.npy
 */

#include "cnn.h"
#include "mlp.h"

#include <math.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- The allocator, watched ---------------------------------------------- */

void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void *__libc_memalign(size_t, size_t);
void __libc_free(void *);

static volatile int watching; /* a run is in progress */
static volatile int calls;    /* allocator calls while watching */
static const char *volatile first_call;

static void note(const char *what) {
  if (watching) {
    if (!calls)
      first_call = what;
    ++calls;
  }
}

void *malloc(size_t n) {
  note("malloc");
  return __libc_malloc(n);
}
void *calloc(size_t n, size_t m) {
  note("calloc");
  return __libc_calloc(n, m);
}
void *realloc(void *p, size_t n) {
  note("realloc");
  return __libc_realloc(p, n);
}
void free(void *p) {
  if (p)
    note("free");
  __libc_free(p);
}
int posix_memalign(void **out, size_t alignment, size_t n) {
  note("posix_memalign");
  void *p = __libc_memalign(alignment, n);
  if (!p)
    return 12; /* ENOMEM */
  *out = p;
  return 0;
}
void *aligned_alloc(size_t alignment, size_t n) {
  note("aligned_alloc");
  return __libc_memalign(alignment, n);
}
void *memalign(size_t alignment, size_t n) {
  note("memalign");
  return __libc_memalign(alignment, n);
}
void *valloc(size_t n) {
  note("valloc");
  return __libc_memalign(4096, n);
}

/* ---- Test data ------------------------------------------------------------
 */

static int failures;

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                     \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, "\n");                                                   \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/* Reads the float32 payload of a .npy file into `data` (`count` floats). */
static int read_npy(const char *path, float *data, size_t count) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return 0;
  unsigned char head[10];
  int ok = fread(head, 1, 10, f) == 10 && memcmp(head, "\x93NUMPY", 6) == 0;
  if (ok) {
    size_t header = head[6] == 1 ? (size_t)(head[8] | head[9] << 8) : 0;
    ok = header && fseek(f, (long)(10 + header), SEEK_SET) == 0 &&
         fread(data, sizeof(float), count, f) == count;
  }
  fclose(f);
  return ok;
}

static float max_diff(const float *a, const float *b, size_t n) {
  float m = 0;
  for (size_t i = 0; i < n; ++i)
    m = fmaxf(m, fabsf(a[i] - b[i]));
  return m;
}

/* ---- The runs -------------------------------------------------------------
 */

/* The workspaces and buffers live in static storage: a run needs nothing
 * from the heap. */
static alignas(ONNXC_WORKSPACE_ALIGNMENT) unsigned char cnn_workspace
    [CNN_WORKSPACE_SIZE + ONNXC_WORKSPACE_ALIGNMENT];
static alignas(ONNXC_WORKSPACE_ALIGNMENT) unsigned char mlp_workspace
    [MLP_WORKSPACE_SIZE + ONNXC_WORKSPACE_ALIGNMENT];
static float cnn_in[CNN_INPUT0_NUM_ELEMENTS], cnn_out[CNN_OUTPUT0_NUM_ELEMENTS],
    cnn_expected[CNN_OUTPUT0_NUM_ELEMENTS];
static float mlp_in[MLP_INPUT0_NUM_ELEMENTS], mlp_out[MLP_OUTPUT0_NUM_ELEMENTS],
    mlp_expected[MLP_OUTPUT0_NUM_ELEMENTS];

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s CNN_IN CNN_EXPECTED MLP_IN MLP_EXPECTED\n",
            argv[0]);
    return 2;
  }
  if (!read_npy(argv[1], cnn_in, CNN_INPUT0_NUM_ELEMENTS) ||
      !read_npy(argv[2], cnn_expected, CNN_OUTPUT0_NUM_ELEMENTS) ||
      !read_npy(argv[3], mlp_in, MLP_INPUT0_NUM_ELEMENTS) ||
      !read_npy(argv[4], mlp_expected, MLP_OUTPUT0_NUM_ELEMENTS)) {
    fprintf(stderr, "cannot read the test data\n");
    return 2;
  }
  /* The plan put something in each workspace, and the model agrees with the
   * header. */
  CHECK(CNN_WORKSPACE_SIZE > 0 && MLP_WORKSPACE_SIZE > 0,
        "empty workspaces (%d, %d)", (int)CNN_WORKSPACE_SIZE,
        (int)MLP_WORKSPACE_SIZE);
  CHECK(cnn_model()->workspace_size == CNN_WORKSPACE_SIZE,
        "cnn: the model says %llu bytes, the header %d",
        (unsigned long long)cnn_model()->workspace_size,
        (int)CNN_WORKSPACE_SIZE);

  /* The watch works: a default run with no output buffers allocates (the
   * output, and the pooled workspace the first time). */
  {
    onnxc_tensor in, out;
    memset(&in, 0, sizeof in);
    memset(&out, 0, sizeof out);
    in.data = mlp_in;
    in.rank = MLP_INPUT0_RANK;
    in.dtype = MLP_INPUT0_DTYPE;
    in.shape[0] = 2;
    in.shape[1] = 64;
    calls = 0;
    watching = 1;
    int code = mlp_model()->run(mlp_model(), &in, 1, &out, 1, NULL);
    watching = 0;
    CHECK(code == ONNXC_OK && out.data, "mlp: default run failed (%d)", code);
    CHECK(calls > 0, "the allocator watch saw no call in a run that "
                     "allocates its output");
    mlp_model()->release_tensor(&out);
  }

  /* Two threads: static code runs on the caller's thread (the compiler
   * does not parallelize loops in --emit static), so even a thread count
   * above one must not make a run allocate. */
  CHECK(cnn_model()->set_num_threads(2) == ONNXC_OK, "set_num_threads failed");

  for (int repeat = 0; repeat < 3; ++repeat) {
    onnxc_error err;
    memset(cnn_out, 0, sizeof cnn_out);
    memset(mlp_out, 0, sizeof mlp_out);
    calls = 0;
    watching = 1;
    int cnn_code = cnn_run_with_workspace(cnn_in, cnn_out, cnn_workspace,
                                          CNN_WORKSPACE_SIZE, &err);
    watching = 0;
    CHECK(cnn_code == ONNXC_OK, "cnn: run failed: %s", err.message);
    CHECK(calls == 0, "cnn: %d allocator calls during run (first: %s)", calls,
          first_call);
    calls = 0;
    watching = 1;
    int mlp_code = mlp_run_with_workspace(mlp_in, mlp_out, mlp_workspace,
                                          MLP_WORKSPACE_SIZE, &err);
    watching = 0;
    CHECK(mlp_code == ONNXC_OK, "mlp: run failed: %s", err.message);
    CHECK(calls == 0, "mlp: %d allocator calls during run (first: %s)", calls,
          first_call);
    float cnn_diff = max_diff(cnn_out, cnn_expected, CNN_OUTPUT0_NUM_ELEMENTS);
    float mlp_diff = max_diff(mlp_out, mlp_expected, MLP_OUTPUT0_NUM_ELEMENTS);
    CHECK(cnn_diff < 1e-5f, "cnn: max |onnxc - onnxruntime| = %g", cnn_diff);
    CHECK(mlp_diff < 1e-5f, "mlp: max |onnxc - onnxruntime| = %g", mlp_diff);
  }

  /* A workspace too small or misaligned is refused with a message, before
   * anything runs. */
  {
    onnxc_error err;
    int code = mlp_run_with_workspace(mlp_in, mlp_out, mlp_workspace,
                                      MLP_WORKSPACE_SIZE - 1, &err);
    CHECK(code == ONNXC_INVALID_ARGUMENT && strstr(err.message, "needs"),
          "too small: %d '%s'", code, err.message);
    code = mlp_run_with_workspace(mlp_in, mlp_out, mlp_workspace + 8,
                                  MLP_WORKSPACE_SIZE, &err);
    CHECK(code == ONNXC_INVALID_ARGUMENT && strstr(err.message, "aligned"),
          "misaligned: %d '%s'", code, err.message);
    code = mlp_run_with_workspace(mlp_in, mlp_out, NULL, 0, &err);
    CHECK(code == ONNXC_INVALID_ARGUMENT && strstr(err.message, "null"),
          "null: %d '%s'", code, err.message);
  }

  if (failures)
    return 1;
  printf("ok: cnn (workspace %d bytes) and mlp (workspace %d bytes) ran "
         "without allocating\n",
         (int)CNN_WORKSPACE_SIZE, (int)MLP_WORKSPACE_SIZE);
  return 0;
}
