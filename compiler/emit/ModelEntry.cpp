//===- ModelEntry.cpp - The artifact's C entry point ----------------------===//

#include "compiler/emit/ModelEntry.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

#include "onnxc/onnxc.h"

using namespace llvm;

namespace onnxc {

/// The ABI dtype of an element type (ONNX TensorProto numbering).
static int32_t dtypeOf(mlir::Type type) {
  if (type.isF32())
    return ONNXC_DTYPE_FLOAT;
  if (type.isF64())
    return ONNXC_DTYPE_DOUBLE;
  if (type.isF16())
    return ONNXC_DTYPE_FLOAT16;
  if (type.isBF16())
    return ONNXC_DTYPE_BFLOAT16;
  if (llvm::isa<mlir::Float8E4M3FNType>(type))
    return ONNXC_DTYPE_FLOAT8E4M3FN;
  if (llvm::isa<mlir::Float8E4M3FNUZType>(type))
    return ONNXC_DTYPE_FLOAT8E4M3FNUZ;
  if (llvm::isa<mlir::Float8E5M2Type>(type))
    return ONNXC_DTYPE_FLOAT8E5M2;
  if (llvm::isa<mlir::Float8E5M2FNUZType>(type))
    return ONNXC_DTYPE_FLOAT8E5M2FNUZ;
  if (auto intType = llvm::dyn_cast<mlir::IntegerType>(type)) {
    bool isUnsigned = intType.isUnsigned();
    switch (intType.getWidth()) {
    case 1:
      return ONNXC_DTYPE_BOOL;
    case 2:
      return isUnsigned ? ONNXC_DTYPE_UINT2 : ONNXC_DTYPE_INT2;
    case 4:
      return isUnsigned ? ONNXC_DTYPE_UINT4 : ONNXC_DTYPE_INT4;
    case 8:
      return isUnsigned ? ONNXC_DTYPE_UINT8 : ONNXC_DTYPE_INT8;
    case 16:
      return isUnsigned ? ONNXC_DTYPE_UINT16 : ONNXC_DTYPE_INT16;
    case 32:
      return isUnsigned ? ONNXC_DTYPE_UINT32 : ONNXC_DTYPE_INT32;
    case 64:
      return isUnsigned ? ONNXC_DTYPE_UINT64 : ONNXC_DTYPE_INT64;
    }
  }
  return ONNXC_DTYPE_UNDEFINED;
}

static Expected<TensorMeta> tensorMetaOf(mlir::Type type,
                                          mlir::DictionaryAttr attrs,
                                          StringRef what, unsigned index) {
  TensorMeta meta;
  if (attrs)
    if (auto name = attrs.getAs<mlir::StringAttr>("onnxc.name"))
      meta.name = name.str();
  if (meta.name.empty())
    meta.name = (what + Twine(index)).str();
  auto tensorType = llvm::dyn_cast<mlir::RankedTensorType>(type);
  if (!tensorType) {
    // Shape inference notes where the rank was lost.
    std::string where;
    if (attrs)
      if (auto note = attrs.getAs<mlir::StringAttr>("onnxc.rank_lost_at"))
        where = ": " + note.str();
    return createStringError(inconvertibleErrorCode(),
                             "%s '%s' has no ranked tensor type (rank "
                             "unknown after shape inference)%s",
                             what.str().c_str(), meta.name.c_str(),
                             where.c_str());
  }
  meta.dtype = dtypeOf(tensorType.getElementType());
  if (meta.dtype == ONNXC_DTYPE_UNDEFINED)
    return createStringError(inconvertibleErrorCode(),
                             "%s '%s' has an element type the ABI cannot "
                             "carry",
                             what.str().c_str(), meta.name.c_str());
  if (tensorType.getRank() > ONNXC_MAX_RANK)
    return createStringError(inconvertibleErrorCode(),
                             "%s '%s' has rank %d, more than the ABI's %d",
                             what.str().c_str(), meta.name.c_str(),
                             (int)tensorType.getRank(), ONNXC_MAX_RANK);
  for (int64_t d : tensorType.getShape())
    meta.dims.push_back(mlir::ShapedType::isDynamic(d) ? -1 : d);
  meta.dimParams.assign(meta.dims.size(), "");
  if (attrs)
    if (auto keys = attrs.getAs<mlir::ArrayAttr>("onnxc.zipmap_keys"))
      for (mlir::Attribute key : keys) {
        if (auto i = llvm::dyn_cast<mlir::IntegerAttr>(key)) {
          meta.mapKeyType = "int64";
          meta.mapKeys.push_back(std::to_string(i.getInt()));
        } else if (auto s = llvm::dyn_cast<mlir::StringAttr>(key)) {
          meta.mapKeyType = "string";
          meta.mapKeys.push_back(s.str());
        }
      }
  if (attrs)
    if (auto params = attrs.getAs<mlir::ArrayAttr>("onnxc.dim_params"))
      for (auto [i, p] : llvm::enumerate(params))
        if (auto s = llvm::dyn_cast<mlir::StringAttr>(p);
            s && i < meta.dimParams.size())
          meta.dimParams[i] = s.str();
  return meta;
}

/// ONNXC_OUTPUT_MAPS_SYMBOL's text: a line per output with map keys.
static std::string outputMapsText(const ModelMeta &meta) {
  std::string text;
  for (const TensorMeta &output : meta.outputs) {
    if (output.mapKeyType.empty())
      continue;
    text += output.name + "\t" + output.mapKeyType;
    for (const std::string &key : output.mapKeys)
      text += "\t" + key;
    text += "\n";
  }
  return text;
}

Expected<ModelMeta> collectModelMeta(mlir::ModuleOp module) {
  auto func = module.lookupSymbol<mlir::func::FuncOp>("main_graph");
  if (!func)
    return createStringError(inconvertibleErrorCode(),
                             "the module has no main_graph function");
  ModelMeta meta;
  if (auto name = module->getAttrOfType<mlir::StringAttr>("onnxc.graph_name"))
    meta.graphName = name.str();
  mlir::FunctionType type = func.getFunctionType();
  for (unsigned i = 0; i < type.getNumInputs(); ++i) {
    auto t = tensorMetaOf(type.getInput(i), func.getArgAttrDict(i), "input", i);
    if (!t)
      return t.takeError();
    meta.inputs.push_back(std::move(*t));
  }
  for (unsigned i = 0; i < type.getNumResults(); ++i) {
    auto t =
        tensorMetaOf(type.getResult(i), func.getResultAttrDict(i), "output", i);
    if (!t)
      return t.takeError();
    meta.outputs.push_back(std::move(*t));
  }
  // A graph compiled for one image of the batch (passes/graph/BatchSplit.h)
  // takes and gives the whole batch: the runtime runs it once per image.
  // Its dim 0 is N, or (-1) the run-time batch under its symbol.
  if (auto split =
          module->getAttrOfType<mlir::IntegerAttr>("onnxc.batch_split");
      split && (split.getInt() > 1 || split.getInt() == -1)) {
    meta.batchRuns = split.getInt();
    std::string dimName;
    if (auto name = module->getAttrOfType<mlir::StringAttr>("onnxc.batch_dim"))
      dimName = name.str();
    for (auto *tensors : {&meta.inputs, &meta.outputs})
      for (TensorMeta &t : *tensors)
        if (!t.dims.empty()) {
          t.dims[0] = meta.batchRuns;
          t.dimParams[0] = meta.batchRuns < 0 ? dimName : "";
        }
  }
  return meta;
}

void collectLoweringMeta(mlir::ModuleOp module, ModelMeta &meta) {
  auto read = [&](llvm::StringRef name) -> uint64_t {
    if (auto attr = module->getAttrOfType<mlir::IntegerAttr>(name))
      return attr.getInt() > 0 ? attr.getInt() : 0;
    return 0;
  };
  meta.workspaceSize = read("onnxc.workspace_size");
  meta.plannedBytes = read("onnxc.workspace_planned_bytes");
  meta.profileEntries.clear();
  if (auto table =
          module->getAttrOfType<mlir::ArrayAttr>("onnxc.profile_nodes"))
    for (auto entry : table.getAsRange<mlir::ArrayAttr>())
      meta.profileEntries.emplace_back(
          llvm::cast<mlir::StringAttr>(entry[0]).str(),
          llvm::cast<mlir::StringAttr>(entry[1]).str());
}

namespace {

/// Builds the constant globals of the metadata.
class MetaBuilder {
public:
  explicit MetaBuilder(Module &module)
      : module(module), ctx(module.getContext()),
        ptrTy(PointerType::getUnqual(ctx)), i32Ty(Type::getInt32Ty(ctx)),
        i64Ty(Type::getInt64Ty(ctx)) {}

