//===- WindowUtils.h - Sliding-window geometry for Conv and pools -*- C++
//-*-===//
//
// Conv, ConvTranspose and the pooling ops share the ONNX window attributes
// (kernel_shape, strides, dilations, pads, auto_pad, ceil_mode). These
// helpers resolve them, per spatial dim, into pads and output sizes that are
// constants when the input dims are static and index arithmetic otherwise.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TARGETS_CPU_LOWERING_WINDOWUTILS_H
#define ONNXC_TARGETS_CPU_LOWERING_WINDOWUTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Transforms/DialectConversion.h"

#include <optional>

namespace onnxc::cpu {

/// Index arithmetic on OpFoldResults: constants fold, anything else becomes
/// arith ops on `index`.
class IndexMath {
public:
  IndexMath(mlir::OpBuilder &b, mlir::Location loc) : b(b), loc(loc) {}

  mlir::OpFoldResult constant(int64_t v);
  mlir::OpFoldResult add(mlir::OpFoldResult x, mlir::OpFoldResult y);
  mlir::OpFoldResult sub(mlir::OpFoldResult x, mlir::OpFoldResult y);
  mlir::OpFoldResult mul(mlir::OpFoldResult x, int64_t c);
  mlir::OpFoldResult floorDiv(mlir::OpFoldResult x, int64_t c);
  /// Division rounding toward zero (C++ semantics).
  mlir::OpFoldResult truncDiv(mlir::OpFoldResult x, int64_t c);
  mlir::OpFoldResult ceilDiv(mlir::OpFoldResult x, int64_t c);
  mlir::OpFoldResult max(mlir::OpFoldResult x, mlir::OpFoldResult y);
  mlir::OpFoldResult min(mlir::OpFoldResult x, mlir::OpFoldResult y);
  mlir::Value value(mlir::OpFoldResult x);

private:
  mlir::OpBuilder &b;
  mlir::Location loc;
};

/// One spatial dim of a sliding-window op: the window starts at
/// `o * stride - padBegin` for output index `o` and has `kernel` taps
/// `dilation` apart.
struct WindowDim {
  mlir::OpFoldResult input;
  int64_t kernel = 1, stride = 1, dilation = 1;
  mlir::OpFoldResult padBegin, padEnd, output;

  /// The span of one window in input elements.
  int64_t extent() const { return (kernel - 1) * dilation + 1; }
};

/// Resolves the window attributes of `op` (Conv or a pool) for `input`
/// (N x C x spatial...): explicit pads or auto_pad, then the output size
/// (in + pads - extent) / stride + 1, the division rounding toward zero as in
/// ONNX Runtime, or up with ceil_mode (but never starting a window past the
/// input and the leading pad). auto_pad SAME pads may be negative (a kernel
/// shorter than the stride) unless `clampAutoPad`. The output sizes are
/// checked against the static dims of `resultType`. Reports bad attributes
/// on `op` and fails.
mlir::FailureOr<llvm::SmallVector<WindowDim>> resolveWindow(
    mlir::OpBuilder &b, mlir::Operation *op, mlir::Value input,
    llvm::ArrayRef<int64_t> kernel, std::optional<mlir::ArrayAttr> strides,
    std::optional<mlir::ArrayAttr> dilations,
    std::optional<mlir::ArrayAttr> pads, llvm::StringRef autoPad, bool ceilMode,
    bool clampAutoPad, mlir::RankedTensorType resultType);

/// The kernel size of a convolution whose weight has type `weightType`
/// (M x C/group x k1..kr): the `kernelShape` attribute when present, which
/// must have r values agreeing with W's static spatial dims, else W's spatial
/// dims (dynamic ones stay dynamic). Reports a mismatch on `op` and fails.
mlir::FailureOr<llvm::SmallVector<int64_t>>
resolveKernelShape(mlir::Operation *op, mlir::RankedTensorType weightType,
                   std::optional<mlir::ArrayAttr> kernelShape);

/// `input` padded with `padValue` by `low`/`high` on its spatial dims (2..);
/// `input` itself when every pad is a zero constant.
mlir::Value padSpatial(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value input,
                       llvm::ArrayRef<mlir::OpFoldResult> low,
                       llvm::ArrayRef<mlir::OpFoldResult> high,
                       mlir::Value padValue);

/// `sizes` with every constant as an attribute (for static result types).
llvm::SmallVector<mlir::OpFoldResult>
foldSizes(llvm::ArrayRef<mlir::OpFoldResult> sizes);

/// ConvTranspose (ConvTranspose.cpp); registered by populateConvPatterns.
void populateConvTransposePatterns(const mlir::TypeConverter &typeConverter,
                                   mlir::RewritePatternSet &patterns);

} // namespace onnxc::cpu

#endif // ONNXC_TARGETS_CPU_LOWERING_WINDOWUTILS_H
