// RUN: not onnxc-opt --onnxc-cuda-verify-host-code %s 2>&1 | FileCheck %s

// Host code of a partition may not read a buffer: all of them are in device
// memory by then.
// CHECK: error: the cuda target could not map this op to a kernel
func.func @host_read(%a: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %x = memref.load %a[%c0] : memref<4xf32>
  return %x : f32
}
