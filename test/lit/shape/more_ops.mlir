// RUN: onnxc-opt --onnx-shape-inference %s | FileCheck %s
// Expected shapes agree with onnx.shape_inference (onnx 1.23) where it infers
// them.

// CHECK-LABEL: func.func @einsum
func.func @einsum(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %c: tensor<3x4xf32>, %d: tensor<4x5xf32>, %e: tensor<2x7x3x3xf32>, %f: tensor<?x3xf32>, %g: tensor<3xf32>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  // CHECK: "onnx.Einsum"{{.*}} -> tensor<2x3x5xf32>
  %0 = "onnx.Einsum"(%a, %b) <{equation = "bij,bjk->bik"}> : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> !onnx.unknown
  // Implicit output: labels used once, in order.
  // CHECK: "onnx.Einsum"{{.*}} -> tensor<3x5xf32>
  %1 = "onnx.Einsum"(%c, %d) <{equation = "ij,jk"}> : (tensor<3x4xf32>, tensor<4x5xf32>) -> !onnx.unknown
  // CHECK: "onnx.Einsum"{{.*}} -> tensor<2x7x3xf32>
  %2 = "onnx.Einsum"(%e) <{equation = "...ii->...i"}> : (tensor<2x7x3x3xf32>) -> !onnx.unknown
  // CHECK: "onnx.Einsum"{{.*}} -> tensor<?xf32>
  %3 = "onnx.Einsum"(%f, %g) <{equation = "ij, j -> i"}> : (tensor<?x3xf32>, tensor<3xf32>) -> !onnx.unknown
  return %0, %1, %2, %3 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// CHECK-LABEL: func.func @quantized
func.func @quantized(%x: tensor<1x3x8x8xf32>, %s: tensor<f32>, %zp: tensor<ui8>, %zi: tensor<i8>,
                     %q: tensor<1x3x8x8xui8>, %w: tensor<4x3x3x3xi8>, %b: tensor<4xi32>,
                     %m: tensor<2x3xui8>, %n: tensor<3x5xi8>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %none = "onnx.NoValue"() : () -> none
  // CHECK: "onnx.QuantizeLinear"{{.*}} -> tensor<1x3x8x8xi8>
  %0 = "onnx.QuantizeLinear"(%x, %s, %zi) : (tensor<1x3x8x8xf32>, tensor<f32>, tensor<i8>) -> !onnx.unknown
  // CHECK: "onnx.QuantizeLinear"{{.*}} -> tensor<1x3x8x8xui8>
  %1 = "onnx.QuantizeLinear"(%x, %s, %none) : (tensor<1x3x8x8xf32>, tensor<f32>, none) -> !onnx.unknown
  // CHECK: "onnx.DequantizeLinear"{{.*}} -> tensor<1x3x8x8xf32>
  %2 = "onnx.DequantizeLinear"(%q, %s, %zp) : (tensor<1x3x8x8xui8>, tensor<f32>, tensor<ui8>) -> !onnx.unknown
  // CHECK: "onnx.DynamicQuantizeLinear"{{.*}} -> (tensor<1x3x8x8xui8>, tensor<f32>, tensor<ui8>)
  %3:3 = "onnx.DynamicQuantizeLinear"(%x) : (tensor<1x3x8x8xf32>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown)
  // CHECK: "onnx.QLinearConv"{{.*}} -> tensor<1x4x8x8xui8>
  %4 = "onnx.QLinearConv"(%q, %s, %zp, %w, %s, %zi, %s, %zp, %b) <{pads = [1, 1, 1, 1]}> : (tensor<1x3x8x8xui8>, tensor<f32>, tensor<ui8>, tensor<4x3x3x3xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>, tensor<4xi32>) -> !onnx.unknown
  // CHECK: "onnx.ConvInteger"{{.*}} -> tensor<1x4x6x6xi32>
  %5 = "onnx.ConvInteger"(%q, %w, %none, %none) : (tensor<1x3x8x8xui8>, tensor<4x3x3x3xi8>, none, none) -> !onnx.unknown
  // CHECK: "onnx.QLinearMatMul"{{.*}} -> tensor<2x5xi8>
  %6 = "onnx.QLinearMatMul"(%m, %s, %zp, %n, %s, %zi, %s, %zi) : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>, tensor<3x5xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<i8>) -> !onnx.unknown
  // CHECK: "onnx.MatMulInteger"{{.*}} -> tensor<2x5xi32>
  %7 = "onnx.MatMulInteger"(%m, %n, %none, %none) : (tensor<2x3xui8>, tensor<3x5xi8>, none, none) -> !onnx.unknown
  // CHECK: "onnx.DequantizeLinear"{{.*}} -> tensor<2x3xf16>
  %8 = "onnx.DequantizeLinear"(%m, %s, %zp) <{output_dtype = 10 : i64}> : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>) -> !onnx.unknown
  return %0, %1, %2, %3#0, %4, %5, %6, %7, %8 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// CHECK-LABEL: func.func @recurrent
