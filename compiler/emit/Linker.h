//===- Linker.h - Link an artifact with lld, in process ---------*- C++ -*-===//

#ifndef ONNXC_COMPILER_EMIT_LINKER_H
#define ONNXC_COMPILER_EMIT_LINKER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace onnxc {

/// The name of `triple`'s runtime folder: <arch>-<os>-<environment>, the
/// triple without its vendor, as Debian spells cross triples
/// ("aarch64-linux-gnu" for aarch64-unknown-linux-gnu). Empty is the host.
std::string runtimeTargetName(llvm::StringRef triple);

/// Whether `triple` (empty: the host) names the machine onnxc runs on.
bool isHostTriple(llvm::StringRef triple);

/// A runtime archive named `archiveName` for `triple` (empty: the host).
/// The host's is in $ONNXC_RUNTIME_DIR, next to the installed compiler
/// (../lib/onnxc) or at `hostBuildPath` in the build tree; a foreign
/// target's is in the <runtimeTargetName> subfolder of the same places
/// (`crossBuildDir` in the build tree). An error names the places searched.
llvm::Expected<std::string> findRuntimeArchive(const char *argv0,
                                               llvm::StringRef triple,
                                               llvm::StringRef archiveName,
                                               llvm::StringRef hostBuildPath,
                                               llvm::StringRef crossBuildDir);

/// What the targets of an artifact link into it.
struct LinkLibraries {
  std::vector<std::string> archives;        // linked in, in order
  std::vector<std::string> sharedLibraries; // -l<name>: needed at load time
  std::vector<std::string> libraryDirs;     // -L<dir>
};

/// Links `objectPath` and `libraries` into the shared library `outputPath`
/// for `triple` with lld's ELF driver (no external linker process, any
/// target). libm and libc become needed libraries: for the host from its own
/// link-time libraries, for a foreign target from stubs onnxc makes, so
/// cross-linking needs no target sysroot.
llvm::Error linkSharedLibrary(llvm::StringRef objectPath,
                              const LinkLibraries &libraries,
                              llvm::StringRef outputPath,
                              llvm::StringRef triple);

} // namespace onnxc

#endif // ONNXC_COMPILER_EMIT_LINKER_H
