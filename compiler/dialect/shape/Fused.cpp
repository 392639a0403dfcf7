//===- Fused.cpp - Shape rules of the onnxc fused ops ---------------------===//
//
// A fused op's result is its core op's result: FusedConv(X, W, B, Z) has
// Conv(X, W, B)'s shape (Z and the activation do not change it), and so on.
// The fused ops keep their core op's leading operands and attribute names,
// so the core op's rule applies as is.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/shape/ShapeRules.h"

namespace onnxc::shape {

void addFusedRules(RuleTable &rules) {
  rules.addAlias("onnxc.FusedConv", "onnx.Conv", 2);
  rules.addAlias("onnxc.FusedMatMul", "onnx.MatMul", 2);
  rules.addAlias("onnxc.FusedGemm", "onnx.Gemm", 2);
}

} // namespace onnxc::shape
