// RUN: onnxc-opt --onnxc-nchwc-layout --split-input-file %s | FileCheck %s
// RUN: onnxc-opt --onnxc-nchwc-layout="block-size=4" --split-input-file %s | FileCheck %s --check-prefix=B4

// A chain of three convolutions with a Relu between two of them and two
// residual adds (one fused as Z, one a plain Add): one reorder in (the
// graph input, shared by the first conv and the Z operand), one reorder out
// (the returned value), nothing in between.
// CHECK-LABEL: func.func @chain
// CHECK-NOT: onnxc.Reorder
// CHECK: %[[IN:.*]] = "onnxc.ReorderToBlocked"(%arg0) <{block_size = 16 : i64}> : (tensor<?x32x8x8xf32>) -> tensor<?x2x8x8x16xf32>
// CHECK-NOT: onnxc.Reorder
// CHECK: %[[W1:.*]] = "onnx.Constant"() <{value = dense<{{.*}}> : tensor<2x2x3x3x16x16xf32>}>
// CHECK: %[[B1:.*]] = "onnx.Constant"() <{value = dense<{{.*}}> : tensor<2x16xf32>}>
// CHECK: %[[C1:.*]] = "onnxc.BlockedConv"(%[[IN]], %[[W1]], %[[B1]], %{{.*}}) <{activation = "Relu", dilations = [1, 1], group = 1 : i64, in_channels = 32 : i64, kernel_shape = [3, 3], out_channels = 32 : i64, pads = [1, 1, 1, 1], strides = [1, 1]}> : (tensor<?x2x8x8x16xf32>, tensor<2x2x3x3x16x16xf32>, tensor<2x16xf32>, none) -> tensor<?x2x8x8x16xf32>
// CHECK-NOT: onnxc.Reorder
// CHECK: %[[C2:.*]] = "onnxc.BlockedConv"(%[[C1]], %{{.*}}, %{{.*}}, %{{.*}}) <{activation = ""
// CHECK-NOT: onnxc.Reorder
// CHECK: %[[R:.*]] = "onnx.Relu"(%[[C2]]) : (tensor<?x2x8x8x16xf32>) -> tensor<?x2x8x8x16xf32>
// CHECK-NOT: onnxc.Reorder
// CHECK: %[[C3:.*]] = "onnxc.BlockedConv"(%[[R]], %{{.*}}, %{{.*}}, %[[IN]]) <{activation = "Relu"
// CHECK-NOT: onnxc.Reorder
// CHECK: %[[A:.*]] = "onnx.Add"(%[[C3]], %[[C1]]) : (tensor<?x2x8x8x16xf32>, tensor<?x2x8x8x16xf32>) -> tensor<?x2x8x8x16xf32>
// CHECK: %[[OUT:.*]] = "onnxc.ReorderFromBlocked"(%[[A]]) <{channels = 32 : i64}> : (tensor<?x2x8x8x16xf32>) -> tensor<?x32x8x8xf32>
// CHECK-NOT: onnxc.Reorder
// CHECK-NOT: onnx.Conv
// CHECK-NOT: onnxc.FusedConv
// CHECK: return %[[OUT]]
func.func @chain(%x: tensor<?x32x8x8xf32>) -> tensor<?x32x8x8xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<32x32x3x3xf32>}> : () -> tensor<32x32x3x3xf32>
  %b = "onnx.Constant"() <{value = dense<0.25> : tensor<32xf32>}> : () -> tensor<32xf32>
  %none = "onnx.NoValue"() : () -> none
  %c1 = "onnxc.FusedConv"(%x, %w, %b, %none) <{pads = [1, 1, 1, 1], activation = "Relu"}> : (tensor<?x32x8x8xf32>, tensor<32x32x3x3xf32>, tensor<32xf32>, none) -> tensor<?x32x8x8xf32>
  %c2 = "onnx.Conv"(%c1, %w, %b) <{pads = [1, 1, 1, 1]}> : (tensor<?x32x8x8xf32>, tensor<32x32x3x3xf32>, tensor<32xf32>) -> tensor<?x32x8x8xf32>
  %r = "onnx.Relu"(%c2) : (tensor<?x32x8x8xf32>) -> tensor<?x32x8x8xf32>
  %c3 = "onnxc.FusedConv"(%r, %w, %none, %x) <{pads = [1, 1, 1, 1], activation = "Relu"}> : (tensor<?x32x8x8xf32>, tensor<32x32x3x3xf32>, none, tensor<?x32x8x8xf32>) -> tensor<?x32x8x8xf32>
  %a = "onnx.Add"(%c3, %c1) : (tensor<?x32x8x8xf32>, tensor<?x32x8x8xf32>) -> tensor<?x32x8x8xf32>
  return %a : tensor<?x32x8x8xf32>
}

