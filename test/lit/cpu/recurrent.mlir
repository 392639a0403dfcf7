// RUN: onnxc-opt --convert-onnx-to-linalg --split-input-file %s | FileCheck %s

// GRU, reverse, per-batch sequence_lens, dynamic sequence length: X * W^T for
// every step is one matmul before the loop; the loop visits t = seq - 1 - i,
// computes r * H and its product with R's h rows (linear_before_reset = 0),
// then z, the candidate and the new state in one generic that keeps the old
// state and writes 0 to Y where t >= sequence_lens[b].
// CHECK-LABEL: func.func @gru_reverse_lens
// CHECK: %[[SEQ:.+]] = tensor.dim %arg0, %c0
// CHECK: %[[XROWS:.+]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2]]
// CHECK: %[[W:.+]] = tensor.extract_slice %arg1[0, 0, 0] [1, 12, 3] [1, 1, 1] : tensor<1x12x3xf32> to tensor<12x3xf32>
// CHECK: %[[XW:.+]] = linalg.matmul_transpose_b ins(%[[XROWS]], %[[W]] : tensor<?x3xf32>, tensor<12x3xf32>)
// CHECK: %[[RZR:.+]] = tensor.extract_slice %arg2[0, 0, 0] [1, 8, 4] [1, 1, 1] : tensor<1x12x4xf32> to tensor<8x4xf32>
// CHECK: %[[RH:.+]] = tensor.extract_slice %arg2[0, 8, 0] [1, 4, 4] [1, 1, 1] : tensor<1x12x4xf32> to tensor<4x4xf32>
// CHECK: %[[LAST:.+]] = arith.subi %[[SEQ]], %c1
// CHECK: scf.for %[[I:.+]] = %{{.+}} to %[[SEQ]] step %{{.+}} iter_args(%[[H:.+]] = %{{.+}}, %[[Y:.+]] = %{{.+}}) -> (tensor<2x4xf32>, tensor<?x1x2x4xf32>)
// CHECK: %[[T:.+]] = arith.subi %[[LAST]], %[[I]] : index
// CHECK: %[[ROW:.+]] = arith.muli %[[T]], %c2
// CHECK: %[[HR:.+]] = linalg.matmul_transpose_b ins(%[[H]], %[[RZR]] : tensor<2x4xf32>, tensor<8x4xf32>)
// CHECK: %[[TLEN:.+]] = arith.index_cast %[[T]] : index to i32
// CHECK: tensor.extract_slice %[[XW]][%[[ROW]], 4] [2, 4] [1, 1]
// CHECK: %[[RESET:.+]] = linalg.generic
// CHECK: math.exp
// CHECK: arith.mulf
// CHECK: %[[RHH:.+]] = linalg.matmul_transpose_b ins(%[[RESET]], %[[RH]] : tensor<2x4xf32>, tensor<4x4xf32>)
// CHECK: %[[STEP:.+]]:2 = linalg.generic {{.*}} ins(%arg3, %[[RHH]], {{.*}}, %[[H]] : tensor<2xi32>,
// CHECK: math.tanh
// CHECK: %[[VALID:.+]] = arith.cmpi slt, %[[TLEN]], %in : i32
// CHECK: arith.select %[[VALID]], %{{.+}}, %in_{{.+}} : f32
// CHECK: arith.select %[[VALID]], %{{.+}}, %cst{{.*}} : f32
// CHECK: %[[NEWH:.+]] = linalg.copy ins(%[[STEP]]#0 : tensor<2x4xf32>) outs(%[[H]] : tensor<2x4xf32>)
// CHECK: %[[NEWY:.+]] = tensor.insert_slice %[[STEP]]#1 into %[[Y]][%[[T]], 0, 0, 0] [1, 1, 2, 4] [1, 1, 1, 1]
// CHECK: scf.yield %[[NEWH]], %[[NEWY]]
// CHECK: tensor.insert_slice %{{.+}}#0 into %{{.+}}[0, 0, 0] [1, 2, 4] [1, 1, 1] : tensor<2x4xf32> into tensor<1x2x4xf32>
func.func @gru_reverse_lens(%x: tensor<?x2x3xf32>, %w: tensor<1x12x3xf32>, %r: tensor<1x12x4xf32>, %lens: tensor<2xi32>) -> (tensor<?x1x2x4xf32>, tensor<1x2x4xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %y, %yh = "onnx.GRU"(%x, %w, %r, %none, %lens, %none) <{direction = "reverse", hidden_size = 4 : i64}> : (tensor<?x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>, none, tensor<2xi32>, none) -> (tensor<?x1x2x4xf32>, tensor<1x2x4xf32>)
  return %y, %yh : tensor<?x1x2x4xf32>, tensor<1x2x4xf32>
}

