//===- OnnxBase.td - The onnx dialect and its hand-written ops -*- tablegen -*-===//
//
// The dialect declaration, the base class of the generated ops (OnnxOps.td),
// and the few ops that are not ONNX operators but carry ONNX graph structure:
// an absent optional input (NoValue) and the terminator of subgraph regions.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_DIALECT_ONNXBASE_TD
#define ONNXC_DIALECT_ONNXBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def ONNX_Dialect : Dialect {
  let name = "onnx";
  let summary = "ONNX operators as imported from a ModelProto";
  let description = [{
    One op per ONNX operator of ai.onnx and ai.onnx.ml, in the newest opset
    version. The importer normalizes older versions to this form.
  }];
  let cppNamespace = "::onnxc::onnx";
  let useDefaultTypePrinterParser = 1;
}

/// The type of a value before shape inference has determined it: the importer
/// gives it to every node output the model carries no type for, and
/// shape inference (compiler/dialect/ShapeInference) replaces all of them.
def ONNX_UnknownType : TypeDef<ONNX_Dialect, "Unknown"> {
  let mnemonic = "unknown";
  let summary = "a type not yet inferred";
}

/// An ONNX INT attribute: a signless i64 read back as a signed value.
def ONNX_IntAttr : TypedSignlessIntegerAttrBase<I64, "int64_t",
                                                "64-bit ONNX INT attribute"> {
  let convertFromStorage = "$_self.getValue().getSExtValue()";
}

/// Base of every generated ONNX operator. `version` is the opset version the
/// op's definition comes from.
class ONNX_Op<string mnemonic, int version, list<Trait> traits = []>
    : Op<ONNX_Dialect, mnemonic, traits> {
  let extraClassDeclaration = "static constexpr int kSinceVersion = " #
                              version # ";";
}

/// The value of an optional input that the model leaves out.
def ONNX_NoValueOp : Op<ONNX_Dialect, "NoValue", [Pure]> {
  let summary = "an omitted optional input";
  let results = (outs NoneType:$none);
  let assemblyFormat = "attr-dict";
}

/// Ends a subgraph region (If/Loop/Scan bodies) with the subgraph's outputs.
def ONNX_YieldOp : Op<ONNX_Dialect, "Yield", [Pure, Terminator]> {
  let summary = "returns a subgraph's outputs to its parent op";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

#endif // ONNXC_DIALECT_ONNXBASE_TD
