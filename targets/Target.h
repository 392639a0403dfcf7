//===- Target.h - The interface every code-generation target implements -*-===//
//
// A target (cpu, dnnl, ...) is a plugin behind this one interface. The driver
// (compiler/driver/Compiler.cpp) runs its phases and names no target:
//
//   capability       the partition pass (passes/partition) asks the targets in
//                    the user's priority order which nodes they take; a
//                    refusal carries its reason (--print-partitions)
//   options          each used target accepts the compilation's options
//                    (--emit static, --mtriple) or says why not
//   prepare          each used target's graph-level passes, before any
//                    target replaces the onnx ops
//   partition lower  each target lowers its partitions (functions tagged
//                    `onnxc.target`) to code its host can call: calls into its
//                    runtime, or linalg on tensors
//   device code      each device target moves its partitions into a module of
//                    its own and lowers it to LLVM IR (host code that
//                    launches the device's kernels, with their binaries),
//                    which the driver links into the artifact's module
//   host lower       the host target (cpu) lowers the host graph, which the
//                    host-memory partitions have been inlined into, to the
//                    LLVM dialect, and owns the artifact's entry functions
//   link             each target names what it links into the artifact and
//                    what the artifact then needs at load time
//
// Registration is one line per target in targets/TargetRegistry.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TARGETS_TARGET_H
#define ONNXC_TARGETS_TARGET_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm
namespace mlir {
class ModuleOp;
class OpPassManager;
class Operation;
} // namespace mlir

namespace onnxc {

/// The attribute the partition pass puts on each partition function: the
/// name of the target that lowers it.
inline constexpr llvm::StringLiteral kTargetAttr = "onnxc.target";

/// Where a target's partitions keep their values. Values crossing between
/// different spaces go through an explicit onnxc.Transfer.
enum class MemorySpace {
  Host,  // the host's memory: partitions are inlined into the host graph
  Device // a device's memory: partitions stay functions the host launches
};

llvm::StringRef memorySpaceName(MemorySpace space);

/// Whether a target takes a node, and if not, why.
struct Claim {
  bool taken = false;
  std::string reason; // why not (empty when taken)

  static Claim take() { return {true, {}}; }
  static Claim refuse(std::string why) { return {false, std::move(why)}; }
};

/// What the driver hands every target's phases.
struct LoweringOptions {
  int optLevel = 2;
  /// --emit static: nothing may allocate while the graph runs.
  bool staticMemory = false;
  /// --profile: per-node timers.
  bool profile = false;
  /// The machine host code is compiled for (--mtriple / --mcpu).
  const llvm::TargetMachine *machine = nullptr;
  /// --mtriple as given (empty: the host).
  std::string triple;
  /// How onnxc was started, to find runtime libraries next to it.
  const char *argv0 = "onnxc";
  /// Options meant for one target (`cuda-arch`, `gpu-math`), by name: the
  /// driver passes them through and each target reads its own.
  std::map<std::string, std::string> targetOptions;

  /// The value of target option `name`, or `fallback` when not given.
  llvm::StringRef targetOption(llvm::StringRef name,
                               llvm::StringRef fallback) const {
    auto it = targetOptions.find(name.str());
    return it == targetOptions.end() ? fallback : llvm::StringRef(it->second);
  }
};

/// What a target puts into a shared-library artifact.
struct LinkInputs {
  /// Static archives linked in, in order.
  std::vector<std::string> archives;
  /// Shared libraries the artifact records as needed (-l<name>), and the
  /// folders to find them in at link time.
  std::vector<std::string> sharedLibraries;
  std::vector<std::string> libraryDirs;
};

/// The functions of the host runtime that an artifact's onnxc_model struct
/// points at (runtime/include/onnxc/onnxc.h).
struct HostEntryFunctions {
  std::string run;
  std::string runWithWorkspace;
  std::string releaseTensor;
  std::string setNumThreads;
};

class Target {
public:
  virtual ~Target() = default;

