// RUN: onnxc-opt --onnxc-declare-runtime-helpers --convert-onnx-to-linalg --split-input-file %s | FileCheck %s
// RUN: onnxc-opt --onnxc-declare-runtime-helpers=gemm-kernel=false --convert-onnx-to-linalg --split-input-file %s \
// RUN:   | FileCheck %s --check-prefix=STATIC
// RUN: onnxc-opt --onnxc-declare-runtime-helpers --convert-onnx-to-linalg --onnxc-cpu-lowering --split-input-file %s \
// RUN:   | FileCheck %s --check-prefix=LLVM

// f32 softmax over the last axis is one call of the runtime's row kernel
// through a wrapper named by its memref ranks (x, bias, y); without a bias
// X is passed again. Static mode (no wrappers declared) keeps the linalg
// form.
// CHECK: func.func private @onnxc_rt_softmax_f32(memref<*xf32>, memref<*xf32>, memref<*xf32>, i32) attributes {llvm.emit_c_interface}
// CHECK: func.func private @onnxc_rt_softmax_f32_r3_3_3(%[[WX:.*]]: memref<?x?x?xf32>, %{{.*}}: memref<?x?x?xf32>, %{{.*}}: memref<?x?x?xf32>, %{{.*}}: i32)
// CHECK: memref.cast %[[WX]] : memref<?x?x?xf32> to memref<*xf32>
// CHECK: call @onnxc_rt_softmax_f32(
// CHECK-LABEL: func.func @softmax_last
// CHECK-DAG: %[[X:.*]] = bufferization.to_memref %arg0 read_only : memref<2x?x7xf32>
// CHECK-DAG: %[[XD:.*]] = memref.cast %[[X]] : memref<2x?x7xf32> to memref<?x?x?xf32>
// CHECK-DAG: %[[N:.*]] = tensor.dim %arg0, %c1
// CHECK-DAG: %[[Y:.*]] = memref.alloc(%[[N]]) {alignment = 64 : i64} : memref<2x?x7xf32>
// CHECK-DAG: %[[YD:.*]] = memref.cast %[[Y]]
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 0 : i32
// CHECK: call @onnxc_rt_softmax_f32_r3_3_3(%[[XD]], %[[XD]], %[[YD]], %[[FLAGS]])
// CHECK: bufferization.to_tensor %[[Y]] restrict writable
// CHECK-NOT: linalg.generic
// STATIC-NOT: func.func private @onnxc_rt_softmax_f32
// STATIC-LABEL: func.func @softmax_last
// STATIC-NOT: call @onnxc_rt_softmax
// STATIC: math.exp
// LLVM: llvm.func @_mlir_ciface_onnxc_rt_softmax_f32(!llvm.ptr, !llvm.ptr, !llvm.ptr, i32)
// LLVM-LABEL: llvm.func @softmax_last
// LLVM: llvm.call @onnxc_rt_softmax_f32_r3_3_3(
func.func @softmax_last(%x: tensor<2x?x7xf32>) -> tensor<2x?x7xf32> {
  %y = "onnx.Softmax"(%x) <{axis = -1 : i64}> : (tensor<2x?x7xf32>) -> tensor<2x?x7xf32>
  return %y : tensor<2x?x7xf32>
}

// -----

// Another axis, or f64, stays linalg.
// CHECK-LABEL: func.func @softmax_not_taken
// CHECK-NOT: call @onnxc_rt_softmax
// CHECK: math.exp
// CHECK: math.exp
// CHECK: return
func.func @softmax_not_taken(%x: tensor<2x7xf32>, %z: tensor<2x7xf64>) -> (tensor<2x7xf32>, tensor<2x7xf64>) {
  %y = "onnx.Softmax"(%x) <{axis = 0 : i64}> : (tensor<2x7xf32>) -> tensor<2x7xf32>
  %w = "onnx.Softmax"(%z) <{axis = 1 : i64}> : (tensor<2x7xf64>) -> tensor<2x7xf64>
  return %y, %w : tensor<2x7xf32>, tensor<2x7xf64>
}

// -----

