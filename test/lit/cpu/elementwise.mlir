// RUN: onnxc-opt --split-input-file --verify-diagnostics --convert-onnx-to-linalg %s | FileCheck %s

// Multidirectional broadcasting: lower-rank operands are right-aligned and a
// static unit dim facing a non-unit result dim reads index 0. Dynamic result
// dims take their size from an operand.
// CHECK-DAG: #[[ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[LAST:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[UNIT:.+]] = affine_map<(d0, d1, d2) -> (0, d1, 0)>
// CHECK-LABEL: func.func @add_broadcast
// CHECK-SAME: (%[[A:.+]]: tensor<?x3x4xf32> {{.*}}, %[[B:.+]]: tensor<4xf32> {{.*}}, %[[C:.+]]: tensor<1x3x1xf32>
// CHECK: %[[DIM:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<?x3x4xf32>
// CHECK: %[[EMPTY:.+]] = tensor.empty(%[[DIM]]) : tensor<?x3x4xf32>
// CHECK: %[[ADD:.+]] = linalg.generic {indexing_maps = [#[[ID3]], #[[LAST]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<?x3x4xf32>, tensor<4xf32>) outs(%[[EMPTY]] : tensor<?x3x4xf32>)
// CHECK: arith.addf
// CHECK: linalg.generic {indexing_maps = [#[[ID3]], #[[UNIT]], #[[ID3]]]
// CHECK-SAME: ins(%[[ADD]], %[[C]] :
// CHECK: arith.mulf
func.func @add_broadcast(%a: tensor<?x3x4xf32>, %b: tensor<4xf32>, %c: tensor<1x3x1xf32>) -> tensor<?x3x4xf32> {
  %0 = "onnx.Add"(%a, %b) : (tensor<?x3x4xf32>, tensor<4xf32>) -> tensor<?x3x4xf32>
  %1 = "onnx.Mul"(%0, %c) : (tensor<?x3x4xf32>, tensor<1x3x1xf32>) -> tensor<?x3x4xf32>
  return %1 : tensor<?x3x4xf32>
}

// -----

// A static 1 facing a dynamic result dim broadcasts (index 0); two dynamic
// dims are checked at run time (runtime_broadcast.mlir): the result size is
// the last one that is not 1.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @dynamic_unit
// CHECK: %[[D0:.+]] = tensor.dim %arg0, %c0
// CHECK: %[[D1:.+]] = tensor.dim %arg0, %c1
// CHECK: %[[E1:.+]] = tensor.dim %arg1, %c1
// CHECK: %[[SIZE:.+]] = arith.select %{{.+}}, %[[D1]], %[[E1]] : index
// CHECK: tensor.empty(%[[D0]], %[[SIZE]]) : tensor<?x?xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]]
// CHECK: arith.subf
func.func @dynamic_unit(%a: tensor<?x?xf32>, %b: tensor<1x?xf32>) -> tensor<?x?xf32> {
  %0 = "onnx.Sub"(%a, %b) : (tensor<?x?xf32>, tensor<1x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A dynamic dim facing a static result dim 5 may still be 1 at run time: it
// is used as is when it is 5 and broadcast through a (clamped) copy
// otherwise.
// CHECK-LABEL: func.func @runtime_broadcast
// CHECK: %[[COLS:.+]] = tensor.dim %arg0, %c1
// CHECK: %[[FULL:.+]] = arith.cmpi eq, %[[COLS]], %c5
// CHECK: %[[A:.+]] = scf.if %[[FULL]] -> (tensor<?x5xf32>) {
// CHECK:   tensor.cast %arg0 : tensor<?x?xf32> to tensor<?x5xf32>
// CHECK: } else {
// CHECK:   %[[J:.+]] = linalg.index 1
// CHECK:   %[[LAST:.+]] = arith.subi %[[COLS]], %{{.+}} : index
// CHECK:   %[[K:.+]] = arith.minui %[[J]], %[[LAST]] : index
// CHECK:   tensor.extract %arg0[%{{.+}}, %[[K]]]
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[A]], %arg1 : tensor<?x5xf32>, tensor<1x5xf32>)
func.func @runtime_broadcast(%a: tensor<?x?xf32>, %b: tensor<1x5xf32>) -> tensor<?x5xf32> {
  %0 = "onnx.Add"(%a, %b) : (tensor<?x?xf32>, tensor<1x5xf32>) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

// Integer division truncates; unsigned types use unsigned ops. A zero
// divisor is replaced by 1 and INT_MIN / -1 wraps instead of trapping.
// CHECK-LABEL: func.func @div_int
// CHECK-SAME: tensor<4xi8>
// CHECK: ^bb0(%[[X:.+]]: i8, %[[Y:.+]]: i8, %{{.+}}: i8):
// CHECK: %[[Z:.+]] = arith.cmpi eq, %[[Y]], %{{.+}} : i8
// CHECK: %[[SAFE:.+]] = arith.select %[[Z]], %{{.+}}, %[[Y]] : i8
// CHECK: arith.divui %[[X]], %[[SAFE]] : i8
// CHECK: ^bb0(%[[SX:.+]]: i32, %[[SY:.+]]: i32, %{{.+}}: i32):
// CHECK: %[[Q:.+]] = arith.divsi %[[SX]], %{{.+}} : i32
// CHECK: %[[NEG:.+]] = arith.subi %{{.+}}, %[[SX]] : i32
// CHECK: %[[M1:.+]] = arith.cmpi eq, %[[SY]], %{{.+}} : i32
// CHECK: arith.select %[[M1]], %[[NEG]], %[[Q]] : i32
func.func @div_int(%a: tensor<4xui8>, %b: tensor<4xui8>, %c: tensor<4xi32>, %d: tensor<4xi32>) -> (tensor<4xui8>, tensor<4xi32>) {
  %0 = "onnx.Div"(%a, %b) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %1 = "onnx.Div"(%c, %d) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1 : tensor<4xui8>, tensor<4xi32>
}

// -----

// Half floats are computed in f32 and rounded once.
// CHECK-LABEL: func.func @half
// CHECK: ^bb0(%[[IN:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[IN]] : f16 to f32
// CHECK-NEXT: %[[S:.+]] = math.sqrt %[[W]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[S]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
func.func @half(%a: tensor<8xf16>) -> tensor<8xf16> {
  %0 = "onnx.Sqrt"(%a) : (tensor<8xf16>) -> tensor<8xf16>
  return %0 : tensor<8xf16>
}

// -----

// Comparisons produce i1 and honour the operands' signedness.
// CHECK-LABEL: func.func @compare
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.+}} : tensor<2x3xi1>)
// CHECK: arith.cmpi ult, %{{.+}}, %{{.+}} : i8
func.func @compare(%a: tensor<2x3xui8>, %b: tensor<3xui8>) -> tensor<2x3xi1> {
  %0 = "onnx.Less"(%a, %b) : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}

