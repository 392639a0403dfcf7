// RUN: not onnxc-opt --onnxc-cuda-verify-host-code %s 2>&1 | FileCheck %s

// Host code of a partition may not read a device buffer. (It may read the
// arguments DeviceBuffers left on the host, which hold shapes and axes.)
// CHECK: error: the cuda target could not map this op to a kernel
// CHECK-NOT: error
func.func @host_read(%a: memref<4xi64>) -> f32 {
  %c0 = arith.constant 0 : index
  %d = gpu.alloc () : memref<4xf32>
  %x = memref.load %d[%c0] : memref<4xf32>
  %shape = memref.load %a[%c0] : memref<4xi64>
  return %x : f32
}