// BiasSoftmax: the bias crosses as its own memref (the runtime broadcasts
// it), flag 1.
// CHECK-LABEL: func.func @bias_softmax
// CHECK-DAG: %[[B:.*]] = bufferization.to_memref %arg1 read_only : memref<2x1x1x5xf32>
// CHECK-DAG: %[[BD:.*]] = memref.cast %[[B]]
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 1 : i32
// CHECK: call @onnxc_rt_softmax_f32_r4_4_4(%{{.*}}, %[[BD]], %{{.*}}, %[[FLAGS]])
// STATIC-LABEL: func.func @bias_softmax
// STATIC-NOT: call @onnxc_rt_softmax
// STATIC: arith.addf
func.func @bias_softmax(%x: tensor<2x3x5x5xf32>, %b: tensor<2x1x1x5xf32>) -> tensor<2x3x5x5xf32> {
  %y = "onnxc.BiasSoftmax"(%x, %b) <{axis = -1 : i64}> : (tensor<2x3x5x5xf32>, tensor<2x1x1x5xf32>) -> tensor<2x3x5x5xf32>
  return %y : tensor<2x3x5x5xf32>
}

// -----

// SkipLayerNorm: x, skip, bias, gamma, beta (x again: absent), y; flags
// skip | bias = 3; epsilon.
// CHECK: func.func private @onnxc_rt_layer_norm_f32(memref<*xf32>, memref<*xf32>, memref<*xf32>, memref<*xf32>, memref<*xf32>, memref<*xf32>, i32, f32) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @skip_layernorm
// Skip's dynamic batch must equal X's at run time, else a shape error
// naming the node (the kernel itself stays in bounds).
// CHECK: %[[DS:.*]] = tensor.dim %arg1, %c0
// CHECK: %[[DX:.*]] = tensor.dim %arg0, %c0
// CHECK: %[[SAME:.*]] = arith.cmpi eq, %[[DS]], %[[DX]]
// CHECK: %[[BAD:.*]] = arith.xori %[[SAME]], %true
// CHECK: scf.if %[[BAD]]
// CHECK: call @onnxc_rt_shape_error_at(
// CHECK-DAG: %[[X:.*]] = memref.cast %{{.*}} : memref<?x3x8xf32> to memref<?x?x?xf32>
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[EPS:.*]] = arith.constant 9.99999996E-13 : f32
// CHECK: call @onnxc_rt_layer_norm_f32_r3_3_1_1_3_3(%[[X]], %{{.*}}, %{{.*}}, %{{.*}}, %[[X]], %{{.*}}, %[[FLAGS]], %[[EPS]])
// CHECK-NOT: linalg.generic
// STATIC-LABEL: func.func @skip_layernorm
// STATIC-NOT: call @onnxc_rt_layer_norm
// STATIC: math.sqrt
func.func @skip_layernorm(%x: tensor<?x3x8xf32>, %skip: tensor<?x3x8xf32>, %gamma: tensor<8xf32>, %bias: tensor<8xf32>) -> tensor<?x3x8xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.SkipLayerNorm"(%x, %skip, %gamma, %none, %bias) <{epsilon = 1.0e-12 : f32}> : (tensor<?x3x8xf32>, tensor<?x3x8xf32>, tensor<8xf32>, none, tensor<8xf32>) -> tensor<?x3x8xf32>
  return %y : tensor<?x3x8xf32>
}

// -----

// LayerNormalization over the last axis with B: flags beta = 4. Over two
// axes, or with the Mean output, it stays linalg.
// CHECK-LABEL: func.func @layernorm
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 4 : i32
// CHECK: call @onnxc_rt_layer_norm_f32_r2_2_2_1_1_2(%{{.*}}, %[[FLAGS]], %{{.*}})
// CHECK-NOT: call @onnxc_rt_layer_norm
// CHECK: math.sqrt
// CHECK: math.sqrt
func.func @layernorm(%x: tensor<4x6xf32>, %s: tensor<6xf32>, %b: tensor<6xf32>, %s2: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x1xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %y, %m, %i = "onnx.LayerNormalization"(%x, %s, %b) <{axis = -1 : i64, epsilon = 1.0e-5 : f32}> : (tensor<4x6xf32>, tensor<6xf32>, tensor<6xf32>) -> (tensor<4x6xf32>, none, none)
  %y2, %m2, %i2 = "onnx.LayerNormalization"(%x, %s2, %none) <{axis = 0 : i64, epsilon = 1.0e-5 : f32}> : (tensor<4x6xf32>, tensor<4x6xf32>, none) -> (tensor<4x6xf32>, none, none)
  %y3, %m3, %i3 = "onnx.LayerNormalization"(%x, %s, %none) <{axis = 1 : i64, epsilon = 1.0e-5 : f32}> : (tensor<4x6xf32>, tensor<6xf32>, none) -> (tensor<4x6xf32>, tensor<4x1xf32>, none)
  return %y, %y2, %y3, %m3 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x1xf32>
}

