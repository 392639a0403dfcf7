//===- CHeader.h - The generated C header of an artifact --------*- C++ -*-===//
//
// `onnxc compile --header m.h` writes a C header that describes one compiled
// model: its name, the names, dtypes and dims of its inputs and outputs as
// macros, the declaration of its entry point, and, for a model whose shapes
// are all static, a typed `<prefix>_run` over caller-provided buffers. A C
// program that links the artifact calls the model through it without any
// lookup.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_COMPILER_EMIT_CHEADER_H
#define ONNXC_COMPILER_EMIT_CHEADER_H

#include "compiler/emit/ModelEntry.h"

#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace onnxc {

struct CHeaderOptions {
  /// A C identifier that starts every name the header defines.
  std::string prefix;
  /// The artifact's entry point symbol (onnxc_model_entry or
  /// <name>_model_entry).
  std::string entrySymbol;
  /// Named in the header's comment.
  std::string modelPath;
  std::string artifactPath;
  /// What an object file links besides itself ("libonnxc_rt_cpu.a, libm").
  std::string linkLibraries;
};

/// Whether `name` is a C identifier (what --name and header prefixes must be).
bool isCIdentifier(llvm::StringRef name);

/// Writes the header for `meta`.
void writeCHeader(const ModelMeta &meta, const CHeaderOptions &options,
                  llvm::raw_ostream &os);

} // namespace onnxc

#endif // ONNXC_COMPILER_EMIT_CHEADER_H
