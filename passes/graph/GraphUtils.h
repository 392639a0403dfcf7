//===- GraphUtils.h - Helpers shared by the graph passes --------*- C++ -*-===//

#ifndef ONNXC_PASSES_GRAPH_GRAPHUTILS_H
#define ONNXC_PASSES_GRAPH_GRAPHUTILS_H

#include <cstdint>

namespace mlir {
class Value;
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace onnxc {

/// Erases the side-effect-free onnx ops of `func` whose results are unused,
/// transitively. Returns how many it erased.
int64_t eraseDeadOps(mlir::func::FuncOp func);

/// Makes `func`'s result types the types of the values it returns (after a
/// rewrite gave a returned value a more precise type).
void syncFunctionResultTypes(mlir::func::FuncOp func);

/// True if replacing `from` by `to` would change the graph's interface:
/// `from` is returned by the function and `to` is a graph input, a constant
/// or a value the function returns already (an output must stay a value of
/// its own), or their types differ.
bool replacementChangesInterface(mlir::Value from, mlir::Value to);

/// Counts the nodes of `func` as ONNX would: every op except constants,
/// omitted inputs, terminators and the func itself, nested bodies included.
int64_t countNodes(mlir::func::FuncOp func);

} // namespace onnxc

#endif // ONNXC_PASSES_GRAPH_GRAPHUTILS_H