// -----

// Attention on 4-D f32: Q, K, V, mask, Y and flags (mask 8, K and V read
// through their heads transposes: 32 | 64), scale 1/sqrt(8) by default.
// The transposes' results are not used.
// CHECK: func.func private @onnxc_rt_attention_f32(memref<*xf32>, memref<*xf32>, memref<*xf32>, memref<*xf32>, memref<*xf32>, i32, f32) attributes {llvm.emit_c_interface}
// CHECK: func.func private @onnxc_rt_attention_f32_r4_4_4_4_4(%{{.*}}: memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, %{{.*}}: memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, %{{.*}}: memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, %{{.*}}: memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, %{{.*}}: memref<?x?x?x?xf32>, %{{.*}}: i32, %{{.*}}: f32)
// CHECK-LABEL: func.func @attention
// CHECK-DAG: bufferization.to_memref %arg0 read_only : memref<2x4x3x8xf32, strided<[?, ?, ?, ?], offset: ?>>
// CHECK-DAG: bufferization.to_memref %arg1 read_only : memref<2x5x2x8xf32, strided<[?, ?, ?, ?], offset: ?>>
// CHECK-DAG: bufferization.to_memref %arg2 read_only : memref<2x5x2x6xf32, strided<[?, ?, ?, ?], offset: ?>>
// CHECK-DAG: bufferization.to_memref %arg3 read_only : memref<2x1x1x5xf32, strided<[?, ?, ?, ?], offset: ?>>
// CHECK-DAG: memref.alloc() {alignment = 64 : i64} : memref<2x4x3x6xf32>
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 104 : i32
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 0.353553385 : f32
// CHECK: call @onnxc_rt_attention_f32_r4_4_4_4_4(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[FLAGS]], %[[SCALE]])
// STATIC-LABEL: func.func @attention
// STATIC-NOT: call @onnxc_rt_attention
// STATIC: math.exp
func.func @attention(%q: tensor<2x4x3x8xf32>, %kt: tensor<2x5x2x8xf32>, %vt: tensor<2x5x2x6xf32>, %m: tensor<2x1x1x5xf32>) -> tensor<2x4x3x6xf32> {
  %none = "onnx.NoValue"() : () -> none
  %k = "onnx.Transpose"(%kt) <{perm = [0, 2, 1, 3]}> : (tensor<2x5x2x8xf32>) -> tensor<2x2x5x8xf32>
  %v = "onnx.Transpose"(%vt) <{perm = [0, 2, 1, 3]}> : (tensor<2x5x2x6xf32>) -> tensor<2x2x5x6xf32>
  %y, %a, %b, %c = "onnx.Attention"(%q, %k, %v, %m, %none, %none, %none) : (tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x6xf32>, tensor<2x1x1x5xf32>, none, none, none) -> (tensor<2x4x3x6xf32>, none, none, none)
  return %y : tensor<2x4x3x6xf32>
}

// -----

