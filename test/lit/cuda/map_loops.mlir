// RUN: onnxc-opt --onnxc-cuda-map-loops-to-grid --convert-parallel-loops-to-gpu %s | FileCheck %s

// A 2-D nest becomes a 1-D grid: its dims collapsed, tiles of 256 on
// blocks, the iterations of a tile on threads, the tail masked.
// CHECK-LABEL: func.func @nest
// CHECK: %[[N:.*]] = arith.muli
// CHECK: %[[BLOCKS:.*]] = affine.apply #{{.*}}(%[[N]])[%c0, %c256]
// CHECK: %[[THREADS:.*]] = affine.apply #{{.*}}(%c256)[%c0, %c1]
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[BLOCKS]], %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[THREADS]],
// CHECK: arith.cmpi ult
// CHECK: scf.if
// CHECK: memref.store
func.func @nest(%a: memref<?x?xf32>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %m) step (%c1, %c1) {
    memref.store %v, %a[%i, %j] : memref<?x?xf32>
  }
  return
}

// A nest with no parallel dim runs as one thread.
// CHECK-LABEL: func.func @serial
// CHECK: gpu.launch
// CHECK: scf.for
func.func @serial(%a: memref<?xf32>, %out: memref<f32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %a[%i] : memref<?xf32>
    %s = memref.load %out[] : memref<f32>
    %t = arith.addf %x, %s : f32
    memref.store %t, %out[] : memref<f32>
  }
  return
}
