// RUN: onnxc-opt --onnxc-quantized-channels-last --split-input-file %s | FileCheck %s
// RUN: onnxc-opt --onnxc-quantized-channels-last --onnxc-declare-runtime-helpers --convert-onnx-to-linalg --split-input-file %s | FileCheck %s --check-prefix=CALL

// A residual block as a QDQ model's graph reads after fusion: a stem
// QLinearConv, a MaxPool between a DequantizeLinear and a QuantizeLinear,
// a depthwise QLinearConv (SAME_UPPER, resolved to explicit pads), the
// residual Add and Relu on dequantized values, the GlobalAveragePool. One
// reorder in (the graph input, u8), one out (the pooled [1, 8, 1, 1]);
// everything between is [N, 1, H, W, C].
// CHECK-LABEL: func.func @block
// CHECK: %[[IN:.*]] = "onnxc.ReorderToBlocked"(%arg0) <{block_size = 3 : i64}> : (tensor<1x3x8x8xui8>) -> tensor<1x1x8x8x3xui8>
// CHECK-NOT: onnxc.Reorder
// CHECK: %[[C1:.*]] = "onnxc.BlockedQLinearConv"(%[[IN]], {{.*}}) <{dilations = [1, 1], group = 1 : i64, pads = [1, 1, 1, 1], strides = [1, 1]}> : ({{.*}}) -> tensor<1x1x8x8x8xui8>
// CHECK: %[[D1:.*]] = "onnx.DequantizeLinear"(%[[C1]], {{.*}}) -> tensor<1x1x8x8x8xf32>
// CHECK: %[[P:.*]], %{{.*}} = "onnx.MaxPool"(%[[D1]]) <{{{.*}}kernel_shape = [2, 2, 1], pads = [0, 0, 0, 0, 0, 0]{{.*}}strides = [2, 2, 1]}> : (tensor<1x1x8x8x8xf32>) -> (tensor<1x1x4x4x8xf32>, none)
// CHECK: %[[Q:.*]] = "onnx.QuantizeLinear"(%[[P]], {{.*}}) -> tensor<1x1x4x4x8xui8>
// CHECK: %[[C2:.*]] = "onnxc.BlockedQLinearConv"(%[[Q]], {{.*}}) <{dilations = [1, 1], group = 8 : i64, pads = [1, 1, 1, 1], strides = [1, 1]}> : ({{.*}}) -> tensor<1x1x4x4x8xui8>
// CHECK: %[[D2:.*]] = "onnx.DequantizeLinear"(%[[C2]]
// CHECK: %[[D3:.*]] = "onnx.DequantizeLinear"(%[[Q]]
// CHECK: %[[A:.*]] = "onnx.Add"(%[[D2]], %[[D3]]) : (tensor<1x1x4x4x8xf32>, tensor<1x1x4x4x8xf32>) -> tensor<1x1x4x4x8xf32>
// A per-channel operand is reordered too ([1, 1, 1, 1, 8]); a scalar one
// stays as it is.
// CHECK: %[[PC:.*]] = "onnxc.ReorderToBlocked"(%{{.*}}) <{block_size = 8 : i64}> : (tensor<1x8x1x1xf32>) -> tensor<1x1x1x1x8xf32>
// CHECK: %[[MUL:.*]] = "onnx.Mul"(%[[A]], %[[PC]]) : (tensor<1x1x4x4x8xf32>, tensor<1x1x1x1x8xf32>) -> tensor<1x1x4x4x8xf32>
// CHECK: %[[SA:.*]] = "onnx.Add"(%{{.*}}, %[[MUL]]) : (tensor<f32>, tensor<1x1x4x4x8xf32>) -> tensor<1x1x4x4x8xf32>
// CHECK: %[[R:.*]] = "onnx.Relu"(%[[SA]]) : (tensor<1x1x4x4x8xf32>) -> tensor<1x1x4x4x8xf32>
// CHECK: %[[AXES:.*]] = "onnx.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}>
// CHECK: %[[M:.*]] = "onnx.ReduceMean"(%[[R]], %[[AXES]]) <{keepdims = 1 : i64{{.*}}}> : (tensor<1x1x4x4x8xf32>, tensor<2xi64>) -> tensor<1x1x1x1x8xf32>
// CHECK: %[[OUT:.*]] = "onnxc.ReorderFromBlocked"(%[[M]]) <{channels = 8 : i64}> : (tensor<1x1x1x1x8xf32>) -> tensor<1x8x1x1xf32>
// CHECK-NOT: onnxc.Reorder
// CHECK-NOT: onnx.QLinearConv
// CHECK: return %[[OUT]]
// The lowering: the int8 convolution call with flag 128 (channels last) on
// the NHWC views; 8 | 16 | 2 = bias, y zero point, s8 W.
// CALL-LABEL: func.func @block
// CALL: %[[F:.*]] = arith.constant 154 : i32
// CALL: call @onnxc_rt_qlinear_conv2d_r4_0_0_4_1_1_0_0_1_4({{.*}}, %[[F]]
// CALL-NOT: onnxc.BlockedQLinearConv
func.func @block(%x: tensor<1x3x8x8xui8>) -> tensor<1x8x1x1xf32> {
  %s = "onnx.Constant"() <{value = dense<0.05> : tensor<f32>}> : () -> tensor<f32>
  %z = "onnx.Constant"() <{value = dense<128> : tensor<ui8>}> : () -> tensor<ui8>
  %w1 = "onnx.Constant"() <{value = dense<3> : tensor<8x3x3x3xi8>}> : () -> tensor<8x3x3x3xi8>
  %ws1 = "onnx.Constant"() <{value = dense<0.01> : tensor<8xf32>}> : () -> tensor<8xf32>
  %wz1 = "onnx.Constant"() <{value = dense<0> : tensor<8xi8>}> : () -> tensor<8xi8>
  %b1 = "onnx.Constant"() <{value = dense<7> : tensor<8xi32>}> : () -> tensor<8xi32>
  %w2 = "onnx.Constant"() <{value = dense<-2> : tensor<8x1x3x3xi8>}> : () -> tensor<8x1x3x3xi8>
  %c1 = "onnx.QLinearConv"(%x, %s, %z, %w1, %ws1, %wz1, %s, %z, %b1) <{pads = [1, 1, 1, 1]}> : (tensor<1x3x8x8xui8>, tensor<f32>, tensor<ui8>, tensor<8x3x3x3xi8>, tensor<8xf32>, tensor<8xi8>, tensor<f32>, tensor<ui8>, tensor<8xi32>) -> tensor<1x8x8x8xui8>
  %d1 = "onnx.DequantizeLinear"(%c1, %s, %z) : (tensor<1x8x8x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x8x8x8xf32>
  %p:2 = "onnx.MaxPool"(%d1) <{kernel_shape = [2, 2], strides = [2, 2]}> : (tensor<1x8x8x8xf32>) -> (tensor<1x8x4x4xf32>, none)
  %q = "onnx.QuantizeLinear"(%p#0, %s, %z) : (tensor<1x8x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8x4x4xui8>
  %c2 = "onnx.QLinearConv"(%q, %s, %z, %w2, %ws1, %wz1, %s, %z, %b1) <{auto_pad = "SAME_UPPER", group = 8 : i64}> : (tensor<1x8x4x4xui8>, tensor<f32>, tensor<ui8>, tensor<8x1x3x3xi8>, tensor<8xf32>, tensor<8xi8>, tensor<f32>, tensor<ui8>, tensor<8xi32>) -> tensor<1x8x4x4xui8>
  %d2 = "onnx.DequantizeLinear"(%c2, %s, %z) : (tensor<1x8x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x8x4x4xf32>
  %d3 = "onnx.DequantizeLinear"(%q, %s, %z) : (tensor<1x8x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x8x4x4xf32>
  %a = "onnx.Add"(%d2, %d3) : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %pc = "onnx.Constant"() <{value = dense<1.5> : tensor<1x8x1x1xf32>}> : () -> tensor<1x8x1x1xf32>
  %one = "onnx.Constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
  %m = "onnx.Mul"(%a, %pc) : (tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %sa = "onnx.Add"(%one, %m) : (tensor<f32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %r = "onnx.Relu"(%sa) : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %g = "onnx.GlobalAveragePool"(%r) : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
  return %g : tensor<1x8x1x1xf32>
}

// -----

// Must not fire: a W that is an input, auto_pad SAME_UPPER over spatial
// dims unknown at compile time (its pads depend on them), and an op that
// reads a region's value but cannot join (a per-channel DequantizeLinear)
// reads it through a reorder back.
// A chain of two convolutions is taken (one value in, two out: 3
// reorders for 4 transposes saved).
// CHECK-LABEL: func.func @not_taken
// CHECK: "onnx.QLinearConv"(%arg0, {{.*}}%arg1
// CHECK: "onnx.QLinearConv"(%arg2,
// CHECK: %[[C:.*]] = "onnxc.BlockedQLinearConv"
// CHECK: %[[BACK:.*]] = "onnxc.ReorderFromBlocked"(%[[C]]) <{channels = 4 : i64}> : (tensor<2x1x5x5x4xui8>) -> tensor<2x4x5x5xui8>
// CHECK: "onnxc.BlockedQLinearConv"(%[[C]]
// CHECK: "onnx.DequantizeLinear"(%[[BACK]]
func.func @not_taken(%x: tensor<2x4x5x5xui8>, %w: tensor<4x4x1x1xi8>, %xd: tensor<2x4x?x?xui8>) -> (tensor<2x4x5x5xui8>, tensor<2x4x?x?xui8>, tensor<2x4x5x5xf32>) {
  %s = "onnx.Constant"() <{value = dense<0.05> : tensor<f32>}> : () -> tensor<f32>
  %z = "onnx.Constant"() <{value = dense<128> : tensor<ui8>}> : () -> tensor<ui8>
  %wc = "onnx.Constant"() <{value = dense<1> : tensor<4x4x1x1xi8>}> : () -> tensor<4x4x1x1xi8>
  %ws = "onnx.Constant"() <{value = dense<0.01> : tensor<4xf32>}> : () -> tensor<4xf32>
  %wz = "onnx.Constant"() <{value = dense<0> : tensor<4xi8>}> : () -> tensor<4xi8>
  %sc = "onnx.Constant"() <{value = dense<0.1> : tensor<4xf32>}> : () -> tensor<4xf32>
  %zc = "onnx.Constant"() <{value = dense<3> : tensor<4xui8>}> : () -> tensor<4xui8>
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.QLinearConv"(%x, %s, %z, %w, %ws, %wz, %s, %z, %none) : (tensor<2x4x5x5xui8>, tensor<f32>, tensor<ui8>, tensor<4x4x1x1xi8>, tensor<4xf32>, tensor<4xi8>, tensor<f32>, tensor<ui8>, none) -> tensor<2x4x5x5xui8>
  %1 = "onnx.QLinearConv"(%xd, %s, %z, %wc, %ws, %wz, %s, %z, %none) <{auto_pad = "SAME_UPPER", strides = [2, 2]}> : (tensor<2x4x?x?xui8>, tensor<f32>, tensor<ui8>, tensor<4x4x1x1xi8>, tensor<4xf32>, tensor<4xi8>, tensor<f32>, tensor<ui8>, none) -> tensor<2x4x?x?xui8>
  %2 = "onnx.QLinearConv"(%0, %s, %z, %wc, %ws, %wz, %s, %z, %none) : (tensor<2x4x5x5xui8>, tensor<f32>, tensor<ui8>, tensor<4x4x1x1xi8>, tensor<4xf32>, tensor<4xi8>, tensor<f32>, tensor<ui8>, none) -> tensor<2x4x5x5xui8>
  %4 = "onnx.QLinearConv"(%2, %s, %z, %wc, %ws, %wz, %s, %z, %none) : (tensor<2x4x5x5xui8>, tensor<f32>, tensor<ui8>, tensor<4x4x1x1xi8>, tensor<4xf32>, tensor<4xi8>, tensor<f32>, tensor<ui8>, none) -> tensor<2x4x5x5xui8>
  %3 = "onnx.DequantizeLinear"(%2, %sc, %zc) <{axis = 1 : i64}> : (tensor<2x4x5x5xui8>, tensor<4xf32>, tensor<4xui8>) -> tensor<2x4x5x5xf32>
  return %4, %1, %3 : tensor<2x4x5x5xui8>, tensor<2x4x?x?xui8>, tensor<2x4x5x5xf32>
}

// -----

// Spatial dims unknown at compile time, explicit pads: taken; the lowering
// sizes the result at run time, (in + 2 - 3) / 2 + 1.
// CHECK-LABEL: func.func @dynamic_spatial
// CHECK: "onnxc.ReorderToBlocked"(%arg0) <{block_size = 4 : i64}> : (tensor<1x4x?x?xui8>) -> tensor<1x1x?x?x4xui8>
// CHECK: "onnxc.BlockedQLinearConv"{{.*}}pads = [1, 1, 1, 1], strides = [2, 2]{{.*}} -> tensor<1x1x?x?x4xui8>
// CHECK: "onnxc.ReorderFromBlocked"{{.*}} -> tensor<1x4x?x?xui8>
// CALL-LABEL: func.func @dynamic_spatial
// CALL: tensor.dim %{{.*}}, %c2{{.*}} : tensor<1x1x?x?x4xi8>
// CALL: arith.divsi %{{.*}}, %c2
// CALL: call @onnxc_rt_qlinear_conv2d_r4_0_0_4_1_1_0_0_1_4(
func.func @dynamic_spatial(%x: tensor<1x4x?x?xui8>) -> tensor<1x4x?x?xui8> {
  %s = "onnx.Constant"() <{value = dense<0.05> : tensor<f32>}> : () -> tensor<f32>
  %z = "onnx.Constant"() <{value = dense<128> : tensor<ui8>}> : () -> tensor<ui8>
  %wc = "onnx.Constant"() <{value = dense<1> : tensor<4x4x3x3xi8>}> : () -> tensor<4x4x3x3xi8>
  %ws = "onnx.Constant"() <{value = dense<0.01> : tensor<4xf32>}> : () -> tensor<4xf32>
  %wz = "onnx.Constant"() <{value = dense<0> : tensor<4xi8>}> : () -> tensor<4xi8>
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.QLinearConv"(%x, %s, %z, %wc, %ws, %wz, %s, %z, %none) <{pads = [1, 1, 1, 1], strides = [2, 2]}> : (tensor<1x4x?x?xui8>, tensor<f32>, tensor<ui8>, tensor<4x4x3x3xi8>, tensor<4xf32>, tensor<4xi8>, tensor<f32>, tensor<ui8>, none) -> tensor<1x4x?x?xui8>
  %1 = "onnx.QLinearConv"(%0, %s, %z, %wc, %ws, %wz, %s, %z, %none) <{pads = [1, 1, 1, 1]}> : (tensor<1x4x?x?xui8>, tensor<f32>, tensor<ui8>, tensor<4x4x3x3xi8>, tensor<4xf32>, tensor<4xi8>, tensor<f32>, tensor<ui8>, none) -> tensor<1x4x?x?xui8>
  return %1 : tensor<1x4x?x?xui8>
}

// -----

// A lone convolution between float ops is left NCHW: its reorders in and
// out would cost what its kernel's two transposes do.
// CHECK-LABEL: func.func @lone
// CHECK-NOT: onnxc.
// CHECK: "onnx.QLinearConv"
// CHECK-NOT: onnxc.
func.func @lone(%x: tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32> {
  %s = "onnx.Constant"() <{value = dense<0.05> : tensor<f32>}> : () -> tensor<f32>
  %z = "onnx.Constant"() <{value = dense<128> : tensor<ui8>}> : () -> tensor<ui8>
  %wc = "onnx.Constant"() <{value = dense<1> : tensor<4x4x1x1xi8>}> : () -> tensor<4x4x1x1xi8>
  %ws = "onnx.Constant"() <{value = dense<0.01> : tensor<4xf32>}> : () -> tensor<4xf32>
  %wz = "onnx.Constant"() <{value = dense<0> : tensor<4xi8>}> : () -> tensor<4xi8>
  %none = "onnx.NoValue"() : () -> none
  %q = "onnx.QuantizeLinear"(%x, %s, %z) : (tensor<1x4x5x5xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4x5x5xui8>
  %0 = "onnx.QLinearConv"(%q, %s, %z, %wc, %ws, %wz, %s, %z, %none) : (tensor<1x4x5x5xui8>, tensor<f32>, tensor<ui8>, tensor<4x4x1x1xi8>, tensor<4xf32>, tensor<4xi8>, tensor<f32>, tensor<ui8>, none) -> tensor<1x4x5x5xui8>
  %d = "onnx.DequantizeLinear"(%0, %s, %z) : (tensor<1x4x5x5xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x5x5xf32>
  %b = "onnx.Constant"() <{value = dense<0.5> : tensor<4xf32>}> : () -> tensor<4xf32>
  %y, %mean, %var = "onnx.BatchNormalization"(%d, %b, %b, %b, %b) : (tensor<1x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x5x5xf32>, none, none)
  return %y : tensor<1x4x5x5xf32>
}

// -----

// Another target's partition is left alone.
// CHECK-LABEL: func.func @other_target
// CHECK-NOT: onnxc.BlockedQLinearConv
func.func @other_target(%x: tensor<1x4x5x5xui8>) -> tensor<1x4x5x5xui8> attributes {onnxc.target = "dnnl"} {
  %s = "onnx.Constant"() <{value = dense<0.05> : tensor<f32>}> : () -> tensor<f32>
  %z = "onnx.Constant"() <{value = dense<128> : tensor<ui8>}> : () -> tensor<ui8>
  %wc = "onnx.Constant"() <{value = dense<1> : tensor<4x4x1x1xi8>}> : () -> tensor<4x4x1x1xi8>
  %ws = "onnx.Constant"() <{value = dense<0.01> : tensor<4xf32>}> : () -> tensor<4xf32>
  %wz = "onnx.Constant"() <{value = dense<0> : tensor<4xi8>}> : () -> tensor<4xi8>
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.QLinearConv"(%x, %s, %z, %wc, %ws, %wz, %s, %z, %none) : (tensor<1x4x5x5xui8>, tensor<f32>, tensor<ui8>, tensor<4x4x1x1xi8>, tensor<4xf32>, tensor<4xi8>, tensor<f32>, tensor<ui8>, none) -> tensor<1x4x5x5xui8>
  return %0 : tensor<1x4x5x5xui8>
}
