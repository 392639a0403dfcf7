// RUN: onnxc-opt --split-input-file --onnxc-tile-transposed-loops %s | FileCheck %s
// RUN: onnxc-opt --split-input-file --onnxc-tile-transposed-loops \
// RUN:   --convert-linalg-to-parallel-loops --onnxc-parallelize-loops %s \
// RUN:   | FileCheck %s --check-prefix=TASK

// A u8 plane to channels-last (the reorder into an NHWC int8 region):
// loops (n, cb, h, w, c) read x at (n, c, h, w), contiguous along w. Loops w
// and c step by 64-byte tiles (64 u8), both divide evenly (static tile
// loops), the body stores at iv + j.
// CHECK-LABEL: func.func @to_channels_last
// CHECK-NOT: linalg.generic
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: scf.parallel (%[[N:.*]], %[[CB:.*]], %[[H:.*]], %[[W:.*]], %[[C:.*]]) = ({{.*}}) to ({{.*}}) step (%[[C1]], %[[C1]], %[[C1]], %c64{{.*}}, %c64{{.*}})
// CHECK: scf.for %[[JW:.*]] = %{{.*}} to %c64{{.*}} step
// CHECK: scf.for %[[JC:.*]] = %{{.*}} to %c64{{.*}} step
// CHECK: %[[WI:.*]] = affine.apply #{{.*}}(%[[W]], %[[JW]])
// CHECK: %[[CI:.*]] = affine.apply #{{.*}}(%[[C]], %[[JC]])
// CHECK: %[[V:.*]] = memref.load %arg0[%[[N]], %[[CI]], %[[H]], %[[WI]]] : memref<1x128x8x64xi8>
// CHECK: memref.store %[[V]], %arg1[%[[N]], %[[CB]], %[[H]], %[[WI]], %[[CI]]] : memref<1x1x8x64x128xi8>
// The tile's writes stay on their own iteration of (n, cb, h): split.
// TASK-LABEL: func.func @to_channels_last
// TASK: call @onnxc_parallel_for
#in = affine_map<(n, cb, h, w, c) -> (n, c, h, w)>
#out = affine_map<(n, cb, h, w, c) -> (n, cb, h, w, c)>
func.func @to_channels_last(%x: memref<1x128x8x64xi8>,
                            %y: memref<1x1x8x64x128xi8>) {
  linalg.generic {indexing_maps = [#in, #out],
                  iterator_types = ["parallel", "parallel", "parallel",
                                    "parallel", "parallel"]}
      ins(%x : memref<1x128x8x64xi8>) outs(%y : memref<1x1x8x64x128xi8>) {
  ^bb0(%a: i8, %b: i8):
    linalg.yield %a : i8
  }
  return
}

// -----

// A Transpose of f32 [R, C] with a dynamic size and an op fused in: tiles of
// 16; the dynamic loop's tile ends at min(16, size - iv).
// CHECK-LABEL: func.func @transpose_scaled
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) =
// CHECK: affine.min #{{.*}}(%[[I]])[%{{.*}}]
// CHECK: scf.for
// CHECK: scf.for
// CHECK: memref.load %arg0
// CHECK: arith.mulf
// CHECK: memref.store
#t_in = affine_map<(i, j) -> (j, i)>
#t_out = affine_map<(i, j) -> (i, j)>
func.func @transpose_scaled(%x: memref<48x?xf32>, %y: memref<?x48xf32>,
                            %s: f32) {
  linalg.generic {indexing_maps = [#t_in, #t_out],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<48x?xf32>) outs(%y : memref<?x48xf32>) {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %s : f32
    linalg.yield %p : f32
  }
  return
}

// -----

// Left alone: reads in order (the vectorizer's), and a channels-last image
// of 3 channels (rows of 3: the input's lines are reused already).
// CHECK-LABEL: func.func @left_alone
// CHECK: linalg.generic
// CHECK: linalg.generic
#id = affine_map<(n, h, w, c) -> (n, h, w, c)>
#nchw = affine_map<(n, h, w, c) -> (n, c, h, w)>
func.func @left_alone(%a: memref<1x64x64x16xf32>, %b: memref<1x64x64x16xf32>,
                      %x: memref<1x3x64x64xf32>, %y: memref<1x64x64x3xf32>) {
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel", "parallel",
                                    "parallel"]}
      ins(%a : memref<1x64x64x16xf32>) outs(%b : memref<1x64x64x16xf32>) {
  ^bb0(%u: f32, %v: f32):
    linalg.yield %u : f32
  }
  linalg.generic {indexing_maps = [#nchw, #id],
                  iterator_types = ["parallel", "parallel", "parallel",
                                    "parallel"]}
      ins(%x : memref<1x3x64x64xf32>) outs(%y : memref<1x64x64x3xf32>) {
  ^bb0(%u: f32, %v: f32):
    linalg.yield %u : f32
  }
  return
}