// -----

// The weight permutation, exactly: W[m, c] goes to [m / B, c / B, c % B,
// m % B] and the padding is zero (block size 4: 3 channels, 2 filters). The
// 1x1 second conv, strided, closes the region; the first conv's result has
// a user outside the region (ReduceSum), which reads it through its own
// reorder back, and a Sigmoid in between is blocked too.
// B4-LABEL: func.func @weights
// B4: %[[IN:.*]] = "onnxc.ReorderToBlocked"(%arg0) <{block_size = 4 : i64}> : (tensor<1x3x5x5xf32>) -> tensor<1x1x5x5x4xf32>
// B4: "onnx.Constant"() <{value = dense<{{\[\[\[\[\[\[}}1.000000e+00, 4.000000e+00, 0.000000e+00, 0.000000e+00], [2.000000e+00, 5.000000e+00, 0.000000e+00, 0.000000e+00], [3.000000e+00, 6.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]]]]]> : tensor<1x1x1x1x4x4xf32>}>
// B4: "onnx.Constant"() <{value = dense<[
// B4-SAME: [7.000000e+00, 8.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<1x4xf32>}>
// B4: %[[C1:.*]] = "onnxc.BlockedConv"(%[[IN]]
// B4-SAME: in_channels = 3 : i64
// B4-SAME: out_channels = 2 : i64
// B4: %[[BACK:.*]] = "onnxc.ReorderFromBlocked"(%[[C1]]) <{channels = 2 : i64}> : (tensor<1x1x5x5x4xf32>) -> tensor<1x2x5x5xf32>
// B4: %[[S:.*]] = "onnx.Sigmoid"(%[[C1]]) : (tensor<1x1x5x5x4xf32>) -> tensor<1x1x5x5x4xf32>
// B4: %[[C2:.*]] = "onnxc.BlockedConv"(%[[S]], %{{.*}}, %{{.*}}, %{{.*}}) <{activation = "", dilations = [1, 1], group = 1 : i64, in_channels = 2 : i64, kernel_shape = [1, 1], out_channels = 2 : i64, pads = [0, 0, 0, 0], strides = [2, 2]}> : (tensor<1x1x5x5x4xf32>, tensor<1x1x1x1x4x4xf32>, none, none) -> tensor<1x1x3x3x4xf32>
// B4: %[[OUT:.*]] = "onnxc.ReorderFromBlocked"(%[[C2]]) <{channels = 2 : i64}>
// B4: "onnx.ReduceSum"(%[[BACK]]
// B4-NOT: onnxc.Reorder
func.func @weights(%x: tensor<1x3x5x5xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x1x1x1xf32>) {
  %w = "onnx.Constant"() <{value = dense<[[[[1.0]], [[2.0]], [[3.0]]], [[[4.0]], [[5.0]], [[6.0]]]]> : tensor<2x3x1x1xf32>}> : () -> tensor<2x3x1x1xf32>
  %b = "onnx.Constant"() <{value = dense<[7.0, 8.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %w2 = "onnx.Constant"() <{value = dense<1.0> : tensor<2x2x1x1xf32>}> : () -> tensor<2x2x1x1xf32>
  %none = "onnx.NoValue"() : () -> none
  %c1 = "onnx.Conv"(%x, %w, %b) : (tensor<1x3x5x5xf32>, tensor<2x3x1x1xf32>, tensor<2xf32>) -> tensor<1x2x5x5xf32>
  %s = "onnx.Sigmoid"(%c1) : (tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
  %c2 = "onnx.Conv"(%s, %w2, %none) <{strides = [2, 2]}> : (tensor<1x2x5x5xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x3x3xf32>
  %sum = "onnx.ReduceSum"(%c1, %none) : (tensor<1x2x5x5xf32>, none) -> tensor<1x1x1x1xf32>
  return %c2, %sum : tensor<1x2x3x3xf32>, tensor<1x1x1x1xf32>
}

// -----

// Depthwise (group = C = M) after a pointwise conv, then MaxPool (the same
// pool over the block dim with a window of 1) and GlobalAveragePool (a
// ReduceMean over the spatial dims, so the reorder back is of [N, C, 1, 1]).
// B4-LABEL: func.func @depthwise_pool
// CHECK-LABEL: func.func @depthwise_pool
// CHECK: %[[IN:.*]] = "onnxc.ReorderToBlocked"(%arg0)
// CHECK: "onnxc.BlockedConv"(%[[IN]]
// CHECK-SAME: in_channels = 20 : i64
// CHECK-SAME: out_channels = 24 : i64
// CHECK-SAME: -> tensor<1x2x9x9x16xf32>
// CHECK: %[[DW:.*]] = "onnxc.BlockedConv"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{activation = "", dilations = [2, 2], group = 24 : i64, in_channels = 24 : i64, kernel_shape = [3, 3], out_channels = 24 : i64, pads = [2, 2, 2, 2], strides = [1, 1]}> : (tensor<1x2x9x9x16xf32>, tensor<2x3x3x16xf32>, tensor<2x16xf32>, none) -> tensor<1x2x9x9x16xf32>
// CHECK: %[[P:[^,]*]], %{{.*}} = "onnx.MaxPool"(%[[DW]]) <{{{.*}}ceil_mode = 1 : i64, dilations = [1, 1, 1], kernel_shape = [3, 3, 1], pads = [1, 1, 0, 1, 1, 0]{{.*}}strides = [2, 2, 1]}> : (tensor<1x2x9x9x16xf32>) -> (tensor<1x2x5x5x16xf32>, none)
// CHECK: %[[AXES:.*]] = "onnx.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}>
// CHECK: %[[M:.*]] = "onnx.ReduceMean"(%[[P]], %[[AXES]]) <{keepdims = 1 : i64{{.*}}}> : (tensor<1x2x5x5x16xf32>, tensor<2xi64>) -> tensor<1x2x1x1x16xf32>
// CHECK: %[[OUT:.*]] = "onnxc.ReorderFromBlocked"(%[[M]]) <{channels = 24 : i64}> : (tensor<1x2x1x1x16xf32>) -> tensor<1x24x1x1xf32>
// CHECK: return %[[OUT]]
func.func @depthwise_pool(%x: tensor<1x20x9x9xf32>) -> tensor<1x24x1x1xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<24x20x1x1xf32>}> : () -> tensor<24x20x1x1xf32>
  %dw = "onnx.Constant"() <{value = dense<0.5> : tensor<24x1x3x3xf32>}> : () -> tensor<24x1x3x3xf32>
  %b = "onnx.Constant"() <{value = dense<0.25> : tensor<24xf32>}> : () -> tensor<24xf32>
  %none = "onnx.NoValue"() : () -> none
  %c1 = "onnx.Conv"(%x, %w, %none) : (tensor<1x20x9x9xf32>, tensor<24x20x1x1xf32>, none) -> tensor<1x24x9x9xf32>
  %c2 = "onnx.Conv"(%c1, %dw, %b) <{group = 24 : i64, pads = [2, 2, 2, 2], dilations = [2, 2]}> : (tensor<1x24x9x9xf32>, tensor<24x1x3x3xf32>, tensor<24xf32>) -> tensor<1x24x9x9xf32>
  %p, %i = "onnx.MaxPool"(%c2) <{kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [2, 2], ceil_mode = 1 : i64}> : (tensor<1x24x9x9xf32>) -> (tensor<1x24x5x5xf32>, none)
  %g = "onnx.GlobalAveragePool"(%p) : (tensor<1x24x5x5xf32>) -> tensor<1x24x1x1xf32>
  return %g : tensor<1x24x1x1xf32>
}

// -----

// Not rewritten:
//  - a single convolution (two reorders for one op do not pay);
//  - a dynamic channel count;
//  - grouped convolutions that are not depthwise;
//  - weights that are not constants;
//  - auto_pad SAME_UPPER;
//  - 3 output channels (13 of 16 lanes computed for nothing), which leaves
//    the next conv (3 input channels: blockable) alone in its region.
// CHECK-LABEL: func.func @negative
// CHECK-NOT: onnxc.Reorder
// CHECK-NOT: onnxc.BlockedConv
// CHECK: return
func.func @negative(%x: tensor<1x16x8x8xf32>, %d: tensor<1x?x8x8xf32>, %wd: tensor<16x16x3x3xf32>) -> (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<16x16x3x3xf32>}> : () -> tensor<16x16x3x3xf32>
  %wg = "onnx.Constant"() <{value = dense<0.5> : tensor<16x8x3x3xf32>}> : () -> tensor<16x8x3x3xf32>
  %w3 = "onnx.Constant"() <{value = dense<0.5> : tensor<16x3x3x3xf32>}> : () -> tensor<16x3x3x3xf32>
  %wo3 = "onnx.Constant"() <{value = dense<0.5> : tensor<3x16x3x3xf32>}> : () -> tensor<3x16x3x3xf32>
  %none = "onnx.NoValue"() : () -> none
  %single = "onnx.Conv"(%x, %w, %none) <{pads = [1, 1, 1, 1]}> : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>, none) -> tensor<1x16x8x8xf32>
  %d1 = "onnx.Conv"(%d, %w, %none) <{pads = [1, 1, 1, 1]}> : (tensor<1x?x8x8xf32>, tensor<16x16x3x3xf32>, none) -> tensor<1x16x8x8xf32>
  %d2 = "onnx.Conv"(%d1, %w, %none) <{pads = [1, 1, 1, 1]}> : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>, none) -> tensor<1x16x8x8xf32>
  %g1 = "onnx.Conv"(%x, %wg, %none) <{pads = [1, 1, 1, 1], group = 2 : i64}> : (tensor<1x16x8x8xf32>, tensor<16x8x3x3xf32>, none) -> tensor<1x16x8x8xf32>
  %g2 = "onnx.Conv"(%g1, %wg, %none) <{pads = [1, 1, 1, 1], group = 2 : i64}> : (tensor<1x16x8x8xf32>, tensor<16x8x3x3xf32>, none) -> tensor<1x16x8x8xf32>
  %v1 = "onnx.Conv"(%x, %wd, %none) <{pads = [1, 1, 1, 1]}> : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>, none) -> tensor<1x16x8x8xf32>
  %v2 = "onnx.Conv"(%v1, %wd, %none) <{pads = [1, 1, 1, 1]}> : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>, none) -> tensor<1x16x8x8xf32>
  %s1 = "onnx.Conv"(%x, %w, %none) <{auto_pad = "SAME_UPPER"}> : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>, none) -> tensor<1x16x8x8xf32>
  %s2 = "onnx.Conv"(%s1, %w, %none) <{auto_pad = "SAME_UPPER"}> : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>, none) -> tensor<1x16x8x8xf32>
  %i1 = "onnx.Conv"(%x, %wo3, %none) <{pads = [1, 1, 1, 1]}> : (tensor<1x16x8x8xf32>, tensor<3x16x3x3xf32>, none) -> tensor<1x3x8x8xf32>
  %i2 = "onnx.Conv"(%i1, %w3, %none) <{pads = [1, 1, 1, 1]}> : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, none) -> tensor<1x16x8x8xf32>
  return %single, %d2, %g2, %v2, %s2, %i2 : tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>
}

