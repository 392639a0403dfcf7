// RUN: onnxc-opt --onnxc-constant-folding -split-input-file %s | FileCheck %s
// RUN: onnxc-opt --onnxc-constant-folding=max-elements=8 -split-input-file %s | FileCheck %s --check-prefix=LIMIT

// The shape subgraph exporters emit for x.view(x.size(0), -1), with x of a
// static shape: Shape -> Gather -> Unsqueeze -> Concat folds to one constant
// and the Reshape gets it; nothing else stays.
// CHECK-LABEL: func.func @shape_chain
// CHECK-DAG: %[[X:.*]]: tensor<2x3x4xf32>
// CHECK-DAG: %[[S:.*]] = "onnx.Constant"() <{value = dense<[2, -1]> : tensor<2xi64>}>
// CHECK: "onnx.Reshape"(%[[X]], %[[S]])
// CHECK-NOT: onnx.Shape
// CHECK-NOT: onnx.Gather
// CHECK-NOT: onnx.Concat
func.func @shape_chain(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  %shape = "onnx.Shape"(%x) : (tensor<2x3x4xf32>) -> tensor<3xi64>
  %zero = "onnx.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %d0 = "onnx.Gather"(%shape, %zero) <{axis = 0 : i64}> : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %axes = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %u = "onnx.Unsqueeze"(%d0, %axes) : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %minus = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %cat = "onnx.Concat"(%u, %minus) <{axis = 0 : i64}> : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %r = "onnx.Reshape"(%x, %cat) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
  return %r : tensor<2x12xf32>
}

// -----

// Shape of a value with a dynamic dim is not a constant: nothing folds.
// CHECK-LABEL: func.func @dynamic_shape
// CHECK: "onnx.Shape"
// CHECK: "onnx.Gather"
func.func @dynamic_shape(%x: tensor<?x3xf32>) -> tensor<i64> {
  %shape = "onnx.Shape"(%x) : (tensor<?x3xf32>) -> tensor<2xi64>
  %zero = "onnx.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %d0 = "onnx.Gather"(%shape, %zero) <{axis = 0 : i64}> : (tensor<2xi64>, tensor<i64>) -> tensor<i64>
  %out0 = "onnx.Identity"(%d0) : (tensor<i64>) -> tensor<i64>
  return %out0 : tensor<i64>
}

// -----

