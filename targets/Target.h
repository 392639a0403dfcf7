//===- Target.h - What a code-generation target can do ----------*- C++ -*-===//
//
// A target (cpu, cuda, ...) claims the onnx ops it can lower. The partition
// pass asks the targets in the user's priority order; `cpu` comes last and
// claims whatever it supports.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TARGETS_TARGET_H
#define ONNXC_TARGETS_TARGET_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace mlir {
class Operation;
} // namespace mlir

namespace onnxc {

class Target {
public:
  virtual ~Target() = default;
  /// The name users give on the command line (`cpu`).
  virtual llvm::StringRef name() const = 0;
  /// Whether this target can lower `op` (an onnx dialect op with its final
  /// operand and result types).
  virtual bool supports(mlir::Operation *op) const = 0;
};

/// The target called `name`, or null. Targets are static singletons.
const Target *lookupTarget(llvm::StringRef name);

/// The names of all targets built into this compiler.
std::vector<std::string> availableTargets();

} // namespace onnxc

#endif // ONNXC_TARGETS_TARGET_H
