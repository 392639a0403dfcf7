//===- Compiler.cpp - The onnxc compilation pipeline ----------------------===//
//
// The whole path from a .onnx file to an artifact, top to bottom:
//
//   import           compiler/import     ModelProto -> onnx dialect
//   (onnxc optimize stops after the graph optimizer: compiler/export writes
//    the optimized graph back as an ONNX model)
//   shape inference  compiler/dialect    ranked types for every value
//   batch split      passes/graph        a graph that keeps its images apart
//                                        is compiled for one image, run once
//                                        per image of the batch, fixed or
//                                        at run time (runtime/cpu/Run.c)
//   graph optimizer  passes/             by -O level (OptimizationPipeline)
//   partition        passes/partition    each node -> the first target that
//                                        claims it (the host target last);
//                                        runs of one target -> functions
//   partition lower  targets/<name>      each target lowers its partitions
//   inline           passes/partition    host-memory partitions back into
//                                        main_graph
//   host lower       targets/<host>      the rest -> LLVM dialect
//   LLVM IR          compiler/emit       + the ABI entry point, -O pipeline
//   object file      compiler/emit       for --mtriple/--mcpu (host default)
//   shared library   compiler/emit       lld, in process, with the runtimes
//                                        of the targets the partitions use
//
//===----------------------------------------------------------------------===//

#include "compiler/driver/Compiler.h"

#include "compiler/dialect/OnnxDialect.h"
#include "compiler/dialect/ShapeInference.h"
#include "compiler/driver/Progress.h"
#include "compiler/emit/CHeader.h"
#include "compiler/emit/Linker.h"
#include "compiler/emit/ModelEntry.h"
#include "compiler/emit/ObjectFile.h"
#include "compiler/export/OnnxExporter.h"
#include "compiler/import/Importer.h"
#include "passes/OptimizationPipeline.h"
#include "passes/Passes.h"
#include "passes/RewriteCounts.h"
#include "passes/graph/BatchSplit.h"
#include "passes/graph/GraphUtils.h"
#include "targets/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <map>
#include <set>
#include <string>

using namespace mlir;

namespace onnxc {
namespace {

void printError(const llvm::Twine &message) {
  clearProgress();
  llvm::errs() << "onnxc: error: " << message << "\n";
}

/// "node 'name'" for a node's location, the file for a file location.
void describeLocation(Location loc, llvm::raw_ostream &os) {
  if (auto name = llvm::dyn_cast<NameLoc>(loc)) {
    if (auto file = llvm::dyn_cast<FileLineColLoc>(name.getChildLoc()))
      os << file.getFilename().getValue() << ": ";
    os << "node '" << name.getName().getValue() << "': ";
  } else if (auto file = llvm::dyn_cast<FileLineColLoc>(loc)) {
    os << file.getFilename().getValue() << ": ";
  } else if (auto fused = llvm::dyn_cast<FusedLoc>(loc)) {
    if (!fused.getLocations().empty())
      describeLocation(fused.getLocations().front(), os);
  } else if (auto callSite = llvm::dyn_cast<CallSiteLoc>(loc)) {
    describeLocation(callSite.getCallee(), os);
  }
}

/// Prints diagnostics as one `onnxc: error: <file>: node '<n>': <message>`
/// line each, the format scripts match on.
class CliDiagnostics {
public:
  explicit CliDiagnostics(MLIRContext &ctx)
      : handler(ctx.getDiagEngine().registerHandler(
            [this](Diagnostic &diag) { return report(diag); })),
        ctx(ctx) {}
  ~CliDiagnostics() { ctx.getDiagEngine().eraseHandler(handler); }

private:
  LogicalResult report(Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Remark)
      return success();
    clearProgress();
    std::string text;
    llvm::raw_string_ostream os(text);
    os << (diag.getSeverity() == DiagnosticSeverity::Error ? "error: "
                                                          : "warning: ");
    describeLocation(diag.getLocation(), os);
    os << diag.str();
    llvm::errs() << "onnxc: " << text << "\n";
    for (Diagnostic &note : diag.getNotes()) {
      llvm::errs() << "onnxc: note: ";
      describeLocation(note.getLocation(), llvm::errs());
      llvm::errs() << note.str() << "\n";
    }
    return success();
  }

