//===- Linker.h - Link an artifact with lld, in process ---------*- C++ -*-===//

#ifndef ONNXC_COMPILER_EMIT_LINKER_H
#define ONNXC_COMPILER_EMIT_LINKER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace onnxc {

/// The name of `triple`'s runtime folder: <arch>-<os>-<environment>, the
/// triple without its vendor, as Debian spells cross triples
/// ("aarch64-linux-gnu" for aarch64-unknown-linux-gnu). Empty is the host.
std::string runtimeTargetName(llvm::StringRef triple);

/// Whether `triple` (empty: the host) names the machine onnxc runs on.
bool isHostTriple(llvm::StringRef triple);

/// The runtime archive (libonnxc_rt_cpu.a) that artifacts for `triple` link.
/// The host's is in $ONNXC_RUNTIME_DIR, next to the installed compiler
/// (../lib/onnxc) or in the build tree; a foreign target's is in the
/// <runtimeTargetName> subfolder of the same places. An error names the
/// places searched when there is none.
llvm::Expected<std::string> findCpuRuntimeArchive(const char *argv0,
                                                  llvm::StringRef triple);

/// Links `objectPath`, the runtime archive and the libgcc.a next to it (if
/// any) into the shared library `outputPath` for `triple` with lld's ELF
/// driver (no external linker process, any target). libm and libc become needed libraries: for the host
/// from its own link-time libraries, for a foreign target from stubs onnxc
/// makes, so cross-linking needs no target sysroot.
llvm::Error linkSharedLibrary(llvm::StringRef objectPath,
                              llvm::StringRef runtimeArchive,
                              llvm::StringRef outputPath,
                              llvm::StringRef triple);

} // namespace onnxc

#endif // ONNXC_COMPILER_EMIT_LINKER_H
