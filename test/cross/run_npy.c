/* run_npy: runs a compiled onnxc artifact on .npy inputs and writes each
 * output as OUT_DIR/<name>.npy, like `onnxc run`, but as a plain C program
 * that cross-compiles with the target's gcc and runs under qemu-user.
 *
 *   run_npy ARTIFACT.so OUT_DIR NAME=FILE.npy...
 *
 * .npy: format 1.0, little-endian, C order; dtypes f4 f8 f2 i1 i2 i4 i8 u1
 * u2 u4 u8 b1. */
#include <onnxc/onnxc.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  const char *descr;
  int32_t dtype;
} kDescrs[] = {
    {"<f4", ONNXC_DTYPE_FLOAT},   {"<f8", ONNXC_DTYPE_DOUBLE},
    {"<f2", ONNXC_DTYPE_FLOAT16}, {"|i1", ONNXC_DTYPE_INT8},
    {"<i2", ONNXC_DTYPE_INT16},   {"<i4", ONNXC_DTYPE_INT32},
    {"<i8", ONNXC_DTYPE_INT64},   {"|u1", ONNXC_DTYPE_UINT8},
    {"<u2", ONNXC_DTYPE_UINT16},  {"<u4", ONNXC_DTYPE_UINT32},
    {"<u8", ONNXC_DTYPE_UINT64},  {"|b1", ONNXC_DTYPE_BOOL},
};

static size_t dtype_size(int32_t dtype) {
  switch (dtype) {
  case ONNXC_DTYPE_DOUBLE:
  case ONNXC_DTYPE_INT64:
  case ONNXC_DTYPE_UINT64:
    return 8;
  case ONNXC_DTYPE_FLOAT:
  case ONNXC_DTYPE_INT32:
  case ONNXC_DTYPE_UINT32:
    return 4;
  case ONNXC_DTYPE_FLOAT16:
  case ONNXC_DTYPE_INT16:
  case ONNXC_DTYPE_UINT16:
    return 2;
  default:
    return 1;
  }
}

static const char *dtype_descr(int32_t dtype) {
  for (size_t i = 0; i < sizeof kDescrs / sizeof kDescrs[0]; ++i)
    if (kDescrs[i].dtype == dtype)
      return kDescrs[i].descr;
  return NULL;
}

static int64_t element_count(const onnxc_tensor *t) {
  int64_t n = 1;
  for (int32_t d = 0; d < t->rank; ++d)
    n *= t->shape[d];
  return n;
}

/* Reads `path` into `t` (data malloc'd); prints why and returns -1 if not. */
static int read_npy(const char *path, onnxc_tensor *t) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return -1;
  }
  unsigned char pre[10];
  char header[4096];
  size_t length = 0;
  int ok = fread(pre, 1, 10, f) == 10 && memcmp(pre, "\x93NUMPY", 6) == 0 &&
           pre[6] == 1;
  if (ok) {
    length = pre[8] | (size_t)pre[9] << 8;
    ok = length < sizeof header && fread(header, 1, length, f) == length;
    header[ok ? length : 0] = 0;
  }
  const char *descr = ok ? strstr(header, "'descr': '") : NULL;
  const char *shape = ok ? strstr(header, "'shape': (") : NULL;
  ok = descr && shape && !strstr(header, "'fortran_order': True");
  t->dtype = ONNXC_DTYPE_UNDEFINED;
  for (size_t i = 0; ok && i < sizeof kDescrs / sizeof kDescrs[0]; ++i)
    if (strncmp(descr + 10, kDescrs[i].descr, 3) == 0)
      t->dtype = kDescrs[i].dtype;
  t->rank = 0;
  for (const char *p = ok ? shape + 10 : ""; *p && *p != ')';) {
    char *end;
    long long dim = strtoll(p, &end, 10);
    if (end == p) {
      ++p;
      continue;
    }
    if (t->rank == ONNXC_MAX_RANK) {
      ok = 0;
      break;
    }
    t->shape[t->rank++] = dim;
    p = end;
  }
  size_t bytes = ok ? (size_t)element_count(t) * dtype_size(t->dtype) : 0;
  t->data = malloc(bytes ? bytes : 1);
  ok = ok && t->dtype != ONNXC_DTYPE_UNDEFINED && t->data &&
       fread(t->data, 1, bytes, f) == bytes;
  fclose(f);
  if (!ok)
    fprintf(stderr,
            "%s: not a little-endian C-order .npy file of a "
            "supported dtype\n",
            path);
  return ok ? 0 : -1;
}

