//===- TensorConverter.h - ONNX tensors and types -> MLIR -------*- C++ -*-===//
//
// TensorProto -> DenseElementsAttr (raw_data, the typed fields, external
// data), and TypeProto / TensorProto.DataType -> MLIR types, with every size
// checked before anything is allocated.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_COMPILER_IMPORT_TENSORCONVERTER_H
#define ONNXC_COMPILER_IMPORT_TENSORCONVERTER_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace onnx {
class TensorProto;
class TypeProto;
} // namespace onnx

namespace onnxc {

class ExternalDataReader;

/// Starts an error about the thing being converted; the converters append
/// the rest of the message.
using ErrorEmitter = llvm::function_ref<mlir::InFlightDiagnostic()>;

/// ONNX's name of a TensorProto.DataType ("FLOAT", "INT64", ...).
std::string dataTypeName(int32_t dataType);

/// The MLIR element type of an ONNX data type (see docs/internals.md), or an
/// error for one onnxc does not support (string, complex, float8, int4...).
mlir::FailureOr<mlir::Type> convertElementType(mlir::MLIRContext *ctx,
                                               int32_t dataType,
                                               ErrorEmitter emitError);

/// A TypeProto's tensor type: ranked when it has a shape (`?` for a dim with
/// a dim_param or no value), unranked otherwise. `dimParams` gets each dim's
/// dim_param ("" where none). Null (and no error) when it is not a tensor type
/// or has no element type.
mlir::FailureOr<mlir::TensorType>
convertTensorType(mlir::MLIRContext *ctx, const ::onnx::TypeProto &type,
                  llvm::SmallVectorImpl<std::string> &dimParams,
                  ErrorEmitter emitError);

/// The value of `tensor`, reading external data through `externalData`.
mlir::FailureOr<mlir::DenseElementsAttr>
convertTensor(mlir::MLIRContext *ctx, const ::onnx::TensorProto &tensor,
              ExternalDataReader &externalData, ErrorEmitter emitError);

} // namespace onnxc

#endif // ONNXC_COMPILER_IMPORT_TENSORCONVERTER_H
