// RUN: onnxc-opt --convert-onnx-to-linalg %s | FileCheck %s
// RUN: onnxc-opt --convert-onnx-to-linalg --onnxc-cpu-lowering %s \
// RUN:   | FileCheck %s --check-prefix=LLVM --implicit-check-not=onnx. \
// RUN:     --implicit-check-not=tensor. --implicit-check-not=linalg.

// LLVM: llvm.func @dft
// LLVM: llvm.func @dft_runtime_axis
// LLVM: llvm.func @irfft
// LLVM: llvm.func @stft

// A forward DFT of a real signal along axis 1: the per-sample weights, then a
// sum over the samples (the reduction dim) with the twiddle angle
// -2 pi ((f * k) mod n) / n, accumulated in f64 and rounded to f32.
// CHECK-LABEL: func.func @dft
// CHECK: %[[W:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?xf64>)
// CHECK: %[[ZERO:.*]] = linalg.fill {{.*}} -> tensor<1x10x10x2xf64>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[W]] : tensor<?xf64>) outs(%[[ZERO]] : tensor<1x10x10x2xf64>)
// CHECK: %[[F:.*]] = linalg.index 1 : index
// CHECK: %[[K:.*]] = linalg.index 4 : index
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %[[K]], %{{.*}}, %{{.*}}] : tensor<1x10x10x1xf32>
// CHECK: %[[FK:.*]] = arith.muli %[[F]], %[[K]] : index
// CHECK: arith.remui %[[FK]], %{{.*}} : index
// CHECK: math.cos
// CHECK: math.sin
// CHECK: arith.addf {{.*}} : f64
// CHECK: arith.truncf {{.*}} : f64 to f32
func.func @dft(%x: tensor<1x10x10x1xf32>) -> tensor<1x10x10x2xf32> {
  %none = "onnx.NoValue"() : () -> none
  %axis = "onnx.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %0 = "onnx.DFT"(%x, %none, %axis) : (tensor<1x10x10x1xf32>, none, tensor<i64>) -> tensor<1x10x10x2xf32>
  return %0 : tensor<1x10x10x2xf32>
}

// A run-time axis picks the summed dim and the frequency dim with selects.
// CHECK-LABEL: func.func @dft_runtime_axis
// CHECK: %[[A:.*]] = tensor.extract %{{.*}}[] : tensor<i64>
// CHECK: linalg.generic
// CHECK: linalg.index 4 : index
// CHECK: arith.select
// CHECK: tensor.extract %{{.*}} : tensor<1x10x10x2xf64>
func.func @dft_runtime_axis(%x: tensor<1x10x10x2xf64>, %axis: tensor<i64>) -> tensor<1x10x10x2xf64> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.DFT"(%x, %none, %axis) <{inverse = 1 : i64}> : (tensor<1x10x10x2xf64>, none, tensor<i64>) -> tensor<1x10x10x2xf64>
  return %0 : tensor<1x10x10x2xf64>
}

// The inverse one-sided DFT: bins 0 < k < n/2 weigh twice (their mirror
// image), every weight is 1/n, and only the real part is kept.
// CHECK-LABEL: func.func @irfft
// CHECK: linalg.generic
// CHECK: arith.divf
// CHECK: arith.ori
// CHECK: %[[TWICE:.*]] = arith.addf
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[TWICE]] : f64
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x10x10x1xf64>)
func.func @irfft(%x: tensor<1x6x10x2xf32>) -> tensor<1x10x10x1xf32> {
  %none = "onnx.NoValue"() : () -> none
  %axis = "onnx.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %0 = "onnx.DFT"(%x, %none, %axis) <{inverse = 1 : i64, onesided = 1 : i64}> : (tensor<1x6x10x2xf32>, none, tensor<i64>) -> tensor<1x10x10x1xf32>
  return %0 : tensor<1x10x10x1xf32>
}

// STFT: frame f reads samples f * step + k (zero past the end), weighted by
// the window.
// CHECK-LABEL: func.func @stft
// CHECK: %[[STEP:.*]] = arith.maxsi
// CHECK: tensor.extract %{{.*}}[%{{.*}}] : tensor<16xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK: %[[FRAME:.*]] = linalg.index 1 : index
// CHECK: %[[K:.*]] = linalg.index 4 : index
// CHECK: %[[START:.*]] = arith.muli %[[FRAME]], %[[STEP]] : index
// CHECK: %[[T:.*]] = arith.addi %[[START]], %[[K]] : index
// CHECK: arith.cmpi slt, %[[T]]
func.func @stft(%x: tensor<1x128x1xf32>, %step: tensor<i64>, %w: tensor<16xf32>) -> tensor<1x15x9x2xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.STFT"(%x, %step, %w, %none) : (tensor<1x128x1xf32>, tensor<i64>, tensor<16xf32>, none) -> tensor<1x15x9x2xf32>
  return %0 : tensor<1x15x9x2xf32>
}
