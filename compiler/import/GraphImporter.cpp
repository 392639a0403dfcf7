//===- GraphImporter.cpp - ONNX graphs -> the onnx dialect ----------------===//
//
// Walks the main graph into `func.func @main_graph` and every graph attribute
// into a region of its node's op, resolving names through a stack of scopes
// (a subgraph sees the names of the graphs around it). The form of the result
// is docs/internals.md section 1; each node goes through normalizeNode
// (OpsetNormalize.cpp) before it is built.
//
//===----------------------------------------------------------------------===//

#include "compiler/import/GraphImporter.h"

#include "compiler/dialect/OnnxDialect.h"
#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "compiler/import/Importer.h"
#include "compiler/import/OpEmitter.h"
#include "compiler/import/OpSchemas.h"
#include "compiler/import/OpsetNormalize.h"
#include "compiler/import/TensorConverter.h"

#include "onnx/onnx_pb.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <map>

using namespace mlir;

namespace onnxc {
namespace {

/// "1x3x224x224", as --shape spells dims.
std::string formatDims(llvm::ArrayRef<int64_t> dims) {
  std::string text;
  for (auto [i, d] : llvm::enumerate(dims))
    text += (i ? "x" : "") + std::to_string(d);
  return text;
}

/// The kind of an attribute; models from before AttributeProto.type existed
/// are read by which field is set.
OnnxAttrKind attributeKind(const ::onnx::AttributeProto &attr) {
  if (attr.type() != ::onnx::AttributeProto_AttributeType_UNDEFINED)
    return static_cast<OnnxAttrKind>(attr.type());
  if (attr.floats_size())
    return OnnxAttrKind::Floats;
  if (attr.ints_size())
    return OnnxAttrKind::Ints;
  if (attr.strings_size())
    return OnnxAttrKind::Strings;
  if (attr.tensors_size())
    return OnnxAttrKind::Tensors;
  if (attr.graphs_size())
    return OnnxAttrKind::Graphs;
  if (attr.has_f())
    return OnnxAttrKind::Float;
  if (attr.has_i())
    return OnnxAttrKind::Int;
  if (attr.has_s())
    return OnnxAttrKind::String;
  if (attr.has_t())
    return OnnxAttrKind::Tensor;
  if (attr.has_g())
    return OnnxAttrKind::Graph;
  return OnnxAttrKind::Ints; // an empty list
}

/// Whether an imported attribute value is of the ONNX kind `kind`.
bool matchesKind(Attribute value, OnnxAttrKind kind) {
  auto all = [&](auto isa) {
    auto array = llvm::dyn_cast<ArrayAttr>(value);
    return array && llvm::all_of(array, isa);
  };
  switch (kind) {
  case OnnxAttrKind::Float:
    return llvm::isa<FloatAttr>(value);
  case OnnxAttrKind::Int:
    return llvm::isa<IntegerAttr>(value);
  case OnnxAttrKind::String:
    return llvm::isa<StringAttr>(value);
  case OnnxAttrKind::Tensor:
  case OnnxAttrKind::SparseTensor:
    return llvm::isa<ElementsAttr>(value);
  case OnnxAttrKind::TypeProto:
    return llvm::isa<TypeAttr>(value);
  case OnnxAttrKind::Floats:
    return all([](Attribute a) { return llvm::isa<FloatAttr>(a); });
  case OnnxAttrKind::Ints:
    return all([](Attribute a) { return llvm::isa<IntegerAttr>(a); });
  case OnnxAttrKind::Strings:
    return all([](Attribute a) { return llvm::isa<StringAttr>(a); });
  case OnnxAttrKind::Tensors:
  case OnnxAttrKind::SparseTensors:
    return all([](Attribute a) { return llvm::isa<ElementsAttr>(a); });
  case OnnxAttrKind::TypeProtos:
    return all([](Attribute a) { return llvm::isa<TypeAttr>(a); });
  case OnnxAttrKind::Graph:
  case OnnxAttrKind::Graphs:
    return false;
  }
  return false;
}

/// The ONNX kind of an imported attribute value, for messages.
llvm::StringRef describeKind(Attribute value) {
  for (OnnxAttrKind kind :
       {OnnxAttrKind::Float, OnnxAttrKind::Int, OnnxAttrKind::String,
        OnnxAttrKind::Tensor, OnnxAttrKind::TypeProto, OnnxAttrKind::Ints,
        OnnxAttrKind::Floats, OnnxAttrKind::Strings, OnnxAttrKind::Tensors,
        OnnxAttrKind::TypeProtos})
    if (matchesKind(value, kind))
      return stringifyAttrKind(kind);
  return "an unknown kind";
}

llvm::StringRef displayDomain(llvm::StringRef domain) {
  return domain.empty() ? "ai.onnx" : domain;
}

class ModelImporter {
public:
  ModelImporter(MLIRContext &ctx, ::onnx::ModelProto &model, StringRef path,
                ExternalDataReader &externalData, const ImportOptions &options)
      : ctx(ctx), model(model), externalData(externalData), options(options),
        builder(&ctx), fileLoc(FileLineColLoc::get(&ctx, path, 0, 0)),
        emitter(builder, fileLoc) {}

