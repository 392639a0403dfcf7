/* classify: runs the tiny_cnn model (linked in by onnxc_add_model) on a
 * 1x1x28x28 float32 image read from a .npy file and prints the class
 * probabilities, one per line. */
#include <onnxc/onnxc.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const onnxc_model *onnxc_model_entry(void);

/* Reads a little-endian float32 .npy file of exactly `count` elements. */
static int read_npy_f32(const char *path, float *out, size_t count) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return -1;
  unsigned char preamble[10];
  int ok = fread(preamble, 1, 10, f) == 10 &&
           memcmp(preamble, "\x93NUMPY", 6) == 0 && preamble[6] == 1;
  if (ok) {
    size_t header = preamble[8] | (preamble[9] << 8);
    char *text = malloc(header + 1);
    ok = text && fread(text, 1, header, f) == header;
    if (ok) {
      text[header] = 0;
      ok = strstr(text, "'<f4'") != NULL && strstr(text, "True") == NULL;
    }
    free(text);
  }
  ok = ok && fread(out, sizeof(float), count, f) == count;
  fclose(f);
  return ok ? 0 : -1;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s IMAGE.npy\n", argv[0]);
    return 2;
  }
  static float image[1 * 1 * 28 * 28];
  if (read_npy_f32(argv[1], image, sizeof image / sizeof image[0]) != 0) {
    fprintf(stderr, "%s: not a 1x1x28x28 float32 .npy file\n", argv[1]);
    return 1;
  }
  const onnxc_model *model = onnxc_model_entry();
  if (model->abi_version != ONNXC_ABI_VERSION) {
    fprintf(stderr, "artifact ABI %u, expected %u\n", model->abi_version,
            ONNXC_ABI_VERSION);
    return 1;
  }
  onnxc_tensor input = {.data = image, .shape = {1, 1, 28, 28}, .rank = 4,
                        .dtype = ONNXC_DTYPE_FLOAT};
  onnxc_tensor output = {0};
  onnxc_error err;
  if (model->run(model, &input, 1, &output, 1, &err) != ONNXC_OK) {
    fprintf(stderr, "run failed: %s\n", err.message);
    return 1;
  }
  const float *probabilities = output.data;
  for (int64_t i = 0; i < output.shape[1]; ++i)
    printf("%.8g\n", probabilities[i]);
  model->release_tensor(&output);
  return 0;
}
