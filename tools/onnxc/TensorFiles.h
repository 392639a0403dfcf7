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
  /// A .npy of raw elements of this many bytes ('V1', 'V2': how NumPy saves
  /// ml_dtypes' bfloat16, float8, int4 and int2): `dtype` is undefined
  /// until resolveRawDtype gives it the model input's.
  size_t rawElementSize = 0;

  /// An onnxc_tensor pointing at `bytes` (valid while this lives).
  onnxc_tensor view();
};

/// Reads a .npy or .pb file (chosen by extension). On failure returns false
/// with a message naming the file in `error`.
bool readTensorFile(const std::string &path, HostTensor &tensor,
                    std::string &error);

/// Gives a raw-element tensor (rawElementSize) the dtype `expected` of the
/// input it feeds, when the sizes agree; else false with a message.
bool resolveRawDtype(HostTensor &tensor, int32_t expected,
                     const std::string &what, std::string &error);

/// Writes `data` as a .npy file. bfloat16, float8, int4 and int2 are
/// written as raw elements ('<V2', '|V1'), as NumPy saves ml_dtypes' arrays:
/// np.load(...).view(ml_dtypes.bfloat16) reads them back.
bool writeNpy(const std::string &path, int32_t dtype,
              const std::vector<int64_t> &shape, const void *data,
              std::string &error);

} // namespace onnxc::cli

#endif // ONNXC_TOOLS_ONNXC_TENSORFILES_H
