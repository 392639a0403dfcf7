/* classify: runs tiny_cnn on a 1x1x28x28 float32 image (.npy) through the
 * typed tiny_cnn_run of its generated header, prints the class
 * probabilities, one per line, and, given ONNX Runtime's output for the same
 * image, fails if they differ by more than 1e-4. */
#include "tiny_cnn.h"

#include <math.h>
#include <stdio.h>
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

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: %s IMAGE.npy [EXPECTED.npy]\n", argv[0]);
    return 2;
  }
  static float image[TINY_CNN_INPUT0_NUM_ELEMENTS];
  static float probabilities[TINY_CNN_OUTPUT0_NUM_ELEMENTS];
  static float expected[TINY_CNN_OUTPUT0_NUM_ELEMENTS];
  if (read_npy_f32(argv[1], image, TINY_CNN_INPUT0_NUM_ELEMENTS) != 0) {
    fprintf(stderr, "%s: not a 1x1x28x28 float32 .npy file\n", argv[1]);
    return 1;
  }
  onnxc_error err;
  if (tiny_cnn_run(image, probabilities, &err) != ONNXC_OK) {
    fprintf(stderr, "tiny_cnn_run failed: %s\n", err.message);
    return 1;
  }
  for (int i = 0; i < TINY_CNN_OUTPUT0_NUM_ELEMENTS; ++i)
    printf("%.8g\n", probabilities[i]);
  if (argc == 3) {
    if (read_npy_f32(argv[2], expected, TINY_CNN_OUTPUT0_NUM_ELEMENTS) != 0) {
      fprintf(stderr, "%s: not %d float32 values\n", argv[2],
              TINY_CNN_OUTPUT0_NUM_ELEMENTS);
      return 1;
    }
    float worst = 0;
    for (int i = 0; i < TINY_CNN_OUTPUT0_NUM_ELEMENTS; ++i)
      worst = fmaxf(worst, fabsf(probabilities[i] - expected[i]));
    fprintf(stderr, "max difference from ONNX Runtime: %g\n", worst);
    if (!(worst <= 1e-4f))
      return 1;
  }
  return 0;
}
