//===- Linker.h - Link an artifact with lld, in process ---------*- C++ -*-===//

#ifndef ONNXC_COMPILER_EMIT_LINKER_H
#define ONNXC_COMPILER_EMIT_LINKER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace onnxc {

/// The runtime archive (libonnxc_rt_cpu.a) that artifacts link: from
/// $ONNXC_RUNTIME_DIR, next to the installed compiler (../lib/onnxc), or in
/// the build tree.
llvm::Expected<std::string> findCpuRuntimeArchive(const char *argv0);

/// Links `objectPath` and the runtime archive into the shared library
/// `outputPath` with lld's ELF driver (no external linker process). For the
/// host it records libm/libc as needed libraries.
llvm::Error linkSharedLibrary(llvm::StringRef objectPath,
                              llvm::StringRef runtimeArchive,
                              llvm::StringRef outputPath, bool forHost);

} // namespace onnxc

#endif // ONNXC_COMPILER_EMIT_LINKER_H
