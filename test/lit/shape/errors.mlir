// RUN: onnxc-opt --onnx-shape-inference -split-input-file -verify-diagnostics %s

func.func @broadcast(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) -> !onnx.unknown {
  // expected-error @+1 {{cannot broadcast input shapes 'tensor<2x3xf32>' and 'tensor<4x3xf32>'}}
  %0 = "onnx.Add"(%a, %b) : (tensor<2x3xf32>, tensor<4x3xf32>) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @element_types(%a: tensor<3xf32>, %b: tensor<3xf16>) -> !onnx.unknown {
  // expected-error @+1 {{input element types differ: 'f32' and 'f16'}}
  %0 = "onnx.Mul"(%a, %b) : (tensor<3xf32>, tensor<3xf16>) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @where_cond(%c: tensor<3xf32>, %b: tensor<3xf32>) -> !onnx.unknown {
  // expected-error @+1 {{condition must be a bool tensor}}
  %0 = "onnx.Where"(%c, %b, %b) : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> !onnx.unknown {
  // expected-error @+1 {{inner dimensions differ}}
  %0 = "onnx.MatMul"(%a, %b) : (tensor<2x3xf32>, tensor<4x5xf32>) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @gemm(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) -> !onnx.unknown {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{A and B must be matrices}}
  %0 = "onnx.Gemm"(%a, %b, %n) : (tensor<2x3x4xf32>, tensor<4x5xf32>, none) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @gemm_trans(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) -> !onnx.unknown {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{inner dimensions differ (4 vs 5)}}
  %0 = "onnx.Gemm"(%a, %b, %n) <{transA = 1 : i64, transB = 1 : i64}> : (tensor<4x3xf32>, tensor<4x5xf32>, none) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @conv_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> !onnx.unknown {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{X has 3 channels but W expects 2 x group 1}}
  %0 = "onnx.Conv"(%x, %w, %n) : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>, none) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @conv_window(%x: tensor<1x1x2x2xf32>, %w: tensor<1x1x5x5xf32>) -> !onnx.unknown {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{the window of size 5 along spatial dim 0 does not fit the padded input size 2}}
  %0 = "onnx.Conv"(%x, %w, %n) : (tensor<1x1x2x2xf32>, tensor<1x1x5x5xf32>, none) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @pool_kernel(%x: tensor<1x1x8x8xf32>) -> !onnx.unknown {
  // expected-error @+1 {{'kernel_shape' must have 2 values}}
  %0 = "onnx.AveragePool"(%x) <{kernel_shape = [2]}> : (tensor<1x1x8x8xf32>) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @reshape_two_minus_one(%x: tensor<2x3x4xf32>) -> !onnx.unknown {
  %s = "onnx.Constant"() <{value = dense<[-1, 2, -1]> : tensor<3xi64>}> : () -> tensor<3xi64>
  // expected-error @+1 {{the shape has more than one -1}}
  %0 = "onnx.Reshape"(%x, %s) : (tensor<2x3x4xf32>, tensor<3xi64>) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @reshape_count(%x: tensor<2x3x4xf32>) -> !onnx.unknown {
  %s = "onnx.Constant"() <{value = dense<[5, 5]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // expected-error @+1 {{cannot reshape 'tensor<2x3x4xf32>' (24 elements) to [5, 5] (25 elements)}}
  %0 = "onnx.Reshape"(%x, %s) : (tensor<2x3x4xf32>, tensor<2xi64>) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @reshape_indivisible(%x: tensor<2x3x4xf32>) -> !onnx.unknown {
  %s = "onnx.Constant"() <{value = dense<[5, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // expected-error @+1 {{cannot reshape 'tensor<2x3x4xf32>' (24 elements) with a -1 dim: the other dims multiply to 5}}
  %0 = "onnx.Reshape"(%x, %s) : (tensor<2x3x4xf32>, tensor<2xi64>) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

// A computed shape that cannot hold the data is caught too.
func.func @reshape_computed(%x: tensor<2x3xf32>) -> !onnx.unknown {
  %s = "onnx.Shape"(%x) : (tensor<2x3xf32>) -> !onnx.unknown
  %seven = "onnx.Constant"() <{value = dense<7> : tensor<1xi64>}> : () -> tensor<1xi64>
  %t = "onnx.Concat"(%s, %seven) <{axis = 0 : i64}> : (!onnx.unknown, tensor<1xi64>) -> !onnx.unknown
  // expected-error @+1 {{to [2, 3, 7] (42 elements)}}
  %0 = "onnx.Reshape"(%x, %t) : (tensor<2x3xf32>, !onnx.unknown) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<2xf32>) -> !onnx.unknown {
  // expected-error @+1 {{input #1 'tensor<2xf32>' does not match the rank and element type of input #0 'tensor<2x3xf32>'}}
  %0 = "onnx.Concat"(%a, %b) <{axis = 0 : i64}> : (tensor<2x3xf32>, tensor<2xf32>) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @concat_dims(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> !onnx.unknown {
  // expected-error @+1 {{input #1 'tensor<2x4xf32>' differs from the other inputs in dim 1 (3)}}
  %0 = "onnx.Concat"(%a, %b) <{axis = 0 : i64}> : (tensor<2x3xf32>, tensor<2x4xf32>) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @gather_axis(%a: tensor<2x3xf32>, %i: tensor<i64>) -> !onnx.unknown {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = "onnx.Gather"(%a, %i) <{axis = 2 : i64}> : (tensor<2x3xf32>, tensor<i64>) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @gather_index(%a: tensor<2x3xf32>) -> !onnx.unknown {
  %i = "onnx.Constant"() <{value = dense<[0, -4]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // expected-error @+1 {{index -4 is out of range for axis 1 of size 3}}
  %0 = "onnx.Gather"(%a, %i) <{axis = 1 : i64}> : (tensor<2x3xf32>, tensor<2xi64>) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @squeeze(%a: tensor<2x1xf32>) -> !onnx.unknown {
  %ax = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  // expected-error @+1 {{cannot squeeze dim 0 of size 2}}
  %0 = "onnx.Squeeze"(%a, %ax) : (tensor<2x1xf32>, tensor<1xi64>) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @unsqueeze(%a: tensor<2xf32>) -> !onnx.unknown {
  %ax = "onnx.Constant"() <{value = dense<[0, -3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // expected-error @+1 {{axis -3 is repeated in axes}}
  %0 = "onnx.Unsqueeze"(%a, %ax) : (tensor<2xf32>, tensor<2xi64>) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @transpose(%a: tensor<2x3xf32>) -> !onnx.unknown {
  // expected-error @+1 {{perm is not a permutation of the 2 dims}}
  %0 = "onnx.Transpose"(%a) <{perm = [0, 0]}> : (tensor<2x3xf32>) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @split_sizes(%a: tensor<6xf32>) -> (!onnx.unknown, !onnx.unknown) {
  %s = "onnx.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // expected-error @+1 {{split sizes add up to 5, not the size 6 of axis 0}}
  %0:2 = "onnx.Split"(%a, %s) : (tensor<6xf32>, tensor<2xi64>) -> (!onnx.unknown, !onnx.unknown)
  return %0#0, %0#1 : !onnx.unknown, !onnx.unknown
}

// -----

func.func @split_even(%a: tensor<7xf32>) -> (!onnx.unknown, !onnx.unknown) {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{cannot split a dim of size 7 evenly into 2 outputs}}
  %0:2 = "onnx.Split"(%a, %n) : (tensor<7xf32>, none) -> (!onnx.unknown, !onnx.unknown)
  return %0#0, %0#1 : !onnx.unknown, !onnx.unknown
}

// -----

func.func @slice_step(%a: tensor<7xf32>) -> !onnx.unknown {
  %z = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  // expected-error @+1 {{slice step must not be 0}}
  %0 = "onnx.Slice"(%a, %z, %z, %z, %z) : (tensor<7xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @reduce_axis(%a: tensor<2x3xf32>) -> !onnx.unknown {
  %ax = "onnx.Constant"() <{value = dense<[-3]> : tensor<1xi64>}> : () -> tensor<1xi64>
  // expected-error @+1 {{axes value -3 is out of range for rank 2}}
  %0 = "onnx.ReduceSum"(%a, %ax) : (tensor<2x3xf32>, tensor<1xi64>) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @softmax_axis(%a: tensor<2x3xf32>) -> !onnx.unknown {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = "onnx.Softmax"(%a) <{axis = 2 : i64}> : (tensor<2x3xf32>) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @expand(%a: tensor<3xf32>) -> !onnx.unknown {
  %s = "onnx.Constant"() <{value = dense<[2, 4]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // expected-error @+1 {{cannot expand 'tensor<3xf32>' to the shape [2, 4]}}
  %0 = "onnx.Expand"(%a, %s) : (tensor<3xf32>, tensor<2xi64>) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @tile(%a: tensor<3x2xf32>) -> !onnx.unknown {
  %r = "onnx.Constant"() <{value = dense<[2, 4, 1]> : tensor<3xi64>}> : () -> tensor<3xi64>
  // expected-error @+1 {{repeats has 3 elements for an input of rank 2}}
  %0 = "onnx.Tile"(%a, %r) : (tensor<3x2xf32>, tensor<3xi64>) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @topk(%a: tensor<3x5xf32>) -> (!onnx.unknown, !onnx.unknown) {
  %k = "onnx.Constant"() <{value = dense<6> : tensor<1xi64>}> : () -> tensor<1xi64>
  // expected-error @+1 {{K = 6 is out of range for axis 1 of size 5}}
  %0:2 = "onnx.TopK"(%a, %k) : (tensor<3x5xf32>, tensor<1xi64>) -> (!onnx.unknown, !onnx.unknown)
  return %0#0, %0#1 : !onnx.unknown, !onnx.unknown
}

// -----

func.func @range(%a: tensor<i64>) -> !onnx.unknown {
  %z = "onnx.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  // expected-error @+1 {{delta must not be 0}}
  %0 = "onnx.Range"(%a, %a, %z) : (tensor<i64>, tensor<i64>, tensor<i64>) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @cast(%a: tensor<3xf32>) -> !onnx.unknown {
  // expected-error @+1 {{unsupported cast target type 8}}
  %0 = "onnx.Cast"(%a) <{to = 8 : i64}> : (tensor<3xf32>) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @pad(%a: tensor<3xf32>) -> !onnx.unknown {
  %n = "onnx.NoValue"() : () -> none
  %p = "onnx.Constant"() <{value = dense<[-2, -2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // expected-error @+1 {{pads make dim 0 negative (-1)}}
  %0 = "onnx.Pad"(%a, %p, %n, %n) : (tensor<3xf32>, tensor<2xi64>, none, none) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

// A type the op already has must agree with the inferred one.
func.func @contradiction(%a: tensor<3xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{inferred type 'tensor<3xf32>' of result #0 contradicts its type 'tensor<4xf32>'}}
  %0 = "onnx.Relu"(%a) : (tensor<3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A required input the model leaves out.
func.func @missing_input(%x: tensor<1x1x4x4xf32>) -> !onnx.unknown {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{required input #1 is missing}}
  %0 = "onnx.Conv"(%x, %n, %n) : (tensor<1x1x4x4xf32>, none, none) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @missing_add_input(%x: tensor<3xf32>) -> !onnx.unknown {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{required input #0 is missing}}
  %0 = "onnx.Add"(%n, %x) : (none, tensor<3xf32>) -> !onnx.unknown
  return %0 : !onnx.unknown
}
