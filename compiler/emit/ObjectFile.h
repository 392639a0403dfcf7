//===- ObjectFile.h - LLVM module -> optimized native object ----*- C++ -*-===//

#ifndef ONNXC_COMPILER_EMIT_OBJECTFILE_H
#define ONNXC_COMPILER_EMIT_OBJECTFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace llvm {
class Module;
class TargetMachine;
class raw_pwrite_stream;
} // namespace llvm

namespace onnxc {

/// A target machine for `triple` (the host when empty) and `cpu` (the host
/// CPU when empty and the triple is the host's, else "generic"), PIC.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(llvm::StringRef triple, llvm::StringRef cpu, int optLevel);

/// Sets the module's triple and data layout and runs LLVM's -O<optLevel>
/// pipeline over it.
void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine,
                    int optLevel);

/// Writes `module` as a native object file.
llvm::Error emitObjectFile(llvm::Module &module, llvm::TargetMachine &machine,
                           llvm::raw_pwrite_stream &os);

} // namespace onnxc

#endif // ONNXC_COMPILER_EMIT_OBJECTFILE_H
