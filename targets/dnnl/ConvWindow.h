//===- ConvWindow.h - What the dnnl convolution lowerings share -*- C++ -*-===//
//
// The f32 (LowerConv.cpp) and int8 (LowerQuantizedConv.cpp) convolutions of
// the dnnl target take the same window arguments: ONNX's NCHW ops resolve
// theirs as the cpu lowering does (explicit begin pads; the runtime derives
// the end pads from Y's size).
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TARGETS_DNNL_CONVWINDOW_H
#define ONNXC_TARGETS_DNNL_CONVWINDOW_H

#include "targets/Target.h"
#include "targets/cpu/lowering/WindowUtils.h"
#include "targets/dnnl/DnnlCalls.h"

#include "mlir/IR/Builders.h"

#include <optional>

namespace onnxc::dnnl {

/// The operands and attributes of onnx.Conv, onnxc.FusedConv and
/// onnx.QLinearConv that the window and the result's shape depend on.
struct ConvView {
  mlir::Operation *op;
  mlir::Value x, w, bias, residual;
  std::optional<mlir::ArrayAttr> kernelShape, strides, dilations, pads;
  llvm::StringRef autoPad;
  int64_t group;
};

/// The view of those three ops; std::nullopt for others.
std::optional<ConvView> viewConv(mlir::Operation *op);

/// The resolved window, or failure (diagnostics silenced: the claim asks
/// too, and the cpu lowering reports bad attributes).
mlir::FailureOr<llvm::SmallVector<cpu::WindowDim>>
resolveConvWindow(mlir::OpBuilder &b, const ConvView &conv);

/// The claim's checks of a 2-D convolution: ranks, groups, a window that
/// resolves.
Claim claimConvGeometry(const ConvView &conv, mlir::RankedTensorType x,
                        mlir::RankedTensorType w, mlir::RankedTensorType y);

/// The window arguments every convolution call ends with: begin pads,
/// strides, dilations (ONNX's), group.
void appendConvWindow(mlir::OpBuilder &b, mlir::Location loc, int64_t group,
                      llvm::ArrayRef<cpu::WindowDim> window,
                      llvm::SmallVectorImpl<mlir::Value> &args);

/// The NCHW call's result buffer: [N, M, OH, OW].
mlir::Value allocConvResult(mlir::OpBuilder &b, mlir::Location loc,
                            const ConvView &conv,
                            llvm::ArrayRef<cpu::WindowDim> window,
                            DnnlCallBuilder &calls);

/// Whether `value` is an onnx.Constant (a weight the call site packs once).
bool isConstantTensor(mlir::Value value);

} // namespace onnxc::dnnl

#endif // ONNXC_TARGETS_DNNL_CONVWINDOW_H