  DiagnosticEngine::HandlerID handler;
  MLIRContext &ctx;
};

/// Writes `text` to `path` ("-" is stdout) without leaving a partial file.
bool writeOutput(llvm::StringRef path,
                 llvm::function_ref<void(llvm::raw_ostream &)> write) {
  if (path == "-") {
    clearProgress();
    write(llvm::outs());
    return true;
  }
  std::string error;
  auto file = mlir::openOutputFile(path, &error);
  if (!file) {
    printError(path + ": " + error);
    return false;
  }
  write(file->os());
  file->keep();
  return true;
}

std::string defaultOutputPath(const CompilerOptions &options) {
  llvm::SmallString<256> path(options.modelPath);
  const char *ext =
      options.emit == EmitKind::Lib ? ".so"
      : options.emit == EmitKind::Obj || options.emit == EmitKind::Static ? ".o"
      : options.emit == EmitKind::Llvm ? ".ll"
                                       : ".mlir";
  llvm::sys::path::replace_extension(path, ext);
  return path.str().str();
}

/// The model file as the onnx dialect with every value's shape inferred,
/// `shapes` fixing the inputs'.
OwningOpRef<ModuleOp> importAndInferShapes(
    MLIRContext &ctx, const CompilerOptions &options,
    const std::map<std::string, std::vector<int64_t>> &shapes) {
  ImportOptions importOptions;
  importOptions.inputShapes = shapes;
  OwningOpRef<ModuleOp> module =
      importOnnxModel(ctx, options.modelPath, importOptions);
  if (!module)
    return nullptr;
  PassManager shapePm(&ctx);
  shapePm.addNestedPass<func::FuncOp>(createShapeInferencePass());
  progressPhase("inferring shapes");
  if (failed(shapePm.run(*module)))
    return nullptr;
  return module;
}

/// How the inputs of a graph lead with a batch that may be split: one that
/// --shape set over a dim 0 the model left open (Fixed), or a dim 0 the
/// model leaves open until run time, the only dynamic dim of every input
/// and the same symbol in all of them (Open).
struct InputBatch {
  enum Kind { None, Fixed, Open } kind = None;
  /// Open: the symbol of dim 0 ("" for a single input's unnamed dim).
  std::string dimName;
  /// None: why not.
  std::string whyNot;
};

InputBatch inputBatchOf(func::FuncOp graph) {
  InputBatch batch;
  bool fixed = true, open = true;
  std::string openWhyNot;
  for (auto [i, type] : llvm::enumerate(graph.getArgumentTypes())) {
    auto name = graph.getArgAttrOfType<StringAttr>(i, "onnxc.name");
    auto ranked = llvm::dyn_cast<RankedTensorType>(type);
    if (!name || !ranked || ranked.getRank() == 0) {
      batch.whyNot = "an input is not a ranked tensor";
      return batch;
    }
    // The batch must come from --shape, over a dim 0 the model left open:
    // a model's own static batch may be spelled in its value infos too.
    fixed &= graph.getArgAttr(i, "onnxc.open_batch") != nullptr;
    std::string dimName;
    if (auto params = graph.getArgAttrOfType<ArrayAttr>(i, "onnxc.dim_params"))
      if (auto param = llvm::dyn_cast<StringAttr>(params[0]))
        dimName = param.str();
    if (open && !ranked.isDynamicDim(0)) {
      open = false;
      openWhyNot = "dim 0 of input '" + name.str() +
                   "' is static in the model; --shape sets a batch over a "
                   "dynamic one";
    } else if (open &&
               llvm::count_if(ranked.getShape(), ShapedType::isDynamic) != 1) {
      open = false;
      openWhyNot = "input '" + name.str() + "' has a dynamic dim besides dim 0";
    } else if (open && i > 0 && (dimName.empty() || dimName != batch.dimName)) {
      // Unrelated batches could differ at run time; the split needs one.
      open = false;
      openWhyNot = "the inputs do not name one dim 0";
    }
    if (i == 0)
      batch.dimName = dimName;
  }
  batch.kind = fixed  ? InputBatch::Fixed
               : open ? InputBatch::Open
                      : InputBatch::None;
  if (batch.kind == InputBatch::None)
    batch.whyNot = openWhyNot;
  return batch;
}

/// The shapes of `graph`'s inputs with dim 0 set to `batch`, as --shape
/// gives them.
std::map<std::string, std::vector<int64_t>> shapesWithBatch(func::FuncOp graph,
                                                            int64_t batch) {
  std::map<std::string, std::vector<int64_t>> shapes;
  for (auto [i, type] : llvm::enumerate(graph.getArgumentTypes())) {
    auto name = graph.getArgAttrOfType<StringAttr>(i, "onnxc.name");
    auto ranked = llvm::cast<RankedTensorType>(type);
    std::vector<int64_t> dims(ranked.getShape().begin(),
                              ranked.getShape().end());
    dims[0] = batch;
    shapes[name.str()] = dims;
  }
  return shapes;
}

/// When the graph of `module` may run image by image
/// (passes/graph/BatchSplit.h): the same model imported for one image, its
/// module marked with the batch (`onnxc.batch_split`: N, or -1 for the
/// run-time dim 0 named `onnxc.batch_dim`), which the artifact's metadata
/// keeps. Else `module` itself.
OwningOpRef<ModuleOp> splitBatch(MLIRContext &ctx,
                                 const CompilerOptions &options,
                                 OwningOpRef<ModuleOp> module) {
  auto graph = module->lookupSymbol<func::FuncOp>("main_graph");
  if (!graph)
    return module;
  auto report = [&](const std::string &line) {
    if (options.printPassStats)
      llvm::errs() << "onnxc: batch split: " << line << "\n";
  };
  InputBatch inputs = inputBatchOf(graph);
  if (inputs.kind == InputBatch::None) {
    report("no (" + inputs.whyNot + ")");
    return module;
  }
  // The check follows dim 0 by its size: an open batch is checked on the
  // model imported again with a stand-in batch of 2. A model that will not
  // import so is not split; its errors stay quiet, since the model itself
  // imported.
  OwningOpRef<ModuleOp> probe;
  func::FuncOp checked = graph;
  bool open = inputs.kind == InputBatch::Open;
  if (open) {
    // Spare the import (1.7 s of BERT-base's 12) when the check would
    // refuse anyway.
    std::string whyNot;
    if (!mayBatchSplit(graph, whyNot)) {
      report("no (" + whyNot + ")");
      return module;
    }
    ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
    probe = importAndInferShapes(ctx, options, shapesWithBatch(graph, 2));
    if (!probe) {
      report("no (the model does not import with a batch of 2)");
      return module;
    }
    checked = probe->lookupSymbol<func::FuncOp>("main_graph");
  }
  std::string whyNot;
  int64_t batch = batchSplitCount(checked, open, whyNot);
  if (batch <= 1) {
    report("no (" + whyNot + ")");
    return module;
  }
  OwningOpRef<ModuleOp> split =
      importAndInferShapes(ctx, options, shapesWithBatch(graph, 1));
  if (!split)
    return nullptr;
  split->getOperation()->setAttr(
      "onnxc.batch_split",
      IntegerAttr::get(IntegerType::get(&ctx, 64), open ? -1 : batch));
  if (open)
    split->getOperation()->setAttr("onnxc.batch_dim",
                                   StringAttr::get(&ctx, inputs.dimName));
  report(open ? "one run per image of the run-time dim 0" +
                    (inputs.dimName.empty() ? std::string()
                                            : " ('" + inputs.dimName + "')")
              : std::to_string(batch) + " runs of one image");
  return split;
}

/// --print-pass-stats: one line per pass, its counters summed over the
/// pass's runs.
void printRewriteCounts(const std::vector<RewriteCount> &counts) {
  for (size_t i = 0; i < counts.size(); ++i) {
    if (i == 0 || counts[i].pass != counts[i - 1].pass)
      llvm::errs() << (i ? "\n" : "") << "onnxc: pass " << counts[i].pass
                   << ":";
    llvm::errs() << " " << counts[i].count << " " << counts[i].counter;
  }
  if (!counts.empty())
    llvm::errs() << "\n";
}

/// The graph optimizer of `options.optLevel` on `module`; prints what it
/// did with --print-pass-stats.
OwningOpRef<ModuleOp> optimizeGraph(MLIRContext &ctx,
                                    const CompilerOptions &options,
                                    OwningOpRef<ModuleOp> module) {

  auto countModuleNodes = [&] {
    int64_t count = 0;
    for (auto func : module->getOps<func::FuncOp>())
      count += countNodes(func);
    return count;
  };
  // Nodes by op name: what the fusions made and consumed shows as the change
  // between before and after.
  auto countByOp = [&] {
    std::map<std::string, int64_t> counts;
    module->walk([&](Operation *op) {
      if ((llvm::isa<onnx::ONNXDialect>(op->getDialect()) ||
           op->getDialect()->getNamespace() == "onnxc") &&
          !llvm::isa<onnx::NoValueOp>(op))
        ++counts[op->getName().getStringRef().str()];
    });
    return counts;
  };
  int64_t nodesBefore = countModuleNodes();
  std::map<std::string, int64_t> opsBefore;
  if (options.printPassStats)
    opsBefore = countByOp();
  PassManager optPm(&ctx);
  buildGraphOptimizationPipeline(optPm, options.optLevel);
  attachProgress(optPm, "optimizing the graph");
  if (options.printPassStats)
    startCollectingRewriteCounts();
  LogicalResult optimized = optPm.run(*module);
  std::vector<RewriteCount> counts = takeRewriteCounts();
  if (failed(optimized))
    return nullptr;
  if (options.printPassStats) {
    printRewriteCounts(counts);
    llvm::errs() << "onnxc: graph optimizer -O" << options.optLevel << ": "
                 << nodesBefore << " nodes before, " << countModuleNodes()
                 << " after\n";
    std::map<std::string, int64_t> opsAfter = countByOp();
    std::set<std::string> names;
    for (const auto &[name, count] : opsBefore)
      names.insert(name);
    for (const auto &[name, count] : opsAfter)
      names.insert(name);
    std::string changes;
    for (const std::string &name : names) {
      int64_t before = opsBefore[name], after = opsAfter[name];
      if (before != after)
        changes += " " + name + " " + std::to_string(before) + "->" +
                   std::to_string(after) + ";";
    }
    if (!changes.empty())
      llvm::errs() << "onnxc: ops changed:" << changes << "\n";
  }
  return module;
}

/// Everything from the model file to the optimized graph: import, shape
/// inference, the graph optimizer of `options.optLevel`. With `allowSplit`
/// (an artifact, not `onnxc optimize`'s ONNX model), a graph that may run
/// image by image is compiled for one image (splitBatch).
OwningOpRef<ModuleOp> importAndOptimize(MLIRContext &ctx,
                                        const CompilerOptions &options,
                                        bool allowSplit = false) {
  OwningOpRef<ModuleOp> module =
      importAndInferShapes(ctx, options, options.inputShapes);
  if (module && allowSplit && options.batchSplit && options.optLevel >= 1)
    module = splitBatch(ctx, options, std::move(module));
  if (!module)
    return nullptr;
  return optimizeGraph(ctx, options, std::move(module));
}

/// The prefix of the header's names: --name, else the header file's stem made
/// an identifier.
std::string headerPrefix(const CompilerOptions &options) {
  if (!options.name.empty())
    return options.name;
  std::string prefix;
  for (char c : llvm::sys::path::stem(options.headerPath))
    prefix += llvm::isAlnum(c) ? c : '_';
  if (prefix.empty() || llvm::isDigit(prefix.front()))
    prefix.insert(0, "model_");
  return prefix;
}

/// Checks the options that name things before any work is done.
bool checkNamingOptions(const CompilerOptions &options) {
  if (!options.name.empty() && !isCIdentifier(options.name)) {
    printError("--name '" + options.name +
               "': expected a C identifier (letters, digits, '_')");
    return false;
  }
  if (!options.headerPath.empty() &&
      (options.emit == EmitKind::Onnx || options.emit == EmitKind::Mlir)) {
    printError("--header needs --emit llvm, obj or lib");
    return false;
  }
  return true;
}

} // namespace

