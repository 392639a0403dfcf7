//===- TensorFiles.cpp - .npy and TensorProto .pb tensors -----------------===//

#include "tools/onnxc/TensorFiles.h"

#include "onnx/onnx_pb.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace onnxc::cli {

onnxc_tensor HostTensor::view() {
  onnxc_tensor t{};
  t.data = bytes.data();
  t.rank = static_cast<int32_t>(shape.size());
  for (size_t d = 0; d < shape.size() && d < ONNXC_MAX_RANK; ++d)
    t.shape[d] = shape[d];
  t.dtype = dtype;
  t.size_bytes = bytes.size();
  return t;
}

namespace {

struct NpyType {
  const char *descr; // without the byte-order character
  int32_t dtype;
};

// The .npy descr of each dtype the ABI carries ('|' byte order for 1 byte).
const NpyType kNpyTypes[] = {
    {"f4", ONNXC_DTYPE_FLOAT},  {"f8", ONNXC_DTYPE_DOUBLE},
    {"f2", ONNXC_DTYPE_FLOAT16}, {"i1", ONNXC_DTYPE_INT8},
    {"i2", ONNXC_DTYPE_INT16},  {"i4", ONNXC_DTYPE_INT32},
    {"i8", ONNXC_DTYPE_INT64},  {"u1", ONNXC_DTYPE_UINT8},
    {"u2", ONNXC_DTYPE_UINT16}, {"u4", ONNXC_DTYPE_UINT32},
    {"u8", ONNXC_DTYPE_UINT64}, {"b1", ONNXC_DTYPE_BOOL},
};

bool readFile(const std::string &path, std::string &contents,
              std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = path + ": cannot open the file";
    return false;
  }
  contents.assign(std::istreambuf_iterator<char>(in), {});
  return true;
}

/// The element count of `shape`, or -1 on overflow.
int64_t elementCount(const std::vector<int64_t> &shape) {
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d != 0 && count > INT64_MAX / d))
      return -1;
    count *= d;
  }
  return count;
}

/// The value of `key` in a .npy header dict ("{'descr': '<f4', ...}").
std::string headerValue(const std::string &header, const std::string &key) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos)
    return "";
  at = header.find(':', at);
  if (at == std::string::npos)
    return "";
  ++at;
  while (at < header.size() && header[at] == ' ')
    ++at;
  if (at < header.size() && header[at] == '(') {
    size_t end = header.find(')', at);
    return end == std::string::npos ? "" : header.substr(at, end - at + 1);
  }
  size_t end = header.find_first_of(",}", at);
  return header.substr(at, end == std::string::npos ? std::string::npos
                                                    : end - at);
}

bool readNpy(const std::string &path, HostTensor &tensor, std::string &error) {
  std::string data;
  if (!readFile(path, data, error))
    return false;
  auto bad = [&](const std::string &why) {
    error = path + ": not a supported .npy file: " + why;
    return false;
  };
  if (data.size() < 10 || data.compare(0, 6, "\x93NUMPY") != 0)
    return bad("missing the \\x93NUMPY magic");
  unsigned major = static_cast<unsigned char>(data[6]);
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = static_cast<unsigned char>(data[8]) |
                static_cast<unsigned char>(data[9]) << 8;
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (data.size() < 12)
      return bad("truncated header");
    headerLen = 0;
    for (int i = 3; i >= 0; --i)
      headerLen = headerLen << 8 | static_cast<unsigned char>(data[8 + i]);
    headerStart = 12;
  } else {
    return bad("format version " + std::to_string(major));
  }
  if (headerStart + headerLen > data.size())
    return bad("truncated header");
  std::string header = data.substr(headerStart, headerLen);

  std::string descr = headerValue(header, "descr");
  if (descr.size() < 4 || descr.front() != '\'' || descr.back() != '\'')
    return bad("no descr");
  descr = descr.substr(1, descr.size() - 2);
  char order = descr[0];
  std::string kind = descr.substr(1);
  tensor.dtype = ONNXC_DTYPE_UNDEFINED;
  tensor.rawElementSize = 0;
  for (const NpyType &t : kNpyTypes)
    if (kind == t.descr)
      tensor.dtype = t.dtype;
  // ml_dtypes' types: NumPy saves bfloat16 as 'V2', float8/int4/int2 as
  // 'V1' (and float8_e5m2 as 'f1'); the model's input says which.
  if (kind == "V1" || kind == "f1")
    tensor.rawElementSize = 1;
  else if (kind == "V2")
    tensor.rawElementSize = 2;
  if (tensor.dtype == ONNXC_DTYPE_UNDEFINED && !tensor.rawElementSize)
    return bad("dtype '" + descr + "'");
  if (order == '>' && onnxc_dtype_size(tensor.dtype) > 1)
    return bad("big-endian data");
  if (headerValue(header, "fortran_order") != "False")
    return bad("Fortran order");

  std::string shape = headerValue(header, "shape");
  if (shape.size() < 2 || shape.front() != '(')
    return bad("no shape");
  tensor.shape.clear();
  std::stringstream dims(shape.substr(1, shape.size() - 2));
  std::string dim;
  while (std::getline(dims, dim, ',')) {
    size_t first = dim.find_first_not_of(' ');
    if (first == std::string::npos)
      continue;
    try {
      tensor.shape.push_back(std::stoll(dim.substr(first)));
    } catch (...) {
      return bad("shape '" + shape + "'");
    }
  }
  if (tensor.shape.size() > ONNXC_MAX_RANK)
    return bad("rank above " + std::to_string(ONNXC_MAX_RANK));
  int64_t count = elementCount(tensor.shape);
  size_t elem = tensor.rawElementSize ? tensor.rawElementSize
                                      : onnxc_dtype_size(tensor.dtype);
  if (count < 0 || static_cast<uint64_t>(count) > SIZE_MAX / elem)
    return bad("shape '" + shape + "' is too large");
  size_t bytes = static_cast<size_t>(count) * elem;
  size_t dataStart = headerStart + headerLen;
  if (data.size() - dataStart != bytes)
    return bad("holds " + std::to_string(data.size() - dataStart) +
               " data bytes, the shape needs " + std::to_string(bytes));
  tensor.bytes.assign(data.begin() + dataStart, data.end());
  return true;
}

