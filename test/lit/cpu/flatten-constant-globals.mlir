// RUN: onnxc-opt --onnxc-flatten-constant-globals %s | FileCheck %s

// A constant rank-3 global becomes 1-D; its use sees the original shape
// through an expand_shape view.
// CHECK-LABEL: memref.global "private" constant @weights : memref<12xf32> = dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01]>
memref.global "private" constant @weights : memref<2x3x2xf32> = dense<[[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]], [[6.0, 7.0], [8.0, 9.0], [10.0, 11.0]]]>

// A resource-backed global keeps its blob; only the type changes.
// CHECK: memref.global "private" constant @blob : memref<4xi32> = dense_resource<blob1>
memref.global "private" constant @blob : memref<2x2xi32> = dense_resource<blob1>

// Not flattened: a mutable global, a 1-D one, and an uninitialized one.
// CHECK: memref.global "private" @state : memref<2x2xf32> = dense<0.000000e+00>
memref.global "private" @state : memref<2x2xf32> = dense<0.0>
// CHECK: memref.global "private" constant @row : memref<3xf32>
memref.global "private" constant @row : memref<3xf32> = dense<[1.0, 2.0, 3.0]>
// CHECK: memref.global "private" @scratch : memref<2x2xf32> = uninitialized
memref.global "private" @scratch : memref<2x2xf32> = uninitialized

// CHECK-LABEL: func.func @use
func.func @use() -> (memref<2x3x2xf32>, memref<2x2xi32>, memref<2x2xf32>, memref<3xf32>) {
  // CHECK: %[[W:.*]] = memref.get_global @weights : memref<12xf32>
  // CHECK: memref.expand_shape %[[W]] {{\[\[}}0, 1, 2]] output_shape [2, 3, 2] : memref<12xf32> into memref<2x3x2xf32>
  %w = memref.get_global @weights : memref<2x3x2xf32>
  // CHECK: %[[B:.*]] = memref.get_global @blob : memref<4xi32>
  // CHECK: memref.expand_shape %[[B]] {{\[\[}}0, 1]] output_shape [2, 2] : memref<4xi32> into memref<2x2xi32>
  %b = memref.get_global @blob : memref<2x2xi32>
  // CHECK: memref.get_global @state : memref<2x2xf32>
  // CHECK-NOT: memref.expand_shape
  // CHECK: memref.get_global @row : memref<3xf32>
  // CHECK-NOT: memref.expand_shape
  // CHECK: return
  %s = memref.get_global @state : memref<2x2xf32>
  %r = memref.get_global @row : memref<3xf32>
  return %w, %b, %s, %r : memref<2x3x2xf32>, memref<2x2xi32>, memref<2x2xf32>, memref<3xf32>
}

{-#
  dialect_resources: {
    builtin: {
      blob1: "0x0400000001000000020000000300000004000000"
    }
  }
#-}
