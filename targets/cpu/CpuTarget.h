//===- CpuTarget.h - The cpu target -----------------------------*- C++ -*-===//

#ifndef ONNXC_TARGETS_CPU_CPUTARGET_H
#define ONNXC_TARGETS_CPU_CPUTARGET_H

namespace onnxc {
class HostTarget;
namespace cpu {
/// The cpu target, the host: claims every onnx op that convert-onnx-to-linalg
/// has a pattern for, and lowers the host graph to the LLVM dialect.
const HostTarget &getCpuTarget();
} // namespace cpu
} // namespace onnxc

#endif