// -----

// LSTM, bidirectional, layout 1, peepholes, clip: step t reads rows
// t, t + seq, ... of X * W^T (stride seq) and writes Y[:, t, d, :]; the
// second direction's loop runs backwards and continues from the first's Y.
// Each gate's input is clipped before its activation.
// CHECK-LABEL: func.func @lstm_layout1_bidirectional
// CHECK: %[[SEQ:.+]] = tensor.dim %arg0, %c1
// CHECK: %[[PI:.+]] = tensor.extract_slice %arg3[0, 0] [1, 4] [1, 1] : tensor<2x12xf32> to tensor<4xf32>
// CHECK: %[[FWD:.+]]:3 = scf.for %[[I:.+]] = %{{.+}} to %[[SEQ]] {{.*}} iter_args(%[[H:.+]] = %{{.+}}, %[[C:.+]] = %{{.+}}, %[[Y:.+]] = %{{.+}})
// CHECK: linalg.matmul_transpose_b ins(%[[H]], %{{.+}} : tensor<2x4xf32>, tensor<16x4xf32>)
// CHECK: tensor.extract_slice %{{.+}}[%[[I]], 12] [2, 4] [%[[SEQ]], 1] : tensor<?x16xf32> to tensor<2x4xf32>
// CHECK: %[[STEP:.+]]:2 = linalg.generic
// CHECK: arith.maximumf %cst{{.*}}, %{{.+}} : f32
// CHECK: arith.minimumf %cst{{.*}}, %{{.+}} : f32
// CHECK: linalg.copy ins(%[[STEP]]#0 {{.*}} outs(%[[H]]
// CHECK: linalg.copy ins(%[[STEP]]#1 {{.*}} outs(%[[C]]
// CHECK: tensor.insert_slice %[[STEP]]#0 into %[[Y]][0, %[[I]], 0, 0] [2, 1, 1, 4]
// CHECK: tensor.insert_slice %[[FWD]]#0 into %{{.+}}[0, 0, 0] [2, 1, 4] [1, 1, 1] : tensor<2x4xf32> into tensor<2x2x4xf32>
// CHECK: tensor.insert_slice %[[FWD]]#1 into %{{.+}}[0, 0, 0] [2, 1, 4] [1, 1, 1] : tensor<2x4xf32> into tensor<2x2x4xf32>
// CHECK: tensor.extract_slice %arg1[1, 0, 0] [1, 16, 3]
// CHECK: %[[BWD:.+]]:3 = scf.for %[[J:.+]] = {{.*}} iter_args({{.*}}, %[[Y2:.+]] = %[[FWD]]#2)
// CHECK: %[[T:.+]] = arith.subi %{{.+}}, %[[J]] : index
// CHECK: tensor.insert_slice %{{.+}}#0 into %[[Y2]][0, %[[T]], 1, 0] [2, 1, 1, 4]
// CHECK: tensor.insert_slice %[[BWD]]#0 into %{{.+}}[0, 1, 0] [2, 1, 4]
// CHECK: tensor.insert_slice %[[BWD]]#1 into %{{.+}}[0, 1, 0] [2, 1, 4]
func.func @lstm_layout1_bidirectional(%x: tensor<2x?x3xf32>, %w: tensor<2x16x3xf32>, %r: tensor<2x16x4xf32>, %p: tensor<2x12xf32>) -> (tensor<2x?x2x4xf32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %y, %yh, %yc = "onnx.LSTM"(%x, %w, %r, %none, %none, %none, %none, %p) <{direction = "bidirectional", layout = 1 : i64, clip = 2.5 : f32}> : (tensor<2x?x3xf32>, tensor<2x16x3xf32>, tensor<2x16x4xf32>, none, none, none, none, tensor<2x12xf32>) -> (tensor<2x?x2x4xf32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>)
  return %y, %yh, %yc : tensor<2x?x2x4xf32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>
}