  /// The name users give in --targets (`cpu`, `dnnl`).
  virtual llvm::StringRef name() const = 0;
  /// One line for `onnxc compile --list-targets`.
  virtual llvm::StringRef description() const = 0;

  /// Whether this target takes `op`, an onnx or onnxc node of the optimized
  /// graph with its final types; a refusal says why.
  virtual Claim claim(mlir::Operation *op) const = 0;

  virtual MemorySpace memorySpace() const { return MemorySpace::Host; }

  /// Adds the passes that run on the partitioned module before any target
  /// lowers its partitions (graph-level preparation: layouts, tags that
  /// must see the onnx ops).
  virtual void buildPreparePipeline(mlir::OpPassManager &pm,
                                    const LoweringOptions &options) const {}

  /// Adds the passes that lower this target's partition functions (tagged
  /// kTargetAttr = name()) to ops the host pipeline finishes. They run on
  /// the module, before the host-memory partitions are inlined.
  virtual void buildPartitionPipeline(mlir::OpPassManager &pm,
                                      const LoweringOptions &options) const = 0;

  /// Whether this target can serve a compilation with `options` (e.g. not
  /// --emit static, not a foreign --mtriple); an error says why not.
  virtual llvm::Error checkOptions(const LoweringOptions &options) const {
    return llvm::Error::success();
  }

  /// Device targets: moves this target's partition functions out of
  /// `module` (the host graph then calls declarations taking and returning
  /// host buffers), lowers them to host code that copies the values across
  /// and launches the device's kernels, and returns that as LLVM IR for the
  /// driver to link into the artifact's module. Runs after every partition
  /// pipeline, before the host pipeline. Host-memory targets return null.
  virtual llvm::Expected<std::unique_ptr<llvm::Module>>
  lowerDeviceCode(mlir::ModuleOp module, llvm::LLVMContext &context,
                  const LoweringOptions &options) const;

  /// The archives and libraries a shared-library artifact with partitions
  /// of this target links. An error says what is missing (e.g. no runtime
  /// for --mtriple).
  virtual llvm::Expected<LinkInputs>
  linkInputs(const LoweringOptions &options) const = 0;

  /// What an artifact with this target's partitions needs at load time
  /// beyond libc (for `onnxc info` and the docs), e.g. "libdnnl.so.2".
  virtual std::vector<std::string> loadRequirements() const { return {}; }
};

/// The target that owns the host graph: it lowers what is left after every
/// partition was lowered (its own partitions included, inlined by then) to
/// the LLVM dialect, and provides the artifact's entry functions.
class HostTarget : public Target {
public:
  /// Adds the passes that lower the whole module to the LLVM dialect.
  virtual void buildHostPipeline(mlir::OpPassManager &pm,
                                 const LoweringOptions &options) const = 0;
  /// Rewrites of the LLVM IR after LLVM's optimization pipeline.
  virtual void finalizeLLVMModule(llvm::Module &module) const {}
  virtual HostEntryFunctions entryFunctions() const = 0;
};

/// The target called `name`, or null. Targets are static singletons.
const Target *lookupTarget(llvm::StringRef name);

/// The host target (always a registered target too, and always the implicit
/// last one of a --targets list).
const HostTarget &hostTarget();

/// Every target built into this compiler, in registration order.
std::vector<const Target *> allTargets();

/// The names of all targets built into this compiler.
std::vector<std::string> availableTargets();

/// Adds a target (onnxc-opt's test targets). Not thread-safe: call before
/// any compilation starts.
void registerExtraTarget(std::unique_ptr<Target> target);

/// `names` as targets in priority order, the host target appended when it is
/// not listed. An unknown name is an error naming it and the available
/// targets.
llvm::Expected<std::vector<const Target *>>
resolveTargets(const std::vector<std::string> &names);

} // namespace onnxc

#endif // ONNXC_TARGETS_TARGET_H