// -----

// Cast: float -> narrow int converts through i64 and wraps, bool -> float is
// 0/1, -> bool is != 0, and bf16 is reached through f32.
// CHECK-LABEL: func.func @casts
// CHECK: arith.fptosi %{{.+}} : f32 to i64
// CHECK-NEXT: arith.trunci %{{.+}} : i64 to i8
// CHECK: arith.uitofp %{{.+}} : i1 to f32
// CHECK: arith.cmpf une, %{{.+}}, %{{.+}} : f32
// CHECK: arith.uitofp %{{.+}} : i8 to f32
// CHECK-NEXT: arith.truncf %{{.+}} : f32 to bf16
func.func @casts(%a: tensor<4xf32>, %b: tensor<4xi1>, %like: tensor<1xbf16>) -> (tensor<4xui8>, tensor<4xf32>, tensor<4xi1>, tensor<4xbf16>) {
  %0 = "onnx.Cast"(%a) {to = 2 : i64} : (tensor<4xf32>) -> tensor<4xui8>
  %1 = "onnx.Cast"(%b) {to = 1 : i64} : (tensor<4xi1>) -> tensor<4xf32>
  %2 = "onnx.Cast"(%a) {to = 9 : i64} : (tensor<4xf32>) -> tensor<4xi1>
  %3 = "onnx.CastLike"(%0, %like) : (tensor<4xui8>, tensor<1xbf16>) -> tensor<4xbf16>
  return %0, %1, %2, %3 : tensor<4xui8>, tensor<4xf32>, tensor<4xi1>, tensor<4xbf16>
}

// -----

