// RUN: onnxc-opt --onnxc-declare-runtime-helpers --convert-onnx-to-linalg --split-input-file %s | FileCheck %s
// RUN: onnxc-opt --onnxc-declare-runtime-helpers --convert-onnx-to-linalg --onnxc-cpu-lowering --split-input-file %s \
// RUN:   | FileCheck %s --check-prefix=LLVM

// f32 MatMul is a call of the runtime GEMM. Its one C entry point takes
// unranked memrefs; a private wrapper per rank combination does the casts,
// so their descriptors live in the wrapper's frame (not in a caller's loop).
// The operands cross as read-only memrefs, the result is a fresh 64-byte
// aligned buffer the call fills, returned without a copy.
// CHECK: func.func private @onnxc_rt_matmul_f32(memref<*xf32>, memref<*xf32>, memref<*xf32>, memref<*xf32>, i32, f32, f32, i32, f32, f32) attributes {llvm.emit_c_interface}
// CHECK: func.func private @onnxc_rt_matmul_f32_r2_2_2_2(%[[WA:.*]]: memref<?x?xf32>, %[[WB:.*]]: memref<?x?xf32>, %[[WC:.*]]: memref<?x?xf32>, %[[WY:.*]]: memref<?x?xf32>, %{{.*}}: i32,
// CHECK: %[[UA:.*]] = memref.cast %[[WA]] : memref<?x?xf32> to memref<*xf32>
// CHECK: call @onnxc_rt_matmul_f32(%[[UA]],
// CHECK-NEXT: return
// CHECK-LABEL: func.func @matmul_2d
// CHECK-DAG: %[[A:.*]] = bufferization.to_memref %arg0 read_only : memref<7x13xf32>
// CHECK-DAG: %[[B:.*]] = bufferization.to_memref %arg1 read_only : memref<13x5xf32>
// CHECK-DAG: %[[Y:.*]] = memref.alloc() {alignment = 64 : i64} : memref<7x5xf32>
// CHECK-DAG: %[[AD:.*]] = memref.cast %[[A]] : memref<7x13xf32> to memref<?x?xf32>
// CHECK-DAG: %[[BD:.*]] = memref.cast %[[B]] : memref<13x5xf32> to memref<?x?xf32>
// CHECK-DAG: %[[YD:.*]] = memref.cast %[[Y]] : memref<7x5xf32> to memref<?x?xf32>
// CHECK: call @onnxc_rt_matmul_f32_r2_2_2_2(%[[AD]], %[[BD]], %[[AD]], %[[YD]], %{{.*}}) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>, i32, f32, f32, i32, f32, f32) -> ()
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[Y]] restrict writable : memref<7x5xf32>
// CHECK: return %[[R]]
// CHECK-NOT: linalg.matmul
// LLVM: llvm.func @_mlir_ciface_onnxc_rt_matmul_f32(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, f32, f32, i32, f32, f32)
// LLVM: llvm.func @onnxc_rt_matmul_f32_r2_2_2_2(
// LLVM: llvm.alloca
// LLVM: llvm.call @onnxc_rt_matmul_f32(
// LLVM-LABEL: llvm.func @matmul_2d
// LLVM-NOT: llvm.alloca
// LLVM: llvm.call @onnxc_rt_matmul_f32_r2_2_2_2(
func.func @matmul_2d(%a: tensor<7x13xf32>, %b: tensor<13x5xf32>) -> tensor<7x5xf32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<7x13xf32>, tensor<13x5xf32>) -> tensor<7x5xf32>
  return %0 : tensor<7x5xf32>
}

// -----

// Broadcast batch dims, both dynamic: the result's batch size is the larger
// of the two at run time; rows and columns come from A and B.
// CHECK-LABEL: func.func @matmul_dynamic_broadcast
// CHECK-DAG: %[[DA:.*]] = tensor.dim %arg0, %c0
// CHECK-DAG: %[[DB:.*]] = tensor.dim %arg1, %c0
// CHECK-DAG: %[[BATCH:.*]] = arith.maxui %[[DA]], %[[DB]] : index
// CHECK-DAG: %[[M:.*]] = tensor.dim %arg0, %c1
// CHECK: memref.alloc(%[[BATCH]], %[[M]]) {alignment = 64 : i64} : memref<?x?x6xf32>
// CHECK: call @onnxc_rt_matmul_f32_r3_3_3_3
// LLVM-LABEL: llvm.func @matmul_dynamic_broadcast
// LLVM: llvm.call @onnxc_rt_matmul_f32_r3_3_3_3
func.func @matmul_dynamic_broadcast(%a: tensor<?x?x4xf32>, %b: tensor<?x4x6xf32>) -> tensor<?x?x6xf32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<?x?x4xf32>, tensor<?x4x6xf32>) -> tensor<?x?x6xf32>
  return %0 : tensor<?x?x6xf32>
}

