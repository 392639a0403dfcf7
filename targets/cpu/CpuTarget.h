//===- CpuTarget.h - The cpu target -----------------------------*- C++ -*-===//

#ifndef ONNXC_TARGETS_CPU_CPUTARGET_H
#define ONNXC_TARGETS_CPU_CPUTARGET_H

namespace onnxc {
class Target;
namespace cpu {
/// The cpu target: claims every onnx op that convert-onnx-to-linalg has a
/// pattern for.
const Target &getCpuTarget();
} // namespace cpu
} // namespace onnxc

#endif