/// Appends the typed field `values` of a TensorProto as `T`.
template <typename T, typename Field>
void appendAs(const Field &values, std::vector<char> &bytes) {
  for (auto v : values) {
    T t = static_cast<T>(v);
    const char *p = reinterpret_cast<const char *>(&t);
    bytes.insert(bytes.end(), p, p + sizeof(T));
  }
}

/// Bits per element of the dtypes ONNX packs below a byte, or 0.
int packedBits(int32_t dtype) {
  switch (dtype) {
  case ONNXC_DTYPE_INT4:
  case ONNXC_DTYPE_UINT4:
    return 4;
  case ONNXC_DTYPE_INT2:
  case ONNXC_DTYPE_UINT2:
    return 2;
  default:
    return 0;
  }
}

bool isSignedDtype(int32_t dtype) {
  return dtype == ONNXC_DTYPE_INT4 || dtype == ONNXC_DTYPE_INT2;
}

/// `count` elements of `bits` bits from `packed` (lowest bits first), one a
/// byte, sign-extended when `isSigned`. False when `packed` has another
/// size than the count needs.
bool unpackSubByte(const std::string &packed, int bits, bool isSigned,
                   int64_t count, std::vector<char> &out) {
  int perByte = 8 / bits;
  if (static_cast<int64_t>(packed.size()) != (count + perByte - 1) / perByte)
    return false;
  unsigned mask = (1u << bits) - 1;
  out.resize(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    unsigned byte = static_cast<unsigned char>(packed[i / perByte]);
    unsigned v = (byte >> (bits * (i % perByte))) & mask;
    if (isSigned && (v >> (bits - 1)))
      v |= ~mask; // sign-extend into the byte
    out[i] = static_cast<char>(v);
  }
  return true;
}