// -----

// Vector operands: numpy promotion happens in the runtime; the result drops
// the promoted dims.
// CHECK-LABEL: func.func @matmul_vector
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<3x1xf32>
// CHECK: call @onnxc_rt_matmul_f32_r1_3_1_2
func.func @matmul_vector(%a: tensor<4xf32>, %b: tensor<3x4x1xf32>) -> tensor<3x1xf32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<4xf32>, tensor<3x4x1xf32>) -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// -----

// Gemm: transposes in the flags (1 | 2), C passed as the bias (flag 4)
// scaled by beta, alpha as the product's scale.
// CHECK-LABEL: func.func @gemm_trans_c
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 7 : i32
// CHECK-DAG: %[[ALPHA:.*]] = arith.constant 2.500000e-01 : f32
// CHECK-DAG: %[[BETA:.*]] = arith.constant 3.000000e+00 : f32
// CHECK-DAG: bufferization.to_memref %arg2 read_only : memref<1x5xf32>
// CHECK-DAG: memref.alloc() {alignment = 64 : i64} : memref<3x5xf32>
// CHECK: call @onnxc_rt_matmul_f32_r2_2_2_2(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[FLAGS]], %[[ALPHA]], %[[BETA]],
func.func @gemm_trans_c(%a: tensor<4x3xf32>, %b: tensor<5x4xf32>, %c: tensor<1x5xf32>) -> tensor<3x5xf32> {
  %0 = "onnx.Gemm"(%a, %b, %c) <{alpha = 0.25 : f32, beta = 3.0 : f32, transA = 1 : i64, transB = 1 : i64}> : (tensor<4x3xf32>, tensor<5x4xf32>, tensor<1x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// FusedMatMul: bias, alpha and LeakyRelu (code 2, slope 0.1) in the call's
// epilogue; nothing elementwise is left.
// CHECK-LABEL: func.func @fused_matmul
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 4 : i32
// CHECK-DAG: %[[ALPHA:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG: %[[LEAKY:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[SLOPE:.*]] = arith.constant 1.000000e-01 : f32
// CHECK: call @onnxc_rt_matmul_f32_r3_2_1_3(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[FLAGS]], %[[ALPHA]], %{{.*}}, %[[LEAKY]], %[[SLOPE]],
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @fused_matmul(%a: tensor<?x3x4xf32>, %b: tensor<4x5xf32>, %bias: tensor<5xf32>) -> tensor<?x3x5xf32> {
  %y = "onnxc.FusedMatMul"(%a, %b, %bias) <{alpha = 0.5 : f32, activation = "LeakyRelu", activation_params = [0.1 : f32]}> : (tensor<?x3x4xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<?x3x5xf32>
  return %y : tensor<?x3x5xf32>
}

// -----

// FusedMatMul with Gelu (code 7), as the -O2 transformer fusions make it.
// CHECK-LABEL: func.func @fused_matmul_gelu
// CHECK-DAG: %[[GELU:.*]] = arith.constant 7 : i32
// CHECK: call @onnxc_rt_matmul_f32_r3_2_1_3(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[GELU]],
// CHECK-NOT: math.erf
// CHECK: return
func.func @fused_matmul_gelu(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>, %bias: tensor<5xf32>) -> tensor<2x3x5xf32> {
  %y = "onnxc.FusedMatMul"(%a, %b, %bias) <{activation = "Gelu"}> : (tensor<2x3x4xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

// FusedGemm with Clip(0, 6) (code 3) and no C.
// CHECK-LABEL: func.func @fused_gemm_clip
// CHECK-DAG: %[[CLIP:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[SIX:.*]] = arith.constant 6.000000e+00 : f32
// CHECK: call @onnxc_rt_matmul_f32_r2_2_2_2(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[CLIP]], %{{.*}}, %[[SIX]])
func.func @fused_gemm_clip(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.FusedGemm"(%a, %b, %none) <{activation = "Clip", activation_params = [0.0 : f32, 6.0 : f32]}> : (tensor<3x4xf32>, tensor<4x5xf32>, none) -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}

// -----

// Other element types keep the linalg lowering, and no GEMM is declared.
// CHECK-NOT: onnxc_rt_matmul_f32
// CHECK-LABEL: func.func @matmul_f64
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @gemm_i32
// CHECK: linalg.matmul
// CHECK-NOT: call
func.func @matmul_f64(%a: tensor<2x3xf64>, %b: tensor<3x4xf64>) -> tensor<2x4xf64> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  return %0 : tensor<2x4xf64>
}
func.func @gemm_i32(%a: tensor<2x3xi32>, %b: tensor<3x4xi32>) -> tensor<2x4xi32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Gemm"(%a, %b, %none) : (tensor<2x3xi32>, tensor<3x4xi32>, none) -> tensor<2x4xi32>
  return %0 : tensor<2x4xi32>
}