// -----

// A 3-channel image (a network's stem): a group-1 BlockedConv reads only its
// `in_channels` true input lanes, so the image is blocked as it is
// ([1, 1, 8, 8, 16], 13 lanes of zeros) and the stem joins the region.
// CHECK-LABEL: func.func @stem
// CHECK: %[[IMG:.*]] = "onnxc.ReorderToBlocked"(%arg0) <{block_size = 16 : i64}> : (tensor<1x3x8x8xf32>) -> tensor<1x1x8x8x16xf32>
// CHECK: %[[S:.*]] = "onnxc.BlockedConv"(%[[IMG]], %{{.*}}, %{{.*}}, %{{.*}}) <{{{.*}}in_channels = 3 : i64{{.*}}out_channels = 16 : i64{{.*}}}> : (tensor<1x1x8x8x16xf32>, tensor<1x1x3x3x16x16xf32>, none, none) -> tensor<1x1x8x8x16xf32>
// CHECK: "onnxc.BlockedConv"(%[[S]],
// CHECK-NOT: onnx.Conv
func.func @stem(%img: tensor<1x3x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %w3 = "onnx.Constant"() <{value = dense<0.5> : tensor<16x3x3x3xf32>}> : () -> tensor<16x3x3x3xf32>
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<16x16x3x3xf32>}> : () -> tensor<16x16x3x3xf32>
  %none = "onnx.NoValue"() : () -> none
  %s = "onnx.Conv"(%img, %w3, %none) <{pads = [1, 1, 1, 1]}> : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, none) -> tensor<1x16x8x8xf32>
  %c = "onnx.Conv"(%s, %w, %none) <{pads = [1, 1, 1, 1]}> : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>, none) -> tensor<1x16x8x8xf32>
  return %c : tensor<1x16x8x8xf32>
}