bool readPb(const std::string &path, HostTensor &tensor, std::string &error) {
  std::string data;
  if (!readFile(path, data, error))
    return false;
  onnx::TensorProto proto;
  if (!proto.ParseFromString(data)) {
    error = path + ": not an ONNX TensorProto file";
    return false;
  }
  tensor.name = proto.name();
  tensor.dtype = proto.data_type();
  size_t elem = onnxc_dtype_size(tensor.dtype);
  if (elem == 0) {
    error = path + ": tensor '" + proto.name() + "' has data type " +
            std::to_string(proto.data_type()) +
            ", which onnxc run cannot pass to a model";
    return false;
  }
  if (proto.has_data_location() &&
      proto.data_location() == onnx::TensorProto::EXTERNAL) {
    error = path + ": tensors with external data are not supported here";
    return false;
  }
  tensor.shape.assign(proto.dims().begin(), proto.dims().end());
  int64_t count = elementCount(tensor.shape);
  if (count < 0 || tensor.shape.size() > ONNXC_MAX_RANK) {
    error = path + ": tensor '" + proto.name() + "' has an invalid shape";
    return false;
  }
  tensor.bytes.clear();
  if (int bits = packedBits(tensor.dtype)) {
    // ONNX packs 4-bit and 2-bit elements into bytes, lowest bits first;
    // the ABI has one element a byte.
    std::string packed = proto.raw_data();
    if (!proto.has_raw_data())
      for (int32_t v : proto.int32_data())
        packed.push_back(static_cast<char>(v));
    if (!unpackSubByte(packed, bits, isSignedDtype(tensor.dtype), count,
                       tensor.bytes)) {
      error = path + ": tensor '" + proto.name() + "' holds " +
              std::to_string(packed.size()) +
              " packed bytes, its shape needs " +
              std::to_string((count * bits + 7) / 8);
      return false;
    }
  } else if (proto.has_raw_data()) {
    tensor.bytes.assign(proto.raw_data().begin(), proto.raw_data().end());
  } else {
    switch (tensor.dtype) {
    case ONNXC_DTYPE_FLOAT:
      appendAs<float>(proto.float_data(), tensor.bytes);
      break;
    case ONNXC_DTYPE_DOUBLE:
      appendAs<double>(proto.double_data(), tensor.bytes);
      break;
    case ONNXC_DTYPE_INT64:
      appendAs<int64_t>(proto.int64_data(), tensor.bytes);
      break;
    case ONNXC_DTYPE_UINT32:
    case ONNXC_DTYPE_UINT64:
      if (tensor.dtype == ONNXC_DTYPE_UINT32)
        appendAs<uint32_t>(proto.uint64_data(), tensor.bytes);
      else
        appendAs<uint64_t>(proto.uint64_data(), tensor.bytes);
      break;
    case ONNXC_DTYPE_INT32:
      appendAs<int32_t>(proto.int32_data(), tensor.bytes);
      break;
    case ONNXC_DTYPE_INT16:
      appendAs<int16_t>(proto.int32_data(), tensor.bytes);
      break;
    case ONNXC_DTYPE_INT8:
      appendAs<int8_t>(proto.int32_data(), tensor.bytes);
      break;
    case ONNXC_DTYPE_UINT16:
    case ONNXC_DTYPE_FLOAT16:
    case ONNXC_DTYPE_BFLOAT16:
      // 16-bit types keep their bit patterns in int32_data.
      appendAs<uint16_t>(proto.int32_data(), tensor.bytes);
      break;
    case ONNXC_DTYPE_UINT8:
    case ONNXC_DTYPE_BOOL:
    // float8 types keep their bit patterns in int32_data too.
    case ONNXC_DTYPE_FLOAT8E4M3FN:
    case ONNXC_DTYPE_FLOAT8E4M3FNUZ:
    case ONNXC_DTYPE_FLOAT8E5M2:
    case ONNXC_DTYPE_FLOAT8E5M2FNUZ:
      appendAs<uint8_t>(proto.int32_data(), tensor.bytes);
      break;
    }
  }
  if (tensor.bytes.size() != static_cast<size_t>(count) * elem) {
    error = path + ": tensor '" + proto.name() + "' holds " +
            std::to_string(tensor.bytes.size()) +
            " data bytes, its shape needs " +
            std::to_string(static_cast<size_t>(count) * elem);
    return false;
  }
  return true;
}

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

bool readTensorFile(const std::string &path, HostTensor &tensor,
                    std::string &error) {
  if (endsWith(path, ".npy"))
    return readNpy(path, tensor, error);
  if (endsWith(path, ".pb"))
    return readPb(path, tensor, error);
  error = path + ": expected a .npy or .pb file";
  return false;
}

bool resolveRawDtype(HostTensor &tensor, int32_t expected,
                     const std::string &what, std::string &error) {
  if (!tensor.rawElementSize)
    return true;
  if (onnxc_dtype_size(expected) != tensor.rawElementSize) {
    error = what + " holds raw " + std::to_string(tensor.rawElementSize) +
            "-byte elements, but the input is " + onnxc_dtype_name(expected);
    return false;
  }
  tensor.dtype = expected;
  tensor.rawElementSize = 0;
  return true;
}

bool writeNpy(const std::string &path, int32_t dtype,
              const std::vector<int64_t> &shape, const void *data,
              std::string &error) {
  const char *kind = nullptr;
  for (const NpyType &t : kNpyTypes)
    if (t.dtype == dtype)
      kind = t.descr;
  if (!kind && onnxc_dtype_size(dtype) == 2)
    kind = "V2"; // bfloat16, as NumPy saves ml_dtypes.bfloat16
  else if (!kind && onnxc_dtype_size(dtype) == 1)
    kind = "V1"; // float8, int4, int2: one element a byte
  if (!kind) {
    error = path + ": cannot write dtype " +
            std::string(onnxc_dtype_name(dtype)) + " as .npy";
    return false;
  }
  size_t elem = onnxc_dtype_size(dtype);
  std::string header = std::string("{'descr': '") + (elem == 1 ? '|' : '<') +
                       kind + "', 'fortran_order': False, 'shape': (";
  for (int64_t d : shape)
    header += std::to_string(d) + (shape.size() == 1 ? "," : ", ");
  if (shape.size() > 1)
    header.resize(header.size() - 2);
  header += "), }";
  // Pad with spaces so the data starts on a 64-byte boundary.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';

  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    error = path + ": cannot create the file";
    return false;
  }
  char preamble[10] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0,
                       static_cast<char>(header.size() & 0xff),
                       static_cast<char>(header.size() >> 8)};
  out.write(preamble, sizeof preamble);
  out << header;
  size_t count = static_cast<size_t>(elementCount(shape));
  out.write(static_cast<const char *>(data),
            static_cast<std::streamsize>(count * elem));
  if (!out) {
    error = path + ": write failed";
    return false;
  }
  return true;
}

} // namespace onnxc::cli
