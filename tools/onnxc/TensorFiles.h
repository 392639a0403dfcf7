//===- TensorFiles.h - .npy and TensorProto .pb tensors ---------*- C++ -*-===//
//
// What `onnxc run` reads its inputs from and writes its outputs to: NumPy
// .npy files (format 1.0-3.0, little-endian, C order) and ONNX TensorProto
// .pb files (the ONNX test data format).
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TOOLS_ONNXC_TENSORFILES_H
#define ONNXC_TOOLS_ONNXC_TENSORFILES_H

#include "onnxc/onnxc.h"

#include <cstdint>
#include <string>
#include <vector>

namespace onnxc::cli {

/// A dense row-major tensor in host memory.
struct HostTensor {
  int32_t dtype = ONNXC_DTYPE_UNDEFINED; // onnxc_dtype
  std::vector<int64_t> shape;
  std::vector<char> bytes;
  std::string name; // a .pb file's tensor name, if any

  /// An onnxc_tensor pointing at `bytes` (valid while this lives).
  onnxc_tensor view();
};

/// Reads a .npy or .pb file (chosen by extension). On failure returns false
/// with a message naming the file in `error`.
bool readTensorFile(const std::string &path, HostTensor &tensor,
                    std::string &error);

/// Writes `data` as a .npy file.
bool writeNpy(const std::string &path, int32_t dtype,
              const std::vector<int64_t> &shape, const void *data,
              std::string &error);

} // namespace onnxc::cli

#endif // ONNXC_TOOLS_ONNXC_TENSORFILES_H