// -----

// RNN with LeakyRelu (alpha from activation_alpha) and a bias; Y omitted, so
// the loop carries only H.
// CHECK-LABEL: func.func @rnn_leaky_relu
// CHECK: %[[WB:.+]] = tensor.extract_slice %arg3[0, 0] [1, 4] [1, 1] : tensor<1x8xf32> to tensor<4xf32>
// CHECK: %[[RB:.+]] = tensor.extract_slice %arg3[0, 4] [1, 4] [1, 1] : tensor<1x8xf32> to tensor<4xf32>
// CHECK: scf.for {{.*}} -> (tensor<3x4xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.+}}, %{{.+}}, %[[WB]], %[[RB]] :
// CHECK: %[[S1:.+]] = arith.addf %in, %in_{{[0-9]+}} : f32
// CHECK: %[[S2:.+]] = arith.addf %[[S1]], %in_{{[0-9]+}} : f32
// CHECK: %[[PRE:.+]] = arith.addf %[[S2]], %in_{{[0-9]+}} : f32
// CHECK-DAG: %[[SCALED:.+]] = arith.mulf %cst{{.*}}, %[[PRE]]
// CHECK-DAG: %[[NONNEG:.+]] = arith.cmpf oge, %[[PRE]], %cst
// CHECK: arith.select %[[NONNEG]], %[[PRE]], %[[SCALED]]
// CHECK: linalg.copy
// CHECK: scf.yield
// CHECK: return %{{.+}} : tensor<1x3x4xf32>
func.func @rnn_leaky_relu(%x: tensor<5x3x2xf32>, %w: tensor<1x4x2xf32>, %r: tensor<1x4x4xf32>, %b: tensor<1x8xf32>) -> tensor<1x3x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y, %yh = "onnx.RNN"(%x, %w, %r, %b, %none, %none) <{activations = ["LeakyRelu"], activation_alpha = [0.5 : f32]}> : (tensor<5x3x2xf32>, tensor<1x4x2xf32>, tensor<1x4x4xf32>, tensor<1x8xf32>, none, none) -> (none, tensor<1x3x4xf32>)
  return %yh : tensor<1x3x4xf32>
}

// -----

// f16 inputs are computed in f32: X, W and R are extended before the loop and
// Y_h is rounded back after it.
// CHECK-LABEL: func.func @rnn_f16
// CHECK: arith.extf %in : f16 to f32
// CHECK: scf.for {{.*}} -> (tensor<3x4xf32>)
// CHECK: math.tanh %{{.+}} : f32
// CHECK: } -> tensor<3x4xf32>
// CHECK: %[[YH:.+]] = tensor.insert_slice {{.*}} : tensor<3x4xf32> into tensor<1x3x4xf32>
// CHECK: %[[HALF:.+]] = linalg.generic {{.*}} ins(%[[YH]] : tensor<1x3x4xf32>)
// CHECK: arith.truncf %in : f32 to f16
// CHECK: return %[[HALF]] : tensor<1x3x4xf16>
func.func @rnn_f16(%x: tensor<5x3x2xf16>, %w: tensor<1x4x2xf16>, %r: tensor<1x4x4xf16>) -> tensor<1x3x4xf16> {
  %none = "onnx.NoValue"() : () -> none
  %y, %yh = "onnx.RNN"(%x, %w, %r, %none, %none, %none) : (tensor<5x3x2xf16>, tensor<1x4x2xf16>, tensor<1x4x4xf16>, none, none, none) -> (none, tensor<1x3x4xf16>)
  return %yh : tensor<1x3x4xf16>
}
