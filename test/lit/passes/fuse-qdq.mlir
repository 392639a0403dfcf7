// RUN: onnxc-opt --onnxc-fuse-qdq --split-input-file %s | FileCheck %s

// quantize_static's QDQ Conv: uint8 activations, int8 weights per output
// channel, int32 bias with scale x_scale * w_scale.
// CHECK-LABEL: func.func @conv_per_channel
// CHECK: %[[Y:.*]] = "onnx.QLinearConv"(%arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[B:.*]]) <{{{.*}}pads = [1, 1, 1, 1]{{.*}}}> : (tensor<1x3x4x4xui8>, tensor<f32>, tensor<ui8>, tensor<2x3x3x3xi8>, tensor<2xf32>, tensor<2xi8>, tensor<f32>, tensor<ui8>, tensor<2xi32>) -> tensor<1x2x4x4xui8>
// CHECK-NOT: onnx.DequantizeLinear
// CHECK-NOT: onnx.QuantizeLinear
// CHECK: return %[[Y]]
func.func @conv_per_channel(%xq: tensor<1x3x4x4xui8>) -> tensor<1x2x4x4xui8> {
  %xs = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %xz = "onnx.Constant"() <{value = dense<128> : tensor<ui8>}> : () -> tensor<ui8>
  %wq = "onnx.Constant"() <{value = dense<3> : tensor<2x3x3x3xi8>}> : () -> tensor<2x3x3x3xi8>
  %ws = "onnx.Constant"() <{value = dense<[0.25, 0.125]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %wz = "onnx.Constant"() <{value = dense<0> : tensor<2xi8>}> : () -> tensor<2xi8>
  %bq = "onnx.Constant"() <{value = dense<[10, -4]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %bs = "onnx.Constant"() <{value = dense<[0.125, 0.0625]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %bz = "onnx.Constant"() <{value = dense<0> : tensor<2xi32>}> : () -> tensor<2xi32>
  %ys = "onnx.Constant"() <{value = dense<0.75> : tensor<f32>}> : () -> tensor<f32>
  %yz = "onnx.Constant"() <{value = dense<100> : tensor<ui8>}> : () -> tensor<ui8>
  %x = "onnx.DequantizeLinear"(%xq, %xs, %xz) : (tensor<1x3x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x3x4x4xf32>
  %w = "onnx.DequantizeLinear"(%wq, %ws, %wz) <{axis = 0 : i64}> : (tensor<2x3x3x3xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x3x3x3xf32>
  %b = "onnx.DequantizeLinear"(%bq, %bs, %bz) <{axis = 0 : i64}> : (tensor<2xi32>, tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  %c = "onnx.Conv"(%x, %w, %b) <{pads = [1, 1, 1, 1]}> : (tensor<1x3x4x4xf32>, tensor<2x3x3x3xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %y = "onnx.QuantizeLinear"(%c, %ys, %yz) : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
  return %y : tensor<1x2x4x4xui8>
}

// -----

// QDQ MatMul, per-tensor int8 weights without a zero point (0 is made
// explicit).
// CHECK-LABEL: func.func @matmul
// CHECK: %[[Z:.*]] = "onnx.Constant"() <{value = dense<0> : tensor<i8>}>
// CHECK: "onnx.QLinearMatMul"(%arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[Z]], %{{.*}}, %{{.*}}) : (tensor<?x8xui8>, tensor<f32>, tensor<ui8>, tensor<8x4xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>) -> tensor<?x4xui8>
// CHECK-NOT: onnx.MatMul
func.func @matmul(%aq: tensor<?x8xui8>) -> tensor<?x4xui8> {
  %as = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %az = "onnx.Constant"() <{value = dense<128> : tensor<ui8>}> : () -> tensor<ui8>
  %bq = "onnx.Constant"() <{value = dense<3> : tensor<8x4xi8>}> : () -> tensor<8x4xi8>
  %bs = "onnx.Constant"() <{value = dense<0.25> : tensor<f32>}> : () -> tensor<f32>
  %none = "onnx.NoValue"() : () -> none
  %ys = "onnx.Constant"() <{value = dense<0.75> : tensor<f32>}> : () -> tensor<f32>
  %yz = "onnx.Constant"() <{value = dense<100> : tensor<ui8>}> : () -> tensor<ui8>
  %a = "onnx.DequantizeLinear"(%aq, %as, %az) : (tensor<?x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x8xf32>
  %b = "onnx.DequantizeLinear"(%bq, %bs, %none) : (tensor<8x4xi8>, tensor<f32>, none) -> tensor<8x4xf32>
  %m = "onnx.MatMul"(%a, %b) : (tensor<?x8xf32>, tensor<8x4xf32>) -> tensor<?x4xf32>
  %y = "onnx.QuantizeLinear"(%m, %ys, %yz) : (tensor<?x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<?x4xui8>
  return %y : tensor<?x4xui8>
}

// -----

// Must not fire: the activation's scale is not a constant.
// CHECK-LABEL: func.func @scale_not_constant
// CHECK-NOT: onnx.QLinearMatMul
// CHECK: onnx.MatMul
func.func @scale_not_constant(%aq: tensor<2x8xui8>, %as: tensor<f32>) -> tensor<2x4xui8> {
  %az = "onnx.Constant"() <{value = dense<128> : tensor<ui8>}> : () -> tensor<ui8>
  %bq = "onnx.Constant"() <{value = dense<3> : tensor<8x4xi8>}> : () -> tensor<8x4xi8>
  %bs = "onnx.Constant"() <{value = dense<0.25> : tensor<f32>}> : () -> tensor<f32>
  %bz = "onnx.Constant"() <{value = dense<0> : tensor<i8>}> : () -> tensor<i8>
  %ys = "onnx.Constant"() <{value = dense<0.75> : tensor<f32>}> : () -> tensor<f32>
  %yz = "onnx.Constant"() <{value = dense<100> : tensor<ui8>}> : () -> tensor<ui8>
  %a = "onnx.DequantizeLinear"(%aq, %as, %az) : (tensor<2x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x8xf32>
  %b = "onnx.DequantizeLinear"(%bq, %bs, %bz) : (tensor<8x4xi8>, tensor<f32>, tensor<i8>) -> tensor<8x4xf32>
  %m = "onnx.MatMul"(%a, %b) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %y = "onnx.QuantizeLinear"(%m, %ys, %yz) : (tensor<2x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x4xui8>
  return %y : tensor<2x4xui8>
}

// -----

// Fires although the dequantized input is also read by another op (a
// residual block's input): the DequantizeLinear stays for that reader.
// CHECK-LABEL: func.func @dq_used_twice
// CHECK: %[[A:.*]] = "onnx.DequantizeLinear"(%arg0
// CHECK: "onnx.QLinearMatMul"(%arg0
// CHECK: "onnx.Relu"(%[[A]])
// CHECK-NOT: onnx.MatMul
func.func @dq_used_twice(%aq: tensor<2x8xui8>) -> (tensor<2x4xui8>, tensor<2x8xf32>) {
  %as = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %az = "onnx.Constant"() <{value = dense<128> : tensor<ui8>}> : () -> tensor<ui8>
  %bq = "onnx.Constant"() <{value = dense<3> : tensor<8x4xi8>}> : () -> tensor<8x4xi8>
  %bs = "onnx.Constant"() <{value = dense<0.25> : tensor<f32>}> : () -> tensor<f32>
  %bz = "onnx.Constant"() <{value = dense<0> : tensor<i8>}> : () -> tensor<i8>
  %ys = "onnx.Constant"() <{value = dense<0.75> : tensor<f32>}> : () -> tensor<f32>
  %yz = "onnx.Constant"() <{value = dense<100> : tensor<ui8>}> : () -> tensor<ui8>
  %a = "onnx.DequantizeLinear"(%aq, %as, %az) : (tensor<2x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x8xf32>
  %b = "onnx.DequantizeLinear"(%bq, %bs, %bz) : (tensor<8x4xi8>, tensor<f32>, tensor<i8>) -> tensor<8x4xf32>
  %m = "onnx.MatMul"(%a, %b) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %y = "onnx.QuantizeLinear"(%m, %ys, %yz) : (tensor<2x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x4xui8>
  %r = "onnx.Relu"(%a) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y, %r : tensor<2x4xui8>, tensor<2x8xf32>
}

// -----

// Must not fire: the bias was quantized with a scale other than
// x_scale * w_scale (QLinearConv's bias has exactly that scale).
// CHECK-LABEL: func.func @bias_scale_differs
// CHECK-NOT: onnx.QLinearConv
func.func @bias_scale_differs(%xq: tensor<1x3x4x4xui8>) -> tensor<1x2x2x2xui8> {
  %xs = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %xz = "onnx.Constant"() <{value = dense<128> : tensor<ui8>}> : () -> tensor<ui8>
  %wq = "onnx.Constant"() <{value = dense<3> : tensor<2x3x3x3xi8>}> : () -> tensor<2x3x3x3xi8>
  %ws = "onnx.Constant"() <{value = dense<0.25> : tensor<f32>}> : () -> tensor<f32>
  %wz = "onnx.Constant"() <{value = dense<0> : tensor<i8>}> : () -> tensor<i8>
  %bq = "onnx.Constant"() <{value = dense<[10, -4]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %bs = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %ys = "onnx.Constant"() <{value = dense<0.75> : tensor<f32>}> : () -> tensor<f32>
  %yz = "onnx.Constant"() <{value = dense<100> : tensor<ui8>}> : () -> tensor<ui8>
  %none = "onnx.NoValue"() : () -> none
  %x = "onnx.DequantizeLinear"(%xq, %xs, %xz) : (tensor<1x3x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x3x4x4xf32>
  %w = "onnx.DequantizeLinear"(%wq, %ws, %wz) : (tensor<2x3x3x3xi8>, tensor<f32>, tensor<i8>) -> tensor<2x3x3x3xf32>
  %b = "onnx.DequantizeLinear"(%bq, %bs, %none) : (tensor<2xi32>, tensor<f32>, none) -> tensor<2xf32>
  %c = "onnx.Conv"(%x, %w, %b) : (tensor<1x3x4x4xf32>, tensor<2x3x3x3xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %y = "onnx.QuantizeLinear"(%c, %ys, %yz) : (tensor<1x2x2x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x2x2xui8>
  return %y : tensor<1x2x2x2xui8>
}

// -----

// Must not fire: per-channel weight scales along the wrong axis (input
// channels), which QLinearConv cannot express.
// CHECK-LABEL: func.func @weight_axis_1
// CHECK-NOT: onnx.QLinearConv
func.func @weight_axis_1(%xq: tensor<1x3x4x4xui8>) -> tensor<1x3x2x2xui8> {
  %xs = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %xz = "onnx.Constant"() <{value = dense<128> : tensor<ui8>}> : () -> tensor<ui8>
  %wq = "onnx.Constant"() <{value = dense<3> : tensor<3x3x3x3xi8>}> : () -> tensor<3x3x3x3xi8>
  %ws = "onnx.Constant"() <{value = dense<[0.25, 0.5, 1.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %wz = "onnx.Constant"() <{value = dense<0> : tensor<3xi8>}> : () -> tensor<3xi8>
  %ys = "onnx.Constant"() <{value = dense<0.75> : tensor<f32>}> : () -> tensor<f32>
  %yz = "onnx.Constant"() <{value = dense<100> : tensor<ui8>}> : () -> tensor<ui8>
  %none = "onnx.NoValue"() : () -> none
  %x = "onnx.DequantizeLinear"(%xq, %xs, %xz) : (tensor<1x3x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x3x4x4xf32>
  %w = "onnx.DequantizeLinear"(%wq, %ws, %wz) <{axis = 1 : i64}> : (tensor<3x3x3x3xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<3x3x3x3xf32>
  %c = "onnx.Conv"(%x, %w, %none) : (tensor<1x3x4x4xf32>, tensor<3x3x3x3xf32>, none) -> tensor<1x3x2x2xf32>
  %y = "onnx.QuantizeLinear"(%c, %ys, %yz) : (tensor<1x3x2x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x3x2x2xui8>
  return %y : tensor<1x3x2x2xui8>
}

// -----

// A float bias (a Constant node, not an initializer: ONNX Runtime's
// quantizer leaves it float) is quantized to int32 with scale
// f32(x_scale * w_scale[c]), rounded half to even: 0.1875 / 0.125 = 1.5
// -> 2 and -0.03125 / 0.0625 = -0.5 -> 0.
// CHECK-LABEL: func.func @conv_float_bias
// CHECK: %[[B:.*]] = "onnx.Constant"() <{value = dense<[2, 0]> : tensor<2xi32>}>
// CHECK: "onnx.QLinearConv"(%arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[B]])
// CHECK-NOT: onnx.Conv"
func.func @conv_float_bias(%xq: tensor<1x3x4x4xui8>) -> tensor<1x2x4x4xui8> {
  %xs = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %xz = "onnx.Constant"() <{value = dense<128> : tensor<ui8>}> : () -> tensor<ui8>
  %wq = "onnx.Constant"() <{value = dense<3> : tensor<2x3x3x3xi8>}> : () -> tensor<2x3x3x3xi8>
  %ws = "onnx.Constant"() <{value = dense<[0.25, 0.125]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %wz = "onnx.Constant"() <{value = dense<0> : tensor<2xi8>}> : () -> tensor<2xi8>
  %b = "onnx.Constant"() <{value = dense<[0.1875, -0.03125]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %ys = "onnx.Constant"() <{value = dense<0.75> : tensor<f32>}> : () -> tensor<f32>
  %yz = "onnx.Constant"() <{value = dense<100> : tensor<ui8>}> : () -> tensor<ui8>
  %x = "onnx.DequantizeLinear"(%xq, %xs, %xz) : (tensor<1x3x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x3x4x4xf32>
  %w = "onnx.DequantizeLinear"(%wq, %ws, %wz) <{axis = 0 : i64}> : (tensor<2x3x3x3xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x3x3x3xf32>
  %c = "onnx.Conv"(%x, %w, %b) <{pads = [1, 1, 1, 1]}> : (tensor<1x3x4x4xf32>, tensor<2x3x3x3xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %y = "onnx.QuantizeLinear"(%c, %ys, %yz) : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
  return %y : tensor<1x2x4x4xui8>
}
