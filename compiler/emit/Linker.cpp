//===- Linker.cpp - Link an artifact with lld, in process -----------------===//

#include "compiler/emit/Linker.h"

#include "runtime/RuntimePaths.h"

#include "lld/Common/Driver.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

LLD_HAS_DRIVER(elf)

using namespace llvm;

namespace onnxc {

static constexpr const char *kArchiveName = "libonnxc_rt_cpu.a";

Expected<std::string> findCpuRuntimeArchive(const char *argv0) {
  std::vector<std::string> candidates;
  if (std::optional<std::string> dir =
          sys::Process::GetEnv("ONNXC_RUNTIME_DIR"))
    candidates.push_back((*dir + "/" + kArchiveName));
  std::string exe = sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&findCpuRuntimeArchive));
  if (!exe.empty()) {
    SmallString<256> installed(sys::path::parent_path(sys::path::parent_path(exe)));
    sys::path::append(installed, "lib", "onnxc", kArchiveName);
    candidates.push_back(installed.str().str());
  }
  candidates.push_back(ONNXC_RT_CPU_ARCHIVE_BUILD_PATH);
  for (const std::string &c : candidates)
    if (sys::fs::exists(c))
      return c;
  return createStringError(inconvertibleErrorCode(),
                           "cannot find the runtime archive %s (set "
                           "ONNXC_RUNTIME_DIR to the folder that holds it)",
                           kArchiveName);
}

Error linkSharedLibrary(StringRef objectPath, StringRef runtimeArchive,
                        StringRef outputPath, bool forHost) {
  std::vector<std::string> args = {
      "ld.lld", "-shared", "--gc-sections", "-z", "now", "-z", "relro",
      "--hash-style=gnu", "--build-id=sha1",
      "-soname", llvm::sys::path::filename(outputPath).str(), "-o",
      outputPath.str(),
      objectPath.str(), runtimeArchive.str()};
  if (forHost) {
    // DT_NEEDED for libm (erf, ...) and libc; the multiarch folder is where
    // Debian keeps their link-time stubs.
    for (const char *dir : {"/usr/lib/x86_64-linux-gnu", "/usr/lib64",
                            "/usr/lib/aarch64-linux-gnu", "/usr/lib"})
      if (sys::fs::exists(Twine(dir) + "/libm.so"))
        args.push_back(std::string("-L") + dir);
    args.push_back("--as-needed");
    args.push_back("-lm");
    args.push_back("-lc");
  }
  std::vector<const char *> argv;
  for (const std::string &a : args)
    argv.push_back(a.c_str());

  std::string diagnostics;
  raw_string_ostream errs(diagnostics);
  lld::Result result = lld::lldMain(argv, outs(), errs,
                                    {{lld::Gnu, &lld::elf::link}});
  if (result.retCode != 0)
    return createStringError(inconvertibleErrorCode(), "linking %s failed: %s",
                             outputPath.str().c_str(), diagnostics.c_str());
  return Error::success();
}

} // namespace onnxc