bool optimizeModel(const CompilerOptions &options) {
  DialectRegistry registry;
  registerAllDialects(registry);
  registry.insert<onnx::ONNXDialect>();
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  ctx.printOpOnDiagnostic(false);
  CliDiagnostics diagnostics(ctx);

  if (options.outputPath.empty() || options.outputPath == "-") {
    printError("onnxc optimize needs an output file (-o OPTIMIZED.onnx)");
    return false;
  }
  bool same = options.outputPath == options.modelPath;
  if (!same && llvm::sys::fs::exists(options.outputPath))
    llvm::sys::fs::equivalent(options.outputPath, options.modelPath, same);
  if (same) {
    printError(options.outputPath + ": the output would overwrite the model");
    return false;
  }
  OwningOpRef<ModuleOp> module = importAndOptimize(ctx, options);
  if (!module)
    return false;
  return succeeded(exportOnnxModel(*module, options.outputPath));
}

/// Drops the importer's `onnxc.*` argument and result attributes (the model
/// metadata, already collected) from the lowered functions: `onnxc` is also
/// the fused-op dialect's namespace, so the LLVM IR translation would take
/// them for that dialect's attributes and warn that it cannot translate them.
static void dropOnnxcFunctionAttrs(ModuleOp module) {
  auto isOnnxc = [](NamedAttribute attr) {
    return attr.getName().getValue().starts_with("onnxc.");
  };
  module.walk([&](FunctionOpInterface func) {
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      for (NamedAttribute attr : llvm::to_vector(func.getArgAttrs(i)))
        if (isOnnxc(attr))
          func.removeArgAttr(i, attr.getName());
    for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
      for (NamedAttribute attr : llvm::to_vector(func.getResultAttrs(i)))
        if (isOnnxc(attr))
          func.removeResultAttr(i, attr.getName());
  });
}

