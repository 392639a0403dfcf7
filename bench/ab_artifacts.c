/*===- ab_artifacts.c - Two builds of one model, timed side by side -------===*
 *
 * Loads two onnxc artifacts of the same model (say, before and after a
 * change) in one process and alternates their runs on zero-filled inputs
 * (dynamic dims set to 1): A B, B A, A B, ... It prints each one's median
 * and minimum and the median and quartiles of the per-pair ratios B / A.
 *
 *   cc -O2 -Iruntime/include bench/ab_artifacts.c -o build/ab_artifacts -ldl
 *   build/ab_artifacts OLD.so NEW.so PAIRS [THREADS]
 *
 * Why: on a shared machine the time of one run drifts by 10-30% within
 * minutes, so two suite runs (bench/run.py) cannot show a change of a few
 * percent. Runs a few milliseconds apart see the same machine, and the
 * ratio of a pair cancels most of the drift. Each artifact keeps its own
 * runtime (RTLD_LOCAL), thread pool and workspace; a run of one evicts the
 * other's weights from the caches, as a model's other layers would. As a
 * control, an artifact against a copy of itself gives 1.00-1.02.
 *
 *===----------------------------------------------------------------------===*/

#define _GNU_SOURCE
#include "onnxc/onnxc.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct engine {
  const onnxc_model *model;
  onnxc_tensor *inputs, *outputs;
} engine;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Loads `path`, sets its threads and makes zero-filled inputs (8 bytes an
 * element covers every type). Exits on failure. */
static engine load_engine(const char *path, int threads) {
  engine e;
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "%s\n", dlerror());
    exit(1);
  }
  onnxc_model_entry_fn entry =
      (onnxc_model_entry_fn)dlsym(lib, "onnxc_model_entry");
  if (!entry) {
    fprintf(stderr, "%s: no onnxc_model_entry\n", path);
    exit(1);
  }
  e.model = entry();
  if (e.model->set_num_threads(threads) != ONNXC_OK) {
    fprintf(stderr, "invalid thread count %d\n", threads);
    exit(1);
  }
  e.inputs = calloc(e.model->num_inputs + 1, sizeof *e.inputs);
  e.outputs = calloc(e.model->num_outputs + 1, sizeof *e.outputs);
  for (int32_t i = 0; i < e.model->num_inputs; ++i) {
    const onnxc_tensor_info *info = &e.model->inputs[i];
    size_t count = 1;
    e.inputs[i].rank = info->rank;
    e.inputs[i].dtype = info->dtype;
    for (int32_t d = 0; d < info->rank; ++d) {
      e.inputs[i].shape[d] = info->dims[d] < 0 ? 1 : info->dims[d];
      count *= (size_t)e.inputs[i].shape[d];
    }
    e.inputs[i].data = calloc(count ? count : 1, 8);
  }
  return e;
}

/* One run's wall time in ms. Exits on failure. */
static double time_run(engine *e) {
  memset(e->outputs, 0, e->model->num_outputs * sizeof *e->outputs);
  onnxc_error err;
  double start = now_ms();
  if (e->model->run(e->model, e->inputs, e->model->num_inputs, e->outputs,
                    e->model->num_outputs, &err) != ONNXC_OK) {
    fprintf(stderr, "run failed: %s\n", err.message);
    exit(1);
  }
  double end = now_ms();
  for (int32_t o = 0; o < e->model->num_outputs; ++o)
    e->model->release_tensor(&e->outputs[o]);
  return end - start;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s A.so B.so PAIRS [THREADS]\n", argv[0]);
    return 2;
  }
  int pairs = atoi(argv[3]), threads = argc > 4 ? atoi(argv[4]) : 1;
  if (pairs < 1) {
    fprintf(stderr, "PAIRS must be at least 1\n");
    return 2;
  }
  engine a = load_engine(argv[1], threads), b = load_engine(argv[2], threads);
  /* Warm-up: first-run page faults and packing, the pools' threads. */
  for (int i = 0; i < 2; ++i) {
    time_run(&a);
    time_run(&b);
  }
  double *ta = malloc(pairs * sizeof *ta), *tb = malloc(pairs * sizeof *tb);
  double *ratio = malloc(pairs * sizeof *ratio);
  for (int i = 0; i < pairs; ++i) {
    /* Alternate which goes first: the second of a pair finds the other's
     * traffic in the caches. */
    if (i % 2) {
      tb[i] = time_run(&b);
      ta[i] = time_run(&a);
    } else {
      ta[i] = time_run(&a);
      tb[i] = time_run(&b);
    }
    ratio[i] = tb[i] / ta[i];
  }
  qsort(ta, pairs, sizeof *ta, compare_doubles);
  qsort(tb, pairs, sizeof *tb, compare_doubles);
  qsort(ratio, pairs, sizeof *ratio, compare_doubles);
  printf("A median %.2f ms, min %.2f | B median %.2f ms, min %.2f | B/A "
         "median of pair ratios %.3f (quartiles %.3f, %.3f), %d pairs\n",
         ta[pairs / 2], ta[0], tb[pairs / 2], tb[0], ratio[pairs / 2],
         ratio[pairs / 4], ratio[3 * pairs / 4], pairs);
  return 0;
}
