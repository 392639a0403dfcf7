// RUN: onnxc-opt --onnxc-winograd-conv-weights --onnxc-declare-runtime-helpers --convert-onnx-to-linalg --split-input-file \
// RUN:   --mlir-print-elementsattrs-with-hex-if-larger=100000 %s | FileCheck %s
// RUN: onnxc-opt --onnxc-winograd-conv-weights --onnxc-declare-runtime-helpers --convert-onnx-to-linalg --onnxc-cpu-lowering --split-input-file %s \
// RUN:   | FileCheck %s --check-prefix=LLVM

// A 3x3 BlockedConv with unit strides, 32 channels in and out and a 12x12
// output (36 tiles of 2x2; 16 are enough): its constant W becomes U = G g G^T at compile
// time, 16 positions x 2 x 2 blocks x 256 floats, position by position.
// With g = 0.5 everywhere: position (0,0) is g itself, (0,1) 0.75, (1,1)
// 1.125 and (2,2) 0.125. The call passes U as a 1-D memref (wrapper
// r5_1_2_5) with flags 11 = bias + Z + Winograd.
// CHECK: func.func private @onnxc_rt_conv_nchwc_f32_r5_1_2_5(%{{.*}}: memref<?x?x?x?x?xf32>, %{{.*}}: memref<?xf32>,
// CHECK: memref.global "private" constant @[[U:onnxc_winograd_u[_0-9]*]] : memref<16384xf32> = dense<[5.000000e-01, {{.*}}7.500000e-01, {{.*}}1.125000e+00, {{.*}}1.250000e-01
// CHECK-SAME: {alignment = 64 : i64}
// CHECK-LABEL: func.func @winograd
// CHECK: %[[G:.*]] = memref.get_global @[[U]] : memref<16384xf32>
// CHECK: %[[UC:.*]] = memref.cast %[[G]] : memref<16384xf32> to memref<?xf32>
// CHECK: call @onnxc_rt_conv_nchwc_f32_r5_1_2_5(%{{.*}}, %[[UC]], %{{.*}}, %{{.*}}, %{{.*}}, %c11_i32,
// After lowering only U is left: the splat W is not emitted.
// LLVM: llvm.mlir.global private constant @onnxc_winograd_u(
// LLVM-NOT: dense<5.000000e-01> : tensor<2x2x3x3x16x16xf32>
// LLVM-LABEL: llvm.func @winograd
// LLVM: llvm.call @onnxc_rt_conv_nchwc_f32_r5_1_2_5(
func.func @winograd(%x: tensor<1x2x12x12x16xf32>) -> tensor<1x2x12x12x16xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<2x2x3x3x16x16xf32>}> : () -> tensor<2x2x3x3x16x16xf32>
  %b = "onnx.Constant"() <{value = dense<0.25> : tensor<2x16xf32>}> : () -> tensor<2x16xf32>
  %y = "onnxc.BlockedConv"(%x, %w, %b, %x) <{activation = "Relu", group = 1 : i64, in_channels = 32 : i64, kernel_shape = [3, 3], out_channels = 32 : i64, pads = [1, 1, 1, 1]}> : (tensor<1x2x12x12x16xf32>, tensor<2x2x3x3x16x16xf32>, tensor<2x16xf32>, tensor<1x2x12x12x16xf32>) -> tensor<1x2x12x12x16xf32>
  return %y : tensor<1x2x12x12x16xf32>
}

// -----

// A 28x28 output: 4x4 tiles, F(4x4, 3x3). U is 36 positions x 2 x 2 blocks
// x 256 floats; with g = 0.5, position (0,0) is g / 16 = 0.03125, (0,1)
// -0.0625 and (1,1) 0.125. Flags 40 = Winograd + 4x4 tiles.
// CHECK: memref.global "private" constant @[[U4:onnxc_winograd_u[_0-9]*]] : memref<36864xf32> = dense<[3.125000e-02, {{.*}}-6.250000e-02, {{.*}}1.250000e-01
// CHECK-LABEL: func.func @winograd4
// CHECK: %[[G4:.*]] = memref.get_global @[[U4]] : memref<36864xf32>
// CHECK: %[[UC4:.*]] = memref.cast %[[G4]] : memref<36864xf32> to memref<?xf32>
// CHECK: call @onnxc_rt_conv_nchwc_f32_r5_1_5_5(%{{.*}}, %[[UC4]], %{{.*}}, %{{.*}}, %{{.*}}, %c40_i32,
func.func @winograd4(%x: tensor<1x2x28x28x16xf32>) -> tensor<1x2x28x28x16xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<2x2x3x3x16x16xf32>}> : () -> tensor<2x2x3x3x16x16xf32>
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.BlockedConv"(%x, %w, %none, %none) <{group = 1 : i64, in_channels = 32 : i64, kernel_shape = [3, 3], out_channels = 32 : i64, pads = [1, 1, 1, 1]}> : (tensor<1x2x28x28x16xf32>, tensor<2x2x3x3x16x16xf32>, none, none) -> tensor<1x2x28x28x16xf32>
  return %y : tensor<1x2x28x28x16xf32>
}

