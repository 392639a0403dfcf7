/* classify: runs tiny_cnn on a 1x1x28x28 float32 image (.npy) through the
 * generated headers: cnn_fixed_run, the typed entry point of a build with a
 * fixed shape, and the generic run of the dynamic-batch build. Checks that the
 * two agree and that the header's constants match the model's own metadata,
 * then prints the class probabilities, one per line. */
#include "cnn_dynamic.h"
#include "cnn_fixed.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads a little-endian float32 .npy file of exactly `count` elements. */
static int read_npy_f32(const char *path, float *out, size_t count) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return -1;
  unsigned char magic[10];
  char header[1024];
  int ok = fread(magic, 1, sizeof magic, f) == sizeof magic &&
           memcmp(magic, "\x93NUMPY\x01", 7) == 0;
  size_t header_len = ok ? (size_t)(magic[8] | magic[9] << 8) : 0;
  ok = ok && header_len < sizeof header &&
       fread(header, 1, header_len, f) == header_len;
  if (ok) {
    header[header_len] = 0;
    ok = strstr(header, "'<f4'") && !strstr(header, "True");
  }
  ok = ok && fread(out, sizeof *out, count, f) == count;
  fclose(f);
  return ok ? 0 : -1;
}

/* The header's constants against what the artifact reports. */
static int check_metadata(void) {
  const onnxc_model *m = cnn_dynamic_model();
  static const int64_t fixed_dims[] = CNN_FIXED_INPUT0_DIMS;
  static const int64_t dynamic_dims[] = CNN_DYNAMIC_INPUT0_DIMS;
  static const char *const dynamic_params[] = CNN_DYNAMIC_INPUT0_DIM_PARAMS;
  int ok =
      m->abi_version == ONNXC_ABI_VERSION &&
      strcmp(m->name, CNN_DYNAMIC_MODEL_NAME) == 0 &&
      m->num_inputs == CNN_DYNAMIC_NUM_INPUTS &&
      m->num_outputs == CNN_DYNAMIC_NUM_OUTPUTS &&
      strcmp(m->inputs[0].name, CNN_DYNAMIC_INPUT0_NAME) == 0 &&
      m->inputs[0].dtype == CNN_DYNAMIC_INPUT0_DTYPE &&
      m->inputs[0].rank == CNN_DYNAMIC_INPUT0_RANK && dynamic_dims[0] == -1 &&
      strcmp(dynamic_params[0], "batch") == 0 && fixed_dims[0] == 1 &&
      cnn_fixed_model()->inputs[0].dims[0] == fixed_dims[0] &&
      strcmp(cnn_fixed_model()->outputs[0].name, CNN_FIXED_OUTPUT0_NAME) == 0;
  if (!ok)
    fprintf(stderr, "the generated headers disagree with the models\n");
  return ok;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s IMAGE.npy\n", argv[0]);
    return 2;
  }
  static float image[CNN_FIXED_INPUT0_NUM_ELEMENTS];
  static float probabilities[CNN_FIXED_OUTPUT0_NUM_ELEMENTS];
  if (read_npy_f32(argv[1], image, CNN_FIXED_INPUT0_NUM_ELEMENTS) != 0) {
    fprintf(stderr, "%s: not a 1x1x28x28 float32 .npy file\n", argv[1]);
    return 1;
  }
  if (!check_metadata())
    return 1;

  onnxc_error err;
  if (cnn_fixed_run(image, probabilities, &err) != ONNXC_OK) {
    fprintf(stderr, "cnn_fixed_run failed: %s\n", err.message);
    return 1;
  }

  /* The dynamic build: the batch is chosen at run time. */
  const onnxc_model *dynamic = cnn_dynamic_model();
  onnxc_tensor input = {.data = image,
                        .shape = {1, 1, 28, 28},
                        .rank = 4,
                        .dtype = CNN_DYNAMIC_INPUT0_DTYPE};
  onnxc_tensor output = {0};
  if (dynamic->run(dynamic, &input, 1, &output, 1, &err) != ONNXC_OK) {
    fprintf(stderr, "cnn_dynamic run failed: %s\n", err.message);
    return 1;
  }
  const float *again = output.data;
  int agree = output.rank == 2 && output.shape[0] == 1 &&
              output.shape[1] == CNN_FIXED_OUTPUT0_NUM_ELEMENTS;
  for (int i = 0; agree && i < CNN_FIXED_OUTPUT0_NUM_ELEMENTS; ++i)
    agree = fabsf(again[i] - probabilities[i]) <= 1e-6f;
  dynamic->release_tensor(&output);
  if (!agree) {
    fprintf(stderr, "the fixed and dynamic builds disagree\n");
    return 1;
  }

  for (int i = 0; i < CNN_FIXED_OUTPUT0_NUM_ELEMENTS; ++i)
    printf("%.8g\n", probabilities[i]);
  return 0;
}
