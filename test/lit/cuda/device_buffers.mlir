// RUN: onnxc-opt --onnxc-cuda-device-buffers %s | FileCheck %s
// RUN: onnxc-opt --onnxc-cuda-device-buffers="call-options=1" %s | FileCheck %s --check-prefix=TF32
// TF32: %[[ONE:.*]] = arith.constant 1 : i32
// TF32: call @onnxc_cuda_begin(%[[ONE]]) : (i32) -> ()

memref.global "private" constant @w : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

// The argument is copied to the device, every buffer is a device buffer,
// the weights are marked for their device copy, the result is copied back
// to a host buffer, and the call is bracketed by begin/end.
// CHECK-LABEL: func.func @partition_0_cuda
// CHECK-SAME: (%[[ARG:.*]]: memref<?x4xf32>) -> memref<?x4xf32>
// CHECK: %[[OPTIONS:.*]] = arith.constant 0 : i32
// CHECK: call @onnxc_cuda_begin(%[[OPTIONS]])
// CHECK: %[[IN:.*]] = gpu.alloc (%{{.*}}) : memref<?x4xf32>
// CHECK: gpu.memcpy %[[IN]], %[[ARG]]
// CHECK: memref.get_global @w {{.*}}onnxc.device_constant
// CHECK: %[[OUT:.*]] = gpu.alloc (%{{.*}}) : memref<?x4xf32>
// CHECK-NOT: memref.copy
// CHECK: linalg.copy ins(%[[IN]] : memref<?x4xf32>) outs(%[[OUT]] : memref<?x4xf32>)
// CHECK: %[[HOST:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x4xf32>
// CHECK: gpu.memcpy %[[HOST]], %[[OUT]]
// CHECK: call @onnxc_cuda_end()
// CHECK: return %[[HOST]]
func.func @partition_0_cuda(%x: memref<?x4xf32>) -> memref<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x4xf32>
  %w = memref.get_global @w : memref<4xf32>
  %y = memref.alloc(%n) : memref<?x4xf32>
  memref.copy %x, %y : memref<?x4xf32> to memref<?x4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%w : memref<4xf32>) outs(%y : memref<?x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return %y : memref<?x4xf32>
}

// The dims of a dynamic reshape stay in host memory.
// CHECK-LABEL: func.func @reshape
// CHECK: %[[SHAPE:.*]] = memref.alloc() : memref<2xi64>
// CHECK: memref.reshape %{{.*}}(%[[SHAPE]])
func.func @reshape(%x: memref<?xf32>, %r: i64) -> memref<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2 : i64
  %shape = memref.alloc() : memref<2xi64>
  memref.store %r, %shape[%c0] : memref<2xi64>
  memref.store %two, %shape[%c1] : memref<2xi64>
  %y = memref.reshape %x(%shape) : (memref<?xf32>, memref<2xi64>) -> memref<?x?xf32>
  return %y : memref<?x?xf32>
}

// A reduction to one value has no parallel dim: it goes into a one-iteration
// scf.parallel, to run as a kernel of one thread.
// CHECK-LABEL: func.func @reduce_all
// CHECK: scf.parallel (%{{.*}}) = (%c0{{.*}}) to (%c1{{.*}}) step (%c1{{.*}})
// CHECK-NEXT: linalg.generic
// CHECK-SAME: iterator_types = ["reduction"]
func.func @reduce_all(%x: memref<8xf32>) -> memref<f32> {
  %s = memref.alloc() : memref<f32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : memref<8xf32>) outs(%s : memref<f32>) {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    linalg.yield %t : f32
  }
  return %s : memref<f32>
}