static int write_npy(const char *path, const onnxc_tensor *t) {
  const char *descr = dtype_descr(t->dtype);
  if (!descr) {
    fprintf(stderr, "%s: dtype %d has no .npy form here\n", path, t->dtype);
    return -1;
  }
  char header[512];
  int n = snprintf(header, sizeof header,
                   "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (int32_t d = 0; d < t->rank; ++d)
    n += snprintf(header + n, sizeof header - n, "%lld%s",
                  (long long)t->shape[d],
                  t->rank == 1      ? ","
                  : d + 1 < t->rank ? ", "
                                    : "");
  n += snprintf(header + n, sizeof header - n, "), }");
  /* Padded with spaces and a newline so the data starts 64-byte aligned. */
  while ((10 + n + 1) % 64)
    header[n++] = ' ';
  header[n++] = '\n';
  unsigned char pre[10] = {0x93,
                           'N',
                           'U',
                           'M',
                           'P',
                           'Y',
                           1,
                           0,
                           (unsigned char)(n & 0xff),
                           (unsigned char)(n >> 8)};
  FILE *f = fopen(path, "wb");
  size_t bytes = (size_t)element_count(t) * dtype_size(t->dtype);
  int ok = f && fwrite(pre, 1, 10, f) == 10 &&
           fwrite(header, 1, (size_t)n, f) == (size_t)n &&
           fwrite(t->data, 1, bytes, f) == bytes;
  if (f && fclose(f) != 0)
    ok = 0;
  if (!ok)
    perror(path);
  return ok ? 0 : -1;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s ARTIFACT.so OUT_DIR NAME=FILE.npy...\n",
            argv[0]);
    return 2;
  }
  void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  onnxc_model_entry_fn entry =
      (onnxc_model_entry_fn)dlsym(library, ONNXC_MODEL_ENTRY_SYMBOL);
  const onnxc_model *model = entry ? entry() : NULL;
  if (!model || model->abi_version != ONNXC_ABI_VERSION) {
    fprintf(stderr, "%s: not an onnxc artifact of ABI %d\n", argv[1],
            ONNXC_ABI_VERSION);
    return 1;
  }
  onnxc_tensor *inputs = calloc(model->num_inputs + 1, sizeof *inputs);
  onnxc_tensor *outputs = calloc(model->num_outputs + 1, sizeof *outputs);
  int *given = calloc(model->num_inputs + 1, sizeof *given);
  for (int a = 3; a < argc; ++a) {
    char *eq = strchr(argv[a], '=');
    int found = -1;
    for (int32_t i = 0; eq && i < model->num_inputs; ++i)
      if (strlen(model->inputs[i].name) == (size_t)(eq - argv[a]) &&
          strncmp(model->inputs[i].name, argv[a], eq - argv[a]) == 0)
        found = i;
    if (found < 0) {
      fprintf(stderr, "'%s' is not NAME=FILE for an input of the model\n",
              argv[a]);
      return 2;
    }
    if (read_npy(eq + 1, &inputs[found]) != 0)
      return 1;
    given[found] = 1;
  }
  for (int32_t i = 0; i < model->num_inputs; ++i)
    if (!given[i]) {
      fprintf(stderr, "input '%s' is missing\n", model->inputs[i].name);
      return 2;
    }
  onnxc_error err;
  if (model->run(model, inputs, model->num_inputs, outputs, model->num_outputs,
                 &err) != ONNXC_OK) {
    fprintf(stderr, "run failed: %s\n", err.message);
    return 1;
  }
  int status = 0;
  for (int32_t o = 0; o < model->num_outputs; ++o) {
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/", argv[2]);
    /* ONNX names may hold '/' or ':'; the file name keeps [A-Za-z0-9_.-]. */
    for (const char *c = model->outputs[o].name; *c && n < 4000; ++c)
      path[n++] = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                          (*c >= '0' && *c <= '9') || *c == '.' || *c == '-'
                      ? *c
                      : '_';
    snprintf(path + n, sizeof path - n, ".npy");
    if (write_npy(path, &outputs[o]) != 0)
      status = 1;
    model->release_tensor(&outputs[o]);
  }
  for (int32_t i = 0; i < model->num_inputs; ++i)
    free(inputs[i].data);
  free(inputs);
  free(outputs);
  free(given);
  dlclose(library);
  return status;
}
