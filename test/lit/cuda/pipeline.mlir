// The whole device pipeline on a partition: kernels compiled into a
// gpu.binary for sm_90, launched through the mgpu runtime functions.
// RUN: onnxc-opt --onnxc-cuda-lowering %s | FileCheck %s

// CHECK: llvm.func @partition_0_cuda
// CHECK: llvm.call @onnxc_cuda_begin
// CHECK: llvm.call @mgpuMemAlloc
// CHECK: llvm.call @mgpuMemcpy
// CHECK: gpu.launch_func <%{{.*}} : !llvm.ptr> @partition_0_cuda_kernel::@partition_0_cuda_kernel
// CHECK: llvm.call @mgpuMemcpy
// CHECK: llvm.call @onnxc_cuda_end
// CHECK: gpu.binary @partition_0_cuda_kernel
// CHECK-SAME: #nvvm.target<O = 3, chip = "sm_90"
func.func @partition_0_cuda(%x: tensor<?x8xf32>) -> tensor<?x8xf32> attributes {onnxc.target = "cuda"} {
  %0 = "onnx.Relu"(%x) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %1 = "onnx.Sigmoid"(%0) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}

