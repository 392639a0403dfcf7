//===- OnnxcOps.td - The onnxc dialect of fused ops --------*- tablegen -*-===//
//
// Ops the graph optimizer (passes/fusion) produces where ONNX itself has no
// single operator for a fused pattern. Where ONNX does (LayerNormalization,
// Gelu, Attention) the passes rewrite into the standard onnx op instead.
//
// The ops follow the onnx dialect's conventions: operands and results are
// `AnyType` (ranked tensors after shape inference), an omitted optional input
// is an `onnx.NoValue` (type `none`), and attributes keep the names they have
// as attributes of a NodeProto of domain `onnxc` (what `onnxc optimize` writes
// and the importer reads back).
//
// Activations. `activation` names the function applied last to each element;
// "" means none. `activation_params` holds its parameters:
//   Relu        max(x, 0)
//   LeakyRelu   [alpha]            x < 0 ? alpha * x : x
//   Clip        [min, max]         min(max(x, min), max)
//   Sigmoid     1 / (1 + exp(-x))
//   Tanh        tanh(x)
//   HardSigmoid [alpha, beta]      max(0, min(1, alpha * x + beta))
//   Gelu        0.5 * x * (1 + erf(x / sqrt(2)))
//   FastGelu    0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
//               (ONNX Gelu approximate = "tanh"; ONNX Runtime's FastGelu)
//   Silu        x * sigmoid(x)     (SiLU / Swish: Mul(x, Sigmoid(x)))
//   HardSwish   x * max(0, min(1, x / 6 + 0.5))
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_DIALECT_ONNXC_ONNXCOPS_TD
#define ONNXC_DIALECT_ONNXC_ONNXCOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Onnxc_Dialect : Dialect {
  let name = "onnxc";
  let summary = "fused operators produced by onnxc's graph optimizer";
  let description = [{
    Conv and MatMul/Gemm with their epilogues (bias, scale, activation,
    residual add) as single ops, so that a target lowers each to one kernel
    call or one loop nest. The ONNX domain of these ops is `onnxc`, version 1.
  }];
  let cppNamespace = "::onnxc::fused";
}

/// An INT attribute: a signless i64 read back as a signed value.
def Onnxc_IntAttr : TypedSignlessIntegerAttrBase<I64, "int64_t",
                                                 "64-bit integer attribute"> {
  let convertFromStorage = "$_self.getValue().getSExtValue()";
}

class Onnxc_Op<string mnemonic, list<Trait> traits = []>
    : Op<Onnxc_Dialect, mnemonic, traits>;

def Onnxc_FusedConvOp : Onnxc_Op<"FusedConv", [Pure]> {
  let summary = "Conv + bias + optional residual add + activation";
  let description = [{
    `Y = activation(Conv(X, W, B) + Z)`.

    X, W, B and the attributes auto_pad .. strides are exactly those of ONNX
    Conv (opset 22). `Z`, when present, has the shape of the convolution's
    result (a residual connection) and is added before the activation. B and
    Z may be omitted (`none`).
  }];
  let arguments = (ins
    AnyType:$X,
    AnyType:$W,
    AnyType:$B,
    AnyType:$Z,
    DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
    OptionalAttr<I64ArrayAttr>:$dilations,
    DefaultValuedAttr<Onnxc_IntAttr, "1">:$group,
    OptionalAttr<I64ArrayAttr>:$kernel_shape,
    OptionalAttr<I64ArrayAttr>:$pads,
    OptionalAttr<I64ArrayAttr>:$strides,
    DefaultValuedStrAttr<StrAttr, "">:$activation,
    OptionalAttr<F32ArrayAttr>:$activation_params);
  let results = (outs AnyType:$Y);
}

def Onnxc_FusedMatMulOp : Onnxc_Op<"FusedMatMul", [Pure]> {
  let summary = "MatMul * alpha + bias, then an activation";
  let description = [{
    `Y = activation(alpha * MatMul(A, B) + bias)`.

    A and B are those of ONNX MatMul (numpy matmul semantics, any rank).
    `bias`, when present, broadcasts (multidirectionally) to the MatMul
    result without changing its shape. It may be omitted (`none`).
  }];
  let arguments = (ins
    AnyType:$A,
    AnyType:$B,
    AnyType:$bias,
    DefaultValuedAttr<F32Attr, "1.0">:$alpha,
    DefaultValuedStrAttr<StrAttr, "">:$activation,
    OptionalAttr<F32ArrayAttr>:$activation_params);
  let results = (outs AnyType:$Y);
}

def Onnxc_FusedGemmOp : Onnxc_Op<"FusedGemm", [Pure]> {
  let summary = "Gemm followed by an activation";
  let description = [{
    `Y = activation(Gemm(A, B, C))` with the operands and the attributes
    alpha, beta, transA, transB of ONNX Gemm (opset 13).
  }];
  let arguments = (ins
    AnyType:$A,
    AnyType:$B,
    AnyType:$C,
    DefaultValuedAttr<F32Attr, "1.0">:$alpha,
    DefaultValuedAttr<F32Attr, "1.0">:$beta,
    DefaultValuedAttr<Onnxc_IntAttr, "0">:$transA,
    DefaultValuedAttr<Onnxc_IntAttr, "0">:$transB,
    DefaultValuedStrAttr<StrAttr, "">:$activation,
    OptionalAttr<F32ArrayAttr>:$activation_params);
  let results = (outs AnyType:$Y);
}

