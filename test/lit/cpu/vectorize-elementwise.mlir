// RUN: onnxc-opt --split-input-file --onnxc-vectorize-elementwise %s | FileCheck %s
// RUN: onnxc-opt --split-input-file --onnxc-vectorize-elementwise \
// RUN:   --onnxc-parallelize-loops %s | FileCheck %s --check-prefix=TASK
// RUN: onnxc-opt --split-input-file --onnxc-vectorize-elementwise \
// RUN:   --convert-scf-to-cf --convert-arith-to-llvm --convert-index-to-llvm \
// RUN:   --convert-vector-to-llvm --finalize-memref-to-llvm \
// RUN:   --convert-func-to-llvm --convert-cf-to-llvm \
// RUN:   --reconcile-unrealized-casts %s | FileCheck %s --check-prefix=LLVM

// A squeeze-and-excitation product on blocked tensors: the scale varies
// along the 16 lanes (a vector) and is broadcast over H and W (index 0).
// One vector load of each input, one vector multiply, one vector store per
// (n, cb, h, w); the lane loop is gone.
// CHECK-LABEL: func.func @channel_scale
// CHECK-NOT: linalg.generic
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: scf.parallel (%[[N:.*]], %[[CB:.*]], %[[H:.*]], %[[W:.*]], %[[L:.*]]) =
// CHECK: %[[LANE:.*]] = arith.muli %[[L]], %{{.*}} : index
// CHECK: %[[S:.*]] = vector.load %arg0[%[[N]], %[[CB]], %[[C0]], %[[C0]], %[[LANE]]] : memref<1x6x1x1x16xf32>, vector<16xf32>
// CHECK: %[[X:.*]] = vector.load %arg1[%[[N]], %[[CB]], %[[H]], %[[W]], %[[LANE]]] : memref<1x6x56x56x16xf32>, vector<16xf32>
// CHECK: %[[P:.*]] = arith.mulf %[[S]], %[[X]] : vector<16xf32>
// CHECK: vector.store %[[P]], %arg2[%[[N]], %[[CB]], %[[H]], %[[W]], %[[LANE]]] : memref<1x6x56x56x16xf32>, vector<16xf32>
// TASK-LABEL: func.func @channel_scale
// TASK: call @onnxc_parallel_for
// TASK-LABEL: func.func private @channel_scale_task
// TASK: vector.store
// LLVM-LABEL: llvm.func @channel_scale
// LLVM: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
// LLVM: llvm.fmul %{{.*}}, %{{.*}} : vector<16xf32>
// LLVM: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
#scale = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, 0, 0, d4)>
#map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
func.func @channel_scale(%s: memref<1x6x1x1x16xf32>,
                         %x: memref<1x6x56x56x16xf32>,
                         %y: memref<1x6x56x56x16xf32>) {
  linalg.generic {indexing_maps = [#scale, #map, #map],
                  iterator_types = ["parallel", "parallel", "parallel",
                                    "parallel", "parallel"]}
      ins(%s, %x : memref<1x6x1x1x16xf32>, memref<1x6x56x56x16xf32>)
      outs(%y : memref<1x6x56x56x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  }
  return
}

// -----

// An input constant along the innermost dim (a bias per row) is one scalar
// load, broadcast; a constant in the body and a value from outside it
// become splats. 24 columns: vectors of 8.
// CHECK-LABEL: func.func @row_bias
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) =
// CHECK: vector.load %arg0[%[[I]], %{{.*}}] : memref<4x24xf32>, vector<8xf32>
// CHECK: %[[B:.*]] = memref.load %arg1[%[[I]]] : memref<4xf32>
// CHECK: vector.broadcast %[[B]] : f32 to vector<8xf32>
// CHECK: arith.constant dense<2.000000e+00> : vector<8xf32>
// CHECK: vector.broadcast %arg3 : f32 to vector<8xf32>
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK: vector.store %{{.*}}, %arg2[%[[I]], %{{.*}}] : memref<4x24xf32>, vector<8xf32>
#row = affine_map<(d0, d1) -> (d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @row_bias(%x: memref<4x24xf32>, %b: memref<4xf32>,
                    %y: memref<4x24xf32>, %floor: f32) {
  linalg.generic {indexing_maps = [#id, #row, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : memref<4x24xf32>, memref<4xf32>)
      outs(%y : memref<4x24xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %two = arith.constant 2.0 : f32
    %s = arith.addf %a, %c : f32
    %t = arith.mulf %s, %two : f32
    %m = arith.maximumf %t, %floor : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// An output read in the body is loaded too; a comparison gives an i1
// vector for the select.
// CHECK-LABEL: func.func @accumulate_positive
// CHECK: %[[X:.*]] = vector.load %arg0
// CHECK: %[[OLD:.*]] = vector.load %arg1
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[X]], %{{.*}} : vector<16xf32>
// CHECK: arith.select %[[GT]], %{{.*}}, %[[OLD]] : vector<16xi1>, vector<16xf32>
// CHECK: vector.store
#id1 = affine_map<(d0) -> (d0)>
func.func @accumulate_positive(%x: memref<64xf32>, %y: memref<64xf32>) {
  linalg.generic {indexing_maps = [#id1, #id1],
                  iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%y : memref<64xf32>) {
  ^bb0(%a: f32, %out: f32):
    %zero = arith.constant 0.0 : f32
    %gt = arith.cmpf ogt, %a, %zero : f32
    %sum = arith.addf %a, %out : f32
    %r = arith.select %gt, %sum, %out : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Left to the loop lowering: an innermost loop of 10 (no whole vectors), a
// reduction, a transposed input, booleans (bit-packed as LLVM vectors) and
// the loop index in the body.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: vector.
// CHECK-COUNT-5: linalg.generic
// CHECK-NOT: vector.
#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#r = affine_map<(d0, d1) -> (d0)>
func.func @left_alone(%a: memref<4x10xf32>, %b: memref<4x10xf32>,
                      %sq: memref<16x16xf32>, %sqt: memref<16x16xf32>,
                      %sum: memref<16xf32>, %m: memref<16x16xi1>,
                      %n: memref<16x16xi1>, %idx: memref<16x16xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x10xf32>) outs(%b : memref<4x10xf32>) {
  ^bb0(%x: f32, %o: f32):
    %e = arith.negf %x : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id, #r], iterator_types = ["parallel", "reduction"]}
      ins(%sq : memref<16x16xf32>) outs(%sum : memref<16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sq : memref<16x16xf32>) outs(%sqt : memref<16x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : memref<16x16xi1>) outs(%n : memref<16x16xi1>) {
  ^bb0(%x: i1, %o: i1):
    %true = arith.constant true
    %e = arith.xori %x, %true : i1
    linalg.yield %e : i1
  }
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%idx : memref<16x16xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 1 : index
    %c = arith.index_cast %i : index to i32
    %f = arith.sitofp %c : i32 to f32
    linalg.yield %f : f32
  }
  return
}

// -----

// A dynamic innermost loop (an image of open size): chunks of 16 over the
// row, every one that starts in it (ceil); whole chunks unmasked, the last
// one with loads and stores masked to the lanes before the row's end
// (masked-off lanes read ones). The outer range is the output's dim; the
// per-row bias stays a broadcast scalar.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[ROWS:.*]] = memref.dim %arg2, %c0
// CHECK-DAG: %[[COLS:.*]] = memref.dim %arg2, %c1
// CHECK: %[[CHUNKS:.*]] = arith.ceildivui %[[COLS]], %[[C16]]
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = ({{.*}}) to (%[[ROWS]], %[[CHUNKS]])
// CHECK: %[[LANE:.*]] = arith.muli %[[J]], %[[C16]]
// CHECK: %[[LEFT:.*]] = arith.subi %[[COLS]], %[[LANE]]
// CHECK: %[[WHOLE:.*]] = arith.cmpi sge, %[[LEFT]], %[[C16]]
// CHECK: scf.if %[[WHOLE]] {
// CHECK: vector.load %arg0[%[[I]], %[[LANE]]]
// CHECK: arith.divf {{.*}} : vector<16xf32>
// CHECK: vector.store {{.*}}, %arg2[%[[I]], %[[LANE]]]
// CHECK: } else {
// CHECK: %[[MASK:.*]] = vector.create_mask %[[LEFT]] : vector<16xi1>
// CHECK: %[[ONES:.*]] = arith.constant dense<1.000000e+00> : vector<16xf32>
// CHECK: vector.maskedload %arg0[%[[I]], %[[LANE]]], %[[MASK]], %[[ONES]]
// CHECK: memref.load %arg1[%[[I]]]
// CHECK: vector.maskedstore %arg2[%[[I]], %[[LANE]]], %[[MASK]]
// CHECK-NOT: linalg.generic
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @dynamic_rows(%x: memref<?x?xf32>, %b: memref<?xf32>,
                        %y: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : memref<?x?xf32>, memref<?xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %d = arith.divf %a, %c : f32
    linalg.yield %d : f32
  }
  return
}
