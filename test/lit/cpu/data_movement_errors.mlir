// RUN: not onnxc-opt --convert-onnx-to-linalg --split-input-file %s 2>&1 | FileCheck %s

// Bad attributes or inputs get an error on the node (its location is the
// ONNX node name), and the node stays illegal.

// CHECK: error: loc("reshape_node"): the shape has more than one -1
// CHECK: error: loc("reshape_node"): the cpu target cannot lower this 'Reshape' node
func.func @reshape_two_inferred(%x: tensor<?x4xf32>) -> tensor<?x?xf32> {
  %s = "onnx.Constant"() <{value = dense<[-1, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "onnx.Reshape"(%x, %s) : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x?xf32> loc("reshape_node")
  return %0 : tensor<?x?xf32>
}

// -----

// CHECK: error: cannot reshape 'tensor<2x3xf32>' into 'tensor<7xf32>'
func.func @reshape_size_mismatch(%x: tensor<2x3xf32>, %s: tensor<1xi64>) -> tensor<7xf32> {
  %0 = "onnx.Reshape"(%x, %s) : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

// CHECK: error: perm is not a permutation of the 3 dims
func.func @transpose_bad_perm(%x: tensor<2x3x4xf32>) -> tensor<2x2x4xf32> {
  %0 = "onnx.Transpose"(%x) <{perm = [0, 0, 2]}> : (tensor<2x3x4xf32>) -> tensor<2x2x4xf32>
  return %0 : tensor<2x2x4xf32>
}

// -----

// CHECK: error: cannot squeeze axis 1 of size 3
func.func @squeeze_not_unit(%x: tensor<1x3xf32>) -> tensor<1xf32> {
  %a = "onnx.Constant"() <{value = dense<[1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %0 = "onnx.Squeeze"(%x, %a) : (tensor<1x3xf32>, tensor<1xi64>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

// CHECK: error: axis -3 is repeated
func.func @unsqueeze_repeated(%x: tensor<3xf32>) -> tensor<1x1x3xf32> {
  %a = "onnx.Constant"() <{value = dense<[0, -3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "onnx.Unsqueeze"(%x, %a) : (tensor<3xf32>, tensor<2xi64>) -> tensor<1x1x3xf32>
  return %0 : tensor<1x1x3xf32>
}

// -----

// CHECK: error: axis 2 is out of range for rank 1
func.func @flatten_axis(%x: tensor<3xf32>) -> tensor<3x1xf32> {
  %0 = "onnx.Flatten"(%x) <{axis = 2 : i64}> : (tensor<3xf32>) -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// -----

// CHECK: error: cannot expand dim 0 of size 3 to 4
func.func @expand_incompatible(%x: tensor<3xf32>) -> tensor<4xf32> {
  %s = "onnx.Constant"() <{value = dense<[4]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %0 = "onnx.Expand"(%x, %s) : (tensor<3xf32>, tensor<1xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK: error: steps must not be 0
func.func @slice_zero_step(%x: tensor<5xf32>) -> tensor<?xf32> {
  %c = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Slice"(%x, %c, %c, %none, %c) : (tensor<5xf32>, tensor<1xi64>, tensor<1xi64>, none, tensor<1xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Run-time axes must come one per start.
// CHECK: error: axes must have 1 values
func.func @slice_runtime_axes(%x: tensor<5x5xf32>, %a: tensor<?xi64>) -> tensor<?x?xf32> {
  %c = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Slice"(%x, %c, %c, %a, %none) : (tensor<5x5xf32>, tensor<1xi64>, tensor<1xi64>, tensor<?xi64>, none) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// CHECK: error: axis 2 is out of range for rank 2
func.func @gather_axis(%x: tensor<5x5xf32>, %i: tensor<3xi64>) -> tensor<5x5x3xf32> {
  %0 = "onnx.Gather"(%x, %i) <{axis = 2 : i64}> : (tensor<5x5xf32>, tensor<3xi64>) -> tensor<5x5x3xf32>
  return %0 : tensor<5x5x3xf32>
}

// -----

// CHECK: error: index 5 is out of range
func.func @gather_constant_index(%x: tensor<5xf32>) -> tensor<f32> {
  %i = "onnx.Constant"() <{value = dense<5> : tensor<i64>}> : () -> tensor<i64>
  %0 = "onnx.Gather"(%x, %i) : (tensor<5xf32>, tensor<i64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK: error: every input must have rank 2
func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<?x3xf32> {
  %0 = "onnx.Concat"(%a, %b) <{axis = 0 : i64}> : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// CHECK: error: num_outputs is 3 but the node has 2 outputs
func.func @split_outputs(%x: tensor<4xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %0:2 = "onnx.Split"(%x, %none) <{num_outputs = 3 : i64}> : (tensor<4xf32>, none) -> (tensor<2xf32>, tensor<2xf32>)
  return %0#0, %0#1 : tensor<2xf32>, tensor<2xf32>
}

// -----

// CHECK: error: unknown pad mode 'mirror'
func.func @pad_mode(%x: tensor<4xf32>) -> tensor<6xf32> {
  %p = "onnx.Constant"() <{value = dense<[1, 1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Pad"(%x, %p, %none, %none) <{mode = "mirror"}> : (tensor<4xf32>, tensor<2xi64>, none, none) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

// CHECK: error: pads must have 2 values
func.func @pad_count(%x: tensor<4xf32>) -> tensor<6xf32> {
  %p = "onnx.Constant"() <{value = dense<[1, 1, 0]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Pad"(%x, %p, %none, %none) : (tensor<4xf32>, tensor<3xi64>, none, none) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

// Training-mode (random) Dropout scales floats; integer data is rejected.
// CHECK: error: the cpu target cannot lower this 'Dropout' node
func.func @dropout_training(%x: tensor<3xi32>, %t: tensor<i1>) -> tensor<3xi32> {
  %none = "onnx.NoValue"() : () -> none
  %0:2 = "onnx.Dropout"(%x, %none, %t) : (tensor<3xi32>, none, tensor<i1>) -> (tensor<3xi32>, none)
  return %0#0 : tensor<3xi32>
}

// -----

// CHECK: error: unknown reduction 'sum'
func.func @scatter_reduction(%x: tensor<4xf32>, %i: tensor<1xi64>, %u: tensor<1xf32>) -> tensor<4xf32> {
  %0 = "onnx.ScatterElements"(%x, %i, %u) <{reduction = "sum"}> : (tensor<4xf32>, tensor<1xi64>, tensor<1xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK: error: reduction 'add' is not defined for bool
func.func @scatter_bool_add(%x: tensor<4xi1>, %i: tensor<1x1xi64>, %u: tensor<1xi1>) -> tensor<4xi1> {
  %0 = "onnx.ScatterND"(%x, %i, %u) <{reduction = "add"}> : (tensor<4xi1>, tensor<1x1xi64>, tensor<1xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// CHECK: error: dim 1 of size 6 is not a multiple of 4
func.func @depth_to_space_channels(%x: tensor<1x6x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %0 = "onnx.DepthToSpace"(%x) <{blocksize = 2 : i64}> : (tensor<1x6x2x2xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// CHECK: error: the input must have rank 2 or more
func.func @trilu_rank(%x: tensor<4xf32>) -> tensor<4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Trilu"(%x, %none) : (tensor<4xf32>, none) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
