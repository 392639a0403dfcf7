// RUN: onnxc-opt --convert-onnx-to-linalg --onnxc-cpu-lowering %s | %mlir_run | FileCheck %s

// Data-movement lowerings run on dynamic shapes: each @case_* takes `?`
// dims (and run-time index inputs) so nothing folds at compile time.

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI64(tensor<*xi64>)

// Reshape with a run-time shape [0, -1]: 3x4 -> 3x4 read as [dim0, rest].
func.func @case_reshape(%x: tensor<?x?xf32>, %s: tensor<3xi64>) -> tensor<?x?x?xf32> {
  %0 = "onnx.Reshape"(%x, %s) : (tensor<?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}

// Slice with a negative run-time step: rows 2..0 reversed, every column
// from the last, step -2.
func.func @case_slice(%x: tensor<?x?xf32>, %st: tensor<2xi64>, %en: tensor<2xi64>, %sp: tensor<2xi64>) -> tensor<?x?xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Slice"(%x, %st, %en, %none, %sp) : (tensor<?x?xf32>, tensor<2xi64>, tensor<2xi64>, none, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// Gather along axis 1 with negative indices.
func.func @case_gather(%x: tensor<?x?xf32>, %i: tensor<?xi64>) -> tensor<?x?xf32> {
  %0 = "onnx.Gather"(%x, %i) <{axis = 1 : i64}> : (tensor<?x?xf32>, tensor<?xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// Concat of a dynamic input, an empty one and a static one.
func.func @case_concat(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<3x1xf32>) -> tensor<?x?xf32> {
  %0 = "onnx.Concat"(%a, %b, %c) <{axis = -1 : i64}> : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<3x1xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// Expand whose target may or may not broadcast the dynamic dims.
func.func @case_expand(%x: tensor<?x?xf32>, %s: tensor<3xi64>) -> tensor<?x?x?xf32> {
  %0 = "onnx.Expand"(%x, %s) : (tensor<?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}

// Reflect padding by more than the dim.
func.func @case_pad(%x: tensor<?x?xf32>, %p: tensor<4xi64>) -> tensor<?x?xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Pad"(%x, %p, %none, %none) <{mode = "reflect"}> : (tensor<?x?xf32>, tensor<4xi64>, none, none) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// Shape of a dynamic tensor, then an integer Range.
func.func @case_shape_range(%x: tensor<?x?xf32>, %start: tensor<i64>, %limit: tensor<i64>, %delta: tensor<i64>) -> (tensor<2xi64>, tensor<?xi64>) {
  %0 = "onnx.Shape"(%x) : (tensor<?x?xf32>) -> tensor<2xi64>
  %1 = "onnx.Range"(%start, %limit, %delta) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  return %0, %1 : tensor<2xi64>, tensor<?xi64>
}

func.func @main() {
  %x0 = arith.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]> : tensor<3x4xf32>
  %x = tensor.cast %x0 : tensor<3x4xf32> to tensor<?x?xf32>

  // CHECK: sizes = [3, 2, 2]
  // CHECK-NEXT{LITERAL}: [[[0,    1],
  // CHECK-NEXT{LITERAL}:   [2,    3]],
  // CHECK-NEXT{LITERAL}:  [[4,    5],
  // CHECK-NEXT{LITERAL}:   [6,    7]],
  // CHECK-NEXT{LITERAL}:  [[8,    9],
  // CHECK-NEXT{LITERAL}:   [10,    11]]]
  %shape = arith.constant dense<[0, 2, -1]> : tensor<3xi64>
  %r = call @case_reshape(%x, %shape) : (tensor<?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %ru = tensor.cast %r : tensor<?x?x?xf32> to tensor<*xf32>
  call @printMemrefF32(%ru) : (tensor<*xf32>) -> ()

  // CHECK: sizes = [3, 2]
  // CHECK-NEXT{LITERAL}: [[11,   9],
  // CHECK-NEXT{LITERAL}:  [7,   5],
  // CHECK-NEXT{LITERAL}:  [3,   1]]
  %st = arith.constant dense<[9, -1]> : tensor<2xi64>
  %en = arith.constant dense<[-9223372036854775808, -9223372036854775808]> : tensor<2xi64>
  %sp = arith.constant dense<[-1, -2]> : tensor<2xi64>
  %s = call @case_slice(%x, %st, %en, %sp) : (tensor<?x?xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  %su = tensor.cast %s : tensor<?x?xf32> to tensor<*xf32>
  call @printMemrefF32(%su) : (tensor<*xf32>) -> ()

  // CHECK: sizes = [3, 3]
  // CHECK-NEXT{LITERAL}: [[3,   0,   2],
  // CHECK-NEXT{LITERAL}:  [7,   4,   6],
  // CHECK-NEXT{LITERAL}:  [11,   8,   10]]
  %i0 = arith.constant dense<[-1, 0, 2]> : tensor<3xi64>
  %i = tensor.cast %i0 : tensor<3xi64> to tensor<?xi64>
  %g = call @case_gather(%x, %i) : (tensor<?x?xf32>, tensor<?xi64>) -> tensor<?x?xf32>
  %gu = tensor.cast %g : tensor<?x?xf32> to tensor<*xf32>
  call @printMemrefF32(%gu) : (tensor<*xf32>) -> ()

  // CHECK: sizes = [3, 5]
  // CHECK-NEXT{LITERAL}: [[0,   1,   2,   3,   -1],
  // CHECK-NEXT{LITERAL}:  [4,   5,   6,   7,   -2],
  // CHECK-NEXT{LITERAL}:  [8,   9,   10,   11,   -3]]
  %e0 = tensor.empty() : tensor<3x0xf32>
  %e = tensor.cast %e0 : tensor<3x0xf32> to tensor<?x?xf32>
  %c = arith.constant dense<[[-1.0], [-2.0], [-3.0]]> : tensor<3x1xf32>
  %cc = call @case_concat(%x, %e, %c) : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<3x1xf32>) -> tensor<?x?xf32>
  %ccu = tensor.cast %cc : tensor<?x?xf32> to tensor<*xf32>
  call @printMemrefF32(%ccu) : (tensor<*xf32>) -> ()

  // A 3x1 input expanded by [2, 1, 2]: the unit dim broadcasts at run time.
  // CHECK: sizes = [2, 3, 2]
  // CHECK-NEXT{LITERAL}: [[[1,    1],
  // CHECK-NEXT{LITERAL}:   [2,    2],
  // CHECK-NEXT{LITERAL}:   [3,    3]],
  // CHECK-NEXT{LITERAL}:  [[1,    1],
  // CHECK-NEXT{LITERAL}:   [2,    2],
  // CHECK-NEXT{LITERAL}:   [3,    3]]]
  %col0 = arith.constant dense<[[1.0], [2.0], [3.0]]> : tensor<3x1xf32>
  %col = tensor.cast %col0 : tensor<3x1xf32> to tensor<?x?xf32>
  %es = arith.constant dense<[2, 1, 2]> : tensor<3xi64>
  %ex = call @case_expand(%col, %es) : (tensor<?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %exu = tensor.cast %ex : tensor<?x?x?xf32> to tensor<*xf32>
  call @printMemrefF32(%exu) : (tensor<*xf32>) -> ()

  // Row [0, 1, 2, 3] padded by 5 on the left, reflecting twice.
  // CHECK: sizes = [1, 9]
  // CHECK-NEXT{LITERAL}: [[1,   2,   3,   2,   1,   0,   1,   2,   3]]
  %row0 = arith.constant dense<[[0.0, 1.0, 2.0, 3.0]]> : tensor<1x4xf32>
  %row = tensor.cast %row0 : tensor<1x4xf32> to tensor<?x?xf32>
  %pads = arith.constant dense<[0, 5, 0, 0]> : tensor<4xi64>
  %pd = call @case_pad(%row, %pads) : (tensor<?x?xf32>, tensor<4xi64>) -> tensor<?x?xf32>
  %pdu = tensor.cast %pd : tensor<?x?xf32> to tensor<*xf32>
  call @printMemrefF32(%pdu) : (tensor<*xf32>) -> ()

  // CHECK: sizes = [2]
  // CHECK-NEXT: [3,  4]
  // CHECK: sizes = [3]
  // CHECK-NEXT: [10,  7,  4]
  %start = arith.constant dense<10> : tensor<i64>
  %limit = arith.constant dense<2> : tensor<i64>
  %delta = arith.constant dense<-3> : tensor<i64>
  %sh:2 = call @case_shape_range(%x, %start, %limit, %delta) : (tensor<?x?xf32>, tensor<i64>, tensor<i64>, tensor<i64>) -> (tensor<2xi64>, tensor<?xi64>)
  %shu = tensor.cast %sh#0 : tensor<2xi64> to tensor<*xi64>
  call @printMemrefI64(%shu) : (tensor<*xi64>) -> ()
  %rgu = tensor.cast %sh#1 : tensor<?xi64> to tensor<*xi64>
  call @printMemrefI64(%rgu) : (tensor<*xi64>) -> ()
  return
}

// mlir-cpu-runner does not link the runtime: a serial stand-in for its
// thread pool (runtime/cpu/ThreadPool.h), which the loops lowered from
// dynamic shapes call (onnxc-parallelize-loops).
func.func @onnxc_num_threads() -> i32 {
  %two = arith.constant 2 : i32
  return %two : i32
}
func.func @onnxc_parallel_for(%tasks: i64, %max_threads: i32,
                              %fn: (!llvm.ptr, i64, i32) -> (),
                              %context: !llvm.ptr) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %worker = arith.constant 0 : i32
  scf.for %task = %c0 to %tasks step %c1 : i64 {
    func.call_indirect %fn(%context, %task, %worker) : (!llvm.ptr, i64, i32) -> ()
  }
  return
}