func.func @recurrent(%x: tensor<5x?x10xf32>, %w: tensor<2x64x10xf32>, %r: tensor<2x64x16xf32>,
                     %xb: tensor<2x5x10xf32>, %gw: tensor<1x48x10xf32>, %gr: tensor<1x48x16xf32>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %n = "onnx.NoValue"() : () -> none
  // CHECK: "onnx.LSTM"{{.*}} -> (tensor<5x2x?x16xf32>, tensor<2x?x16xf32>, tensor<2x?x16xf32>)
  %0:3 = "onnx.LSTM"(%x, %w, %r, %n, %n, %n, %n, %n) <{direction = "bidirectional", hidden_size = 16 : i64}> : (tensor<5x?x10xf32>, tensor<2x64x10xf32>, tensor<2x64x16xf32>, none, none, none, none, none) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown)
  // Batch-first layout; hidden size from W (3 gates).
  // CHECK: "onnx.GRU"{{.*}} -> (tensor<2x5x1x16xf32>, tensor<2x1x16xf32>)
  %1:2 = "onnx.GRU"(%xb, %gw, %gr, %n, %n, %n) <{layout = 1 : i64}> : (tensor<2x5x10xf32>, tensor<1x48x10xf32>, tensor<1x48x16xf32>, none, none, none) -> (!onnx.unknown, !onnx.unknown)
  return %0#0, %0#1, %1#0, %1#1 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// CHECK-LABEL: func.func @resize
