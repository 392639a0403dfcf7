/*===- first_result.c - Where an artifact's time to first result goes -----===*
 *
 * Loads an onnxc artifact with dlopen, runs it a few times on zero-filled
 * inputs (dynamic dims set to 1) and prints, per step, the wall time and the
 * minor page faults: the load, the first run, the warm runs. No Python, so
 * what it shows is the artifact's own cost.
 *
 *   cc -O2 -Iruntime/include bench/first_result.c -o build/first_result -ldl
 *   build/first_result build/bench/artifacts/mlp.b1.so [runs] [threads]
 *
 * `threads` is passed to set_num_threads before the load is timed as done
 * (default 1, as bench/run.py's 1-thread rows; 0 = one per core).
 *
 * Run it a few times (fresh processes) and compare medians; a busy machine
 * moves single numbers by milliseconds.
 *
 *===----------------------------------------------------------------------===*/

#define _GNU_SOURCE
#include "onnxc/onnxc.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

typedef struct {
  double us;
  long faults;
} stamp;

static stamp now(void) {
  struct timespec t;
  struct rusage u;
  clock_gettime(CLOCK_MONOTONIC, &t);
  getrusage(RUSAGE_THREAD, &u);
  return (stamp){t.tv_sec * 1e6 + t.tv_nsec / 1e3, u.ru_minflt};
}

static void show(const char *what, stamp a, stamp b) {
  printf("%s %.0f us (%ld faults)  ", what, b.us - a.us, b.faults - a.faults);
}

/* Bytes per element, enough for zero-filled inputs (8 covers every type). */
static size_t element_bytes(int32_t dtype) {
  switch (dtype) {
  case ONNXC_DTYPE_FLOAT:
  case ONNXC_DTYPE_INT32:
  case ONNXC_DTYPE_UINT32:
    return 4;
  default:
    return 8;
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s ARTIFACT.so [runs] [threads]\n", argv[0]);
    return 2;
  }
  int runs = argc > 2 ? atoi(argv[2]) : 3;
  int threads = argc > 3 ? atoi(argv[3]) : 1;
  stamp start = now();
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  onnxc_model_entry_fn entry =
      (onnxc_model_entry_fn)dlsym(lib, "onnxc_model_entry");
  if (!entry) {
    fprintf(stderr, "%s: no onnxc_model_entry\n", argv[1]);
    return 1;
  }
  const onnxc_model *model = entry();
  if (model->set_num_threads(threads) != ONNXC_OK) {
    fprintf(stderr, "invalid thread count %d\n", threads);
    return 1;
  }
  stamp loaded = now();
  show("load", start, loaded);

  onnxc_tensor *inputs = calloc(model->num_inputs + 1, sizeof *inputs);
  onnxc_tensor *outputs = calloc(model->num_outputs + 1, sizeof *outputs);
  for (int32_t i = 0; i < model->num_inputs; ++i) {
    const onnxc_tensor_info *info = &model->inputs[i];
    size_t count = 1;
    inputs[i].rank = info->rank;
    inputs[i].dtype = info->dtype;
    for (int32_t d = 0; d < info->rank; ++d) {
      inputs[i].shape[d] = info->dims[d] < 0 ? 1 : info->dims[d];
      count *= (size_t)inputs[i].shape[d];
    }
    inputs[i].data = calloc(count ? count : 1, element_bytes(info->dtype));
  }
  double first_result = 0;
  for (int r = 0; r < runs; ++r) {
    memset(outputs, 0, model->num_outputs * sizeof *outputs);
    onnxc_error err;
    stamp a = now();
    int code = model->run(model, inputs, model->num_inputs, outputs,
                          model->num_outputs, &err);
    stamp b = now();
    if (code != ONNXC_OK) {
      fprintf(stderr, "\nrun failed (%d): %s\n", code, err.message);
      return 1;
    }
    for (int32_t o = 0; o < model->num_outputs; ++o)
      model->release_tensor(&outputs[o]);
    char name[16];
    snprintf(name, sizeof name, "run%d", r + 1);
    show(name, a, b);
    if (r == 0)
      first_result = b.us - start.us;
  }
  printf("first result %.0f us\n", first_result);
  return 0;
}
