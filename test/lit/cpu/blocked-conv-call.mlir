// RUN: onnxc-opt --onnxc-declare-runtime-helpers --convert-onnx-to-linalg --split-input-file %s | FileCheck %s
// RUN: onnxc-opt --onnxc-declare-runtime-helpers=gemm-kernel=false --convert-onnx-to-linalg --split-input-file %s \
// RUN:   | FileCheck %s --check-prefix=STATIC
// RUN: onnxc-opt --onnxc-declare-runtime-helpers --convert-onnx-to-linalg --onnxc-cpu-lowering --split-input-file %s \
// RUN:   | FileCheck %s --check-prefix=LLVM

// f32 BlockedConv is one call of the runtime's NCHWc convolution: a private
// wrapper per rank combination casts X, W, bias, Z and Y to unranked
// memrefs; the geometry (in/out channels, H and W strides, dilations and
// begin pads) and the epilogue (flags 3 = bias + Z, activation 1 = Relu)
// are scalars. The result is a fresh 64-byte aligned buffer (dynamic batch:
// X's), returned without a copy. With `gemm-kernel=false` (--emit static)
// no kernel is declared and the linalg form stays.
// CHECK: func.func private @onnxc_rt_conv_nchwc_f32(memref<*xf32>, memref<*xf32>, memref<*xf32>, memref<*xf32>, memref<*xf32>, i32, i64, i64, i64, i64, i64, i64, i64, i64, i32, f32, f32) attributes {llvm.emit_c_interface}
// CHECK: func.func private @onnxc_rt_conv_nchwc_f32_r5_6_2_5(%[[WX:.*]]: memref<?x?x?x?x?xf32>, %{{.*}}: memref<?x?x?x?x?x?xf32>, %{{.*}}: memref<?x?xf32>, %{{.*}}: memref<?x?x?x?x?xf32>, %{{.*}}: memref<?x?x?x?x?xf32>, %{{.*}}: i32,
// CHECK: memref.cast %[[WX]] : memref<?x?x?x?x?xf32> to memref<*xf32>
// CHECK: call @onnxc_rt_conv_nchwc_f32(
// CHECK-LABEL: func.func @conv
// CHECK-DAG: %[[N:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x2x8x8x16xf32>
// CHECK-DAG: %[[Y:.*]] = memref.alloc(%[[N]]) {alignment = 64 : i64} : memref<?x2x4x4x16xf32>
// CHECK-DAG: bufferization.to_memref %arg0 read_only : memref<?x2x8x8x16xf32>
// CHECK-DAG: bufferization.to_memref %{{.*}} read_only : memref<2x2x3x3x16x16xf32>
// CHECK-DAG: bufferization.to_memref %{{.*}} read_only : memref<2x16xf32>
// CHECK-DAG: bufferization.to_memref %arg1 read_only : memref<?x2x4x4x16xf32>
// CHECK: call @onnxc_rt_conv_nchwc_f32_r5_6_2_5(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c3_i32, %c20_i64, %c24_i64, %c2_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i32, %{{.*}}, %{{.*}})
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[Y]] restrict writable : memref<?x2x4x4x16xf32>
// CHECK: return %[[R]]
// STATIC-NOT: onnxc_rt_conv_nchwc
// STATIC-LABEL: func.func @conv
// STATIC: linalg.generic
// LLVM: llvm.func @_mlir_ciface_onnxc_rt_conv_nchwc_f32(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i64, i64, i64, i64, i64, i64, i64, i64, i32, f32, f32)
// LLVM-LABEL: llvm.func @conv
// LLVM: llvm.call @onnxc_rt_conv_nchwc_f32_r5_6_2_5(
func.func @conv(%x: tensor<?x2x8x8x16xf32>, %z: tensor<?x2x4x4x16xf32>) -> tensor<?x2x4x4x16xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<2x2x3x3x16x16xf32>}> : () -> tensor<2x2x3x3x16x16xf32>
  %b = "onnx.Constant"() <{value = dense<0.5> : tensor<2x16xf32>}> : () -> tensor<2x16xf32>
  %y = "onnxc.BlockedConv"(%x, %w, %b, %z) <{activation = "Relu", dilations = [1, 1], group = 1 : i64, in_channels = 20 : i64, kernel_shape = [3, 3], out_channels = 24 : i64, pads = [1, 1, 1, 1], strides = [2, 2]}> : (tensor<?x2x8x8x16xf32>, tensor<2x2x3x3x16x16xf32>, tensor<2x16xf32>, tensor<?x2x4x4x16xf32>) -> tensor<?x2x4x4x16xf32>
  return %y : tensor<?x2x4x4x16xf32>
}

// -----