func.func @resize(%x: tensor<1x3x7x9xf32>, %d: tensor<?x3x?x?xf32>, %dyn: tensor<4xi64>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %n = "onnx.NoValue"() : () -> none
  %scales = "onnx.Constant"() <{value = dense<[1.0, 1.0, 1.5, 0.6]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %sizes = "onnx.Constant"() <{value = dense<[1, 3, 14, 18]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %empty = "onnx.Constant"() <{value = dense<> : tensor<0xf32>}> : () -> tensor<0xf32>
  %two = "onnx.Constant"() <{value = dense<[2.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  // CHECK: "onnx.Resize"{{.*}} -> tensor<1x3x10x5xf32>
  %0 = "onnx.Resize"(%x, %n, %scales, %n) : (tensor<1x3x7x9xf32>, none, tensor<4xf32>, none) -> !onnx.unknown
  // CHECK: "onnx.Resize"{{.*}} -> tensor<1x3x14x18xf32>
  %1 = "onnx.Resize"(%x, %n, %empty, %sizes) : (tensor<1x3x7x9xf32>, none, tensor<0xf32>, tensor<4xi64>) -> !onnx.unknown
  // CHECK: "onnx.Resize"{{.*}} -> tensor<?x3x?x?xf32>
  %2 = "onnx.Resize"(%d, %n, %two, %n) <{axes = [2, 3]}> : (tensor<?x3x?x?xf32>, none, tensor<2xf32>, none) -> !onnx.unknown
  // CHECK: "onnx.Resize"{{.*}} -> tensor<1x3x14x18xf32>
  %3 = "onnx.Resize"(%d, %n, %n, %sizes) : (tensor<?x3x?x?xf32>, none, none, tensor<4xi64>) -> !onnx.unknown
  // CHECK: "onnx.Resize"{{.*}} -> tensor<?x?x?x?xf32>
  %4 = "onnx.Resize"(%x, %n, %n, %dyn) : (tensor<1x3x7x9xf32>, none, none, tensor<4xi64>) -> !onnx.unknown
  %up = "onnx.Constant"() <{value = dense<[1.0, 1.0, 2.0, 3.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  // CHECK: "onnx.Upsample"{{.*}} -> tensor<1x3x14x27xf32>
  %5 = "onnx.Upsample"(%x, %up) : (tensor<1x3x7x9xf32>, tensor<4xf32>) -> !onnx.unknown
  return %0, %1, %2, %3, %4, %5 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// CHECK-LABEL: func.func @misc
func.func @misc(%i: tensor<4x?xi64>, %v: tensor<2xf32>, %x: tensor<3x5xf32>, %c: tensor<3xi1>, %boxes: tensor<1x10x4xf32>, %scores: tensor<1x2x10xf32>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %n = "onnx.NoValue"() : () -> none
  %depth = "onnx.Constant"() <{value = dense<10> : tensor<i64>}> : () -> tensor<i64>
  // CHECK: "onnx.OneHot"{{.*}} -> tensor<4x10x?xf32>
  %0 = "onnx.OneHot"(%i, %depth, %v) <{axis = 1 : i64}> : (tensor<4x?xi64>, tensor<i64>, tensor<2xf32>) -> !onnx.unknown
  // CHECK: "onnx.Compress"{{.*}} -> tensor<?x5xf32>
  %1 = "onnx.Compress"(%x, %c) <{axis = 0 : i64}> : (tensor<3x5xf32>, tensor<3xi1>) -> !onnx.unknown
  // CHECK: "onnx.NonMaxSuppression"{{.*}} -> tensor<?x3xi64>
  %2 = "onnx.NonMaxSuppression"(%boxes, %scores, %n, %n, %n) : (tensor<1x10x4xf32>, tensor<1x2x10xf32>, none, none, none) -> !onnx.unknown
  // CHECK: "onnx.NonZero"{{.*}} -> tensor<2x?xi64>
  %3 = "onnx.NonZero"(%x) : (tensor<3x5xf32>) -> !onnx.unknown
  // CHECK: "onnx.RandomNormal"{{.*}} -> tensor<2x4xf16>
  %4 = "onnx.RandomNormal"() <{shape = [2, 4], dtype = 10 : i64}> : () -> !onnx.unknown
  // CHECK: "onnx.RandomUniformLike"{{.*}} -> tensor<3x5xf32>
  %5 = "onnx.RandomUniformLike"(%x) : (tensor<3x5xf32>) -> !onnx.unknown
  // CHECK: "onnx.DepthToSpace"{{.*}} -> tensor<1x2x6x8xf32>
  %y = "onnx.Constant"() <{value = dense<1.0> : tensor<1x8x3x4xf32>}> : () -> tensor<1x8x3x4xf32>
  %6 = "onnx.DepthToSpace"(%y) <{blocksize = 2 : i64}> : (tensor<1x8x3x4xf32>) -> !onnx.unknown
  // CHECK: "onnx.CumSum"{{.*}} -> tensor<3x5xf32>
  %ax = "onnx.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %7 = "onnx.CumSum"(%x, %ax) : (tensor<3x5xf32>, tensor<i64>) -> !onnx.unknown
  return %0, %1, %2, %3, %4, %5, %6, %7 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// CHECK-LABEL: func.func @attention
func.func @attention(%q: tensor<2x8x10x64xf32>, %k: tensor<2x2x12x64xf32>, %v: tensor<2x2x12x32xf32>,
                     %pk: tensor<2x2x?x64xf32>, %pv: tensor<2x2x?x32xf32>,
                     %q3: tensor<2x10x512xf32>, %k3: tensor<2x12x128xf32>, %v3: tensor<2x12x64xf32>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %n = "onnx.NoValue"() : () -> none
  // CHECK: "onnx.Attention"{{.*}} -> (tensor<2x8x10x32xf32>, none, none, tensor<2x8x10x12xf32>)
  %0:4 = "onnx.Attention"(%q, %k, %v, %n, %n, %n, %n) : (tensor<2x8x10x64xf32>, tensor<2x2x12x64xf32>, tensor<2x2x12x32xf32>, none, none, none, none) -> (!onnx.unknown, none, none, !onnx.unknown)
  // With a KV cache: present = past + current.
  // CHECK: "onnx.Attention"{{.*}} -> (tensor<2x8x10x32xf32>, tensor<2x2x?x64xf32>, tensor<2x2x?x32xf32>, none)
  %1:4 = "onnx.Attention"(%q, %k, %v, %n, %pk, %pv, %n) : (tensor<2x8x10x64xf32>, tensor<2x2x12x64xf32>, tensor<2x2x12x32xf32>, none, tensor<2x2x?x64xf32>, tensor<2x2x?x32xf32>, none) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, none)
  // 3-D inputs: hidden = q_num_heads * v_head_size.
  // CHECK: "onnx.Attention"{{.*}} -> (tensor<2x10x256xf32>, none, none, none)
  %2:4 = "onnx.Attention"(%q3, %k3, %v3, %n, %n, %n, %n) <{q_num_heads = 8 : i64, kv_num_heads = 2 : i64}> : (tensor<2x10x512xf32>, tensor<2x12x128xf32>, tensor<2x12x64xf32>, none, none, none, none) -> (!onnx.unknown, none, none, none)
  return %0#0, %0#3, %1#1, %1#2, %2#0 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// CHECK-LABEL: func.func @sampling_and_misc
func.func @sampling_and_misc(%x: tensor<2x3x8x8xf32>, %grid: tensor<2x5x6x2xf32>, %theta: tensor<2x2x3xf32>,
                             %rois: tensor<7x4xf32>, %bi: tensor<7xi64>, %m: tensor<4x3x3xf64>,
                             %p: tensor<1x1x2x2xf32>, %pi: tensor<1x1x2x2xi64>, %u: tensor<3x4xi32>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %n = "onnx.NoValue"() : () -> none
  // CHECK: "onnx.GridSample"{{.*}} -> tensor<2x3x5x6xf32>
  %0 = "onnx.GridSample"(%x, %grid) : (tensor<2x3x8x8xf32>, tensor<2x5x6x2xf32>) -> !onnx.unknown
  %size = "onnx.Constant"() <{value = dense<[2, 3, 16, 24]> : tensor<4xi64>}> : () -> tensor<4xi64>
  // CHECK: "onnx.AffineGrid"{{.*}} -> tensor<2x16x24x2xf32>
  %1 = "onnx.AffineGrid"(%theta, %size) : (tensor<2x2x3xf32>, tensor<4xi64>) -> !onnx.unknown
  // CHECK: "onnx.RoiAlign"{{.*}} -> tensor<7x3x5x5xf32>
  %2 = "onnx.RoiAlign"(%x, %rois, %bi) <{output_height = 5 : i64, output_width = 5 : i64}> : (tensor<2x3x8x8xf32>, tensor<7x4xf32>, tensor<7xi64>) -> !onnx.unknown
  // CHECK: "onnx.Det"{{.*}} -> tensor<4xf64>
  %3 = "onnx.Det"(%m) : (tensor<4x3x3xf64>) -> !onnx.unknown
  // CHECK: "onnx.MaxUnpool"{{.*}} -> tensor<1x1x4x4xf32>
  %4 = "onnx.MaxUnpool"(%p, %pi, %n) <{kernel_shape = [2, 2], strides = [2, 2]}> : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>, none) -> !onnx.unknown
  %crop = "onnx.Constant"() <{value = dense<[5, 10]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // CHECK: "onnx.CenterCropPad"{{.*}} -> tensor<2x3x5x10xf32>
  %5 = "onnx.CenterCropPad"(%x, %crop) <{axes = [-2, -1]}> : (tensor<2x3x8x8xf32>, tensor<2xi64>) -> !onnx.unknown
  // CHECK: "onnx.Unique"{{.*}} -> (tensor<?xi32>, tensor<?xi64>, tensor<12xi64>, tensor<?xi64>)
  %6:4 = "onnx.Unique"(%u) : (tensor<3x4xi32>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown)
  %ten = "onnx.Constant"() <{value = dense<10> : tensor<i64>}> : () -> tensor<i64>
  // CHECK: "onnx.HannWindow"{{.*}} -> tensor<10xf32>
  %7 = "onnx.HannWindow"(%ten) : (tensor<i64>) -> !onnx.unknown
  return %0, %1, %2, %3, %4, %5, %6#0, %6#2, %7 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}
