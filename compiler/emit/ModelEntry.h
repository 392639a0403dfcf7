//===- ModelEntry.h - The artifact's C entry point --------------*- C++ -*-===//
//
// Adds to a translated LLVM module what makes it an onnxc artifact: the model
// metadata and `onnxc_model_entry` (see runtime/include/onnxc/onnxc.h), and the
// `graph_invoke` adapter from the runtime's uniform calling convention to the
// graph function's MLIR C interface.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_COMPILER_EMIT_MODELENTRY_H
#define ONNXC_COMPILER_EMIT_MODELENTRY_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm
namespace mlir {
class ModuleOp;
} // namespace mlir

namespace onnxc {

/// One input or output as the ABI describes it (onnxc_tensor_info).
struct TensorMeta {
  std::string name;
  int32_t dtype = 0;          // onnxc_dtype
  std::vector<int64_t> dims;  // -1 for dynamic
  std::vector<std::string> dimParams;
  /// An output that is a sequence of maps with the same keys (an ONNX
  /// ZipMap), carried as its [N, keys] values: "int64" or "string", and the
  /// keys in column order. Empty for a tensor.
  std::string mapKeyType;
  std::vector<std::string> mapKeys;
};

struct ModelMeta {
  std::string graphName;
  std::vector<TensorMeta> inputs;
  std::vector<TensorMeta> outputs;
  /// The workspace plan (targets/cpu/transforms/PlanWorkspace.cpp): the bytes
  /// one run needs, and the sum of the buffers planned into them. Known only
  /// after lowering; when the workspace is not empty, the graph function
  /// takes its descriptor after the inputs'.
  uint64_t workspaceSize = 0;
  uint64_t plannedBytes = 0;
  /// 0, or the batch of a graph compiled for one image (the module's
  /// onnxc.batch_split): `run` calls it once per image. The tensors' dims
  /// are the batch's: N, or -1 for the run-time batch, its dim 0.
  int32_t batchRuns = 0;
  /// The partitions, one line each ("dnnl: 53 nodes (Conv 53)"), exported
  /// as the string `onnxc_partitions` for `onnxc info`.
  std::string partitions;
  /// --profile: per timer, the node names and op types it reports (the
  /// module's onnxc.profile_nodes, targets/cpu/transforms/InstrumentNodes.cpp).
  /// The counters are the module's `onnxc_profile_ns` global.
  std::vector<std::pair<std::string, std::string>> profileEntries;
};

/// Reads the metadata from the imported (and shape-inferred) module's
/// `main_graph` signature and its onnxc.* attributes.
llvm::Expected<ModelMeta> collectModelMeta(mlir::ModuleOp module);

/// Reads the workspace plan's and the profiler's module attributes (after
/// lowering) into `meta`.
void collectLoweringMeta(mlir::ModuleOp module, ModelMeta &meta);

/// How the entry point is named and what else stays visible.
struct EntryOptions {
  /// When set, the artifact also defines `<name>_model_entry`, the entry
  /// point a generated header declares.
  std::string name;
  /// For an object file linked statically: with a name, `<name>_model_entry`
  /// is the only entry point and every other definition becomes internal, so
  /// several models link into one program without clashing symbols.
  bool staticLink = false;
  /// The host runtime's functions the model struct points at (the host
  /// target's HostEntryFunctions).
  std::string runFunction;
  std::string runWithWorkspaceFunction;
  std::string releaseTensorFunction;
  std::string setNumThreadsFunction;
};

/// The entry point symbol `options` gives (onnxc_model_entry or
/// <name>_model_entry).
std::string entrySymbolName(const EntryOptions &options);

/// Adds the ABI glue to `module`, whose graph function's C interface is
/// `_mlir_ciface_<graphFunction>`, and gives every other definition hidden
/// visibility so the artifact exports only its entry points.
llvm::Error addModelEntry(llvm::Module &module, const ModelMeta &meta,
                          llvm::StringRef graphFunction,
                          const EntryOptions &options = {});

} // namespace onnxc

#endif // ONNXC_COMPILER_EMIT_MODELENTRY_H