// -----

// A per-channel Mul (a squeeze-and-excitation scale, [1, 16, 1, 1], here a
// graph input) joins the region: the scale is reordered in, the Mul
// broadcasts it over the blocked spatial dims.
// CHECK-LABEL: func.func @channel_scale
// CHECK: %[[C1:.*]] = "onnxc.BlockedConv"
// CHECK: %[[S:.*]] = "onnxc.ReorderToBlocked"(%arg1) <{block_size = 16 : i64}> : (tensor<1x16x1x1xf32>) -> tensor<1x1x1x1x16xf32>
// CHECK: %[[M:.*]] = "onnx.Mul"(%[[S]], %[[C1]]) : (tensor<1x1x1x1x16xf32>, tensor<1x1x8x8x16xf32>) -> tensor<1x1x8x8x16xf32>
// CHECK: "onnxc.BlockedConv"(%[[M]],
func.func @channel_scale(%x: tensor<1x16x8x8xf32>, %scale: tensor<1x16x1x1xf32>) -> tensor<1x16x8x8xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<16x16x3x3xf32>}> : () -> tensor<16x16x3x3xf32>
  %none = "onnx.NoValue"() : () -> none
  %c1 = "onnx.Conv"(%x, %w, %none) <{pads = [1, 1, 1, 1]}> : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>, none) -> tensor<1x16x8x8xf32>
  %m = "onnx.Mul"(%scale, %c1) : (tensor<1x16x1x1xf32>, tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %c2 = "onnx.Conv"(%m, %w, %none) <{pads = [1, 1, 1, 1]}> : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>, none) -> tensor<1x16x8x8xf32>
  return %c2 : tensor<1x16x8x8xf32>
}