// Depthwise (flags 4), no bias or Z: X is passed in their place, so the
// wrapper is r5_4_5_5. Clip (activation 3) with its bounds. Dilation 2,
// pads 2.
// CHECK-LABEL: func.func @depthwise
// CHECK-DAG: %[[X:.*]] = bufferization.to_memref %arg0 read_only : memref<1x2x8x8x16xf32>
// CHECK-DAG: %[[XD:.*]] = memref.cast %[[X]] : memref<1x2x8x8x16xf32> to memref<?x?x?x?x?xf32>
// CHECK-DAG: %[[LO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[HI:.*]] = arith.constant 6.000000e+00 : f32
// CHECK: call @onnxc_rt_conv_nchwc_f32_r5_4_5_5(%[[XD]], %{{.*}}, %[[XD]], %[[XD]], %{{.*}}, %c4_i32, %c20_i64, %c20_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}, %c3_i32, %[[LO]], %[[HI]])
// STATIC-LABEL: func.func @depthwise
// STATIC: linalg.generic
func.func @depthwise(%x: tensor<1x2x8x8x16xf32>) -> tensor<1x2x8x8x16xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<2x3x3x16xf32>}> : () -> tensor<2x3x3x16xf32>
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.BlockedConv"(%x, %w, %none, %none) <{activation = "Clip", activation_params = [0.0 : f32, 6.0 : f32], dilations = [2, 2], group = 20 : i64, in_channels = 20 : i64, out_channels = 20 : i64, pads = [2, 2, 2, 2]}> : (tensor<1x2x8x8x16xf32>, tensor<2x3x3x16xf32>, none, none) -> tensor<1x2x8x8x16xf32>
  return %y : tensor<1x2x8x8x16xf32>
}

// -----

// 1-D (X of rank 4): H's stride, dilation and pad are neutral (1, 1, 0);
// W's are stride 3, dilation 1, pad 2.
// CHECK-LABEL: func.func @conv1d
// CHECK: call @onnxc_rt_conv_nchwc_f32_r4_5_4_4(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c0_i32, %c16_i64, %c16_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c3_i64, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c0_i64, %c2_i64,
func.func @conv1d(%x: tensor<1x1x10x16xf32>) -> tensor<1x1x4x16xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<1x1x3x16x16xf32>}> : () -> tensor<1x1x3x16x16xf32>
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.BlockedConv"(%x, %w, %none, %none) <{in_channels = 16 : i64, out_channels = 16 : i64, pads = [2, 1], strides = [3]}> : (tensor<1x1x10x16xf32>, tensor<1x1x3x16x16xf32>, none, none) -> tensor<1x1x4x16xf32>
  return %y : tensor<1x1x4x16xf32>
}

// -----

// Not for the kernel: 3-D convolutions and other block sizes keep the
// linalg form even with the kernel declared.
// CHECK-LABEL: func.func @conv3d
// CHECK-NOT: call
// CHECK: linalg.generic
func.func @conv3d(%x: tensor<1x1x4x4x4x16xf32>) -> tensor<1x1x4x4x4x16xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<1x1x1x1x1x16x16xf32>}> : () -> tensor<1x1x1x1x1x16x16xf32>
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.BlockedConv"(%x, %w, %none, %none) <{in_channels = 16 : i64, out_channels = 16 : i64}> : (tensor<1x1x4x4x4x16xf32>, tensor<1x1x1x1x1x16x16xf32>, none, none) -> tensor<1x1x4x4x4x16xf32>
  return %y : tensor<1x1x4x4x4x16xf32>
}

// -----

// CHECK-LABEL: func.func @block8
// CHECK-NOT: call
// CHECK: linalg.generic
func.func @block8(%x: tensor<1x1x4x4x8xf32>) -> tensor<1x1x4x4x8xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<1x1x1x1x8x8xf32>}> : () -> tensor<1x1x1x1x8x8xf32>
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.BlockedConv"(%x, %w, %none, %none) <{in_channels = 8 : i64, out_channels = 8 : i64}> : (tensor<1x1x4x4x8xf32>, tensor<1x1x1x1x8x8xf32>, none, none) -> tensor<1x1x4x4x8xf32>
  return %y : tensor<1x1x4x4x8xf32>
}

// -----

