// RUN: onnxc-opt --onnx-shape-inference %s | FileCheck %s
// Shapes computed at run time from Shape ops: the pass tracks the elements of
// small integer tensors, so the results still get static dims.

// The BERT attention reshape: [batch, seq, 12, 64] from Shape(x).
// CHECK-LABEL: func.func @bert_heads
// CHECK-SAME: -> (tensor<?x128x12x64xf32>, tensor<?x128x12x64xf32>)
func.func @bert_heads(%x: tensor<?x128x768xf32>) -> (!onnx.unknown, !onnx.unknown) {
  %s = "onnx.Shape"(%x) : (tensor<?x128x768xf32>) -> !onnx.unknown
  %c0 = "onnx.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %c1 = "onnx.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %batch = "onnx.Gather"(%s, %c0) <{axis = 0 : i64}> : (!onnx.unknown, tensor<i64>) -> !onnx.unknown
  %seq = "onnx.Gather"(%s, %c1) <{axis = 0 : i64}> : (!onnx.unknown, tensor<i64>) -> !onnx.unknown
  %ax = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %ub = "onnx.Unsqueeze"(%batch, %ax) : (!onnx.unknown, tensor<1xi64>) -> !onnx.unknown
  %us = "onnx.Unsqueeze"(%seq, %ax) : (!onnx.unknown, tensor<1xi64>) -> !onnx.unknown
  %h = "onnx.Constant"() <{value = dense<12> : tensor<1xi64>}> : () -> tensor<1xi64>
  %d = "onnx.Constant"() <{value = dense<64> : tensor<1xi64>}> : () -> tensor<1xi64>
  // CHECK: "onnx.Concat"{{.*}} -> tensor<4xi64>
  %shape = "onnx.Concat"(%ub, %us, %h, %d) <{axis = 0 : i64}> : (!onnx.unknown, !onnx.unknown, tensor<1xi64>, tensor<1xi64>) -> !onnx.unknown
  // CHECK: "onnx.Reshape"{{.*}} -> tensor<?x128x12x64xf32>
  %r = "onnx.Reshape"(%x, %shape) : (tensor<?x128x768xf32>, !onnx.unknown) -> !onnx.unknown
  // The same with -1 for the sequence: the batch dim cancels out.
  %m1 = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %shape2 = "onnx.Concat"(%ub, %m1, %h, %d) <{axis = 0 : i64}> : (!onnx.unknown, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> !onnx.unknown
  // CHECK: "onnx.Reshape"{{.*}} -> tensor<?x128x12x64xf32>
  %r2 = "onnx.Reshape"(%x, %shape2) : (tensor<?x128x768xf32>, !onnx.unknown) -> !onnx.unknown
  return %r, %r2 : !onnx.unknown, !onnx.unknown
}

// Merging the heads back: Shape -> Slice -> Concat, and arithmetic on dims.
// CHECK-LABEL: func.func @merge_heads
func.func @merge_heads(%y: tensor<?x128x12x64xf32>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %n = "onnx.NoValue"() : () -> none
  %s = "onnx.Shape"(%y) : (tensor<?x128x12x64xf32>) -> !onnx.unknown
  %b = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %e = "onnx.Constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
  // CHECK: "onnx.Slice"{{.*}} -> tensor<2xi64>
  %lead = "onnx.Slice"(%s, %b, %e, %n, %n) : (!onnx.unknown, tensor<1xi64>, tensor<1xi64>, none, none) -> !onnx.unknown
  %hidden = "onnx.Constant"() <{value = dense<768> : tensor<1xi64>}> : () -> tensor<1xi64>
  %shape = "onnx.Concat"(%lead, %hidden) <{axis = 0 : i64}> : (!onnx.unknown, tensor<1xi64>) -> !onnx.unknown
  // CHECK: "onnx.Reshape"{{.*}} -> tensor<?x128x768xf32>
  %0 = "onnx.Reshape"(%y, %shape) : (tensor<?x128x12x64xf32>, !onnx.unknown) -> !onnx.unknown
  // heads * head_size computed with Mul on gathered dims (through a Cast
  // round trip, as some exporters emit).
  %i2 = "onnx.Constant"() <{value = dense<2> : tensor<i64>}> : () -> tensor<i64>
  %i3 = "onnx.Constant"() <{value = dense<3> : tensor<i64>}> : () -> tensor<i64>
  %heads = "onnx.Gather"(%s, %i2) : (!onnx.unknown, tensor<i64>) -> !onnx.unknown
  %size = "onnx.Gather"(%s, %i3) : (!onnx.unknown, tensor<i64>) -> !onnx.unknown
  %prod = "onnx.Mul"(%heads, %size) : (!onnx.unknown, !onnx.unknown) -> !onnx.unknown
  %p32 = "onnx.Cast"(%prod) <{to = 6 : i64}> : (!onnx.unknown) -> !onnx.unknown
  %p64 = "onnx.Cast"(%p32) <{to = 7 : i64}> : (!onnx.unknown) -> !onnx.unknown
  %ax = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %up = "onnx.Unsqueeze"(%p64, %ax) : (!onnx.unknown, tensor<1xi64>) -> !onnx.unknown
  %shape2 = "onnx.Concat"(%lead, %up) <{axis = 0 : i64}> : (!onnx.unknown, !onnx.unknown) -> !onnx.unknown
  // CHECK: "onnx.Reshape"{{.*}} -> tensor<?x128x768xf32>
  %1 = "onnx.Reshape"(%y, %shape2) : (tensor<?x128x12x64xf32>, !onnx.unknown) -> !onnx.unknown
  // Div and Sub on dims: [?, 128, 768 / 2 - 320 = 64, ...].
  %two = "onnx.Constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
  %k = "onnx.Constant"() <{value = dense<320> : tensor<1xi64>}> : () -> tensor<1xi64>
  %half = "onnx.Div"(%up, %two) : (!onnx.unknown, tensor<1xi64>) -> !onnx.unknown
  %diff = "onnx.Sub"(%half, %k) : (!onnx.unknown, tensor<1xi64>) -> !onnx.unknown
  %m1 = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %shape3 = "onnx.Concat"(%lead, %m1, %diff) <{axis = 0 : i64}> : (!onnx.unknown, tensor<1xi64>, !onnx.unknown) -> !onnx.unknown
  // CHECK: "onnx.Reshape"{{.*}} -> tensor<?x128x12x64xf32>
  %2 = "onnx.Reshape"(%y, %shape3) : (tensor<?x128x12x64xf32>, !onnx.unknown) -> !onnx.unknown
  return %0, %1, %2 : !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// Other consumers of computed shapes.
// CHECK-LABEL: func.func @consumers
func.func @consumers(%x: tensor<?x128x768xf32>, %bias: tensor<1x1x768xf32>, %v: tensor<4xf32>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %n = "onnx.NoValue"() : () -> none
  %s = "onnx.Shape"(%x) : (tensor<?x128x768xf32>) -> !onnx.unknown
  // CHECK: "onnx.ConstantOfShape"{{.*}} -> tensor<?x128x768xf32>
  %0 = "onnx.ConstantOfShape"(%s) : (!onnx.unknown) -> !onnx.unknown
  // CHECK: "onnx.Expand"{{.*}} -> tensor<?x128x768xf32>
  %1 = "onnx.Expand"(%bias, %s) : (tensor<1x1x768xf32>, !onnx.unknown) -> !onnx.unknown
  // Range up to a static dim read from Shape (Slice then Squeeze to 0-D).
  %b = "onnx.Constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
  %e = "onnx.Constant"() <{value = dense<3> : tensor<1xi64>}> : () -> tensor<1xi64>
  %last = "onnx.Slice"(%s, %b, %e, %n, %n) : (!onnx.unknown, tensor<1xi64>, tensor<1xi64>, none, none) -> !onnx.unknown
  // CHECK: "onnx.Squeeze"{{.*}} -> tensor<i64>
  %lim = "onnx.Squeeze"(%last, %n) : (!onnx.unknown, none) -> !onnx.unknown
  %zero = "onnx.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %one = "onnx.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  // CHECK: "onnx.Range"{{.*}} -> tensor<768xi64>
  %2 = "onnx.Range"(%zero, %lim, %one) : (tensor<i64>, !onnx.unknown, tensor<i64>) -> !onnx.unknown
  // Tile repeats and Pad pads built with Concat.
  %one1 = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %reps = "onnx.Concat"(%one1, %b, %e) <{axis = 0 : i64}> : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> !onnx.unknown
  // CHECK: "onnx.Tile"{{.*}} -> tensor<1x2x2304xf32>
  %3 = "onnx.Tile"(%bias, %reps) : (tensor<1x1x768xf32>, !onnx.unknown) -> !onnx.unknown
  %pads = "onnx.Concat"(%b, %e) <{axis = 0 : i64}> : (tensor<1xi64>, tensor<1xi64>) -> !onnx.unknown
  // CHECK: "onnx.Pad"{{.*}} -> tensor<9xf32>
  %4 = "onnx.Pad"(%v, %pads, %n, %n) : (tensor<4xf32>, !onnx.unknown, none, none) -> !onnx.unknown
  // Unsqueeze axes from a computed value; Where/Equal on known values.
  %m1 = "onnx.Constant"() <{value = dense<-1> : tensor<3xi64>}> : () -> tensor<3xi64>
  %ones = "onnx.Constant"() <{value = dense<1> : tensor<3xi64>}> : () -> tensor<3xi64>
  %tgt = "onnx.Constant"() <{value = dense<[6, -1, 4]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %isneg = "onnx.Equal"(%tgt, %m1) : (tensor<3xi64>, tensor<3xi64>) -> !onnx.unknown
  %fixed = "onnx.Where"(%isneg, %ones, %tgt) : (!onnx.unknown, tensor<3xi64>, tensor<3xi64>) -> !onnx.unknown
  // CHECK: "onnx.Expand"{{.*}} -> tensor<6x1x4xf32>
  %5 = "onnx.Expand"(%v, %fixed) : (tensor<4xf32>, !onnx.unknown) -> !onnx.unknown
  return %0, %1, %2, %3, %4, %5 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// The data of a Reshape is computed from the tensor whose Shape gives the
// target: its dynamic dims are traced back through Add/MatMul/Transpose to
// the same origin, so the -1 still resolves.
// CHECK-LABEL: func.func @traced_dims
func.func @traced_dims(%x: tensor<?x?x128xf32>, %w: tensor<128x128xf32>, %b: tensor<128xf32>) -> (!onnx.unknown, !onnx.unknown) {
  %s = "onnx.Shape"(%x) : (tensor<?x?x128xf32>) -> !onnx.unknown
  %i0 = "onnx.Constant"() <{value = dense<[0]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %i1 = "onnx.Constant"() <{value = dense<[1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %batch = "onnx.Gather"(%s, %i0) : (!onnx.unknown, tensor<1xi64>) -> !onnx.unknown
  %seq = "onnx.Gather"(%s, %i1) : (!onnx.unknown, tensor<1xi64>) -> !onnx.unknown
  %mm = "onnx.MatMul"(%x, %w) : (tensor<?x?x128xf32>, tensor<128x128xf32>) -> !onnx.unknown
  %proj = "onnx.Add"(%b, %mm) : (tensor<128xf32>, !onnx.unknown) -> !onnx.unknown
  %m1 = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %hs = "onnx.Constant"() <{value = dense<32> : tensor<1xi64>}> : () -> tensor<1xi64>
  %shape = "onnx.Concat"(%batch, %seq, %m1, %hs) <{axis = 0 : i64}> : (!onnx.unknown, !onnx.unknown, tensor<1xi64>, tensor<1xi64>) -> !onnx.unknown
  // CHECK: "onnx.Reshape"{{.*}} -> tensor<?x?x4x32xf32>
  %heads = "onnx.Reshape"(%proj, %shape) : (!onnx.unknown, !onnx.unknown) -> !onnx.unknown
  // CHECK: "onnx.Transpose"{{.*}} -> tensor<?x4x?x32xf32>
  %t = "onnx.Transpose"(%heads) <{perm = [0, 2, 1, 3]}> : (!onnx.unknown) -> !onnx.unknown
  // Merge the heads back: [batch, seq, -1] of the transposed-back tensor.
  %back = "onnx.Transpose"(%t) <{perm = [0, 2, 1, 3]}> : (!onnx.unknown) -> !onnx.unknown
  %shape2 = "onnx.Concat"(%batch, %seq, %m1) <{axis = 0 : i64}> : (!onnx.unknown, !onnx.unknown, tensor<1xi64>) -> !onnx.unknown
  // CHECK: "onnx.Reshape"{{.*}} -> tensor<?x?x128xf32>
  %merged = "onnx.Reshape"(%back, %shape2) : (!onnx.unknown, !onnx.unknown) -> !onnx.unknown
  return %t, %merged : !onnx.unknown, !onnx.unknown
}

// Different dynamic dims do not cancel: the -1 stays dynamic.
// CHECK-LABEL: func.func @untraced_dims
func.func @untraced_dims(%x: tensor<?x128xf32>, %y: tensor<?x128xf32>) -> !onnx.unknown {
  %s = "onnx.Shape"(%y) : (tensor<?x128xf32>) -> !onnx.unknown
  %i0 = "onnx.Constant"() <{value = dense<[0]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %n = "onnx.Gather"(%s, %i0) : (!onnx.unknown, tensor<1xi64>) -> !onnx.unknown
  %m1 = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %shape = "onnx.Concat"(%n, %m1) <{axis = 0 : i64}> : (!onnx.unknown, tensor<1xi64>) -> !onnx.unknown
  // CHECK: "onnx.Reshape"{{.*}} -> tensor<?x?xf32>
  %r = "onnx.Reshape"(%x, %shape) : (tensor<?x128xf32>, !onnx.unknown) -> !onnx.unknown
  return %r : !onnx.unknown
}

// A mask built with Range(0, seq) and Expand to a shape compared with -1
// (the pattern of exported attention masks) keeps its dims traceable.
// CHECK-LABEL: func.func @mask_dims
func.func @mask_dims(%x: tensor<1x?x64xf32>) -> !onnx.unknown {
  %s = "onnx.Shape"(%x) : (tensor<1x?x64xf32>) -> !onnx.unknown
  %i1 = "onnx.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %seq = "onnx.Gather"(%s, %i1) : (!onnx.unknown, tensor<i64>) -> !onnx.unknown
  %zero = "onnx.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %pos = "onnx.Range"(%zero, %seq, %i1) : (tensor<i64>, !onnx.unknown, tensor<i64>) -> !onnx.unknown
  %ax = "onnx.Constant"() <{value = dense<[0]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %row = "onnx.Unsqueeze"(%pos, %ax) : (!onnx.unknown, tensor<1xi64>) -> !onnx.unknown
  %useq = "onnx.Unsqueeze"(%seq, %ax) : (!onnx.unknown, tensor<1xi64>) -> !onnx.unknown
  %m1 = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %target = "onnx.Concat"(%useq, %m1) <{axis = 0 : i64}> : (!onnx.unknown, tensor<1xi64>) -> !onnx.unknown
  %neg = "onnx.Constant"() <{value = dense<-1> : tensor<2xi64>}> : () -> tensor<2xi64>
  %ones = "onnx.Constant"() <{value = dense<1> : tensor<2xi64>}> : () -> tensor<2xi64>
  %keep = "onnx.Equal"(%target, %neg) : (!onnx.unknown, tensor<2xi64>) -> !onnx.unknown
  %fixed = "onnx.Where"(%keep, %ones, %target) : (!onnx.unknown, tensor<2xi64>, !onnx.unknown) -> !onnx.unknown
  // CHECK: "onnx.Expand"{{.*}} -> tensor<?x?xi64>
  %mask = "onnx.Expand"(%row, %fixed) : (!onnx.unknown, !onnx.unknown) -> !onnx.unknown
  %f = "onnx.Cast"(%mask) <{to = 1 : i64}> : (!onnx.unknown) -> !onnx.unknown
  // [seq, seq] + [1, seq, 64] -> ...; Reshape to [1, seq, -1] cancels the
  // broadcast seq dim.
  %scores = "onnx.MatMul"(%f, %x) : (!onnx.unknown, tensor<1x?x64xf32>) -> !onnx.unknown
  %one = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %shape = "onnx.Concat"(%one, %useq, %m1) <{axis = 0 : i64}> : (tensor<1xi64>, !onnx.unknown, tensor<1xi64>) -> !onnx.unknown
  // CHECK: "onnx.Reshape"{{.*}} -> tensor<1x?x64xf32>
  %r = "onnx.Reshape"(%scores, %shape) : (!onnx.unknown, !onnx.unknown) -> !onnx.unknown
  return %r : !onnx.unknown
}