  Constant *string(StringRef s) {
    Constant *init = ConstantDataArray::getString(ctx, s);
    return global(init, "onnxc.str");
  }

  /// onnxc_tensor_info[] for `tensors`.
  Constant *tensorInfos(ArrayRef<TensorMeta> tensors, StringRef what) {
    // { const char *name; const int64_t *dims; const char *const *dim_params;
    //   int32_t dtype; int32_t rank; }
    StructType *infoTy = StructType::get(ctx, {ptrTy, ptrTy, ptrTy, i32Ty, i32Ty});
    std::vector<Constant *> infos;
    for (const TensorMeta &t : tensors) {
      Constant *dims = ConstantPointerNull::get(ptrTy);
      Constant *params = ConstantPointerNull::get(ptrTy);
      if (!t.dims.empty()) {
        dims = global(ConstantDataArray::get(ctx, ArrayRef<int64_t>(t.dims)),
                      "onnxc.dims");
        std::vector<Constant *> names;
        for (const std::string &p : t.dimParams)
          names.push_back(string(p));
        params = global(
            ConstantArray::get(ArrayType::get(ptrTy, names.size()), names),
            "onnxc.dim_params");
      }
      infos.push_back(ConstantStruct::get(
          infoTy, {string(t.name), dims, params,
                   ConstantInt::get(i32Ty, t.dtype),
                   ConstantInt::get(i32Ty, t.dims.size())}));
    }
    if (infos.empty())
      return ConstantPointerNull::get(ptrTy);
    return global(ConstantArray::get(ArrayType::get(infoTy, infos.size()), infos),
                  ("onnxc." + what).str());
  }

