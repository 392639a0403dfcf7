//===- OpEmitter.h - Building onnx ops in the imported form -----*- C++ -*-===//
//
// Creates onnx dialect ops the way docs/internals.md section 1 says: exactly
// the schema's operands (an omitted optional input is the block's shared
// onnx.NoValue), `!onnx.unknown` results (`none` for an omitted optional
// output), and attributes as the op's properties. Used by the graph importer
// and by the opset normalization rewrites.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_COMPILER_IMPORT_OPEMITTER_H
#define ONNXC_COMPILER_IMPORT_OPEMITTER_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace onnxc {

struct OnnxOpSchema;

class OpEmitter {
public:
  /// `defaultLoc` is the location of the shared NoValue ops.
  OpEmitter(mlir::OpBuilder &builder, mlir::Location defaultLoc)
      : builder(builder), defaultLoc(defaultLoc) {}

  mlir::OpBuilder &getBuilder() { return builder; }
  mlir::MLIRContext *getContext() { return builder.getContext(); }

  /// The shared `onnx.NoValue` of the current block, made at the insertion
  /// point on first use (so it dominates every later use in the block).
  mlir::Value noValue();

  /// Builds the op of `schema` from `inputs` (null: an omitted optional
  /// input), in schema order with the variadic group last. Result `i` is
  /// `!onnx.unknown` if `outputPresent[i]`, `none` otherwise; a Constant's
  /// result has its value's type. Emits an error at `loc` and returns failure
  /// if the op is not registered or `inputs` do not fit the schema.
  mlir::FailureOr<mlir::Operation *>
  create(mlir::Location loc, const OnnxOpSchema &schema,
         llvm::ArrayRef<mlir::Value> inputs,
         llvm::ArrayRef<mlir::NamedAttribute> attributes,
         llvm::ArrayRef<bool> outputPresent, unsigned numRegions = 0);

  /// The same for an op a rewrite adds, named by its dialect op name
  /// ("onnx.Reshape"), with `numResults` present results.
  mlir::FailureOr<mlir::Operation *>
  create(mlir::Location loc, llvm::StringRef opName,
         llvm::ArrayRef<mlir::Value> inputs,
         llvm::ArrayRef<mlir::NamedAttribute> attributes = {},
         unsigned numResults = 1);

  /// Like create(), for a one-result op: its result.
  mlir::FailureOr<mlir::Value>
  createValue(mlir::Location loc, llvm::StringRef opName,
              llvm::ArrayRef<mlir::Value> inputs,
              llvm::ArrayRef<mlir::NamedAttribute> attributes = {});

  /// An `onnx.Constant` holding `value`.
  mlir::FailureOr<mlir::Value> constant(mlir::Location loc,
                                        mlir::DenseElementsAttr value);
  /// A 1-D i64 constant (a 0-D one if `scalar`).
  mlir::FailureOr<mlir::Value> i64Constant(mlir::Location loc,
                                           llvm::ArrayRef<int64_t> values,
                                           bool scalar = false);
  /// A 1-D f32 constant (a 0-D one if `scalar`).
  mlir::FailureOr<mlir::Value> f32Constant(mlir::Location loc,
                                           llvm::ArrayRef<float> values,
                                           bool scalar = false);

private:
  mlir::OpBuilder &builder;
  mlir::Location defaultLoc;
  llvm::DenseMap<mlir::Block *, mlir::Value> noValues;
};

} // namespace onnxc

#endif // ONNXC_COMPILER_IMPORT_OPEMITTER_H