// f32 ReorderToBlocked of block 16 is one call of the runtime's reorder
// through a wrapper per rank (r4: 2-D NCHW); the result is a fresh buffer
// of ceil(C / 16) blocks (dynamic batch: X's). --emit static keeps the
// linalg form.
// CHECK: func.func private @onnxc_rt_reorder_to_nchwc_f32(memref<*xf32>, memref<*xf32>) attributes {llvm.emit_c_interface}
// CHECK: func.func private @onnxc_rt_reorder_to_nchwc_f32_r4(%[[RX:.*]]: memref<?x?x?x?xf32>, %[[RY:.*]]: memref<?x?x?x?x?xf32>)
// CHECK: call @onnxc_rt_reorder_to_nchwc_f32(
// CHECK-LABEL: func.func @reorder
// CHECK-DAG: %[[N:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x3x7x9xf32>
// CHECK-DAG: %[[Y:.*]] = memref.alloc(%[[N]]) {alignment = 64 : i64} : memref<?x1x7x9x16xf32>
// CHECK-DAG: bufferization.to_memref %arg0 read_only : memref<?x3x7x9xf32>
// CHECK: call @onnxc_rt_reorder_to_nchwc_f32_r4(
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[Y]] restrict writable : memref<?x1x7x9x16xf32>
// CHECK: return %[[R]]
// STATIC-NOT: onnxc_rt_reorder
// STATIC-LABEL: func.func @reorder
// STATIC: tensor.pad
// STATIC: linalg.generic
// LLVM-LABEL: llvm.func @reorder
// LLVM: llvm.call @onnxc_rt_reorder_to_nchwc_f32_r4(
func.func @reorder(%x: tensor<?x3x7x9xf32>) -> tensor<?x1x7x9x16xf32> {
  %y = "onnxc.ReorderToBlocked"(%x) <{block_size = 16 : i64}> : (tensor<?x3x7x9xf32>) -> tensor<?x1x7x9x16xf32>
  return %y : tensor<?x1x7x9x16xf32>
}

// -----

// Other element types keep the linalg form.
// CHECK-LABEL: func.func @reorder_f16
// CHECK-NOT: call
// CHECK: linalg.generic
func.func @reorder_f16(%x: tensor<1x20x5xf16>) -> tensor<1x2x5x16xf16> {
  %y = "onnxc.ReorderToBlocked"(%x) <{block_size = 16 : i64}> : (tensor<1x20x5xf16>) -> tensor<1x2x5x16xf16>
  return %y : tensor<1x2x5x16xf16>
}

// -----

// MaxPool on a blocked f32 tensor (window [3, 3, 1], NchwcLayout's form) is
// one call of the runtime's blocked max pool: kernel, strides, dilations
// and the begin pads as scalars, Y a fresh buffer.
// CHECK: func.func private @onnxc_rt_maxpool_nchwc_f32(memref<*xf32>, memref<*xf32>, i64, i64, i64, i64, i64, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @maxpool
// CHECK: %[[Y:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x4x56x56x16xf32>
// CHECK: call @onnxc_rt_maxpool_nchwc_f32_r5(%{{.*}}, %{{.*}}, %c3_i64{{[_0-9]*}}, %c3_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}})
// CHECK: bufferization.to_tensor %[[Y]] restrict writable
// STATIC-LABEL: func.func @maxpool
// STATIC-NOT: call
// STATIC: linalg.generic
func.func @maxpool(%x: tensor<1x4x112x112x16xf32>) -> tensor<1x4x56x56x16xf32> {
  %y, %i = "onnx.MaxPool"(%x) <{auto_pad = "NOTSET", ceil_mode = 0 : i64, dilations = [1, 1, 1], kernel_shape = [3, 3, 1], pads = [1, 1, 0, 1, 1, 0], storage_order = 0 : i64, strides = [2, 2, 1]}> : (tensor<1x4x112x112x16xf32>) -> (tensor<1x4x56x56x16xf32>, none)
  return %y : tensor<1x4x56x56x16xf32>
}

// -----

// A window over the lanes is not the blocked form: linalg.
// CHECK-LABEL: func.func @maxpool_lanes
// CHECK-NOT: call
// CHECK: linalg.generic
func.func @maxpool_lanes(%x: tensor<1x1x4x4x16xf32>) -> tensor<1x1x4x4x8xf32> {
  %y, %i = "onnx.MaxPool"(%x) <{kernel_shape = [1, 1, 2], strides = [1, 1, 2]}> : (tensor<1x1x4x4x16xf32>) -> (tensor<1x1x4x4x8xf32>, none)
  return %y : tensor<1x1x4x4x8xf32>
}

// -----

