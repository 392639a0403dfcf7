// RUN: onnxc-opt --onnxc-declare-runtime-helpers --convert-onnx-to-linalg --cse --split-input-file %s | FileCheck %s
// RUN: onnxc-opt --onnxc-declare-runtime-helpers=gemm-kernel=false --convert-onnx-to-linalg --split-input-file %s \
// RUN:   | FileCheck %s --check-prefix=STATIC
// RUN: onnxc-opt --onnxc-declare-runtime-helpers --convert-onnx-to-linalg --onnxc-cpu-lowering --split-input-file %s \
// RUN:   | FileCheck %s --check-prefix=LLVM

// f32 2-D NCHW Conv is a call of the runtime's conv kernels through a
// wrapper (named by the bias rank) that casts to unranked memrefs. The
// window crosses as begin pads, strides, dilations and group (i64); the
// result is a fresh 64-byte aligned buffer. Static mode (no allocating
// kernels) keeps the linalg form.
// CHECK: func.func private @onnxc_rt_conv2d_f32(memref<*xf32>, memref<*xf32>, memref<*xf32>, memref<*xf32>, memref<*xf32>, i32, i64, i64, i64, i64, i64, i64, i64, i32, f32, f32) attributes {llvm.emit_c_interface}
// CHECK: func.func private @onnxc_rt_conv2d_f32_b1(%{{.*}}: memref<?x?x?x?xf32>, %{{.*}}: memref<?x?x?x?xf32>, %{{.*}}: memref<?xf32>, %{{.*}}: memref<?x?x?x?xf32>, %{{.*}}: memref<?x?x?x?xf32>, %{{.*}}: i32,
// CHECK: call @onnxc_rt_conv2d_f32(
// CHECK-LABEL: func.func @conv_bias_pads
// CHECK-DAG: %[[X:.*]] = bufferization.to_memref %arg0 read_only : memref<?x3x7x13xf32>
// CHECK-DAG: %[[Y:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x5x4x5xf32>
// CHECK-DAG: %[[XD:.*]] = memref.cast %[[X]] : memref<?x3x7x13xf32> to memref<?x?x?x?xf32>
// CHECK-DAG: %[[BD:.*]] = memref.cast %{{.*}} : memref<5xf32> to memref<?xf32>
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[THREE:.*]] = arith.constant 3 : i64
// CHECK: call @onnxc_rt_conv2d_f32_b1(%[[XD]], %{{.*}}, %[[BD]], %[[XD]], %{{.*}}, %[[FLAGS]], %[[ONE]], %[[ZERO]], %[[TWO]], %[[THREE]], %[[ONE]], %[[ONE]], %[[ONE]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[Y]] restrict writable : memref<?x5x4x5xf32>
// CHECK: return %[[R]]
// CHECK-NOT: linalg.conv
// STATIC-NOT: onnxc_rt_conv2d
// STATIC-LABEL: func.func @conv_bias_pads
// STATIC: linalg.conv_2d_nchw_fchw
// LLVM: llvm.func @_mlir_ciface_onnxc_rt_conv2d_f32(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i64, i64, i64, i64, i64, i64, i64, i32, f32, f32)
// LLVM-LABEL: llvm.func @conv_bias_pads
// LLVM: llvm.call @onnxc_rt_conv2d_f32_b1(
func.func @conv_bias_pads(%x: tensor<?x3x7x13xf32>, %w: tensor<5x3x3x2xf32>, %b: tensor<5xf32>) -> tensor<?x5x4x5xf32> {
  %0 = "onnx.Conv"(%x, %w, %b) <{pads = [1, 0, 2, 1], strides = [2, 3]}> : (tensor<?x3x7x13xf32>, tensor<5x3x3x2xf32>, tensor<5xf32>) -> tensor<?x5x4x5xf32>
  return %0 : tensor<?x5x4x5xf32>
}

// -----

// FusedConv, depthwise, with Z and a clipped activation: flags 2 (Z, no
// bias; the bias slot gets X through the rank-4 wrapper), group 4, the
// activation code 3 (Clip) and its bounds. auto_pad SAME_UPPER with a
// dynamic size: the begin pad is computed at run time.
// CHECK-LABEL: func.func @fused_depthwise_same
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[GROUP:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[CLIP:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[HI:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-DAG: %[[PADH:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: call @onnxc_rt_conv2d_f32_b4(%[[X:.*]], %{{.*}}, %[[X]], %{{.*}}, %{{.*}}, %[[FLAGS]], %[[PADH]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[GROUP]], %[[CLIP]], %{{.*}}, %[[HI]])
// STATIC-LABEL: func.func @fused_depthwise_same
// STATIC: linalg.depthwise_conv_2d_nchw_chw
func.func @fused_depthwise_same(%x: tensor<1x4x?x8xf32>, %w: tensor<4x1x3x3xf32>, %z: tensor<1x4x?x4xf32>) -> tensor<1x4x?x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnxc.FusedConv"(%x, %w, %none, %z) <{auto_pad = "SAME_UPPER", group = 4 : i64, strides = [2, 2], activation = "Clip", activation_params = [0.0 : f32, 6.0 : f32]}> : (tensor<1x4x?x8xf32>, tensor<4x1x3x3xf32>, none, tensor<1x4x?x4xf32>) -> tensor<1x4x?x4xf32>
  return %0 : tensor<1x4x?x4xf32>
}

// -----

// Not taken by the kernels: f16 and 1-D convolutions; the linalg lowering
// handles them (and no kernel is declared for them).
// CHECK-NOT: func.func private @onnxc_rt_conv2d
// CHECK-LABEL: func.func @fallbacks
// CHECK-NOT: call @onnxc_rt_conv2d
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: linalg.conv_1d_ncw_fcw
// CHECK-NOT: call @onnxc_rt_conv2d
func.func @fallbacks(%a: tensor<1x3x8x8xf16>, %wa: tensor<2x3x3x3xf16>, %b: tensor<1x3x8xf32>, %wb: tensor<2x3x3xf32>) -> (tensor<1x2x6x6xf16>, tensor<1x2x6xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Conv"(%a, %wa, %none) : (tensor<1x3x8x8xf16>, tensor<2x3x3x3xf16>, none) -> tensor<1x2x6x6xf16>
  %1 = "onnx.Conv"(%b, %wb, %none) : (tensor<1x3x8xf32>, tensor<2x3x3xf32>, none) -> tensor<1x2x6xf32>
  return %0, %1 : tensor<1x2x6x6xf16>, tensor<1x2x6xf32>
}
