// The op schema table the importer reads and the dialect's op definitions are
// both generated from the installed onnx package; they must agree with it and
// with each other (the importer builds ops by the table's operand counts).
// RUN: %python %S/../../../scripts/gen_onnx_dialect.py --schemas | diff - %S/../../../compiler/dialect/OnnxOpSchemas.inc
// RUN: %python %S/../../../scripts/gen_onnx_dialect.py | diff - %S/../../../compiler/dialect/OnnxOps.td