  OwningOpRef<ModuleOp> run();

private:
  using GraphAttr = std::pair<std::string, const ::onnx::GraphProto *>;

  LogicalResult readOpsets(ModuleOp module);
  LogicalResult importMainGraph(ModuleOp module);
  LogicalResult importInputs(const ::onnx::GraphProto &graph,
                             SmallVectorImpl<Type> &types,
                             SmallVectorImpl<DictionaryAttr> &attrs,
                             SmallVectorImpl<std::string> &names);
  LogicalResult importInitializers(const ::onnx::GraphProto &graph);
  LogicalResult unwrapZipMapOutputs(SmallVectorImpl<Value> &results,
                                    SmallVectorImpl<DictionaryAttr> &attrs);
  LogicalResult importNodes(const ::onnx::GraphProto &graph);
  LogicalResult importNode(const ::onnx::NodeProto &node, unsigned index);
  LogicalResult importFusedNode(const ::onnx::NodeProto &node, Location loc);
  LogicalResult checkAgainstSchema(const PendingNode &pending,
                                   ArrayRef<GraphAttr> graphs);
  LogicalResult importSubgraph(const ::onnx::GraphProto &graph, Region &region,
                               Location loc, StringRef attrName);
  FailureOr<Attribute> convertAttribute(const ::onnx::AttributeProto &attr,
                                        OnnxAttrKind kind, Location loc);

  Location nodeLoc(const ::onnx::NodeProto &node, unsigned index);
  Value lookup(StringRef name) const;
  LogicalResult define(StringRef name, Value value, Location loc,
                       StringRef what);

