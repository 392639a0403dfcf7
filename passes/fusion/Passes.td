//===- Passes.td - Fusion passes of the graph optimizer ----*- tablegen -*-===//
//
// One pass per rewrite family. All run on shape-inferred onnx IR (ranked
// tensor types) and keep it shape-inferred: every op they create has its
// result type. FusionPasses.h lists them by optimization level.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_PASSES_FUSION_PASSES_TD
#define ONNXC_PASSES_FUSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def FoldConvAffine : Pass<"onnxc-fold-conv-affine", "mlir::func::FuncOp"> {
  let summary = "Fold BatchNormalization and per-channel Mul/Add into Conv";
  let description = [{
    Conv(X, W, B) with constant W (and B) followed by an inference-mode
    BatchNormalization with constant parameters, or by Mul/Add with a
    constant that is per output channel (or a scalar), becomes one Conv with
    rescaled weights and a new bias. The Conv's result must have no other
    user.
  }];
  let constructor = "onnxc::createFoldConvAffinePass()";
}

def FuseMatMulBias : Pass<"onnxc-fuse-matmul-bias", "mlir::func::FuncOp"> {
  let summary = "Fuse MatMul + Add(constant bias) into Gemm or onnxc.FusedMatMul";
  let description = [{
    MatMul(A, B) followed by Add with a constant that broadcasts onto the
    product without changing its shape becomes Gemm(A, B, bias) when A and B
    are 2-D and the bias is at most 2-D, and onnxc.FusedMatMul otherwise.
  }];
  let constructor = "onnxc::createFuseMatMulBiasPass()";
  let dependentDialects = ["::onnxc::fused::OnnxcDialect"];
}

def FuseMatMulScale : Pass<"onnxc-fuse-matmul-scale", "mlir::func::FuncOp"> {
  let summary = "Fold Mul/Div by a scalar constant into onnxc.FusedMatMul's alpha";
  let description = [{
    MatMul(A, B) (or a FusedMatMul without bias or activation) multiplied or
    divided by a scalar constant becomes FusedMatMul with that factor as
    alpha.
  }];
  let constructor = "onnxc::createFuseMatMulScalePass()";
  let dependentDialects = ["::onnxc::fused::OnnxcDialect"];
}

def FuseConvResidual : Pass<"onnxc-fuse-conv-residual", "mlir::func::FuncOp"> {
  let summary = "Fuse Conv + Add(same-shape tensor) into onnxc.FusedConv";
  let description = [{
    Conv(X, W, B) whose only user adds a tensor of exactly the Conv result's
    type (a residual connection) becomes onnxc.FusedConv with that tensor as
    its `Z` operand.
  }];
  let constructor = "onnxc::createFuseConvResidualPass()";
  let dependentDialects = ["::onnxc::fused::OnnxcDialect"];
}

def FuseActivation : Pass<"onnxc-fuse-activation", "mlir::func::FuncOp"> {
  let summary = "Fuse Conv/MatMul/Gemm + activation into onnxc fused ops";
  let description = [{
    Conv, MatMul, Gemm (or their onnxc fused forms without an activation)
    whose only user is Relu, LeakyRelu, Clip (constant bounds), Sigmoid, Tanh
    or HardSigmoid become onnxc.FusedConv / FusedMatMul / FusedGemm with that
    activation.
  }];
  let constructor = "onnxc::createFuseActivationPass()";
  let dependentDialects = ["::onnxc::fused::OnnxcDialect"];
}

def FuseGelu : Pass<"onnxc-fuse-gelu", "mlir::func::FuncOp"> {
  let summary = "Recognize decomposed GELU (Erf and Tanh forms) as onnx.Gelu";
  let description = [{
    x * 0.5 * (1 + erf(x / sqrt(2))) in the orders the PyTorch and TensorFlow
    exporters write becomes Gelu(x); the tanh approximation
    0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))) becomes
    Gelu(x, approximate = "tanh").
  }];
  let constructor = "onnxc::createFuseGeluPass()";
}

def FuseLayerNorm : Pass<"onnxc-fuse-layernorm", "mlir::func::FuncOp"> {
  let summary = "Recognize decomposed layer normalization as LayerNormalization";
  let description = [{
    ReduceMean, Sub, Pow(2) or Mul, ReduceMean, Add(epsilon), Sqrt, Div (or
    Mul by Reciprocal), then optionally Mul(gamma) and Add(beta), over the
    trailing axes, becomes LayerNormalization (opset 17).
  }];
  let constructor = "onnxc::createFuseLayerNormPass()";
}

def FuseAttention : Pass<"onnxc-fuse-attention", "mlir::func::FuncOp"> {
  let summary = "Recognize scaled dot-product attention as onnx.Attention";
  let description = [{
    MatMul(Q, K^T), scaled by Div/Mul with a scalar constant (or both
    inputs scaled), optionally plus a mask, Softmax on the last axis, MatMul
    with V, on 4-D [batch, heads, seq, head_size] tensors, becomes
    Attention(Q, K, V, mask) with the combined scale.
  }];
  let constructor = "onnxc::createFuseAttentionPass()";
}

#endif // ONNXC_PASSES_FUSION_PASSES_TD
