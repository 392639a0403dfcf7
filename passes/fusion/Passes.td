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
    whose only user is Relu, LeakyRelu, Clip (constant bounds), Sigmoid, Tanh,
    HardSigmoid or HardSwish become onnxc.FusedConv / FusedMatMul / FusedGemm
    with that activation; so does SiLU, Mul(x, Sigmoid(x)) in either operand
    order, where the Sigmoid and the Mul are the result's only users
    (activation "Silu").
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

def FuseSkipLayerNorm : Pass<"onnxc-fuse-skip-layernorm", "mlir::func::FuncOp"> {
  let summary = "Fuse residual Add (+ bias) + LayerNormalization into onnxc.SkipLayerNorm";
  let description = [{
    LayerNormalization over the last axis of Add(input, skip), where input and
    skip have the sum's type, optionally with a constant 1-D bias added to
    either operand or the sum, becomes onnxc.SkipLayerNorm. The sum must have
    no other user (the fused op does not return it).
  }];
  let constructor = "onnxc::createFuseSkipLayerNormPass()";
  let dependentDialects = ["::onnxc::fused::OnnxcDialect"];
}

def FuseBiasGelu : Pass<"onnxc-fuse-bias-gelu", "mlir::func::FuncOp"> {
  let summary = "Fuse Gelu into its MatMul/Gemm/Conv epilogue, or Add(bias) + Gelu into onnxc.BiasGelu";
  let description = [{
    Gelu (erf) and Gelu(approximate = "tanh") (FastGelu) whose input is the
    only use of a MatMul, Gemm, Conv or their onnxc fused forms become that
    op's "Gelu" / "FastGelu" activation; Gelu of Add(x, constant bias) that
    does not broadcast x becomes onnxc.BiasGelu.
  }];
  let constructor = "onnxc::createFuseBiasGeluPass()";
  let dependentDialects = ["::onnxc::fused::OnnxcDialect"];
}

def FuseBiasSoftmax : Pass<"onnxc-fuse-bias-softmax", "mlir::func::FuncOp"> {
  let summary = "Fuse Add(data, bias) + Softmax(last axis) into onnxc.BiasSoftmax";
  let description = [{
    Softmax on the last axis of Add(data, bias) where the bias broadcasts onto
    data without growing it (an attention mask) becomes onnxc.BiasSoftmax.
  }];
  let constructor = "onnxc::createFuseBiasSoftmaxPass()";
  let dependentDialects = ["::onnxc::fused::OnnxcDialect"];
}

def FuseEmbedLayerNorm : Pass<"onnxc-fuse-embed-layernorm", "mlir::func::FuncOp"> {
  let summary = "Fuse embedding Gathers + Add + LayerNormalization into onnxc.EmbedLayerNorm";
  let description = [{
    LayerNormalization over the last axis of the sum of two or three
    Gather(constant 2-D table, ids) lookups (word, token type, position, as
    BERT writes its embeddings) becomes onnxc.EmbedLayerNorm.
  }];
  let constructor = "onnxc::createFuseEmbedLayerNormPass()";
  let dependentDialects = ["::onnxc::fused::OnnxcDialect"];
}

def FuseQdq : Pass<"onnxc-fuse-qdq", "mlir::func::FuncOp"> {
  let summary = "Rewrite DQ -> Conv/MatMul -> Q into QLinearConv/QLinearMatMul";
  let description = [{
    QuantizeLinear(Conv(DequantizeLinear(x), DequantizeLinear(w),
    [DequantizeLinear(int32 bias)])) and QuantizeLinear(MatMul(DQ(a), DQ(b)))
    with constant scales and zero points (per tensor, or per channel for the
    weight) become QLinearConv / QLinearMatMul.
  }];
  let constructor = "onnxc::createFuseQdqPass()";
}

def DropQdqAroundDataMovement
    : Pass<"onnxc-drop-qdq-around-data-movement", "mlir::func::FuncOp"> {
  let summary = "Run data movement ops between DQ and Q on the 8-bit tensor";
  let description = [{
    QuantizeLinear(op(DequantizeLinear(q, s, z)), s, z) with the same scale
    and zero point, where op only moves or selects elements (Transpose,
    Reshape, Squeeze, Unsqueeze, Flatten, Identity, DepthToSpace,
    SpaceToDepth, MaxPool, nearest Resize), becomes op(q): exact.
  }];
  let constructor = "onnxc::createDropQdqAroundDataMovementPass()";
}

#endif // ONNXC_PASSES_FUSION_PASSES_TD
