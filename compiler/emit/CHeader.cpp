//===- CHeader.cpp - The generated C header of an artifact ----------------===//

#include "compiler/emit/CHeader.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include "onnxc/onnxc.h"

#include <algorithm>
#include <cstdio>

using namespace llvm;

namespace onnxc {

bool isCIdentifier(StringRef name) {
  if (name.empty() || isDigit(name.front()))
    return false;
  return all_of(name, [](char c) { return isAlnum(c) || c == '_'; });
}

namespace {

/// The C element type of a dtype in the ABI's memory layout (every element
/// whole bytes; 16-bit floats and 8-bit floats as their raw bits).
const char *cTypeOf(int32_t dtype) {
  switch (dtype) {
  case ONNXC_DTYPE_FLOAT:
    return "float";
  case ONNXC_DTYPE_DOUBLE:
    return "double";
  case ONNXC_DTYPE_INT8:
  case ONNXC_DTYPE_INT4:
  case ONNXC_DTYPE_INT2:
    return "int8_t";
  case ONNXC_DTYPE_INT16:
    return "int16_t";
  case ONNXC_DTYPE_INT32:
    return "int32_t";
  case ONNXC_DTYPE_INT64:
    return "int64_t";
  case ONNXC_DTYPE_UINT16:
  case ONNXC_DTYPE_FLOAT16:
  case ONNXC_DTYPE_BFLOAT16:
    return "uint16_t";
  case ONNXC_DTYPE_UINT32:
    return "uint32_t";
  case ONNXC_DTYPE_UINT64:
    return "uint64_t";
  case ONNXC_DTYPE_UINT8:
  case ONNXC_DTYPE_BOOL:
  case ONNXC_DTYPE_UINT4:
  case ONNXC_DTYPE_UINT2:
  case ONNXC_DTYPE_FLOAT8E4M3FN:
  case ONNXC_DTYPE_FLOAT8E4M3FNUZ:
  case ONNXC_DTYPE_FLOAT8E5M2:
  case ONNXC_DTYPE_FLOAT8E5M2FNUZ:
    return "uint8_t";
  }
  return nullptr;
}

/// The ONNX spelling and the onnxc_dtype enumerator of a dtype.
std::pair<const char *, const char *> dtypeNames(int32_t dtype) {
  switch (dtype) {
#define DTYPE(E, S)                                                            \
  case ONNXC_DTYPE_##E:                                                        \
    return {S, "ONNXC_DTYPE_" #E};
    DTYPE(FLOAT, "float")
    DTYPE(UINT8, "uint8")
    DTYPE(INT8, "int8")
    DTYPE(UINT16, "uint16")
    DTYPE(INT16, "int16")
    DTYPE(INT32, "int32")
    DTYPE(INT64, "int64")
    DTYPE(BOOL, "bool")
    DTYPE(FLOAT16, "float16")
    DTYPE(DOUBLE, "double")
    DTYPE(UINT32, "uint32")
    DTYPE(UINT64, "uint64")
    DTYPE(BFLOAT16, "bfloat16")
    DTYPE(FLOAT8E4M3FN, "float8e4m3fn")
    DTYPE(FLOAT8E4M3FNUZ, "float8e4m3fnuz")
    DTYPE(FLOAT8E5M2, "float8e5m2")
    DTYPE(FLOAT8E5M2FNUZ, "float8e5m2fnuz")
    DTYPE(UINT4, "uint4")
    DTYPE(INT4, "int4")
    DTYPE(UINT2, "uint2")
    DTYPE(INT2, "int2")
#undef DTYPE
  }
  return {"undefined", "ONNXC_DTYPE_UNDEFINED"};
}

/// Bytes per element in the ABI layout (whole bytes for sub-byte types).
int64_t elementBytes(int32_t dtype) {
  StringRef c = cTypeOf(dtype);
  if (c == "double" || c.ends_with("64_t"))
    return 8;
  if (c == "float" || c.ends_with("32_t"))
    return 4;
  if (c.ends_with("16_t"))
    return 2;
  return 1;
}

/// `s` as the body of a C string literal. Octal escapes keep any byte
/// (ONNX names are arbitrary UTF-8) from ending the literal or the comment.
std::string cString(StringRef s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\' || c == '?' || c < 0x20 || c >= 0x7f ||
        c == '*' || c == '/') {
      char buf[5];
      snprintf(buf, sizeof buf, "\\%03o", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

/// A name safe inside a /* */ comment.
std::string commentText(StringRef s) {
  std::string out;
  for (unsigned char c : s)
    out += (c < 0x20 || c == '*' || c == '/' || c >= 0x7f) ? '_' : c;
  return out;
}

bool isCKeyword(StringRef s) {
  static const char *const keywords[] = {
      "auto",     "break",    "case",     "char",   "const",    "continue",
      "default",  "do",       "double",   "else",   "enum",     "extern",
      "float",    "for",      "goto",     "if",     "inline",   "int",
      "long",     "register", "restrict", "return", "short",    "signed",
      "sizeof",   "static",   "struct",   "switch", "typedef",  "union",
      "unsigned", "void",     "volatile", "while",  "bool",     "true",
      "false",    "class",    "new",      "delete", "template", "this",
      "operator", "private",  "public",   "err"};
  return is_contained(keywords, s);
}

/// One C parameter name per tensor: its ONNX name made an identifier, or
/// `<what><index>` when that is empty, a keyword, or already taken.
std::vector<std::string> parameterNames(ArrayRef<TensorMeta> tensors,
                                        StringRef what, StringSet<> &taken) {
  std::vector<std::string> names;
  for (auto [i, t] : enumerate(tensors)) {
    std::string name;
    for (char c : t.name)
      name += isAlnum(c) ? c : '_';
    if (!name.empty() && isDigit(name.front()))
      name.insert(0, "_");
    if (name.empty() || StringRef(name).starts_with("__") || isCKeyword(name) ||
        taken.contains(name))
      name = (what + Twine(i)).str();
    taken.insert(name);
    names.push_back(name);
  }
  return names;
}

bool isStatic(const TensorMeta &t) {
  return all_of(t.dims, [](int64_t d) { return d >= 0; });
}

int64_t elementCount(const TensorMeta &t) {
  int64_t n = 1;
  for (int64_t d : t.dims)
    n *= d;
  return n;
}

void writeTensorMacros(raw_ostream &os, StringRef macro, StringRef kind,
                       unsigned index, const TensorMeta &t) {
  auto [onnxName, enumName] = dtypeNames(t.dtype);
  std::string p = (macro + "_" + kind + Twine(index)).str();
  os << "/* " << StringRef(kind).lower() << " " << index << ": '"
     << commentText(t.name) << "', " << onnxName << "[";
  for (auto [d, dim] : enumerate(t.dims)) {
    os << (d ? ", " : "");
    if (dim >= 0)
      os << dim;
    else
      os << (t.dimParams[d].empty() ? "?" : commentText(t.dimParams[d]));
  }
  os << "] */\n";
  os << "#define " << p << "_NAME \"" << cString(t.name) << "\"\n";
  os << "#define " << p << "_DTYPE " << enumName << "\n";
  os << "#define " << p << "_RANK " << t.dims.size() << "\n";
  if (!t.dims.empty()) {
    os << "#define " << p << "_DIMS {";
    for (auto [d, dim] : enumerate(t.dims))
      os << (d ? ", " : "") << dim;
    os << "}\n";
    os << "#define " << p << "_DIM_PARAMS {";
    for (auto [d, param] : enumerate(t.dimParams))
      os << (d ? ", " : "") << '"' << cString(param) << '"';
    os << "}\n";
  }
  if (isStatic(t)) {
    os << "#define " << p << "_NUM_ELEMENTS " << elementCount(t) << "\n";
    os << "#define " << p << "_SIZE_BYTES "
       << elementCount(t) * elementBytes(t.dtype) << "\n";
  }
  os << "\n";
}

} // namespace

void writeCHeader(const ModelMeta &meta, const CHeaderOptions &options,
                  raw_ostream &os) {
  std::string prefix = options.prefix;
  std::string macro = StringRef(prefix).upper();
  std::string guard = "ONNXC_MODEL_" + macro + "_H";

  os << "/* " << prefix << ".h: the C interface of the compiled model '"
     << commentText(meta.graphName) << "'.\n"
     << " * Generated by onnxc from " << commentText(options.modelPath)
     << "; do not edit.\n"
     << " * Link the artifact " << commentText(options.artifactPath)
     << " (an object file also needs the\n"
     << " * runtime archives of its targets";
  if (!options.linkLibraries.empty())
    os << ": " << commentText(options.linkLibraries);
  os << "). */\n";
  os << "#ifndef " << guard << "\n#define " << guard << "\n\n";
  os << "#include <onnxc/onnxc.h>\n\n#include <stddef.h>\n#include "
        "<stdint.h>\n#include <string.h>\n\n";
  os << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";

  os << "#define " << macro << "_MODEL_NAME \"" << cString(meta.graphName)
     << "\"\n";
  os << "#define " << macro << "_NUM_INPUTS " << meta.inputs.size() << "\n";
  os << "#define " << macro << "_NUM_OUTPUTS " << meta.outputs.size() << "\n\n";
  os << "/* The bytes of workspace one run needs (its intermediate buffers, "
        "planned\n * to share memory), aligned to ONNXC_WORKSPACE_ALIGNMENT; "
        "see\n * onnxc_model.run_with_workspace. */\n";
  os << "#define " << macro << "_WORKSPACE_SIZE " << meta.workspaceSize
     << "\n\n";
  for (auto [i, t] : enumerate(meta.inputs))
    writeTensorMacros(os, macro, "INPUT", i, t);
  for (auto [i, t] : enumerate(meta.outputs))
    writeTensorMacros(os, macro, "OUTPUT", i, t);

  os << "/* The artifact's entry point: the model's metadata and its run "
        "function\n * (see onnxc/onnxc.h). */\n";
  os << "const onnxc_model *" << options.entrySymbol << "(void);\n\n";
  os << "static inline const onnxc_model *" << prefix << "_model(void) {\n"
     << "  return " << options.entrySymbol << "();\n}\n";

  // The typed run: only when every size is known here, so the caller's
  // buffers are exactly the macros' sizes.
  bool typed = all_of(meta.inputs, isStatic) &&
               all_of(meta.outputs, isStatic) &&
               all_of(meta.inputs, [](auto &t) { return cTypeOf(t.dtype); }) &&
               all_of(meta.outputs, [](auto &t) { return cTypeOf(t.dtype); });
  if (!typed) {
    os << "\n/* No " << prefix << "_run: the model has dynamic dims; call "
       << prefix << "_model()->run. */\n";
  } else {
    // The wrappers' own names are not free for tensors.
    StringSet<> taken;
    for (const char *local :
         {"model", "inputs", "outputs", "workspace", "workspace_size"})
      taken.insert(local);
    std::vector<std::string> ins = parameterNames(meta.inputs, "input", taken);
    std::vector<std::string> outs =
        parameterNames(meta.outputs, "output", taken);
    auto writeRun = [&](bool withWorkspace) {
      if (withWorkspace)
        os << "\n/* " << prefix << "_run with the caller's workspace: " << macro
           << "_WORKSPACE_SIZE bytes aligned\n * to ONNXC_WORKSPACE_ALIGNMENT "
              "(one per concurrent run). Calls no allocator\n * when the "
              "artifact was built with --emit static. */\n";
      else
        os << "\n/* Runs the model. Each input holds <INPUTi>_NUM_ELEMENTS "
              "elements, row-major;\n * each output buffer receives "
              "<OUTPUTi>_NUM_ELEMENTS. Returns an onnxc_status_code;\n"
              " * `err` (may be NULL) receives the message of a failure. */\n";
      os << "static inline int " << prefix
         << (withWorkspace ? "_run_with_workspace(" : "_run(");
      for (auto [i, t] : enumerate(meta.inputs))
        os << "const " << cTypeOf(t.dtype) << " *" << ins[i] << ", ";
      for (auto [i, t] : enumerate(meta.outputs))
        os << cTypeOf(t.dtype) << " *" << outs[i] << ", ";
      if (withWorkspace)
        os << "void *workspace, size_t workspace_size, ";
      os << "onnxc_error *err) {\n";
      os << "  const onnxc_model *model = " << prefix << "_model();\n";
      // memset, not `= {0}`: quiet under -Wextra in both C and C++.
      os << "  onnxc_tensor inputs[" << std::max<size_t>(meta.inputs.size(), 1)
         << "];\n";
      os << "  onnxc_tensor outputs["
         << std::max<size_t>(meta.outputs.size(), 1) << "];\n";
      os << "  memset(inputs, 0, sizeof inputs);\n";
      os << "  memset(outputs, 0, sizeof outputs);\n";
      auto fill = [&](StringRef array, unsigned i, const TensorMeta &t,
                      StringRef param, bool isOutput) {
        std::string e = (array + "[" + Twine(i) + "]").str();
        os << "  " << e << ".data = (void *)" << param << ";\n";
        // The runtime sets an output's shape; it only needs the capacity.
        if (isOutput) {
          os << "  " << e
             << ".size_bytes = " << elementCount(t) * elementBytes(t.dtype)
             << ";\n";
          return;
        }
        os << "  " << e << ".rank = " << t.dims.size() << ";\n";
        os << "  " << e << ".dtype = " << dtypeNames(t.dtype).second << ";\n";
        for (auto [d, dim] : enumerate(t.dims))
          os << "  " << e << ".shape[" << d << "] = " << dim << ";\n";
      };
      for (auto [i, t] : enumerate(meta.inputs))
        fill("inputs", i, t, ins[i], false);
      for (auto [i, t] : enumerate(meta.outputs))
        fill("outputs", i, t, outs[i], true);
      if (withWorkspace)
        os << "  return model->run_with_workspace(model, inputs, "
           << meta.inputs.size() << ", outputs, " << meta.outputs.size()
           << ", workspace, workspace_size, err);\n}\n";
      else
        os << "  return model->run(model, inputs, " << meta.inputs.size()
           << ", outputs, " << meta.outputs.size() << ", err);\n}\n";
    };
    writeRun(/*withWorkspace=*/false);
    writeRun(/*withWorkspace=*/true);
  }

  os << "\n#ifdef __cplusplus\n} /* extern \"C\" */\n#endif\n\n#endif /* "
     << guard << " */\n";
}

} // namespace onnxc