// Shape with start/end, Size, Squeeze, Slice, Cast, Range, Equal, Where,
// ConstantOfShape, Expand, Transpose.
// CHECK-LABEL: func.func @many_ops
// CHECK-DAG: dense<[3, 4]> : tensor<2xi64>
// CHECK-DAG: dense<24> : tensor<i64>
// CHECK-DAG: dense<7> : tensor<i64>
// CHECK-DAG: dense<[4, 3]> : tensor<2xi64>
// CHECK-DAG: dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: dense<[0, 2, 4]> : tensor<3xi64>
// CHECK-DAG: dense<[false, true, false]> : tensor<3xi1>
// CHECK-DAG: dense<[9, 2, 9]> : tensor<3xi64>
// CHECK-DAG: dense<5> : tensor<2x3xi32>
// CHECK-DAG: dense<{{\[\[}}1, 2], [1, 2], [1, 2]]> : tensor<3x2xi64>
// CHECK-DAG: dense<{{\[\[}}1, 3], [2, 4]]> : tensor<2x2xi64>
// CHECK-NOT: "onnx.{{(Shape|Size|Squeeze|Slice|Cast|Range|Equal|Where|ConstantOfShape|Expand|Transpose)}}"
func.func @many_ops(%x: tensor<2x3x4xf32>) -> (tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<2xi64>, tensor<2xf32>, tensor<3xi64>, tensor<3xi1>, tensor<3xi64>, tensor<2x3xi32>, tensor<3x2xi64>, tensor<2x2xi64>) {
  %tail = "onnx.Shape"(%x) <{start = 1 : i64}> : (tensor<2x3x4xf32>) -> tensor<2xi64>
  %size = "onnx.Size"(%x) : (tensor<2x3x4xf32>) -> tensor<i64>
  %none = "onnx.NoValue"() : () -> none
  %c7 = "onnx.Constant"() <{value = dense<7> : tensor<1xi64>}> : () -> tensor<1xi64>
  %sq = "onnx.Squeeze"(%c7, %none) : (tensor<1xi64>, none) -> tensor<i64>
  %starts = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %ends = "onnx.Constant"() <{value = dense<-9223372036854775807> : tensor<1xi64>}> : () -> tensor<1xi64>
  %steps = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %rev = "onnx.Slice"(%tail, %starts, %ends, %none, %steps) : (tensor<2xi64>, tensor<1xi64>, tensor<1xi64>, none, tensor<1xi64>) -> tensor<2xi64>
  %ints = "onnx.Constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %f = "onnx.Cast"(%ints) <{to = 1 : i64}> : (tensor<2xi64>) -> tensor<2xf32>
  %r0 = "onnx.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %r1 = "onnx.Constant"() <{value = dense<5> : tensor<i64>}> : () -> tensor<i64>
  %r2 = "onnx.Constant"() <{value = dense<2> : tensor<i64>}> : () -> tensor<i64>
  %range = "onnx.Range"(%r0, %r1, %r2) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<3xi64>
  %eq = "onnx.Equal"(%range, %r2) : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  %nine = "onnx.Constant"() <{value = dense<9> : tensor<i64>}> : () -> tensor<i64>
  %where = "onnx.Where"(%eq, %nine, %range) : (tensor<3xi1>, tensor<i64>, tensor<3xi64>) -> tensor<3xi64>
  %where2 = "onnx.Where"(%eq, %r2, %nine) : (tensor<3xi1>, tensor<i64>, tensor<i64>) -> tensor<3xi64>
  %dims = "onnx.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %cos = "onnx.ConstantOfShape"(%dims) <{value = dense<5> : tensor<1xi32>}> : (tensor<2xi64>) -> tensor<2x3xi32>
  %eshape = "onnx.Constant"() <{value = dense<[3, 1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %exp = "onnx.Expand"(%ints, %eshape) : (tensor<2xi64>, tensor<2xi64>) -> tensor<3x2xi64>
  %m = "onnx.Constant"() <{value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>}> : () -> tensor<2x2xi64>
  %t = "onnx.Transpose"(%m) <{perm = [1, 0]}> : (tensor<2x2xi64>) -> tensor<2x2xi64>
  %out0 = "onnx.Identity"(%tail) : (tensor<2xi64>) -> tensor<2xi64>
  %out1 = "onnx.Identity"(%size) : (tensor<i64>) -> tensor<i64>
  %out2 = "onnx.Identity"(%sq) : (tensor<i64>) -> tensor<i64>
  %out3 = "onnx.Identity"(%rev) : (tensor<2xi64>) -> tensor<2xi64>
  %out4 = "onnx.Identity"(%f) : (tensor<2xf32>) -> tensor<2xf32>
  %out5 = "onnx.Identity"(%range) : (tensor<3xi64>) -> tensor<3xi64>
  %out6 = "onnx.Identity"(%eq) : (tensor<3xi1>) -> tensor<3xi1>
  %out7 = "onnx.Identity"(%where2) : (tensor<3xi64>) -> tensor<3xi64>
  %out8 = "onnx.Identity"(%cos) : (tensor<2x3xi32>) -> tensor<2x3xi32>
  %out9 = "onnx.Identity"(%exp) : (tensor<3x2xi64>) -> tensor<3x2xi64>
  %out10 = "onnx.Identity"(%t) : (tensor<2x2xi64>) -> tensor<2x2xi64>
  return %out0, %out1, %out2, %out3, %out4, %out5, %out6, %out7, %out8, %out9, %out10 : tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<2xi64>, tensor<2xf32>, tensor<3xi64>, tensor<3xi1>, tensor<3xi64>, tensor<2x3xi32>, tensor<3x2xi64>, tensor<2x2xi64>
}

// -----

// Arithmetic: integers wrap at their width and divide truncating; floats
// round to their type; a division by zero stays for run time.
// CHECK-LABEL: func.func @arithmetic
// CHECK-DAG: dense<[-128, 3]> : tensor<2xi8>
// CHECK-DAG: dense<[-3, 2]> : tensor<2xi32>
// CHECK-DAG: dense<[1.500000e+00, 5.000000e-01]> : tensor<2xf32>
// CHECK-DAG: dense<[6.000000e+00, 2.000000e+00]> : tensor<2xf16>
// CHECK: "onnx.Div"{{.*}}tensor<2xi32>
func.func @arithmetic() -> (tensor<2xi8>, tensor<2xi32>, tensor<2xf32>, tensor<2xf16>, tensor<2xi32>) {
  %a = "onnx.Constant"() <{value = dense<[127, 1]> : tensor<2xi8>}> : () -> tensor<2xi8>
  %b = "onnx.Constant"() <{value = dense<[1, 2]> : tensor<2xi8>}> : () -> tensor<2xi8>
  %sum = "onnx.Add"(%a, %b) : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi8>
  %c = "onnx.Constant"() <{value = dense<[-7, 7]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %d = "onnx.Constant"() <{value = dense<[2, 3]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %q = "onnx.Div"(%c, %d) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %e = "onnx.Constant"() <{value = dense<[3.0, 1.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %two = "onnx.Constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
  %h = "onnx.Div"(%e, %two) : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %g = "onnx.Constant"() <{value = dense<[3.0, -1.0]> : tensor<2xf16>}> : () -> tensor<2xf16>
  %g2 = "onnx.Mul"(%g, %g) : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xf16>
  %g3 = "onnx.Sub"(%g2, %g) : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xf16>
  %zero = "onnx.Constant"() <{value = dense<[0, 1]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %bad = "onnx.Div"(%c, %zero) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %out0 = "onnx.Identity"(%sum) : (tensor<2xi8>) -> tensor<2xi8>
  %out1 = "onnx.Identity"(%q) : (tensor<2xi32>) -> tensor<2xi32>
  %out2 = "onnx.Identity"(%h) : (tensor<2xf32>) -> tensor<2xf32>
  %out3 = "onnx.Identity"(%g3) : (tensor<2xf16>) -> tensor<2xf16>
  %out4 = "onnx.Identity"(%bad) : (tensor<2xi32>) -> tensor<2xi32>
  return %out0, %out1, %out2, %out3, %out4 : tensor<2xi8>, tensor<2xi32>, tensor<2xf32>, tensor<2xf16>, tensor<2xi32>
}

// -----

// Non-constant operands, random ops and ops without an evaluator stay, and
// so does an op whose result is a graph output (main_graph keeps computing
// it).
// CHECK-LABEL: func.func @not_constant
// CHECK: "onnx.Add"
// CHECK: "onnx.RandomNormal"
// CHECK: "onnx.Relu"
// CHECK: "onnx.Identity"
func.func @not_constant(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %c = "onnx.Constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %a = "onnx.Add"(%x, %c) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %r = "onnx.RandomNormal"() <{shape = [2]}> : () -> tensor<2xf32>
  %n = "onnx.Relu"(%c) : (tensor<2xf32>) -> tensor<2xf32>
  %i = "onnx.Identity"(%c) : (tensor<2xf32>) -> tensor<2xf32>
  return %a, %r, %n, %i : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// The size bound: a 4x4 ConstantOfShape is 16 elements, over max-elements=8.
// LIMIT-LABEL: func.func @too_large
// LIMIT: "onnx.ConstantOfShape"
// CHECK-LABEL: func.func @too_large
// CHECK-NOT: "onnx.ConstantOfShape"
// CHECK: dense<0.000000e+00> : tensor<4x4xf32>
func.func @too_large() -> tensor<4x4xf32> {
  %dims = "onnx.Constant"() <{value = dense<[4, 4]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %z = "onnx.ConstantOfShape"(%dims) : (tensor<2xi64>) -> tensor<4x4xf32>
  %out0 = "onnx.Identity"(%z) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %out0 : tensor<4x4xf32>
}

// -----

// Folding inside an If branch, with a constant from the enclosing graph.
// CHECK-LABEL: func.func @in_region
// CHECK: "onnx.If"
// CHECK: dense<[4, 6]> : tensor<2xi64>
// CHECK-NOT: "onnx.Add"
func.func @in_region(%cond: tensor<i1>) -> tensor<2xi64> {
  %c = "onnx.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %r = "onnx.If"(%cond) ({
    "onnx.Yield"(%c) : (tensor<2xi64>) -> ()
  }, {
    %s = "onnx.Add"(%c, %c) : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
    "onnx.Yield"(%s) : (tensor<2xi64>) -> ()
  }) : (tensor<i1>) -> tensor<2xi64>
  return %r : tensor<2xi64>
}

// -----

// QuantizeLinear of a float constant (a weight a quantizer left as float):
// x / scale in f32, rounded half to even, plus the zero point, saturated;
// per axis (axis 0: scales 1 and 2, u8 zero points 10 and 128) and per
// tensor (s8). (Each feeds an Add: a graph output stays its node's.)
// CHECK-LABEL: func.func @quantize_linear
// CHECK-DAG: "onnx.Constant"() <{value = dense<{{\[}}[10, 12, 12, 10], [130, 255, 0, 128]]> : tensor<2x4xui8>}>
// CHECK-DAG: "onnx.Constant"() <{value = dense<[-1, -128, -2]> : tensor<3xi8>}>
// CHECK-NOT: onnx.QuantizeLinear
func.func @quantize_linear(%a: tensor<2x4xui8>, %b: tensor<3xi8>) -> (tensor<2x4xui8>, tensor<3xi8>) {
  %x = "onnx.Constant"() <{value = dense<[[0.5, 1.5, 2.5, -0.5], [3.0, 300.0, -300.0, 0.26]]> : tensor<2x4xf32>}> : () -> tensor<2x4xf32>
  %s = "onnx.Constant"() <{value = dense<[1.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %z = "onnx.Constant"() <{value = dense<[10, 128]> : tensor<2xui8>}> : () -> tensor<2xui8>
  %q = "onnx.QuantizeLinear"(%x, %s, %z) <{axis = 0 : i64}> : (tensor<2x4xf32>, tensor<2xf32>, tensor<2xui8>) -> tensor<2x4xui8>
  %x2 = "onnx.Constant"() <{value = dense<[1.0, -200.0, 0.7]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %s2 = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %z2 = "onnx.Constant"() <{value = dense<-3> : tensor<i8>}> : () -> tensor<i8>
  %q2 = "onnx.QuantizeLinear"(%x2, %s2, %z2) : (tensor<3xf32>, tensor<f32>, tensor<i8>) -> tensor<3xi8>
  %r = "onnx.Add"(%q, %a) : (tensor<2x4xui8>, tensor<2x4xui8>) -> tensor<2x4xui8>
  %r2 = "onnx.Add"(%q2, %b) : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  return %r, %r2 : tensor<2x4xui8>, tensor<3xi8>
}

// -----

// A zero scale is left to run time (the kernel's error, not a fold).
// CHECK-LABEL: func.func @quantize_linear_zero_scale
// CHECK: onnx.QuantizeLinear
func.func @quantize_linear_zero_scale(%a: tensor<2xui8>) -> tensor<2xui8> {
  %x = "onnx.Constant"() <{value = dense<[1.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %s = "onnx.Constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %none = "onnx.NoValue"() : () -> none
  %q = "onnx.QuantizeLinear"(%x, %s, %none) : (tensor<2xf32>, tensor<f32>, none) -> tensor<2xui8>
  %r = "onnx.Add"(%q, %a) : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  return %r : tensor<2xui8>
}