  MLIRContext &ctx;
  /// Mutable only to release the main graph's initializer data once it is
  /// copied into the context (it is the bulk of a model's memory).
  ::onnx::ModelProto &model;
  ExternalDataReader &externalData;
  const ImportOptions &options;
  OpBuilder builder;
  Location fileLoc;
  OpEmitter emitter;
  /// The model's opset per domain ("" for ai.onnx).
  std::map<std::string, int64_t> opsets;
  /// The names defined by each graph being imported, innermost last.
  std::vector<llvm::StringMap<Value>> scopes;
};

OwningOpRef<ModuleOp> ModelImporter::run() {
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  if (failed(readOpsets(*module)))
    return nullptr;
  (*module)->setAttr("onnxc.graph_name",
                     builder.getStringAttr(model.graph().name()));
  if (failed(importMainGraph(*module)))
    return nullptr;
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

LogicalResult ModelImporter::readOpsets(ModuleOp module) {
  if (model.opset_import_size() == 0) {
    // IR versions before 3 had no opset_import and meant opset 1.
    if (model.ir_version() >= 3)
      return emitError(fileLoc) << "the model has no opset_import";
    opsets[""] = 1;
  }
  for (const ::onnx::OperatorSetIdProto &opset : model.opset_import()) {
    std::string domain = opset.domain() == "ai.onnx" ? "" : opset.domain();
    if (opset.version() <= 0)
      return emitError(fileLoc)
             << "opset_import of domain '" << displayDomain(domain)
             << "' has version " << opset.version();
    // A newer opset may have changed the semantics of ops whose names we
    // know; compiling it with the older definitions would be a silent
    // wrong answer.
    std::optional<int> newest = newestOpset(domain);
    if (newest && opset.version() > *newest)
      return emitError(fileLoc)
             << "the model imports opset " << opset.version() << " of domain '"
             << displayDomain(domain) << "'; onnxc knows opsets up to "
             << *newest;
    // Converters list the default domain under both of its names ('' and
    // 'ai.onnx'), as ONNX Runtime accepts; only two versions of one domain
    // are ambiguous.
    auto [listed, added] = opsets.emplace(domain, opset.version());
    if (!added && listed->second != opset.version())
      return emitError(fileLoc)
             << "opset_import lists domain '" << displayDomain(domain)
             << "' twice, with versions " << listed->second << " and "
             << opset.version();
  }
  SmallVector<NamedAttribute> entries;
  // The default domain is spelled "ai.onnx": an empty dictionary key does not
  // survive printing and parsing the module.
  for (const auto &[domain, version] : opsets)
    entries.push_back(builder.getNamedAttr(domain.empty() ? "ai.onnx" : domain,
                                           builder.getI64IntegerAttr(version)));
  module->setAttr("onnxc.opset_imports", builder.getDictionaryAttr(entries));
  return success();
}

Location ModelImporter::nodeLoc(const ::onnx::NodeProto &node, unsigned index) {
  std::string name = node.name();
  if (name.empty())
    name = node.op_type() + "_" + std::to_string(index);
  return NameLoc::get(builder.getStringAttr(name), fileLoc);
}

Value ModelImporter::lookup(StringRef name) const {
  for (auto scope = scopes.rbegin(); scope != scopes.rend(); ++scope)
    if (Value value = scope->lookup(name))
      return value;
  return nullptr;
}

LogicalResult ModelImporter::define(StringRef name, Value value, Location loc,
                                    StringRef what) {
  if (!scopes.back().try_emplace(name, value).second)
    return emitError(loc) << what << " '" << name
                          << "' is already defined in this graph (names must "
                             "be unique)";
  return success();
}

LogicalResult
ModelImporter::importInputs(const ::onnx::GraphProto &graph,
                            SmallVectorImpl<Type> &types,
                            SmallVectorImpl<DictionaryAttr> &attrs,
                            SmallVectorImpl<std::string> &names) {
  llvm::StringSet<> initializers;
  for (const ::onnx::TensorProto &init : graph.initializer())
    initializers.insert(init.name());
  for (const ::onnx::ValueInfoProto &input : graph.input()) {
    // Before IR version 4 initializers were also listed as inputs.
    if (initializers.contains(input.name()))
      continue;
    if (input.name().empty())
      return emitError(fileLoc) << "a graph input has an empty name";
    SmallVector<std::string> dimParams;
    FailureOr<TensorType> type =
        convertTensorType(&ctx, input.type(), dimParams, [&] {
          return emitError(fileLoc) << "graph input '" << input.name() << "': ";
        });
    if (failed(type))
      return failure();
    if (!*type)
      return emitError(fileLoc)
             << "graph input '" << input.name()
             << "' is not a tensor with an element type (sequence, map and "
                "optional inputs are not supported)";
    auto shapeIt = options.inputShapes.find(input.name());
    bool batchOpen = false;
    if (shapeIt != options.inputShapes.end()) {
      const std::vector<int64_t> &dims = shapeIt->second;
      std::string spec = input.name() + "=" + formatDims(dims);
      if (auto ranked = llvm::dyn_cast<RankedTensorType>(*type)) {
        if (ranked.getRank() != static_cast<int64_t>(dims.size()))
          return emitError(fileLoc)
                 << "--shape " << spec << ": input '" << input.name()
                 << "' has rank " << ranked.getRank() << ", not "
                 << dims.size();
        for (auto [i, d] : llvm::enumerate(ranked.getShape()))
          if (!ShapedType::isDynamic(d) && d != dims[i])
            return emitError(fileLoc)
                   << "--shape " << spec << ": dim " << i << " of input '"
                   << input.name() << "' is " << d << " in the model, not "
                   << dims[i];
      }
      // Whether the model left dim 0 open: only then may the driver import
      // it again for one image (a batch split).
      auto ranked = llvm::dyn_cast<RankedTensorType>(*type);
      batchOpen = !ranked || (ranked.getRank() >= 1 && ranked.isDynamicDim(0));
      *type = RankedTensorType::get(dims, type->getElementType());
      dimParams.clear();
    }
    NamedAttrList attrList;
    attrList.set("onnxc.name", builder.getStringAttr(input.name()));
    if (batchOpen)
      attrList.set("onnxc.open_batch", builder.getUnitAttr());
    if (llvm::any_of(dimParams, [](auto &p) { return !p.empty(); }))
      attrList.set("onnxc.dim_params",
                   builder.getStrArrayAttr(SmallVector<StringRef>(
                       dimParams.begin(), dimParams.end())));
    types.push_back(*type);
    attrs.push_back(attrList.getDictionary(&ctx));
    names.push_back(input.name());
  }
  for (const auto &[name, dims] : options.inputShapes) {
    if (llvm::is_contained(names, name))
      continue;
    std::string spec = name + "=" + formatDims(dims);
    if (initializers.contains(name))
      return emitError(fileLoc) << "--shape " << spec << ": '" << name
                                << "' is an initializer, not an input";
    return emitError(fileLoc)
           << "--shape " << spec << ": the model has no input '" << name << "'";
  }
  return success();
}

LogicalResult ModelImporter::importMainGraph(ModuleOp module) {
  const ::onnx::GraphProto &graph = model.graph();
  SmallVector<Type> argTypes;
  SmallVector<DictionaryAttr> argAttrs;
  SmallVector<std::string> argNames;
  if (failed(importInputs(graph, argTypes, argAttrs, argNames)))
    return failure();

  SmallVector<DictionaryAttr> resultAttrs;
  for (const ::onnx::ValueInfoProto &output : graph.output()) {
    if (output.name().empty())
      return emitError(fileLoc) << "a graph output has an empty name";
    SmallVector<std::string> dimParams;
    FailureOr<TensorType> type =
        convertTensorType(&ctx, output.type(), dimParams, [&] {
          return emitError(fileLoc)
                 << "graph output '" << output.name() << "': ";
        });
    if (failed(type))
      return failure();
    NamedAttrList attrList;
    attrList.set("onnxc.name", builder.getStringAttr(output.name()));
    if (*type)
      attrList.set("onnxc.declared_type", TypeAttr::get(*type));
    if (llvm::any_of(dimParams, [](auto &p) { return !p.empty(); }))
      attrList.set("onnxc.dim_params",
                   builder.getStrArrayAttr(SmallVector<StringRef>(
                       dimParams.begin(), dimParams.end())));
    resultAttrs.push_back(attrList.getDictionary(&ctx));
  }

  builder.setInsertionPointToEnd(module.getBody());
  auto func = builder.create<func::FuncOp>(
      fileLoc, "main_graph", builder.getFunctionType(argTypes, {}));
  func->setAttr("llvm.emit_c_interface", builder.getUnitAttr());
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToStart(entry);

  scopes.emplace_back();
  for (auto [name, arg] : llvm::zip(argNames, entry->getArguments()))
    if (failed(define(name, arg, fileLoc, "graph input")))
      return failure();
  if (failed(importInitializers(graph)) || failed(importNodes(graph)))
    return failure();

  SmallVector<Value> results;
  for (const ::onnx::ValueInfoProto &output : graph.output()) {
    Value value = lookup(output.name());
    if (!value)
      return emitError(fileLoc) << "graph output '" << output.name()
                                << "' is not defined by any node, input or "
                                   "initializer";
    results.push_back(value);
  }
  if (failed(unwrapZipMapOutputs(results, resultAttrs)))
    return failure();
  builder.create<func::ReturnOp>(fileLoc, results);
  scopes.pop_back();

  func.setType(
      builder.getFunctionType(argTypes, ValueRange(results).getTypes()));
  for (auto [i, attrs] : llvm::enumerate(argAttrs))
    func.setArgAttrs(i, attrs);
  for (auto [i, attrs] : llvm::enumerate(resultAttrs))
    func.setResultAttrs(i, attrs);
  return success();
}

/// A graph output that an ai.onnx.ml ZipMap makes of a [N, C] tensor (what
/// classifier converters end with) is a sequence of N maps with the same C
/// keys. onnxc has no sequences of maps, so the output carries the tensor
/// and its result attribute onnxc.zipmap_keys the keys; the artifact
/// exports them (ONNXC_OUTPUT_MAPS_SYMBOL) and the Python session returns
/// the maps, as ONNX Runtime does. A ZipMap that another node reads stays,
/// and fails to lower by name.
LogicalResult
ModelImporter::unwrapZipMapOutputs(SmallVectorImpl<Value> &results,
                                   SmallVectorImpl<DictionaryAttr> &attrs) {
  llvm::SetVector<Operation *> unwrapped;
  for (auto [value, attr] : llvm::zip(results, attrs)) {
    Operation *zipMap = value.getDefiningOp();
    if (!zipMap || zipMap->getName().getStringRef() != "onnx.ml.ZipMap" ||
        !value.use_empty())
      continue;
    Attribute keys = zipMap->getAttr("classlabels_int64s");
    if (!keys)
      keys = zipMap->getAttr("classlabels_strings");
    auto keyList = llvm::dyn_cast_or_null<ArrayAttr>(keys);
    if (!keyList)
      return emitError(zipMap->getLoc())
             << "ZipMap needs classlabels_int64s or classlabels_strings";
    for (Attribute key : keyList)
      if (auto s = llvm::dyn_cast<StringAttr>(key);
          s && s.getValue().find_first_of("\t\n") != StringRef::npos)
        return emitError(zipMap->getLoc())
               << "ZipMap: a class label holds a tab or a newline";
    NamedAttrList list(attr);
    list.erase("onnxc.declared_type");
    list.set("onnxc.zipmap_keys", keyList);
    attr = list.getDictionary(&ctx);
    value = zipMap->getOperand(0);
    unwrapped.insert(zipMap);
  }
  for (Operation *op : unwrapped)
    op->erase();
  return success();
}

LogicalResult
ModelImporter::importInitializers(const ::onnx::GraphProto &graph) {
  if (graph.sparse_initializer_size())
    return emitError(fileLoc) << "sparse initializer '"
                              << graph.sparse_initializer(0).values().name()
                              << "': sparse tensors are not supported yet";
  for (auto [index, init] : llvm::enumerate(graph.initializer())) {
    if (init.name().empty())
      return emitError(fileLoc) << "an initializer has an empty name";
    FailureOr<DenseElementsAttr> value =
        convertTensor(&ctx, init, externalData, [&, &name = init.name()] {
          return emitError(fileLoc) << "initializer '" << name << "': ";
        });
    if (failed(value))
      return failure();
    Location loc = NameLoc::get(builder.getStringAttr(init.name()), fileLoc);
    FailureOr<Value> constant = emitter.constant(loc, *value);
    if (failed(constant) ||
        failed(define(init.name(), *constant, fileLoc, "initializer")))
      return failure();
    if (&graph == &model.graph()) {
      // Swapping with an empty tensor frees the data (Clear() keeps it).
      ::onnx::TensorProto released;
      released.set_name(init.name());
      model.mutable_graph()->mutable_initializer(index)->Swap(&released);
    }
  }
  return success();
}

LogicalResult ModelImporter::importNodes(const ::onnx::GraphProto &graph) {
  for (auto [index, node] : llvm::enumerate(graph.node()))
    if (failed(importNode(node, index)))
      return failure();
  return success();
}

FailureOr<Attribute>
ModelImporter::convertAttribute(const ::onnx::AttributeProto &attr,
                                OnnxAttrKind kind, Location loc) {
  auto fail = [&] {
    return emitError(loc) << "attribute '" << attr.name() << "': ";
  };
  auto tensorType = [&](const ::onnx::TypeProto &type) -> FailureOr<Type> {
    SmallVector<std::string> dimParams;
    FailureOr<TensorType> converted =
        convertTensorType(&ctx, type, dimParams, fail);
    if (failed(converted))
      return failure();
    if (!*converted)
      return fail() << "only tensor types are supported";
    return Type(*converted);
  };
  switch (kind) {
  case OnnxAttrKind::Float:
    return Attribute(builder.getF32FloatAttr(attr.f()));
  case OnnxAttrKind::Int:
    return Attribute(builder.getI64IntegerAttr(attr.i()));
  case OnnxAttrKind::String:
    return Attribute(builder.getStringAttr(attr.s()));
  case OnnxAttrKind::Floats: {
    SmallVector<Attribute> values;
    for (float f : attr.floats())
      values.push_back(builder.getF32FloatAttr(f));
    return Attribute(builder.getArrayAttr(values));
  }
  case OnnxAttrKind::Ints:
    return Attribute(builder.getI64ArrayAttr(
        SmallVector<int64_t>(attr.ints().begin(), attr.ints().end())));
  case OnnxAttrKind::Strings: {
    SmallVector<Attribute> values;
    for (const std::string &s : attr.strings())
      values.push_back(builder.getStringAttr(s));
    return Attribute(builder.getArrayAttr(values));
  }
  case OnnxAttrKind::Tensor: {
    FailureOr<DenseElementsAttr> value =
        convertTensor(&ctx, attr.t(), externalData, fail);
    if (failed(value))
      return failure();
    return Attribute(*value);
  }
  case OnnxAttrKind::Tensors: {
    SmallVector<Attribute> values;
    for (const ::onnx::TensorProto &t : attr.tensors()) {
      FailureOr<DenseElementsAttr> value =
          convertTensor(&ctx, t, externalData, fail);
      if (failed(value))
        return failure();
      values.push_back(*value);
    }
    return Attribute(builder.getArrayAttr(values));
  }
  case OnnxAttrKind::TypeProto: {
    FailureOr<Type> type = tensorType(attr.tp());
    if (failed(type))
      return failure();
    return Attribute(TypeAttr::get(*type));
  }
  case OnnxAttrKind::TypeProtos: {
    SmallVector<Attribute> values;
    for (const ::onnx::TypeProto &tp : attr.type_protos()) {
      FailureOr<Type> type = tensorType(tp);
      if (failed(type))
        return failure();
      values.push_back(TypeAttr::get(*type));
    }
    return Attribute(builder.getArrayAttr(values));
  }
  case OnnxAttrKind::SparseTensor:
  case OnnxAttrKind::SparseTensors:
    return fail() << "sparse tensors are not supported yet";
  case OnnxAttrKind::Graphs:
    return fail() << "GRAPHS attributes are not supported";
  case OnnxAttrKind::Graph:
    break; // regions, imported with the op
  }
  return fail() << "has an unknown attribute type";
}

LogicalResult ModelImporter::importNode(const ::onnx::NodeProto &node,
                                        unsigned index) {
  Location loc = nodeLoc(node, index);
  if (node.domain() == "onnxc")
    return importFusedNode(node, loc);
  std::optional<std::string> opName =
      dialectOpName(node.domain(), node.op_type());
  for (const ::onnx::FunctionProto &function : model.functions())
    if (function.name() == node.op_type() &&
        function.domain() == node.domain())
      return emitError(loc) << "op '" << node.op_type()
                            << "' is a function of the model (domain '"
                            << node.domain()
                            << "'); model-local functions are not supported "
                               "yet";
  if (!opName)
    return emitError(loc) << "op '" << node.op_type()
                          << "' has unknown domain '" << node.domain() << "'";
  const OnnxOpSchema *schema = lookupOpSchema(*opName);
  if (!schema || !RegisteredOperationName::lookup(*opName, &ctx))
    return emitError(loc) << "unknown op type '" << node.op_type()
                          << "' in domain '" << displayDomain(node.domain())
                          << "'";
  auto opset = opsets.find(schema->domain);
  if (opset == opsets.end())
    return emitError(loc) << "the model imports no opset of domain '"
                          << displayDomain(schema->domain) << "' for "
                          << node.op_type();
  std::optional<int> version = schema->versionForOpset(opset->second);
  if (!version)
    return emitError(loc) << node.op_type() << " is not defined in opset "
                          << opset->second << " of domain '"
                          << displayDomain(schema->domain)
                          << "' (it was added in opset "
                          << schema->sinceVersions.front() << ")";

  PendingNode pending{schema, *version, loc, {}, {}, {}};
  for (const std::string &name : node.input()) {
    if (name.empty()) {
      pending.inputs.push_back(nullptr);
      continue;
    }
    Value value = lookup(name);
    if (!value)
      return emitError(loc) << "input '" << name
                            << "' is not defined by an earlier node, a graph "
                               "input or an initializer (nodes must be in "
                               "topological order)";
    pending.inputs.push_back(value);
  }

  SmallVector<GraphAttr> graphs;
  llvm::StringSet<> seen;
  for (const ::onnx::AttributeProto &attr : node.attribute()) {
    if (!seen.insert(attr.name()).second)
      return emitError(loc)
             << "attribute '" << attr.name() << "' is given twice";
    if (!attr.ref_attr_name().empty())
      return emitError(loc)
             << "attribute '" << attr.name()
             << "' refers to a function attribute ('" << attr.ref_attr_name()
             << "'); model-local functions are not supported";
    OnnxAttrKind kind = attributeKind(attr);
    if (kind == OnnxAttrKind::Graph) {
      graphs.emplace_back(attr.name(), &attr.g());
      continue;
    }
    FailureOr<Attribute> value = convertAttribute(attr, kind, loc);
    if (failed(value))
      return failure();
    pending.attributes.set(attr.name(), *value);
  }
  for (const std::string &name : node.output())
    pending.outputPresent.push_back(!name.empty());

  std::optional<SmallVector<Value>> replacement;
  if (failed(normalizeNode(emitter, pending, replacement)))
    return failure();

  SmallVector<Value> results;
  if (replacement) {
    results = std::move(*replacement);
  } else {
    if (failed(checkAgainstSchema(pending, graphs)))
      return failure();
    const OnnxOpSchema &target = *pending.schema;
    // Every formal output gets a result; the omitted optional ones are none.
    unsigned listed = pending.outputPresent.size();
    unsigned fixed = target.numOutputs - (target.variadicOutput ? 1 : 0);
    unsigned numResults =
        target.variadicOutput ? std::max(listed, fixed) : target.numOutputs;
    SmallVector<bool> present;
    for (unsigned i = 0; i < numResults; ++i) {
      bool optional = i < target.numOutputs && target.outputKinds[i] == 'O';
      present.push_back(i < listed ? pending.outputPresent[i] || !optional
                                   : !optional);
    }
    // The op's regions are its graph attributes in schema order.
    SmallVector<std::pair<StringRef, const ::onnx::GraphProto *>> regionGraphs;
    for (const OnnxAttrSchema &attr : target.attributes) {
      if (attr.kind != OnnxAttrKind::Graph)
        continue;
      auto it = llvm::find_if(
          graphs, [&](const GraphAttr &g) { return g.first == attr.name; });
      regionGraphs.emplace_back(attr.name,
                                it == graphs.end() ? nullptr : it->second);
    }
    FailureOr<Operation *> op = emitter.create(loc, target, pending.inputs,
                                               pending.attributes.getAttrs(),
                                               present, regionGraphs.size());
    if (failed(op))
      return failure();
    for (auto [i, region] : llvm::enumerate(regionGraphs))
      if (region.second &&
          failed(importSubgraph(*region.second, (*op)->getRegion(i), loc,
                                region.first)))
        return failure();
    Operation *built = finishNormalizedNode(emitter, pending, *op);
    results.assign(built->result_begin(), built->result_end());
  }

  for (auto [i, name] : llvm::enumerate(node.output())) {
    // Outputs normalization dropped are left undefined: a node using one
    // fails as using an undefined name.
    if (name.empty() || i >= pending.outputPresent.size() ||
        !pending.outputPresent[i])
      continue;
    if (i >= results.size() || !results[i])
      return emitError(loc) << "output '" << name << "' is not produced";
    if (failed(define(name, results[i], loc, "output")))
      return failure();
  }
  return success();
}

/// The operand count of an op with a fixed number of operands (the onnxc
/// fused ops: their optional inputs are `none` values, never left out).
template <unsigned... N>
static std::optional<unsigned>
getFixedOperandCount(RegisteredOperationName name,
                     std::integer_sequence<unsigned, N...>) {
  std::optional<unsigned> count;
  if (name.hasTrait<OpTrait::OneOperand>())
    count = 1;
  ((name.hasTrait<OpTrait::NOperands<N>::template Impl>() ? (void)(count = N)
                                                          : (void)0),
   ...);
  return count;
}

/// A node of domain `onnxc` (an optimized model written by `onnxc optimize`)
/// becomes the fused op `onnxc.<op_type>` with the node's attributes; inputs
/// the node leaves out (empty names, or missing at the end) are `none`.
LogicalResult ModelImporter::importFusedNode(const ::onnx::NodeProto &node,
                                             Location loc) {
  std::string opName = "onnxc." + node.op_type();
  std::optional<RegisteredOperationName> name =
      RegisteredOperationName::lookup(opName, &ctx);
  std::optional<unsigned> numOperands;
  if (name)
    numOperands = getFixedOperandCount(
        *name, std::integer_sequence<unsigned, 2, 3, 4, 5, 6, 7, 8>());
  if (!numOperands)
    return emitError(loc) << "unknown op type '" << node.op_type()
                          << "' in domain 'onnxc'";
  if (unsigned(node.input_size()) > *numOperands)
    return emitError(loc) << node.op_type() << " takes at most " << *numOperands
                          << " inputs, the node has " << node.input_size();
  if (node.output_size() != 1 || node.output(0).empty())
    return emitError(loc) << node.op_type() << " has exactly one output";
  OperationState state(loc, *name);
  for (unsigned i = 0; i < *numOperands; ++i) {
    if (i >= unsigned(node.input_size()) || node.input(i).empty()) {
      state.addOperands(emitter.noValue());
      continue;
    }
    Value value = lookup(node.input(i));
    if (!value)
      return emitError(loc) << "input '" << node.input(i)
                            << "' is not defined by an earlier node, a graph "
                               "input or an initializer (nodes must be in "
                               "topological order)";
    state.addOperands(value);
  }
  for (const ::onnx::AttributeProto &attr : node.attribute()) {
    OnnxAttrKind kind = attributeKind(attr);
    if (kind == OnnxAttrKind::Graph)
      return emitError(loc)
             << "attribute '" << attr.name() << "' is a graph, which "
             << node.op_type() << " does not take";
    if (state.attributes.get(attr.name()))
      return emitError(loc)
             << "attribute '" << attr.name() << "' is given twice";
    FailureOr<Attribute> value = convertAttribute(attr, kind, loc);
    if (failed(value))
      return failure();
    state.addAttribute(attr.name(), *value);
  }
  state.addTypes(onnx::UnknownType::get(&ctx));
  Operation *op = builder.create(state);
  if (failed(verify(op)))
    return failure();
  return define(node.output(0), op->getResult(0), loc, "output");
}

LogicalResult ModelImporter::checkAgainstSchema(const PendingNode &pending,
                                                ArrayRef<GraphAttr> graphs) {
  const OnnxOpSchema &schema = *pending.schema;
  Location loc = pending.loc;
  StringRef opType = schema.opType;
  unsigned numInputs = pending.inputs.size();
  if (numInputs < schema.minInputs)
    return emitError(loc) << opType << " needs at least " << schema.minInputs
                          << " inputs, the node has " << numInputs;
  if (!schema.variadicInput && numInputs > schema.numInputs)
    return emitError(loc) << opType << " takes at most " << schema.numInputs
                          << " inputs, the node has " << numInputs;
  unsigned fixed = schema.numInputs - (schema.variadicInput ? 1 : 0);
  for (unsigned i = 0; i < fixed; ++i)
    if (schema.inputKinds[i] == 'S' && (i >= numInputs || !pending.inputs[i]))
      return emitError(loc) << "input " << i << " of " << opType
                            << " is required, but the node leaves it empty";

  unsigned numOutputs = pending.outputPresent.size();
  if (numOutputs < schema.minOutputs)
    return emitError(loc) << opType << " has at least " << schema.minOutputs
                          << " outputs, the node lists " << numOutputs;
  if (!schema.variadicOutput && numOutputs > schema.numOutputs)
    return emitError(loc) << opType << " has at most " << schema.numOutputs
                          << " outputs, the node lists " << numOutputs;

  for (const NamedAttribute &attr : pending.attributes) {
    const OnnxAttrSchema *expected = schema.findAttribute(attr.getName());
    if (!expected || expected->kind == OnnxAttrKind::Graph)
      return emitError(loc)
             << opType << " (opset " << schema.newestVersion()
             << ") has no attribute '" << attr.getName().str() << "'";
    if (!matchesKind(attr.getValue(), expected->kind))
      return emitError(loc)
             << "attribute '" << attr.getName().str() << "' is "
             << describeKind(attr.getValue()) << ", but " << opType
             << " expects " << stringifyAttrKind(expected->kind);
  }
  for (const GraphAttr &graph : graphs) {
    const OnnxAttrSchema *expected = schema.findAttribute(graph.first);
    if (!expected)
      return emitError(loc) << opType << " (opset " << schema.newestVersion()
                            << ") has no attribute '" << graph.first << "'";
    if (expected->kind != OnnxAttrKind::Graph)
      return emitError(loc)
             << "attribute '" << graph.first << "' is GRAPH, but " << opType
             << " expects " << stringifyAttrKind(expected->kind);
  }
  for (const OnnxAttrSchema &attr : schema.attributes) {
    if (!attr.required)
      continue;
    bool given =
        attr.kind == OnnxAttrKind::Graph
            ? llvm::any_of(graphs,
                           [&](auto &g) { return g.first == attr.name; })
            : static_cast<bool>(pending.attributes.get(attr.name));
    if (!given)
      return emitError(loc)
             << opType << " needs attribute '" << attr.name << "'";
  }
  return success();
}

LogicalResult ModelImporter::importSubgraph(const ::onnx::GraphProto &graph,
                                            Region &region, Location loc,
                                            StringRef attrName) {
  if (graph.sparse_initializer_size())
    return emitError(loc) << "subgraph '" << attrName
                          << "': sparse tensors are not supported yet";
  OpBuilder::InsertionGuard guard(builder);
  Block *block = builder.createBlock(&region);
  scopes.emplace_back();
  for (const ::onnx::ValueInfoProto &input : graph.input()) {
    SmallVector<std::string> dimParams;
    FailureOr<TensorType> type =
        convertTensorType(&ctx, input.type(), dimParams, [&] {
          return emitError(loc) << "subgraph '" << attrName << "' input '"
                                << input.name() << "': ";
        });
    if (failed(type))
      return failure();
    Type argType = *type ? Type(*type) : onnx::UnknownType::get(&ctx);
    BlockArgument arg = block->addArgument(argType, loc);
    if (failed(define(input.name(), arg, loc, "subgraph input")))
      return failure();
  }
  if (failed(importInitializers(graph)) || failed(importNodes(graph)))
    return failure();
  SmallVector<Value> results;
  for (const ::onnx::ValueInfoProto &output : graph.output()) {
    Value value = lookup(output.name());
    if (!value)
      return emitError(loc) << "output '" << output.name() << "' of subgraph '"
                            << attrName << "' is not defined";
    results.push_back(value);
  }
  builder.create<onnx::YieldOp>(loc, results);
  scopes.pop_back();
  return success();
}

} // namespace

OwningOpRef<ModuleOp> importModelProto(MLIRContext &ctx,
                                       ::onnx::ModelProto &model,
                                       StringRef path,
                                       ExternalDataReader &externalData,
                                       const ImportOptions &options) {
  ctx.getOrLoadDialect<onnx::ONNXDialect>();
  ctx.getOrLoadDialect<fused::OnnxcDialect>();
  ctx.getOrLoadDialect<func::FuncDialect>();
  return ModelImporter(ctx, model, path, externalData, options).run();
}

} // namespace onnxc
