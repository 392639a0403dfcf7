// classify_noexcept: classify_cpp's checks with -fno-exceptions, through the
// Status-returning calls of onnxc.hpp (Library::open, Model::open,
// Model::tryRun). Prints the probabilities of a 1x1x28x28 float32 image
// (.npy), one a line.
#include "tiny_cnn.h"

#include <onnxc/onnxc.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

// Reads a little-endian float32 .npy file of exactly `count` elements.
static bool readNpyF32(const char *path, std::vector<float> &data) {
  std::FILE *f = std::fopen(path, "rb");
  if (!f)
    return false;
  unsigned char magic[10];
  char header[1024];
  bool ok = std::fread(magic, 1, sizeof magic, f) == sizeof magic &&
            std::memcmp(magic, "\x93NUMPY\x01", 7) == 0;
  std::size_t headerLen = ok ? std::size_t(magic[8] | magic[9] << 8) : 0;
  ok = ok && headerLen < sizeof header &&
       std::fread(header, 1, headerLen, f) == headerLen;
  if (ok) {
    header[headerLen] = 0;
    ok = std::strstr(header, "'<f4'") && !std::strstr(header, "True");
  }
  ok = ok &&
       std::fread(data.data(), sizeof(float), data.size(), f) == data.size();
  std::fclose(f);
  return ok;
}

static int fail(const char *what, const onnxc::Status &status) {
  std::fprintf(stderr, "classify_noexcept: %s: %s\n", what,
               status.message().c_str());
  return 1;
}

int main(int argc, char **argv) {
  std::vector<float> image(28 * 28);
  if (argc != 2 || !readNpyF32(argv[1], image)) {
    std::fprintf(stderr, "usage: %s IMAGE.npy (1x1x28x28 float32)\n", argv[0]);
    return 2;
  }
  onnxc::Library library;
  onnxc::Model loaded;
  onnxc::Status status = onnxc::Library::open(MODEL_LIBRARY, library);
  if (!status.ok() || !(status = library.model(loaded)).ok())
    return fail("load", status);
  std::vector<onnxc::Tensor> outputs;
  status = loaded.tryRun({onnxc::TensorView(image, {1, 1, 28, 28})}, outputs);
  if (!status.ok())
    return fail("run", status);
  onnxc::Span<const float> probabilities = outputs[0].data<float>();

  onnxc::Model linked;
  if (!(status = onnxc::Model::open(tiny_cnn_model(), linked)).ok())
    return fail("open", status);
  std::vector<float> own(10);
  std::vector<onnxc::MutableTensorView> into{onnxc::MutableTensorView(own)};
  status = linked.tryRun({onnxc::TensorView(image, {1, 1, 28, 28})}, into);
  if (!status.ok())
    return fail("run", status);
  if (probabilities.size() != own.size())
    return fail("compare", onnxc::Status(1, "output sizes differ"));
  for (std::size_t i = 0; i < own.size(); ++i)
    if (std::fabs(own[i] - probabilities[i]) > 1e-6f)
      return fail("compare", onnxc::Status(1, "the models disagree"));

  status = linked.tryRun({onnxc::TensorView(image, {1, 28, 28})}, into);
  if (status.code() != ONNXC_INVALID_ARGUMENT)
    return fail("a wrong rank", onnxc::Status(1, "was accepted"));
  std::fprintf(stderr, "expected error: %s\n", status.message().c_str());

  for (float p : own)
    std::printf("%.9g\n", p);
  return 0;
}
