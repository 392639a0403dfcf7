//===- Progress.h - What a long compile is doing, on a terminal -*- C++ -*-===//
//
// `onnxc compile` on a big model runs for tens of seconds. When stderr is a
// terminal (and without --quiet) one status line there says which phase
// runs, how far through a pass pipeline it is, and the time so far; it is
// cleared before any other output and when the compile ends. Elsewhere
// (pipes, files, tests) nothing is printed.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_COMPILER_DRIVER_PROGRESS_H
#define ONNXC_COMPILER_DRIVER_PROGRESS_H

#include "llvm/ADT/StringRef.h"

namespace mlir {
class PassManager;
} // namespace mlir

namespace onnxc {

/// Turns the status line on (only if stderr is a terminal). Off by default.
void enableProgress(bool enabled);

/// Shows `phase` ("optimizing the graph") as the status line.
void progressPhase(llvm::StringRef phase);

/// Makes `pm` show "<phase> [k/n] <pass>" as it runs its top-level passes.
void attachProgress(mlir::PassManager &pm, llvm::StringRef phase);

/// Clears the status line (before other output, and at the end).
void clearProgress();

} // namespace onnxc

#endif // ONNXC_COMPILER_DRIVER_PROGRESS_H