// A conv of fewer than 16 input channels reading a reorder of an NCHW
// image (a stem) takes the image itself (flags 17 = bias + NCHW input,
// wrapper r4_6_2_4_nchw: the absent Z is the image again). The reorder, read
// by nothing else, is not a call: its linalg form is left unread, and its
// wrapper is not declared (the NOT runs over this module's declarations).
// CHECK-NOT: @onnxc_rt_reorder_to_nchwc_f32
// CHECK-LABEL: func.func @stem
// CHECK-NOT: call @onnxc_rt_reorder_to_nchwc_f32_r4
// CHECK: %[[IMG:.*]] = bufferization.to_memref %arg0 read_only : memref<2x3x9x10xf32>
// CHECK-NOT: call @onnxc_rt_reorder_to_nchwc_f32_r4
// CHECK: %[[IMGD:.*]] = memref.cast %[[IMG]] : memref<2x3x9x10xf32> to memref<?x?x?x?xf32>
// CHECK: call @onnxc_rt_conv_nchwc_f32_r4_6_2_4_nchw(%[[IMGD]], %{{.*}}, %{{.*}}, %[[IMGD]], %{{.*}}, %c17_i32, %c3_i64, %c32_i64, %c2_i64
// CHECK-NOT: call @onnxc_rt_reorder_to_nchwc_f32_r4
// CHECK: return
// Once lowered, the unread linalg reorder is gone: no loop is left.
// LLVM-LABEL: llvm.func @stem
// LLVM-NOT: llvm.cond_br
// LLVM-NOT: llvm.call @onnxc_rt_reorder_to_nchwc_f32_r4(
// LLVM: llvm.call @onnxc_rt_conv_nchwc_f32_r4_6_2_4_nchw(
// LLVM-NOT: llvm.call @onnxc_rt_reorder_to_nchwc_f32_r4(
// LLVM-NOT: llvm.cond_br
// LLVM: llvm.return
func.func @stem(%img: tensor<2x3x9x10xf32>) -> tensor<2x2x5x5x16xf32> {
  %x = "onnxc.ReorderToBlocked"(%img) <{block_size = 16 : i64}> : (tensor<2x3x9x10xf32>) -> tensor<2x1x9x10x16xf32>
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<2x1x3x3x16x16xf32>}> : () -> tensor<2x1x3x3x16x16xf32>
  %b = "onnx.Constant"() <{value = dense<0.5> : tensor<2x16xf32>}> : () -> tensor<2x16xf32>
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.BlockedConv"(%x, %w, %b, %none) <{in_channels = 3 : i64, out_channels = 32 : i64, pads = [1, 1, 1, 1], strides = [2, 2]}> : (tensor<2x1x9x10x16xf32>, tensor<2x1x3x3x16x16xf32>, tensor<2x16xf32>, none) -> tensor<2x2x5x5x16xf32>
  return %y : tensor<2x2x5x5x16xf32>
}

// -----

// A reorder something else reads too stays a call; the conv still reads
// the image. 16 input channels fill the block: that conv reads the
// reorder.
// CHECK-LABEL: func.func @stem_shared
// CHECK: call @onnxc_rt_reorder_to_nchwc_f32_r4(
// CHECK: call @onnxc_rt_conv_nchwc_f32_r4_6_4_4_nchw(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c16_i32,
// CHECK: return
// CHECK-LABEL: func.func @full_block
// CHECK: call @onnxc_rt_reorder_to_nchwc_f32_r4(
// CHECK: call @onnxc_rt_conv_nchwc_f32_r5_6_5_5(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c0_i32,
func.func @stem_shared(%img: tensor<1x3x8x8xf32>) -> (tensor<1x1x8x8x16xf32>, tensor<1x1x8x8x16xf32>) {
  %x = "onnxc.ReorderToBlocked"(%img) <{block_size = 16 : i64}> : (tensor<1x3x8x8xf32>) -> tensor<1x1x8x8x16xf32>
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<1x1x1x1x16x16xf32>}> : () -> tensor<1x1x1x1x16x16xf32>
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.BlockedConv"(%x, %w, %none, %none) <{in_channels = 3 : i64, out_channels = 16 : i64}> : (tensor<1x1x8x8x16xf32>, tensor<1x1x1x1x16x16xf32>, none, none) -> tensor<1x1x8x8x16xf32>
  return %x, %y : tensor<1x1x8x8x16xf32>, tensor<1x1x8x8x16xf32>
}
func.func @full_block(%img: tensor<1x16x8x8xf32>) -> tensor<1x1x8x8x16xf32> {
  %x = "onnxc.ReorderToBlocked"(%img) <{block_size = 16 : i64}> : (tensor<1x16x8x8xf32>) -> tensor<1x1x8x8x16xf32>
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<1x1x1x1x16x16xf32>}> : () -> tensor<1x1x1x1x16x16xf32>
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.BlockedConv"(%x, %w, %none, %none) <{in_channels = 16 : i64, out_channels = 16 : i64}> : (tensor<1x1x8x8x16xf32>, tensor<1x1x1x1x16x16xf32>, none, none) -> tensor<1x1x8x8x16xf32>
  return %y : tensor<1x1x8x8x16xf32>
}