  Constant *global(Constant *init, StringRef name) {
    auto *gv = new GlobalVariable(module, init->getType(), /*isConstant=*/true,
                                  GlobalValue::PrivateLinkage, init, name);
    gv->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
    return gv;
  }

  Module &module;
  LLVMContext &ctx;
  PointerType *ptrTy;
  IntegerType *i32Ty, *i64Ty;
};

} // namespace

std::string entrySymbolName(const EntryOptions &options) {
  if (options.name.empty())
    return ONNXC_MODEL_ENTRY_SYMBOL;
  return options.name + "_model_entry";
}

Error addModelEntry(Module &module, const ModelMeta &meta,
                    StringRef graphFunction, const EntryOptions &options) {
  LLVMContext &ctx = module.getContext();
  std::string cifaceName = ("_mlir_ciface_" + graphFunction).str();
  Function *ciface = module.getFunction(cifaceName);
  if (!ciface)
    return createStringError(inconvertibleErrorCode(),
                             "the graph function %s is missing",
                             cifaceName.c_str());

  // Everything compiled so far is private to the artifact: hidden in a
  // shared library; internal in a named object, whose symbols would
  // otherwise clash with another model's in a static link.
  bool internalize = options.staticLink && !options.name.empty();
  auto makePrivate = [&](GlobalObject &v) {
    if (v.isDeclaration() || v.hasLocalLinkage() ||
        v.getName().starts_with("llvm."))
      return;
    if (internalize) {
      v.setLinkage(GlobalValue::InternalLinkage);
      v.setComdat(nullptr);
    } else {
      v.setVisibility(GlobalValue::HiddenVisibility);
    }
  };
  for (Function &f : module.functions())
    makePrivate(f);
  for (GlobalVariable &g : module.globals())
    makePrivate(g);

  MetaBuilder b(module);
  PointerType *ptrTy = b.ptrTy;
  IRBuilder<> ir(ctx);

  // void graph_invoke(void **inputs, void *results): the C interface takes
  // the results pointer first (when there are results), then one descriptor
  // pointer per input, then the workspace's (inputs[num_inputs]) when the
  // model has one.
  FunctionType *invokeTy =
      FunctionType::get(Type::getVoidTy(ctx), {ptrTy, ptrTy}, false);
  Function *invoke = Function::Create(invokeTy, GlobalValue::InternalLinkage,
                                      "onnxc_graph_invoke", module);
  ir.SetInsertPoint(BasicBlock::Create(ctx, "entry", invoke));
  std::vector<Value *> args;
  unsigned graphInputs = meta.inputs.size() + (meta.workspaceSize ? 1 : 0);
  unsigned expectedArgs = graphInputs + (meta.outputs.empty() ? 0 : 1);
  if (ciface->arg_size() != expectedArgs)
    return createStringError(inconvertibleErrorCode(),
                             "graph function %s takes %u arguments, expected %u",
                             cifaceName.c_str(), (unsigned)ciface->arg_size(),
                             expectedArgs);
  if (!meta.outputs.empty())
    args.push_back(invoke->getArg(1));
  for (unsigned i = 0; i < graphInputs; ++i) {
    Value *slot = ir.CreateConstGEP1_64(ptrTy, invoke->getArg(0), i);
    args.push_back(ir.CreateLoad(ptrTy, slot));
  }
  ir.CreateCall(ciface, args);
  ir.CreateRetVoid();

  // The host runtime's functions the model struct points at.
  FunctionType *runTy = FunctionType::get(
      b.i32Ty, {ptrTy, ptrTy, b.i32Ty, ptrTy, b.i32Ty, ptrTy}, false);
  FunctionCallee run = module.getOrInsertFunction(options.runFunction, runTy);
  FunctionType *runWorkspaceTy = FunctionType::get(
      b.i32Ty, {ptrTy, ptrTy, b.i32Ty, ptrTy, b.i32Ty, ptrTy, b.i64Ty, ptrTy},
      false);
  FunctionCallee runWithWorkspace = module.getOrInsertFunction(
      options.runWithWorkspaceFunction, runWorkspaceTy);
  FunctionCallee release = module.getOrInsertFunction(
      options.releaseTensorFunction,
      FunctionType::get(Type::getVoidTy(ctx), {ptrTy}, false));
  FunctionCallee setNumThreads = module.getOrInsertFunction(
      options.setNumThreadsFunction,
      FunctionType::get(b.i32Ty, {b.i32Ty}, false));

  // struct onnxc_model { u32 abi; i32 nin; i32 nout; i32 batch_runs; ptr name;
  //   ptr inputs; ptr outputs; ptr run; ptr release; ptr graph_invoke;
  //   ptr set_num_threads; u64 workspace_size; ptr run_with_workspace; }
  StructType *modelTy =
      StructType::get(ctx, {b.i32Ty, b.i32Ty, b.i32Ty, b.i32Ty, ptrTy, ptrTy,
                            ptrTy, ptrTy, ptrTy, ptrTy, ptrTy, b.i64Ty, ptrTy});
  Constant *model = ConstantStruct::get(
      modelTy,
      {ConstantInt::get(b.i32Ty, ONNXC_ABI_VERSION),
       ConstantInt::get(b.i32Ty, meta.inputs.size()),
       ConstantInt::get(b.i32Ty, meta.outputs.size()),
       ConstantInt::get(b.i32Ty, meta.batchRuns), b.string(meta.graphName),
       b.tensorInfos(meta.inputs, "inputs"),
       b.tensorInfos(meta.outputs, "outputs"), cast<Constant>(run.getCallee()),
       cast<Constant>(release.getCallee()), invoke,
       cast<Constant>(setNumThreads.getCallee()),
       ConstantInt::get(b.i64Ty, meta.workspaceSize),
       cast<Constant>(runWithWorkspace.getCallee())});
  Constant *modelGlobal = b.global(model, "onnxc.model");

  // What `onnxc info` reports as the plan's saving: a shared library's
  // exported uint64_t, the sum of the planned buffers.
  if (!internalize) {
    auto *planned = new GlobalVariable(
        module, b.i64Ty, /*isConstant=*/true, GlobalValue::ExternalLinkage,
        ConstantInt::get(b.i64Ty, meta.plannedBytes),
        ONNXC_PLANNED_BYTES_SYMBOL);
    planned->setVisibility(GlobalValue::DefaultVisibility);
    // The partitions and their targets, for `onnxc info`.
    auto *partitions = new GlobalVariable(
        module, ptrTy, /*isConstant=*/true, GlobalValue::ExternalLinkage,
        b.string(meta.partitions), ONNXC_PARTITIONS_SYMBOL);
    partitions->setVisibility(GlobalValue::DefaultVisibility);
    // Outputs that are sequences of maps carried as their values' tensor.
    std::string maps = outputMapsText(meta);
    if (!maps.empty()) {
      auto *outputMaps = new GlobalVariable(
          module, ptrTy, /*isConstant=*/true, GlobalValue::ExternalLinkage,
          b.string(maps), ONNXC_OUTPUT_MAPS_SYMBOL);
      outputMaps->setVisibility(GlobalValue::DefaultVisibility);
    }
  }

  // --profile: the exported onnxc_profile over the graph's counters.
  if (!meta.profileEntries.empty() && !internalize) {
    GlobalVariable *counters = module.getNamedGlobal("onnxc_profile_ns");
    if (!counters)
      return createStringError(inconvertibleErrorCode(),
                               "the profile's counters are missing");
    std::vector<Constant *> nodes, opTypes;
    for (const auto &[names, types] : meta.profileEntries) {
      nodes.push_back(b.string(names));
      opTypes.push_back(b.string(types));
    }
    ArrayType *tableTy = ArrayType::get(ptrTy, nodes.size());
    // struct onnxc_profile { u32 version; i32 num_entries; ptr nodes;
    //   ptr op_types; ptr nanoseconds; }
    StructType *profileTy =
        StructType::get(ctx, {b.i32Ty, b.i32Ty, ptrTy, ptrTy, ptrTy});
    auto *profile = new GlobalVariable(
        module, profileTy, /*isConstant=*/true, GlobalValue::ExternalLinkage,
        ConstantStruct::get(profileTy,
                            {ConstantInt::get(b.i32Ty, ONNXC_PROFILE_VERSION),
                             ConstantInt::get(b.i32Ty, nodes.size()),
                             b.global(ConstantArray::get(tableTy, nodes),
                                      "onnxc.profile_nodes"),
                             b.global(ConstantArray::get(tableTy, opTypes),
                                      "onnxc.profile_op_types"),
                             counters}),
        ONNXC_PROFILE_SYMBOL);
    profile->setVisibility(GlobalValue::DefaultVisibility);
  }

  // const onnxc_model *<entry>(void): onnxc_model_entry, which the loader
  // looks up, unless a named object is the only thing that calls it; and
  // <name>_model_entry, which the generated header declares.
  std::vector<std::string> entryNames;
  if (!internalize)
    entryNames.push_back(ONNXC_MODEL_ENTRY_SYMBOL);
  if (!options.name.empty())
    entryNames.push_back(entrySymbolName(options));
  for (const std::string &name : entryNames) {
    if (module.getNamedValue(name))
      return createStringError(inconvertibleErrorCode(),
                               "the symbol %s is already defined by the "
                               "model's code",
                               name.c_str());
    Function *entry =
        Function::Create(FunctionType::get(ptrTy, {}, false),
                         GlobalValue::ExternalLinkage, name, module);
    entry->setVisibility(GlobalValue::DefaultVisibility);
    ir.SetInsertPoint(BasicBlock::Create(ctx, "entry", entry));
    ir.CreateRet(modelGlobal);
  }
  return Error::success();
}

} // namespace onnxc