namespace {

/// The targets of `options.targets` in priority order, the host last; an
/// unknown name is reported.
std::optional<std::vector<const Target *>>
targetsInOrder(const CompilerOptions &options) {
  llvm::Expected<std::vector<const Target *>> order =
      resolveTargets(options.targets);
  if (!order) {
    printError(llvm::toString(order.takeError()));
    return std::nullopt;
  }
  return std::move(*order);
}

/// The targets that own a partition of the partitioned `module`.
std::vector<const Target *> targetsUsed(ModuleOp module,
                                        llvm::ArrayRef<const Target *> order) {
  std::vector<const Target *> used;
  for (const Target *target : order)
    for (auto func : module.getOps<func::FuncOp>())
      if (auto name = func->getAttrOfType<StringAttr>(kTargetAttr))
        if (name.getValue() == target->name()) {
          used.push_back(target);
          break;
        }
  return used;
}

/// Every target's preparation (the host's too), every partition lowered by
/// its target, the device targets' partitions moved out and lowered to LLVM
/// IR (`deviceCode`), the host-memory ones inlined, and the whole module
/// lowered to the LLVM dialect by the host target.
bool lowerToLLVMDialect(
    ModuleOp module, llvm::ArrayRef<const Target *> used,
    const LoweringOptions &lowering, llvm::LLVMContext &llvmCtx,
    std::vector<std::unique_ptr<llvm::Module>> &deviceCode) {
  PassManager partitions(module.getContext());
  std::vector<const Target *> preparing(used.begin(), used.end());
  if (!llvm::is_contained(preparing, &hostTarget()))
    preparing.push_back(&hostTarget());
  for (const Target *target : preparing)
    target->buildPreparePipeline(partitions, lowering);
  for (const Target *target : used)
    target->buildPartitionPipeline(partitions, lowering);
  attachProgress(partitions, "preparing the partitions");
  if (failed(partitions.run(module)))
    return false;

  for (const Target *target : used) {
    if (target->memorySpace() == MemorySpace::Device)
      progressPhase(("compiling the " + target->name() + " partitions").str());
    llvm::Expected<std::unique_ptr<llvm::Module>> code =
        target->lowerDeviceCode(module, llvmCtx, lowering);
    if (!code) {
      printError("target '" + target->name().str() +
                 "': " + llvm::toString(code.takeError()));
      return false;
    }
    if (*code)
      deviceCode.push_back(std::move(*code));
  }

  PassManager host(module.getContext());
  host.addPass(createInlineHostPartitionsPass());
  hostTarget().buildHostPipeline(host, lowering);
  attachProgress(host, "lowering");
  return succeeded(host.run(module));
}

/// Every used target accepts the options (--emit static, --mtriple...).
bool checkTargetOptions(llvm::ArrayRef<const Target *> used,
                        const LoweringOptions &lowering) {
  for (const Target *target : used)
    if (llvm::Error err = target->checkOptions(lowering)) {
      printError("target '" + target->name() +
                 "': " + llvm::toString(std::move(err)));
      return false;
    }
  return true;
}

/// What the artifact links: every used target's runtime, the host's last
/// (the other runtimes call into it). With `report`, an error is printed.
std::optional<LinkLibraries>
collectLinkLibraries(llvm::ArrayRef<const Target *> used,
                     const LoweringOptions &lowering, bool report) {
  std::vector<const Target *> linked(used.begin(), used.end());
  if (!llvm::is_contained(linked, &hostTarget()))
    linked.push_back(&hostTarget());
  std::stable_partition(linked.begin(), linked.end(), [](const Target *t) {
    return t != &hostTarget();
  });
  LinkLibraries libraries;
  for (const Target *target : linked) {
    llvm::Expected<LinkInputs> inputs = target->linkInputs(lowering);
    if (!inputs) {
      std::string message = llvm::toString(inputs.takeError());
      // The host's runtime is every artifact's: its errors need no prefix.
      if (report)
        printError((target == &hostTarget()
                        ? std::string()
                        : "target '" + target->name().str() + "': ") +
                   message);
      return std::nullopt;
    }
    llvm::append_range(libraries.archives, inputs->archives);
    llvm::append_range(libraries.sharedLibraries, inputs->sharedLibraries);
    llvm::append_range(libraries.libraryDirs, inputs->libraryDirs);
  }
  return libraries;
}

/// The module's partition summaries (passes/Passes.h kPartitionsAttr), one
/// per line.
std::string partitionSummaries(ModuleOp module) {
  std::string text;
  if (auto lines = module->getAttrOfType<ArrayAttr>(kPartitionsAttr))
    for (auto line : lines.getAsValueRange<StringAttr>())
      text += line.str() + "\n";
  return text;
}

} // namespace