// The attention kernel reads every stride: Q, K and V sliced out of one
// fused projection by a Split (GPT-2) and split into heads by a Reshape are
// passed as strided views of it, with no copy into an identity-layout
// buffer. A softmax kernel, which wants rows, still gets a copy of its slice.
// CHECK-LABEL: func.func @attention_on_split
// CHECK: call @onnxc_rt_attention_f32_r4_4_4_4_4
// LLVM-LABEL: llvm.func @attention_on_split
// LLVM-NOT: memrefCopy
// LLVM: llvm.call @onnxc_rt_attention_f32_r4_4_4_4_4(
// LLVM-NOT: memrefCopy
// LLVM: llvm.return
// LLVM-LABEL: llvm.func @softmax_on_split
// LLVM: llvm.call @memrefCopy
// LLVM: llvm.call @onnxc_rt_softmax_f32_r3_3_3(
func.func @attention_on_split(%x: tensor<1x16x96xf32>) -> tensor<1x2x16x16xf32> {
  %none = "onnx.NoValue"() : () -> none
  %sizes = "onnx.Constant"() <{value = dense<32> : tensor<3xi64>}> : () -> tensor<3xi64>
  %heads = "onnx.Constant"() <{value = dense<[1, 16, 2, 16]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %q, %k, %v = "onnx.Split"(%x, %sizes) <{axis = 2 : i64}> : (tensor<1x16x96xf32>, tensor<3xi64>) -> (tensor<1x16x32xf32>, tensor<1x16x32xf32>, tensor<1x16x32xf32>)
  %q4 = "onnx.Reshape"(%q, %heads) : (tensor<1x16x32xf32>, tensor<4xi64>) -> tensor<1x16x2x16xf32>
  %k4 = "onnx.Reshape"(%k, %heads) : (tensor<1x16x32xf32>, tensor<4xi64>) -> tensor<1x16x2x16xf32>
  %v4 = "onnx.Reshape"(%v, %heads) : (tensor<1x16x32xf32>, tensor<4xi64>) -> tensor<1x16x2x16xf32>
  %qt = "onnx.Transpose"(%q4) <{perm = [0, 2, 1, 3]}> : (tensor<1x16x2x16xf32>) -> tensor<1x2x16x16xf32>
  %kt = "onnx.Transpose"(%k4) <{perm = [0, 2, 1, 3]}> : (tensor<1x16x2x16xf32>) -> tensor<1x2x16x16xf32>
  %vt = "onnx.Transpose"(%v4) <{perm = [0, 2, 1, 3]}> : (tensor<1x16x2x16xf32>) -> tensor<1x2x16x16xf32>
  %y, %a, %b, %c = "onnx.Attention"(%qt, %kt, %vt, %none, %none, %none, %none) : (tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>, none, none, none, none) -> (tensor<1x2x16x16xf32>, none, none, none)
  return %y : tensor<1x2x16x16xf32>
}
func.func @softmax_on_split(%x: tensor<1x16x96xf32>) -> tensor<1x16x32xf32> {
  %sizes = "onnx.Constant"() <{value = dense<32> : tensor<3xi64>}> : () -> tensor<3xi64>
  %q, %k, %v = "onnx.Split"(%x, %sizes) <{axis = 2 : i64}> : (tensor<1x16x96xf32>, tensor<3xi64>) -> (tensor<1x16x32xf32>, tensor<1x16x32xf32>, tensor<1x16x32xf32>)
  %y = "onnx.Softmax"(%k) <{axis = -1 : i64}> : (tensor<1x16x32xf32>) -> tensor<1x16x32xf32>
  return %y : tensor<1x16x32xf32>
}

// -----

// Causal attention, boolean masks and sliding windows stay linalg.
// CHECK-LABEL: func.func @attention_not_taken
// CHECK-NOT: call @onnxc_rt_attention
// CHECK: math.exp
// CHECK-NOT: call @onnxc_rt_attention
// CHECK: return
func.func @attention_not_taken(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x3x8xf32>, %v: tensor<1x2x3x8xf32>, %m: tensor<3x3xi1>) -> (tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %y, %a, %b, %c = "onnx.Attention"(%q, %k, %v, %none, %none, %none, %none) {is_causal = 1 : i64} : (tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, none, none, none, none) -> (tensor<1x2x3x8xf32>, none, none, none)
  %y2, %a2, %b2, %c2 = "onnx.Attention"(%q, %k, %v, %m, %none, %none, %none) : (tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<3x3xi1>, none, none, none) -> (tensor<1x2x3x8xf32>, none, none, none)
  %y3, %a3, %b3, %c3 = "onnx.Attention"(%q, %k, %v, %none, %none, %none, %none) {left_window_size = 1 : i64} : (tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, none, none, none, none) -> (tensor<1x2x3x8xf32>, none, none, none)
  return %y, %y2, %y3 : tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>
}
