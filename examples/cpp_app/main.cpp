// classify_cpp: runs tiny_cnn through onnxc.hpp on a 1x1x28x28 float32 image
// (.npy): a batch of two copies through the loaded library, one through the
// linked-in model into a caller-owned buffer. Checks that they agree and that
// a bad input raises onnxc::Error, then prints the probabilities, one a line.
#include "tiny_cnn.h"

#include <onnxc/onnxc.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

// Reads a little-endian float32 .npy file of exactly `count` elements.
static std::vector<float> readNpyF32(const char *path, std::size_t count) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
    throw std::runtime_error(std::string(path) + ": not a .npy file");
  std::size_t headerLen = static_cast<unsigned char>(bytes[8]) |
                          static_cast<unsigned char>(bytes[9]) << 8;
  std::string header = bytes.substr(10, headerLen);
  if (header.find("'<f4'") == std::string::npos ||
      header.find("True") != std::string::npos ||
      bytes.size() != 10 + headerLen + count * sizeof(float))
    throw std::runtime_error(std::string(path) +
                             ": not a 1x1x28x28 float32 array");
  std::vector<float> data(count);
  std::memcpy(data.data(), bytes.data() + 10 + headerLen,
              count * sizeof(float));
  return data;
}

int main(int argc, char **argv) try {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " IMAGE.npy\n";
    return 2;
  }
  std::vector<float> image = readNpyF32(argv[1], 28 * 28);

  // Loaded at run time: inspect it, then run a batch of two.
  onnxc::Library library(MODEL_LIBRARY);
  onnxc::Model loaded = library.model();
  std::vector<onnxc::TensorInfo> inputs = loaded.inputs();
  if (inputs.size() != 1 || inputs[0].name != "image" ||
      inputs[0].dtype != ONNXC_DTYPE_FLOAT || inputs[0].dims[0] != -1 ||
      inputs[0].dimParams[0] != "batch")
    throw std::runtime_error("unexpected input metadata");
  std::vector<float> batch(image);
  batch.insert(batch.end(), image.begin(), image.end());
  std::vector<onnxc::Tensor> outputs =
      loaded.run({onnxc::TensorView(batch, {2, 1, 28, 28})});
  if (outputs.size() != 1 || outputs[0].shape() != onnxc::Shape{2, 10})
    throw std::runtime_error("unexpected output shape");
  onnxc::Span<const float> probabilities = outputs[0].data<float>();

  // Linked in: the entry point from the generated header, outputs written
  // into our own buffer.
  onnxc::Model linked(tiny_cnn_model());
  std::vector<float> own(10);
  std::vector<onnxc::MutableTensorView> into{onnxc::MutableTensorView(own)};
  linked.run({onnxc::TensorView(image, {1, 1, 28, 28})}, into);
  if (into[0].shape() != onnxc::Shape{1, 10})
    throw std::runtime_error("unexpected shape of the linked model's output");
  for (std::size_t i = 0; i < 10; ++i)
    if (std::fabs(own[i] - probabilities[i]) > 1e-6f ||
        std::fabs(own[i] - probabilities[10 + i]) > 1e-6f)
      throw std::runtime_error("the loaded and linked models disagree");

  // Bad input: an exception with the runtime's status and message.
  try {
    linked.run({onnxc::TensorView(image, {1, 1, 14, 56})});
    throw std::runtime_error("a wrong shape was accepted");
  } catch (const onnxc::Error &e) {
    if (e.code() != ONNXC_INVALID_ARGUMENT ||
        std::string(e.what()).find("image") == std::string::npos)
      throw std::runtime_error(std::string("unexpected error: ") + e.what());
    std::cerr << "expected error: " << e.what() << "\n";
  }

  std::cout << std::setprecision(9);
  for (float p : own)
    std::cout << p << "\n";
  return 0;
} catch (const std::exception &e) {
  std::cerr << "classify_cpp: " << e.what() << "\n";
  return 1;
}