bool compileModel(const CompilerOptions &options) {
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  registry.insert<onnx::ONNXDialect>();
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  // Diagnostics name the node; the op's IR would only bury that line.
  ctx.printOpOnDiagnostic(false);
  CliDiagnostics diagnostics(ctx);

  std::string outputPath =
      options.outputPath.empty() ? defaultOutputPath(options) : options.outputPath;
  if (outputPath == options.modelPath) {
    printError(outputPath + ": the output would overwrite the model");
    return false;
  }
  if (!checkNamingOptions(options))
    return false;
  std::optional<std::vector<const Target *>> order = targetsInOrder(options);
  if (!order)
    return false;
  bool emitStatic = options.emit == EmitKind::Static;
  if (emitStatic && options.profile) {
    // Its timers are runtime calls, and a static artifact runs without
    // the runtime's thread pool and scratch memory; profile the shared
    // library of the same model instead.
    printError("--profile does not apply to --emit static; profile the "
               "shared library (--emit lib) of the same model");
    return false;
  }
  EntryOptions entryOptions;
  HostEntryFunctions host = hostTarget().entryFunctions();
  entryOptions.runFunction = host.run;
  entryOptions.runWithWorkspaceFunction = host.runWithWorkspace;
  entryOptions.releaseTensorFunction = host.releaseTensor;
  entryOptions.setNumThreadsFunction = host.setNumThreads;
  entryOptions.name = options.name;
  entryOptions.staticLink = options.emit == EmitKind::Obj || emitStatic;
  // A static artifact always comes with its header (next to the object
  // unless --header says where).
  std::string headerPath = options.headerPath;
  if (emitStatic && headerPath.empty()) {
    llvm::SmallString<256> path(outputPath);
    llvm::sys::path::replace_extension(path, ".h");
    headerPath = path.str().str();
  }

  // Import.
  if (options.emit == EmitKind::Onnx) {
    ImportOptions importOptions;
    importOptions.inputShapes = options.inputShapes;
    OwningOpRef<ModuleOp> module =
        importOnnxModel(ctx, options.modelPath, importOptions);
    if (!module)
      return false;
    return writeOutput(outputPath, [&](llvm::raw_ostream &os) {
      module->print(os);
      os << "\n";
    });
  }

  // Import, shape inference, the graph optimizer; then partitioning.
  enableProgress(options.progress);
  auto endProgress = llvm::make_scope_exit([] { clearProgress(); });
  progressPhase("importing the model");
  OwningOpRef<ModuleOp> module =
      importAndOptimize(ctx, options, /*allowSplit=*/true);
  if (!module)
    return false;
  // The partition report prints to stdout: no status line over it.
  clearProgress();
  PassManager graphPm(&ctx);
  // 8-bit convolution chains onto NHWC, which every target's int8 kernels
  // want: before partitioning, so that a region spans the targets (from
  // the extended level on, where QDQ becomes QLinearConv; not for --emit
  // static, whose convolutions are loops on NCHW).
  if (options.optLevel >= 2 && options.emit != EmitKind::Static)
    graphPm.addNestedPass<func::FuncOp>(createQuantizedChannelsLast());
  PartitionReportOptions report;
  report.print = options.printPartitions;
  report.graphFile = options.partitionGraphPath;
  graphPm.addPass(createPartitionPass(options.targets, report));
  if (options.printPassStats)
    startCollectingRewriteCounts();
  LogicalResult partitioned = graphPm.run(*module);
  std::vector<RewriteCount> layoutCounts = takeRewriteCounts();
  if (failed(partitioned))
    return false;
  if (options.printPassStats)
    printRewriteCounts(layoutCounts);
  std::vector<const Target *> used = targetsUsed(*module, *order);
  if (options.emit == EmitKind::Mlir)
    return writeOutput(outputPath, [&](llvm::raw_ostream &os) {
      module->print(os);
      os << "\n";
    });
  llvm::Expected<ModelMeta> meta = collectModelMeta(*module);
  if (!meta) {
    printError(options.modelPath + ": " + llvm::toString(meta.takeError()));
    return false;
  }
  meta->partitions = partitionSummaries(*module);
  if (emitStatic) {
    // The workspace size is fixed at compile time: every shape must be.
    for (const auto *tensors : {&meta->inputs, &meta->outputs})
      for (const TensorMeta &t : *tensors)
        for (auto [d, dim] : llvm::enumerate(t.dims))
          if (dim < 0) {
            bool isInput = tensors == &meta->inputs;
            std::string message = options.modelPath +
                                  ": --emit static needs static shapes, but " +
                                  (isInput ? "input '" : "output '") + t.name +
                                  "' has a dynamic dim " + std::to_string(d);
            if (!t.dimParams[d].empty())
              message += " ('" + t.dimParams[d] + "')";
            if (isInput)
              message += "; fix it with --shape " + t.name + "=...";
            printError(message);
            return false;
          }
  }
  // What the artifact links (known once the target machine is).
  std::optional<LinkLibraries> libraries;
  // Written last, once the artifact it describes exists.
  auto writeHeader = [&]() {
    if (headerPath.empty())
      return true;
    CHeaderOptions headerOptions;
    CompilerOptions named = options;
    named.headerPath = headerPath;
    headerOptions.prefix = headerPrefix(named);
    headerOptions.entrySymbol = entrySymbolName(entryOptions);
    headerOptions.modelPath =
        llvm::sys::path::filename(options.modelPath).str();
    headerOptions.artifactPath = llvm::sys::path::filename(outputPath).str();
    if (libraries) {
      std::vector<std::string> names;
      for (const std::string &archive : libraries->archives)
        names.push_back(llvm::sys::path::filename(archive).str());
      for (const std::string &lib : libraries->sharedLibraries)
        names.push_back("lib" + lib);
      names.push_back("libm");
      headerOptions.linkLibraries = llvm::join(names, ", ");
    }
    return writeOutput(headerPath, [&](llvm::raw_ostream &os) {
      writeCHeader(*meta, headerOptions, os);
    });
  };

  // The target machine comes first: the LLVM-dialect conversions size
  // pointers, descriptors and allocations by the module's data layout, which
  // must be the target's from there to the object file.
  auto machine =
      createTargetMachine(options.triple, options.cpu, options.optLevel);
  if (!machine) {
    printError(llvm::toString(machine.takeError()));
    return false;
  }
  (*module)->setAttr(
      LLVM::LLVMDialect::getDataLayoutAttrName(),
      StringAttr::get(
          &ctx, (*machine)->createDataLayout().getStringRepresentation()));
  (*module)->setAttr(
      LLVM::LLVMDialect::getTargetTripleAttrName(),
      StringAttr::get(&ctx, (*machine)->getTargetTriple().str()));

  // Lowering to the LLVM dialect, partition by partition, then the host.
  LoweringOptions lowering;
  lowering.optLevel = options.optLevel;
  lowering.staticMemory = emitStatic;
  lowering.profile = options.profile;
  lowering.machine = machine->get();
  lowering.triple = options.triple;
  lowering.targetOptions = options.targetOptions;
  lowering.argv0 = options.argv0;
  // A shared library needs every runtime now; an object file's header
  // names them when they are found.
  bool linking = options.emit == EmitKind::Lib;
  if (!checkTargetOptions(used, lowering))
    return false;
  libraries = collectLinkLibraries(used, lowering, /*report=*/linking);
  llvm::LLVMContext llvmCtx;
  std::vector<std::unique_ptr<llvm::Module>> deviceCode;
  // The targets' own rewrites (their prepare phases) report too.
  if (options.printPassStats)
    startCollectingRewriteCounts();
  bool lowered =
      (!linking || libraries) &&
      lowerToLLVMDialect(*module, used, lowering, llvmCtx, deviceCode);
  std::vector<RewriteCount> targetCounts = takeRewriteCounts();
  if (!lowered)
    return false;
  if (options.printPassStats)
    printRewriteCounts(targetCounts);
  collectLoweringMeta(*module, *meta);

  // LLVM IR with the ABI entry point and the device targets' code, optimized
  // for the target machine.
  dropOnnxcFunctionAttrs(*module);
  progressPhase("translating to LLVM IR");
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*module, llvmCtx, "onnxc_model");
  if (!llvmModule) {
    printError(options.modelPath + ": translation to LLVM IR failed");
    return false;
  }
  for (std::unique_ptr<llvm::Module> &code : deviceCode) {
    code->setDataLayout(llvmModule->getDataLayout());
    code->setTargetTriple(llvmModule->getTargetTriple());
    if (llvm::Linker::linkModules(*llvmModule, std::move(code))) {
      printError(options.modelPath + ": linking the device code failed");
      return false;
    }
  }
  if (llvm::Error err =
          addModelEntry(*llvmModule, *meta, "main_graph", entryOptions)) {
    printError(options.modelPath + ": " + llvm::toString(std::move(err)));
    return false;
  }
  progressPhase("optimizing LLVM IR");
  optimizeModule(*llvmModule, **machine, options.optLevel);
  hostTarget().finalizeLLVMModule(*llvmModule);
  if (options.emit == EmitKind::Llvm)
    return writeOutput(outputPath,
                       [&](llvm::raw_ostream &os) {
                         llvmModule->print(os, nullptr);
                       }) &&
           writeHeader();

  // Object file.
  std::string objectPath = outputPath;
  llvm::SmallString<256> tempObject;
  if (options.emit == EmitKind::Lib) {
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "onnxc", "o", tempObject)) {
      printError("cannot create a temporary file: " + ec.message());
      return false;
    }
    objectPath = tempObject.str().str();
  }
  {
    std::string error;
    auto file = mlir::openOutputFile(objectPath, &error);
    if (!file) {
      printError(objectPath + ": " + error);
      return false;
    }
    progressPhase("generating machine code");
    if (llvm::Error err = emitObjectFile(*llvmModule, **machine, file->os())) {
      printError(llvm::toString(std::move(err)));
      return false;
    }
    file->keep();
  }
  if (options.emit == EmitKind::Obj || emitStatic)
    return writeHeader();

  // Shared library.
  auto removeTemp = llvm::make_scope_exit(
      [&] { llvm::sys::fs::remove(tempObject); });
  progressPhase("linking");
  if (llvm::Error err = linkSharedLibrary(objectPath, *libraries, outputPath,
                                         options.triple)) {
    printError(llvm::toString(std::move(err)));
    return false;
  }
  return writeHeader();
}

} // namespace onnxc
