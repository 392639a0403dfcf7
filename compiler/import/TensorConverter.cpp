//===- TensorConverter.cpp - ONNX tensors and types -> MLIR ---------------===//

#include "compiler/import/TensorConverter.h"

#include "compiler/import/ModelReader.h"

#include "onnx/onnx_pb.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/SwapByteOrder.h"

#include <algorithm>
#include <cstring>
#include <limits>

using namespace mlir;

namespace onnxc {

namespace {
// TensorProto.DataType values newer than the onnx headers the build uses.
enum NewerDataType : int32_t {
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUInt4 = 21,
  kInt4 = 22,
  kUInt2 = 25,
  kInt2 = 26,
};
} // namespace

std::string dataTypeName(int32_t dataType) {
  static const char *const names[] = {
      "UNDEFINED",      "FLOAT",      "UINT8",
      "INT8",           "UINT16",     "INT16",
      "INT32",          "INT64",      "STRING",
      "BOOL",           "FLOAT16",    "DOUBLE",
      "UINT32",         "UINT64",     "COMPLEX64",
      "COMPLEX128",     "BFLOAT16",   "FLOAT8E4M3FN",
      "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ",
      "UINT4",          "INT4",       "FLOAT4E2M1",
      "FLOAT8E8M0",     "UINT2",      "INT2"};
  if (dataType >= 0 && dataType < static_cast<int32_t>(std::size(names)))
    return names[dataType];
  return "data type " + std::to_string(dataType);
}

FailureOr<Type> convertElementType(MLIRContext *ctx, int32_t dataType,
                                   ErrorEmitter emitError) {
  Builder b(ctx);
  auto unsignedInt = [&](unsigned width) {
    return IntegerType::get(ctx, width, IntegerType::Unsigned);
  };
  switch (dataType) {
  case ::onnx::TensorProto_DataType_FLOAT:
    return Type(b.getF32Type());
  case ::onnx::TensorProto_DataType_DOUBLE:
    return Type(b.getF64Type());
  case ::onnx::TensorProto_DataType_FLOAT16:
    return Type(b.getF16Type());
  case ::onnx::TensorProto_DataType_BFLOAT16:
    return Type(b.getBF16Type());
  case ::onnx::TensorProto_DataType_INT8:
    return Type(b.getIntegerType(8));
  case ::onnx::TensorProto_DataType_INT16:
    return Type(b.getIntegerType(16));
  case ::onnx::TensorProto_DataType_INT32:
    return Type(b.getIntegerType(32));
  case ::onnx::TensorProto_DataType_INT64:
    return Type(b.getIntegerType(64));
  case ::onnx::TensorProto_DataType_UINT8:
    return Type(unsignedInt(8));
  case ::onnx::TensorProto_DataType_UINT16:
    return Type(unsignedInt(16));
  case ::onnx::TensorProto_DataType_UINT32:
    return Type(unsignedInt(32));
  case ::onnx::TensorProto_DataType_UINT64:
    return Type(unsignedInt(64));
  case ::onnx::TensorProto_DataType_BOOL:
    return Type(b.getI1Type());
  case kFloat8E4M3FN:
    return Type(b.getFloat8E4M3FNType());
  case kFloat8E4M3FNUZ:
    return Type(b.getFloat8E4M3FNUZType());
  case kFloat8E5M2:
    return Type(b.getFloat8E5M2Type());
  case kFloat8E5M2FNUZ:
    return Type(b.getFloat8E5M2FNUZType());
  case kInt4:
    return Type(b.getIntegerType(4));
  case kUInt4:
    return Type(unsignedInt(4));
  case kInt2:
    return Type(b.getIntegerType(2));
  case kUInt2:
    return Type(unsignedInt(2));
  case ::onnx::TensorProto_DataType_STRING:
    emitError() << "string tensors are not supported yet";
    return failure();
  case ::onnx::TensorProto_DataType_UNDEFINED:
    emitError() << "has no element type (data type UNDEFINED)";
    return failure();
  default:
    emitError() << "element type " << dataTypeName(dataType)
                << " is not supported";
    return failure();
  }
}

/// A dim_param exporters write for "unknown" ('?', '-1', 'None'): not a
/// name, so every such dim is an unknown of its own. (Read as a symbol, two
/// '?' dims of an image input would have to be equal: a 48x192 image was
/// refused, which ONNX Runtime runs.)
static bool isUnknownPlaceholder(const std::string &param) {
  return param == "?" || param == "-1" || param == "None";
}

FailureOr<TensorType>
convertTensorType(MLIRContext *ctx, const ::onnx::TypeProto &type,
                  llvm::SmallVectorImpl<std::string> &dimParams,
                  ErrorEmitter emitError) {
  dimParams.clear();
  if (type.value_case() != ::onnx::TypeProto::kTensorType ||
      !type.tensor_type().has_elem_type())
    return TensorType();
  const ::onnx::TypeProto_Tensor &tensor = type.tensor_type();
  FailureOr<Type> elementType =
      convertElementType(ctx, tensor.elem_type(), emitError);
  if (failed(elementType))
    return failure();
  if (!tensor.has_shape())
    return TensorType(UnrankedTensorType::get(*elementType));
  llvm::SmallVector<int64_t> shape;
  int64_t elements = 1;
  for (const ::onnx::TensorShapeProto_Dimension &dim : tensor.shape().dim()) {
    // A negative dim_value is invalid ONNX; some exporters write -1 for an
    // unknown size, which is what it is read as. Any other negative value
    // is refused rather than guessed at.
    if (dim.has_dim_value() && dim.dim_value() < -1) {
      emitError() << "dim " << shape.size() << " is " << dim.dim_value()
                  << " (a size must be >= 0)";
      return failure();
    }
    bool isStatic = dim.has_dim_value() && dim.dim_value() >= 0;
    shape.push_back(isStatic ? dim.dim_value() : ShapedType::kDynamic);
    dimParams.push_back(dim.has_dim_param() &&
                                !isUnknownPlaceholder(dim.dim_param())
                            ? dim.dim_param()
                            : "");
    // Every later size computation (bytes, strides, offsets) multiplies by
    // the element width too: keep a margin of 2^4 below int64's range.
    if (isStatic &&
        (llvm::MulOverflow(elements, dim.dim_value(), elements) ||
         elements > (std::numeric_limits<int64_t>::max() >> 4))) {
      emitError() << "the shape's element count overflows (too large to "
                     "address)";
      return failure();
    }
  }
  return TensorType(RankedTensorType::get(shape, *elementType));
}

namespace {

/// Copies typed-field values into a host-order buffer of `byteWidth`-byte
/// elements, keeping the low bytes of each (how ONNX stores the narrow integer
/// types, float16 and bfloat16 in int32_data).
template <typename Field>
void packTyped(const Field &values, unsigned byteWidth,
               std::vector<char> &buffer) {
  buffer.resize(static_cast<size_t>(values.size()) * byteWidth);
  char *out = buffer.data();
  for (auto value : values) {
    using T = decltype(value);
    if constexpr (std::is_floating_point_v<T>) {
      std::memcpy(out, &value, sizeof(T)); // byteWidth == sizeof(T)
    } else {
      uint64_t bits = static_cast<uint64_t>(value);
      for (unsigned i = 0; i < byteWidth; ++i) {
        unsigned shift =
            llvm::sys::IsBigEndianHost ? (byteWidth - 1 - i) * 8 : i * 8;
        out[i] = static_cast<char>((bits >> shift) & 0xff);
      }
    }
    out += byteWidth;
  }
}

} // namespace

FailureOr<DenseElementsAttr> convertTensor(MLIRContext *ctx,
                                           const ::onnx::TensorProto &tensor,
                                           ExternalDataReader &externalData,
                                           ErrorEmitter emitError) {
  llvm::SmallVector<int64_t> shape;
  int64_t numElements = 1;
  for (int64_t dim : tensor.dims()) {
    if (dim < 0) {
      emitError() << "has a negative dim (" << dim << ")";
      return failure();
    }
    if (llvm::MulOverflow(numElements, dim, numElements)) {
      emitError() << "has more elements than fit in 64 bits";
      return failure();
    }
    shape.push_back(dim);
  }
  if (tensor.has_segment()) {
    emitError() << "segmented tensors are not supported";
    return failure();
  }
  FailureOr<Type> elementType =
      convertElementType(ctx, tensor.data_type(), emitError);
  if (failed(elementType))
    return failure();
  auto type = RankedTensorType::get(shape, *elementType);
  bool isBool = elementType->isInteger(1);
  // int4/uint4 (int2/uint2) are stored packed, 2 (4) elements a byte, low
  // bits first, in raw_data, external data and int32_data alike.
  unsigned subByteBits = 0;
  if (auto intType = llvm::dyn_cast<IntegerType>(*elementType))
    if (intType.getWidth() == 2 || intType.getWidth() == 4)
      subByteBits = intType.getWidth();
  unsigned byteWidth =
      isBool || subByteBits ? 1 : elementType->getIntOrFloatBitWidth() / 8;
  int64_t numBytes;
  if (subByteBits) {
    int64_t perByte = 8 / subByteBits;
    numBytes = (numElements + perByte - 1) / perByte;
  } else if (llvm::MulOverflow(numElements, static_cast<int64_t>(byteWidth),
                               numBytes)) {
    emitError() << "is larger than fits in 64 bits";
    return failure();
  }

  // The data in host byte order, byteWidth bytes an element: `bytes` itself
  // when the stored form already is (little-endian raw data on a
  // little-endian host), else a converted copy in `buffer`.
  llvm::StringRef bytes;
  std::vector<char> buffer;
  auto fromLittleEndian = [&](llvm::StringRef data) {
    if (!llvm::sys::IsBigEndianHost || byteWidth == 1) {
      bytes = data;
      return;
    }
    buffer.assign(data.begin(), data.end());
    for (size_t i = 0; i < buffer.size(); i += byteWidth)
      std::reverse(buffer.begin() + i, buffer.begin() + i + byteWidth);
  };
  std::string typeText; // "tensor<2x3xf32>", unquoted in messages
  llvm::raw_string_ostream(typeText) << type;
  auto checkCount = [&](int64_t count, llvm::StringRef field) {
    if (count == numElements)
      return success();
    emitError() << "has " << count << " values in " << field << ", but "
                << typeText << " needs " << numElements;
    return failure();
  };

  std::unique_ptr<llvm::MemoryBuffer> externalBuffer;
  if (tensor.data_location() == ::onnx::TensorProto_DataLocation_EXTERNAL) {
    auto data = externalData.read(tensor, static_cast<uint64_t>(numBytes));
    if (!data) {
      emitError() << llvm::toString(data.takeError());
      return failure();
    }
    externalBuffer = std::move(*data);
    fromLittleEndian(externalBuffer->getBuffer());
  } else if (tensor.has_raw_data()) {
    if (tensor.raw_data().size() != static_cast<uint64_t>(numBytes)) {
      emitError() << "raw_data has " << tensor.raw_data().size()
                  << " bytes, but " << typeText << " needs " << numBytes;
      return failure();
    }
    fromLittleEndian(tensor.raw_data());
  } else {
    switch (tensor.data_type()) {
    case ::onnx::TensorProto_DataType_FLOAT:
      if (failed(checkCount(tensor.float_data_size(), "float_data")))
        return failure();
      packTyped(tensor.float_data(), byteWidth, buffer);
      break;
    case ::onnx::TensorProto_DataType_DOUBLE:
      if (failed(checkCount(tensor.double_data_size(), "double_data")))
        return failure();
      packTyped(tensor.double_data(), byteWidth, buffer);
      break;
    case ::onnx::TensorProto_DataType_INT64:
      if (failed(checkCount(tensor.int64_data_size(), "int64_data")))
        return failure();
      packTyped(tensor.int64_data(), byteWidth, buffer);
      break;
    case ::onnx::TensorProto_DataType_UINT32:
    case ::onnx::TensorProto_DataType_UINT64:
      if (failed(checkCount(tensor.uint64_data_size(), "uint64_data")))
        return failure();
      packTyped(tensor.uint64_data(), byteWidth, buffer);
      break;
    default: // the narrow integers, bool, float16, bfloat16, float8
      if (subByteBits) {
        // One packed byte an int32.
        if (tensor.int32_data_size() != numBytes) {
          emitError() << "has " << tensor.int32_data_size()
                      << " packed bytes in int32_data, but " << typeText
                      << " needs " << numBytes;
          return failure();
        }
      } else if (failed(checkCount(tensor.int32_data_size(), "int32_data"))) {
        return failure();
      }
      packTyped(tensor.int32_data(), byteWidth, buffer);
      break;
    }
  }
  if (bytes.empty())
    bytes = llvm::StringRef(buffer.data(), buffer.size());

  if (subByteBits) {
    // Unpack: one APInt of the element's width per element.
    unsigned perByte = 8 / subByteBits;
    llvm::SmallVector<llvm::APInt> values;
    values.reserve(numElements);
    for (int64_t i = 0; i < numElements; ++i) {
      auto byte = static_cast<uint8_t>(bytes[i / perByte]);
      uint64_t bits =
          (byte >> ((i % perByte) * subByteBits)) & ((1u << subByteBits) - 1);
      values.push_back(llvm::APInt(subByteBits, bits, /*isSigned=*/false));
    }
    return DenseElementsAttr::get(type, values);
  }
  if (isBool) {
    llvm::SmallVector<bool> values;
    values.reserve(bytes.size());
    for (char byte : bytes)
      values.push_back(byte != 0);
    return DenseElementsAttr::get(type, llvm::ArrayRef<bool>(values));
  }
  if (numElements == 0)
    return DenseElementsAttr::get(type, llvm::ArrayRef<Attribute>());
  return DenseElementsAttr::getFromRawBuffer(
      type, llvm::ArrayRef<char>(bytes.data(), bytes.size()));
}

} // namespace onnxc