// -----

// Left direct (W as it is, rank 6): a stride of 2, an output of 6x6 (9
// tiles, too few: each would read U), 16 input channels
// (too few), a dynamic output size, and a W with a second user (U would be
// emitted beside it).
// CHECK-NOT: onnxc_winograd_u
// CHECK-LABEL: func.func @direct
// CHECK: call @onnxc_rt_conv_nchwc_f32_r5_6_5_5(
// CHECK: call @onnxc_rt_conv_nchwc_f32_r5_6_5_5(
// CHECK: call @onnxc_rt_conv_nchwc_f32_r5_6_5_5(
// CHECK: call @onnxc_rt_conv_nchwc_f32_r5_6_5_5(
// CHECK: call @onnxc_rt_conv_nchwc_f32_r5_6_5_5(
// CHECK: call @onnxc_rt_conv_nchwc_f32_r5_6_5_5(
func.func @direct(%x: tensor<1x2x24x24x16xf32>, %x6: tensor<1x2x6x6x16xf32>, %x16: tensor<1x1x12x12x16xf32>, %xd: tensor<1x2x?x?x16xf32>) -> (tensor<1x2x12x12x16xf32>, tensor<1x2x6x6x16xf32>, tensor<1x2x12x12x16xf32>, tensor<1x2x?x?x16xf32>, tensor<1x2x24x24x16xf32>, tensor<1x2x24x24x16xf32>) {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<2x2x3x3x16x16xf32>}> : () -> tensor<2x2x3x3x16x16xf32>
  %w2 = "onnx.Constant"() <{value = dense<0.75> : tensor<2x2x3x3x16x16xf32>}> : () -> tensor<2x2x3x3x16x16xf32>
  %w3 = "onnx.Constant"() <{value = dense<1.5> : tensor<2x2x3x3x16x16xf32>}> : () -> tensor<2x2x3x3x16x16xf32>
  %w16 = "onnx.Constant"() <{value = dense<0.5> : tensor<2x1x3x3x16x16xf32>}> : () -> tensor<2x1x3x3x16x16xf32>
  %wd = "onnx.Constant"() <{value = dense<2.5> : tensor<2x2x3x3x16x16xf32>}> : () -> tensor<2x2x3x3x16x16xf32>
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnxc.BlockedConv"(%x, %w, %none, %none) <{group = 1 : i64, in_channels = 32 : i64, out_channels = 32 : i64, pads = [1, 1, 1, 1], strides = [2, 2]}> : (tensor<1x2x24x24x16xf32>, tensor<2x2x3x3x16x16xf32>, none, none) -> tensor<1x2x12x12x16xf32>
  %1 = "onnxc.BlockedConv"(%x6, %w2, %none, %none) <{group = 1 : i64, in_channels = 32 : i64, out_channels = 32 : i64, pads = [1, 1, 1, 1]}> : (tensor<1x2x6x6x16xf32>, tensor<2x2x3x3x16x16xf32>, none, none) -> tensor<1x2x6x6x16xf32>
  %2 = "onnxc.BlockedConv"(%x16, %w16, %none, %none) <{group = 1 : i64, in_channels = 16 : i64, out_channels = 32 : i64, pads = [1, 1, 1, 1]}> : (tensor<1x1x12x12x16xf32>, tensor<2x1x3x3x16x16xf32>, none, none) -> tensor<1x2x12x12x16xf32>
  %3 = "onnxc.BlockedConv"(%xd, %wd, %none, %none) <{group = 1 : i64, in_channels = 32 : i64, out_channels = 32 : i64, pads = [1, 1, 1, 1]}> : (tensor<1x2x?x?x16xf32>, tensor<2x2x3x3x16x16xf32>, none, none) -> tensor<1x2x?x?x16xf32>
  %4 = "onnxc.BlockedConv"(%x, %w3, %none, %none) <{group = 1 : i64, in_channels = 32 : i64, out_channels = 32 : i64, pads = [1, 1, 1, 1]}> : (tensor<1x2x24x24x16xf32>, tensor<2x2x3x3x16x16xf32>, none, none) -> tensor<1x2x24x24x16xf32>
  %5 = "onnxc.BlockedConv"(%x, %w3, %none, %none) <{group = 1 : i64, in_channels = 32 : i64, out_channels = 32 : i64, pads = [1, 1, 1, 1]}> : (tensor<1x2x24x24x16xf32>, tensor<2x2x3x3x16x16xf32>, none, none) -> tensor<1x2x24x24x16xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<1x2x12x12x16xf32>, tensor<1x2x6x6x16xf32>, tensor<1x2x12x12x16xf32>, tensor<1x2x?x?x16xf32>, tensor<1x2x24x24x16xf32>, tensor<1x2x24x24x16xf32>
}