// Where broadcasts all three operands.
// CHECK-DAG: #[[COL:.+]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @where
// CHECK: linalg.generic {indexing_maps = [#[[COL]], #[[ROW]], #[[ID]], #[[ID]]]
// CHECK: ^bb0(%[[C:.+]]: i1, %[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: arith.select %[[C]], %[[X]], %[[Y]] : f32
func.func @where(%c: tensor<3x1xi1>, %x: tensor<1x4xf32>, %y: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = "onnx.Where"(%c, %x, %y) : (tensor<3x1xi1>, tensor<1x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Clip reads its optional scalar bounds once, outside the loop.
// CHECK-LABEL: func.func @clip
// CHECK: %[[LO:.+]] = tensor.extract %arg1[] : tensor<f32>
// CHECK: linalg.generic
// CHECK: arith.maximumf %{{.+}}, %[[LO]] : f32
// CHECK-NOT: arith.minimumf
// CHECK: %[[HI:.+]] = tensor.extract %arg3[%{{.+}}] : tensor<1xi64>
// CHECK: linalg.generic
// CHECK: arith.minsi %{{.+}}, %[[HI]] : i64
func.func @clip(%x: tensor<5xf32>, %lo: tensor<f32>, %i: tensor<5xi64>, %hi: tensor<1xi64>) -> (tensor<5xf32>, tensor<5xi64>) {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Clip"(%x, %lo, %none) : (tensor<5xf32>, tensor<f32>, none) -> tensor<5xf32>
  %1 = "onnx.Clip"(%i, %none, %hi) : (tensor<5xi64>, none, tensor<1xi64>) -> tensor<5xi64>
  return %0, %1 : tensor<5xf32>, tensor<5xi64>
}

// -----

// Pow: a constant exponent 2 is a multiply; an integer exponent converts to
// the base's type; integer bases compute in f64.
// CHECK-LABEL: func.func @pow
// CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32, %{{.+}}: f32):
// CHECK-NEXT: arith.mulf %[[X]], %[[X]] : f32
// CHECK: arith.sitofp %{{.+}} : i32 to f32
// CHECK-NEXT: math.powf %{{.+}}, %{{.+}} : f32
// CHECK: math.powf %{{.+}}, %{{.+}} : f64
// CHECK-NEXT: arith.fptosi %{{.+}} : f64 to i64
func.func @pow(%x: tensor<5xf32>, %y: tensor<5xi32>, %z: tensor<5xi32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5xi32>) {
  %two = arith.constant dense<2.0> : tensor<f32>
  %0 = "onnx.Pow"(%x, %two) : (tensor<5xf32>, tensor<f32>) -> tensor<5xf32>
  %1 = "onnx.Pow"(%x, %y) : (tensor<5xf32>, tensor<5xi32>) -> tensor<5xf32>
  %2 = "onnx.Pow"(%z, %y) : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
  return %0, %1, %2 : tensor<5xf32>, tensor<5xf32>, tensor<5xi32>
}

// -----

// Mod fmod=0 on integers takes the divisor's sign (Python %); fmod=1 is C's.
// CHECK-LABEL: func.func @mod
// CHECK: %[[R:.+]] = arith.remsi
// CHECK: %[[FIX:.+]] = arith.addi %[[R]], %{{.+}} : i32
// CHECK: arith.select %{{.+}}, %[[FIX]], %[[R]] : i32
// CHECK: arith.remf
// CHECK-NOT: arith.select
// CHECK: return
func.func @mod(%a: tensor<5xi32>, %b: tensor<5xi32>, %x: tensor<5xf32>, %y: tensor<5xf32>) -> (tensor<5xi32>, tensor<5xf32>) {
  %0 = "onnx.Mod"(%a, %b) : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
  %1 = "onnx.Mod"(%x, %y) {fmod = 1 : i64} : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  return %0, %1 : tensor<5xi32>, tensor<5xf32>
}

// -----

// Variadic ops fold all operands in one generic; Max propagates NaN.
// CHECK-LABEL: func.func @variadic
// CHECK: linalg.generic
// CHECK-SAME: ins(%arg0, %arg1, %arg2 :
// CHECK: %[[M:.+]] = arith.maximumf
// CHECK: arith.maximumf %[[M]]
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: %[[S:.+]] = arith.addf
// CHECK: %[[N:.+]] = arith.constant 3.0{{.*}} : f32
// CHECK: arith.divf %[[S]], %[[N]]
func.func @variadic(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<2x1xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = "onnx.Max"(%a, %b, %c) : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %1 = "onnx.Mean"(%a, %b, %c) : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @activations
// CHECK: math.erf
// CHECK: arith.constant 5.0{{.*}} : f32
// CHECK: arith.cmpf olt
// CHECK: arith.negf
// CHECK-NEXT: math.exp
func.func @activations(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = "onnx.Gelu"(%x) {approximate = "none"} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "onnx.LeakyRelu"(%x) {alpha = 0.5 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "onnx.Sigmoid"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Shifting by the bit width or more gives 0.
// CHECK-LABEL: func.func @shift
// CHECK: %[[OOR:.+]] = arith.cmpi uge, %{{.+}}, %c8_i8 : i8
// CHECK: %[[SH:.+]] = arith.shrui
// CHECK: arith.select %[[OOR]], %{{.+}}, %[[SH]] : i8
func.func @shift(%x: tensor<4xui8>, %y: tensor<4xui8>) -> tensor<4xui8> {
  %0 = "onnx.BitShift"(%x, %y) {direction = "RIGHT"} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

func.func @neg_unsigned(%x: tensor<4xui8>) -> tensor<4xui8> {
  // expected-error @+1 {{the cpu target cannot lower this 'Neg' node}}
  %0 = "onnx.Neg"(%x) : (tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

func.func @incompatible_shapes(%a: tensor<3xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{the cpu target cannot lower this 'Add' node}}
  %0 = "onnx.Add"(%a, %b) : (tensor<3xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unknown_gelu(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{the cpu target cannot lower this 'Gelu' node}}
  %0 = "onnx.Gelu"(%x) {approximate = "fast"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @clip_vector_bound(%x: tensor<4xf32>, %lo: tensor<2xf32>) -> tensor<4xf32> {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{the cpu target cannot lower this 'Clip' node}}
  %0 = "onnx.Clip"(%x, %lo, %none) : (tensor<4xf32>, tensor<2xf32>, none) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @mismatched_types(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{the cpu target cannot lower this 'Mul' node}}
  %0 = "onnx.Mul"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
