//===- Linker.cpp - Link an artifact with lld, in process -----------------===//

#include "compiler/emit/Linker.h"

#include "lld/Common/Driver.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <string>
#include <vector>

LLD_HAS_DRIVER(elf)

using namespace llvm;

namespace onnxc {

std::string runtimeTargetName(StringRef tripleName) {
  Triple triple(Triple::normalize(
      tripleName.empty() ? sys::getDefaultTargetTriple() : tripleName.str()));
  std::string name = triple.getArchName().str();
  if (!triple.getOSName().empty())
    name += "-" + triple.getOSName().str();
  if (!triple.getEnvironmentName().empty())
    name += "-" + triple.getEnvironmentName().str();
  return name;
}

bool isHostTriple(StringRef triple) {
  // By name without the vendor: x86_64-linux-gnu is x86_64-pc-linux-gnu.
  return triple.empty() || runtimeTargetName(triple) == runtimeTargetName("");
}

Expected<std::string> findRuntimeArchive(const char *argv0, StringRef triple,
                                         StringRef archiveName,
                                         StringRef hostBuildPath,
                                         StringRef crossBuildDir) {
  bool host = isHostTriple(triple);
  std::string subdir = host ? "" : runtimeTargetName(triple);
  auto inFolder = [&](StringRef dir) {
    SmallString<256> path(dir);
    sys::path::append(path, subdir, archiveName);
    return path.str().str();
  };
  std::vector<std::string> candidates;
  if (std::optional<std::string> dir =
          sys::Process::GetEnv("ONNXC_RUNTIME_DIR"))
    candidates.push_back(inFolder(*dir));
  std::string exe = sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&findRuntimeArchive));
  if (!exe.empty()) {
    SmallString<256> installed(
        sys::path::parent_path(sys::path::parent_path(exe)));
    sys::path::append(installed, "lib", "onnxc");
    candidates.push_back(inFolder(installed));
  }
  candidates.push_back(host ? hostBuildPath.str() : inFolder(crossBuildDir));
  for (const std::string &c : candidates)
    if (sys::fs::exists(c))
      return c;
  std::string searched;
  for (const std::string &c : candidates)
    searched += "\n  " + c;
  std::string name = archiveName.str();
  if (host)
    return createStringError(inconvertibleErrorCode(),
                             "cannot find the runtime archive %s (set "
                             "ONNXC_RUNTIME_DIR to the folder that holds "
                             "it); searched:%s",
                             name.c_str(), searched.c_str());
  return createStringError(
      inconvertibleErrorCode(),
      "no runtime for target '%s': onnxc was built without it (add it to "
      "the CMake option ONNXC_CROSS_TARGETS and install %s-gcc), or set "
      "ONNXC_RUNTIME_DIR to a folder with %s/%s; searched:%s",
      subdir.c_str(), subdir.c_str(), subdir.c_str(), name.c_str(),
      searched.c_str());
}

/// lld's -m emulation for a Linux ELF target, or "" if onnxc links none.
static StringRef elfEmulation(const Triple &triple) {
  switch (triple.getArch()) {
  case Triple::x86_64:
    return "elf_x86_64";
  case Triple::aarch64:
    return "aarch64linux";
  case Triple::riscv64:
    return "elf64lriscv";
  default:
    return "";
  }
}

/// Runs lld's ELF driver on `args` (argv[0] included).
static Error runLld(const std::vector<std::string> &args,
                    StringRef outputPath) {
  std::vector<const char *> argv;
  for (const std::string &a : args)
    argv.push_back(a.c_str());
  std::string diagnostics;
  raw_string_ostream errs(diagnostics);
  lld::Result result =
      lld::lldMain(argv, outs(), errs, {{lld::Gnu, &lld::elf::link}});
  if (result.retCode != 0)
    return createStringError(inconvertibleErrorCode(), "linking %s failed: %s",
                             outputPath.str().c_str(), diagnostics.c_str());
  return Error::success();
}

Error linkSharedLibrary(StringRef objectPath, const LinkLibraries &libraries,
                        StringRef outputPath, StringRef tripleName) {
  // --no-mmap-output-file: lld writes the artifact with a few large writes
  // instead of through a mapping, so the page cache holds it in large folios;
  // a model that maps its weights from that cache then faults once per folio
  // instead of once per 16 pages (mlp's first run: 126 -> 20 page faults).
  std::vector<std::string> args = {
      "ld.lld", "-shared", "--gc-sections", "-z", "now", "-z", "relro",
      "--hash-style=gnu", "--build-id=sha1", "--no-mmap-output-file",
      "-soname", llvm::sys::path::filename(outputPath).str(), "-o",
      outputPath.str(),
      objectPath.str()};
  for (const std::string &archive : libraries.archives)
    args.push_back(archive);
  // The targets' shared libraries are needed even when only the runtime
  // archives reference them, hence before --as-needed.
  for (const std::string &dir : libraries.libraryDirs)
    args.push_back("-L" + dir);
  for (const std::string &lib : libraries.sharedLibraries)
    args.push_back("-l" + lib);
  SmallVector<SmallString<128>> temporaries;
  auto removeTemporaries = make_scope_exit([&] {
    for (const SmallString<128> &path : temporaries)
      sys::fs::remove(path);
  });
  if (isHostTriple(tripleName)) {
    // DT_NEEDED for libm (erf, ...) and libc; the multiarch folder is where
    // Debian keeps their link-time stubs.
    for (const char *dir : {"/usr/lib/x86_64-linux-gnu", "/usr/lib64",
                            "/usr/lib/aarch64-linux-gnu", "/usr/lib"})
      if (sys::fs::exists(Twine(dir) + "/libm.so"))
        args.push_back(std::string("-L") + dir);
    args.push_back("--as-needed");
    args.push_back("-lm");
    args.push_back("-lc");
  } else {
    // A foreign target's libm and libc need not be here: lld makes empty
    // shared objects named like them, which the artifact records as needed
    // libraries; its undefined symbols bind to the real ones on the target.
    Triple triple(Triple::normalize(tripleName));
    StringRef emulation = elfEmulation(triple);
    if (!triple.isOSLinux() || emulation.empty())
      return createStringError(inconvertibleErrorCode(),
                               "cannot link a shared library for '%s': onnxc "
                               "links Linux on x86_64, aarch64 and riscv64 "
                               "(use --emit obj for other targets)",
                               triple.str().c_str());
    SmallString<128> script;
    if (std::error_code ec =
            sys::fs::createTemporaryFile("onnxc-empty", "ld", script))
      return errorCodeToError(ec);
    temporaries.push_back(script);
    args.push_back("-m");
    args.push_back(emulation.str());
    args.push_back("--no-as-needed");
    for (const char *soname : {"libm.so.6", "libc.so.6"}) {
      SmallString<128> stub;
      if (std::error_code ec = sys::fs::createTemporaryFile(
              Twine("onnxc-") + soname, "so", stub))
        return errorCodeToError(ec);
      temporaries.push_back(stub);
      if (Error err =
              runLld({"ld.lld", "-m", emulation.str(), "-shared", "-soname",
                      soname, "-o", stub.str().str(), script.str().str()},
                     stub))
        return err;
      args.push_back(stub.str().str());
    }
  }
  return runLld(args, outputPath);
}

} // namespace onnxc