//===----------------------------------------------------------------------===//
// Transformer fusions (ONNX Runtime's extended level): the ops below lower to
// their onnx decomposition followed by elementwise fusion, and exist so the
// graph shows (and a target may claim) the fused pattern as one node.
//===----------------------------------------------------------------------===//

def Onnxc_SkipLayerNormOp : Onnxc_Op<"SkipLayerNorm", [Pure]> {
  let summary = "Residual add (+ bias) then layer normalization";
  let description = [{
    `Y = LayerNormalization(input + skip + bias, gamma, beta, axis = -1,
    epsilon)`.

    `input` and `skip` have the same shape (no broadcasting); `gamma`,
    `beta` and `bias` are 1-D over the last dim. `beta` and `bias` may be
    omitted (`none`). Unlike ONNX Runtime's SkipLayerNormalization this op
    has no output for the sum itself: the fusion does not fire when the sum
    has another user.
  }];
  let arguments = (ins
    AnyType:$input,
    AnyType:$skip,
    AnyType:$gamma,
    AnyType:$beta,
    AnyType:$bias,
    DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon);
  let results = (outs AnyType:$Y);
  let hasVerifier = 1;
}

def Onnxc_BiasGeluOp : Onnxc_Op<"BiasGelu", [Pure]> {
  let summary = "Gelu of a biased input";
  let description = [{
    `Y = Gelu(X + bias, approximate)`. `bias` broadcasts onto X without
    changing its shape (a 1-D bias over the last dim, as a Linear layer
    adds). approximate is "none" (erf) or "tanh" (ONNX Runtime's FastGelu).
  }];
  let arguments = (ins
    AnyType:$X,
    AnyType:$bias,
    DefaultValuedStrAttr<StrAttr, "none">:$approximate);
  let results = (outs AnyType:$Y);
  let hasVerifier = 1;
}

def Onnxc_BiasSoftmaxOp : Onnxc_Op<"BiasSoftmax", [Pure]> {
  let summary = "Softmax of data plus a broadcast bias (an attention mask)";
  let description = [{
    `Y = Softmax(data + bias, axis)`. `bias` broadcasts onto `data` without
    changing its shape (BERT's [batch, 1, 1, seq] additive mask onto
    [batch, heads, seq, seq] scores).
  }];
  let arguments = (ins
    AnyType:$data,
    AnyType:$bias,
    DefaultValuedAttr<Onnxc_IntAttr, "-1">:$axis);
  let results = (outs AnyType:$Y);
  let hasVerifier = 1;
}

def Onnxc_EmbedLayerNormOp : Onnxc_Op<"EmbedLayerNorm", [Pure]> {
  let summary = "Sum of embedding lookups then layer normalization";
  let description = [{
    `Y = LayerNormalization((word_embedding[input_ids] +
    segment_embedding[segment_ids]) + position_embedding[position_ids],
    gamma, beta, axis = -1, epsilon)` (added in that order, as BERT does),
    each lookup an ONNX Gather on axis 0
    (negative indices count from the end) of a 2-D [vocab, hidden] table.
    The index tensors broadcast against each other (BERT's position ids are
    [1, seq] against [batch, seq] input ids); Y is their broadcast shape
    followed by hidden. `segment_ids` with `segment_embedding` and `beta`
    may be omitted (`none`).
  }];
  let arguments = (ins
    AnyType:$input_ids,
    AnyType:$segment_ids,
    AnyType:$position_ids,
    AnyType:$word_embedding,
    AnyType:$position_embedding,
    AnyType:$segment_embedding,
    AnyType:$gamma,
    AnyType:$beta,
    DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon);
  let results = (outs AnyType:$Y);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Blocked (NCHWc) layout: passes/layout/NchwcLayout.cpp
//===----------------------------------------------------------------------===//
//
// A blocked tensor holds an [N, C, D1..Dr] tensor as
// [N, ceil(C/B), D1..Dr, B]: channel c is at (c / B, ..., c % B). B, the
// block size, is the last dim. The channels past C in the last block (the
// padding) are zero when ReorderToBlocked makes them; after that they are
// unspecified and may be anything, +-inf and NaN included (a BlockedConv
// computes inf * 0 = NaN there when a real input is infinite). No value of
// a padding lane ever reaches a real channel: ops that work lane by lane
// keep padding in padding, a group-1 BlockedConv reads only its
// `in_channels` true input channels, and ReorderFromBlocked drops them.

def Onnxc_TransferOp : Onnxc_Op<"Transfer", [Pure, AllTypesMatch<["X", "Y"]>]> {
  let summary = "a value copied into another memory space";
  let description = [{
    Inserted by the partition pass where a value made in one memory space
    (`host`, `device`) is read by a partition of a target in another: `Y` is
    `X` in the memory space `to`. The target that owns the device memory
    lowers it (an asynchronous copy on the run's stream).
  }];
  let arguments = (ins AnyType:$X, StrAttr:$from, StrAttr:$to);
  let results = (outs AnyType:$Y);
}

def Onnxc_ReorderToBlockedOp : Onnxc_Op<"ReorderToBlocked", [Pure]> {
  let summary = "[N, C, D...] -> [N, ceil(C/B), D..., B], zero-padded";
  let description = [{
    `Y[n, c / B, d..., c % B] = X[n, c, d...]`, and 0 in the last block's
    channels past C. X has rank >= 3.
  }];
  let arguments = (ins AnyType:$X, Onnxc_IntAttr:$block_size);
  let results = (outs AnyType:$Y);
  let hasVerifier = 1;
}

def Onnxc_ReorderFromBlockedOp : Onnxc_Op<"ReorderFromBlocked", [Pure]> {
  let summary = "[N, ceil(C/B), D..., B] -> [N, C, D...]";
  let description = [{
    The inverse of ReorderToBlocked: `Y[n, c, d...] = X[n, c / B, d..., c % B]`
    for the `channels` (C) true channels; the padding is dropped.
  }];
  let arguments = (ins AnyType:$X, Onnxc_IntAttr:$channels);
  let results = (outs AnyType:$Y);
  let hasVerifier = 1;
}

def Onnxc_BlockedConvOp : Onnxc_Op<"BlockedConv", [Pure]> {
  let summary = "FusedConv on blocked tensors with pre-blocked weights";
  let description = [{
    `Y = activation(Conv(X, W, B) + Z)` (see FusedConv) where X, Y and Z are
    blocked tensors of block size `b` (their last dim) and W and B are
    blocked once at compile time:

    - group = 1: W is [ceil(M/b), ceil(C/b), K1..Kr, b, b], where
      `W[m / b, c / b, k..., c % b, m % b]` is ONNX's W[m, c, k...]
      (output channels innermost, so that one input channel updates b
      outputs with one vector operation);
    - depthwise (group = C = M): W is [ceil(C/b), K1..Kr, b], holding
      W[c, 0, k...] at [c / b, k..., c % b].

    Weights (and B) are zero where the channel is padding. `in_channels`
    (C) and `out_channels` (M) are the true channel counts of X and Y (for
    depthwise both equal `group`). The input channels past C are never
    read (with group 1 they do not enter the reduction at all, whatever
    their values), so an infinite or NaN padding lane of X cannot reach Y's
    real channels; Y's own padding lanes are unspecified. B, when present,
    is [ceil(M/b), b]. Z, when present, has Y's type. Pads are explicit
    (`pads`, begin values then end values); there is no auto_pad. Strides,
    dilations and pads default as in Conv; `kernel_shape`, when given, must
    agree with W.
  }];
  let arguments = (ins
    AnyType:$X,
    AnyType:$W,
    AnyType:$B,
    AnyType:$Z,
    Onnxc_IntAttr:$in_channels,
    Onnxc_IntAttr:$out_channels,
    OptionalAttr<I64ArrayAttr>:$dilations,
    DefaultValuedAttr<Onnxc_IntAttr, "1">:$group,
    OptionalAttr<I64ArrayAttr>:$kernel_shape,
    OptionalAttr<I64ArrayAttr>:$pads,
    OptionalAttr<I64ArrayAttr>:$strides,
    DefaultValuedStrAttr<StrAttr, "">:$activation,
    OptionalAttr<F32ArrayAttr>:$activation_params);
  let results = (outs AnyType:$Y);
  let hasVerifier = 1;
}

def Onnxc_BlockedQLinearConvOp : Onnxc_Op<"BlockedQLinearConv", [Pure]> {
  let summary = "2-D QLinearConv on tensors whose one block holds every channel";
  let description = [{
    ONNX QLinearConv (X, x_scale, x_zero_point, W, w_scale, w_zero_point,
    y_scale, y_zero_point, B) where X is [N, 1, H, W, C] and Y is
    [N, 1, OH, OW, M]: the blocked layout of ReorderToBlocked with a block
    of all C channels, which is NHWC with a unit dim, so that the ops
    between quantized convolutions (QuantizeLinear, DequantizeLinear,
    activations, adds, pools) run on it as they do on any blocked tensor.
    W keeps ONNX's [M, C/group, kH, kW]. Pads are explicit (`pads`: top,
    left, bottom, right); there is no auto_pad.
  }];
  let arguments = (ins
    AnyType:$X,
    AnyType:$x_scale,
    AnyType:$x_zero_point,
    AnyType:$W,
    AnyType:$w_scale,
    AnyType:$w_zero_point,
    AnyType:$y_scale,
    AnyType:$y_zero_point,
    AnyType:$B,
    I64ArrayAttr:$dilations,
    DefaultValuedAttr<Onnxc_IntAttr, "1">:$group,
    I64ArrayAttr:$pads,
    I64ArrayAttr:$strides);
  let results = (outs AnyType:$Y);
}

#endif // ONNXC_DIALECT_ONNXC_ONNXCOPS_TD
