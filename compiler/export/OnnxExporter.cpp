//===- OnnxExporter.cpp - onnx dialect -> ONNX ModelProto -----------------===//
//
// The importer's conventions (docs/internals.md section 1) read backwards:
//
//   func @main_graph arguments / results   graph inputs / outputs (onnxc.name,
//                                          onnxc.dim_params)
//   onnx.Constant at the top level         initializer (named after its
//                                          location, the initializer's name)
//   onnx.NoValue                           "" (an omitted optional input)
//   onnx.<Op> / onnx.ml.<Op> / onnxc.<Op>  NodeProto of domain "", ai.onnx.ml
//                                          or onnxc, attributes by their kind
//   regions                                graph attributes (the schema lists
//                                          them in region order)
//
// Values get fresh names (`<node>_output_<i>`), except graph inputs and
// outputs, which keep theirs. A graph output that is not a fresh node result
// (a graph input, an initializer, a value already returned) is produced by
// an Identity, so every output keeps its name and the graph stays valid.
//
//===----------------------------------------------------------------------===//

#include "compiler/export/OnnxExporter.h"

#include "compiler/dialect/OnnxDialect.h"
#include "compiler/import/OpSchemas.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "onnx/onnx_pb.h"

#include <map>

using namespace mlir;

namespace onnxc {
namespace {

/// ONNX TensorProto.DataType of an element type, or 0 if it has none.
int32_t getDataType(Type type) {
  if (type.isF32())
    return 1;
  if (type.isF64())
    return 11;
  if (type.isF16())
    return 10;
  if (type.isBF16())
    return 16;
  if (type.isFloat8E4M3FN())
    return 17;
  if (type.isFloat8E4M3FNUZ())
    return 18;
  if (type.isFloat8E5M2())
    return 19;
  if (type.isFloat8E5M2FNUZ())
    return 20;
  auto intType = llvm::dyn_cast<IntegerType>(type);
  if (!intType)
    return 0;
  bool isUnsigned = intType.isUnsigned();
  switch (intType.getWidth()) {
  case 1:
    return 9;
  case 2:
    return isUnsigned ? 25 : 26;
  case 4:
    return isUnsigned ? 21 : 22;
  case 8:
    return isUnsigned ? 2 : 3;
  case 16:
    return isUnsigned ? 4 : 5;
  case 32:
    return isUnsigned ? 12 : 6;
  case 64:
    return isUnsigned ? 13 : 7;
  default:
    return 0;
  }
}

/// The IR version a model of ai.onnx `opset` needs (onnx's version table).
int64_t irVersionForOpset(int64_t opset) {
  if (opset >= 28)
    return 14;
  if (opset >= 25)
    return 13;
  if (opset >= 24)
    return 12;
  if (opset >= 23)
    return 11;
  if (opset >= 21)
    return 10;
  if (opset >= 19)
    return 9;
  return 8;
}

class ModelExporter {
public:
  explicit ModelExporter(ModuleOp module) : module(module) {}

  LogicalResult run(::onnx::ModelProto &model);

private:
  LogicalResult exportMainGraph(func::FuncOp func, ::onnx::GraphProto &graph);
  LogicalResult exportBody(Block &block, ::onnx::GraphProto &graph, bool isMain,
                           ArrayRef<std::string> outputNames);
  LogicalResult exportNode(Operation *op, ::onnx::GraphProto &graph);
  LogicalResult exportInitializer(onnx::ConstantOp op,
                                  ::onnx::GraphProto &graph);
  LogicalResult exportAttribute(Operation *op, StringRef name, Attribute attr,
                                std::optional<OnnxAttrKind> kind,
                                ::onnx::AttributeProto &proto);
  LogicalResult exportTensor(Location loc, ElementsAttr attr,
                             ::onnx::TensorProto &tensor);
  LogicalResult setType(Location loc, Type type, ArrayAttr dimParams,
                        ::onnx::TypeProto &proto);

  /// `base`, or `base_<n>` if that is taken.
  std::string uniqueName(StringRef base);
  /// The name of a value defined before its use (all of them are).
  std::string nameOf(Value v) const {
    return onnx::isNoValue(v) ? std::string() : names.lookup(v);
  }
  static std::string nodeName(Operation *op);

  ModuleOp module;
  llvm::StringSet<> usedNames;
  llvm::StringSet<> usedNodeNames;
  /// main_graph's outputs: their types are in graph.output, not value_info.
  llvm::StringSet<> graphOutputNames;
  llvm::DenseMap<Value, std::string> names;
  /// The newest version of an op used, per domain ("" for ai.onnx).
  std::map<std::string, int64_t> neededOpsets;
};

std::string ModelExporter::uniqueName(StringRef base) {
  std::string name = base.empty() ? std::string("value") : base.str();
  for (unsigned n = 1; !usedNames.insert(name).second; ++n)
    name = (llvm::Twine(base) + "_" + llvm::Twine(n)).str();
  return name;
}

std::string ModelExporter::nodeName(Operation *op) {
  if (auto loc = llvm::dyn_cast<NameLoc>(op->getLoc()))
    return loc.getName().str();
  if (auto fused = llvm::dyn_cast<FusedLoc>(op->getLoc()))
    for (Location inner : fused.getLocations())
      if (auto loc = llvm::dyn_cast<NameLoc>(inner))
        return loc.getName().str();
  return op->getName().stripDialect().str();
}

LogicalResult ModelExporter::run(::onnx::ModelProto &model) {
  auto func = module.lookupSymbol<func::FuncOp>("main_graph");
  if (!func || func.isExternal())
    return module.emitError() << "the module has no main_graph to export";
  model.set_producer_name("onnxc");
  model.set_producer_version("optimize");
  ::onnx::GraphProto &graph = *model.mutable_graph();
  if (auto name = module->getAttrOfType<StringAttr>("onnxc.graph_name"))
    graph.set_name(name.str());
  if (failed(exportMainGraph(func, graph)))
    return failure();

  // Opsets: the model's own, raised to what the ops used need.
  std::map<std::string, int64_t> opsets;
  if (auto imports =
          module->getAttrOfType<DictionaryAttr>("onnxc.opset_imports"))
    for (NamedAttribute entry : imports)
      if (auto version = llvm::dyn_cast<IntegerAttr>(entry.getValue()))
        opsets[entry.getName() == "ai.onnx" ? "" : entry.getName().str()] =
            version.getInt();
  for (const auto &[domain, version] : neededOpsets)
    opsets[domain] = std::max(opsets[domain], version);
  if (!opsets.count(""))
    opsets[""] = neededOpsets.count("") ? neededOpsets[""] : 1;
  for (const auto &[domain, version] : opsets) {
    ::onnx::OperatorSetIdProto *opset = model.add_opset_import();
    opset->set_domain(domain);
    opset->set_version(version);
  }
  model.set_ir_version(irVersionForOpset(opsets[""]));
  return success();
}

LogicalResult ModelExporter::setType(Location loc, Type type,
                                     ArrayAttr dimParams,
                                     ::onnx::TypeProto &proto) {
  auto tensorType = llvm::dyn_cast<TensorType>(type);
  if (!tensorType)
    return success(); // untyped: no type in the model either
  int32_t dataType = getDataType(tensorType.getElementType());
  if (!dataType)
    return emitError(loc) << "element type " << tensorType.getElementType()
                          << " has no ONNX data type";
  ::onnx::TypeProto::Tensor *tensor = proto.mutable_tensor_type();
  tensor->set_elem_type(dataType);
  auto ranked = llvm::dyn_cast<RankedTensorType>(type);
  if (!ranked)
    return success();
  ::onnx::TensorShapeProto *shape = tensor->mutable_shape();
  for (auto [i, dim] : llvm::enumerate(ranked.getShape())) {
    ::onnx::TensorShapeProto::Dimension *d = shape->add_dim();
    StringRef param;
    if (dimParams && i < dimParams.size())
      if (auto s = llvm::dyn_cast<StringAttr>(dimParams[i]))
        param = s.getValue();
    if (!param.empty())
      d->set_dim_param(param.str());
    else if (!ShapedType::isDynamic(dim))
      d->set_dim_value(dim);
  }
  return success();
}

LogicalResult ModelExporter::exportTensor(Location loc, ElementsAttr attr,
                                          ::onnx::TensorProto &tensor) {
  auto dense = llvm::dyn_cast<DenseElementsAttr>(attr);
  if (!dense)
    return emitError(loc) << "only dense tensors can be exported";
  auto type = llvm::cast<ShapedType>(dense.getType());
  Type elementType = type.getElementType();
  int32_t dataType = getDataType(elementType);
  if (!dataType)
    return emitError(loc) << "element type " << elementType
                          << " has no ONNX data type";
  tensor.set_data_type(dataType);
  for (int64_t d : type.getShape())
    tensor.add_dims(d);
  int64_t n = type.getNumElements();
  std::string *raw = tensor.mutable_raw_data();
  unsigned width = elementType.getIntOrFloatBitWidth();
  if (width == 1) {
    raw->reserve(n);
    for (bool b : dense.getValues<bool>())
      raw->push_back(char(b));
  } else if (width % 8 == 0) {
    ArrayRef<char> data = dense.getRawData();
    size_t bytes = width / 8;
    if (dense.isSplat()) {
      raw->reserve(n * bytes);
      for (int64_t i = 0; i < n; ++i)
        raw->append(data.data(), bytes);
    } else {
      raw->assign(data.data(), data.size());
    }
  } else {
    // int4 / int2: packed low bits first, as ONNX stores them.
    unsigned perByte = 8 / width;
    raw->assign((n + perByte - 1) / perByte, 0);
    int64_t i = 0;
    for (const APInt &v : dense.getValues<APInt>()) {
      uint8_t bits = uint8_t(v.getZExtValue() & ((1u << width) - 1));
      (*raw)[i / perByte] |= char(bits << ((i % perByte) * width));
      ++i;
    }
  }
  return success();
}

LogicalResult ModelExporter::exportAttribute(Operation *op, StringRef name,
                                             Attribute attr,
                                             std::optional<OnnxAttrKind> kind,
                                             ::onnx::AttributeProto &proto) {
  proto.set_name(name.str());
  auto fail = [&]() {
    return op->emitError() << "attribute '" << name << "' (" << attr
                           << ") has no ONNX form";
  };
  auto setKind = [&](OnnxAttrKind k) {
    proto.set_type(::onnx::AttributeProto::AttributeType(int(k)));
  };
  if (auto b = llvm::dyn_cast<BoolAttr>(attr)) {
    setKind(OnnxAttrKind::Int);
    proto.set_i(b.getValue());
  } else if (auto i = llvm::dyn_cast<IntegerAttr>(attr)) {
    setKind(OnnxAttrKind::Int);
    proto.set_i(i.getValue().getSExtValue());
  } else if (auto f = llvm::dyn_cast<FloatAttr>(attr)) {
    setKind(OnnxAttrKind::Float);
    proto.set_f(float(f.getValueAsDouble()));
  } else if (auto s = llvm::dyn_cast<StringAttr>(attr)) {
    setKind(OnnxAttrKind::String);
    proto.set_s(s.str());
  } else if (llvm::isa<UnitAttr>(attr)) {
    setKind(OnnxAttrKind::Int);
    proto.set_i(1);
  } else if (auto t = llvm::dyn_cast<ElementsAttr>(attr)) {
    setKind(OnnxAttrKind::Tensor);
    return exportTensor(op->getLoc(), t, *proto.mutable_t());
  } else if (auto t = llvm::dyn_cast<TypeAttr>(attr)) {
    setKind(OnnxAttrKind::TypeProto);
    return setType(op->getLoc(), t.getValue(), {}, *proto.mutable_tp());
  } else if (auto a = llvm::dyn_cast<DenseI64ArrayAttr>(attr)) {
    setKind(OnnxAttrKind::Ints);
    for (int64_t v : a.asArrayRef())
      proto.add_ints(v);
  } else if (auto a = llvm::dyn_cast<DenseI32ArrayAttr>(attr)) {
    setKind(OnnxAttrKind::Ints);
    for (int32_t v : a.asArrayRef())
      proto.add_ints(v);
  } else if (auto a = llvm::dyn_cast<DenseF32ArrayAttr>(attr)) {
    setKind(OnnxAttrKind::Floats);
    for (float v : a.asArrayRef())
      proto.add_floats(v);
  } else if (auto a = llvm::dyn_cast<DenseF64ArrayAttr>(attr)) {
    setKind(OnnxAttrKind::Floats);
    for (double v : a.asArrayRef())
      proto.add_floats(float(v));
  } else if (auto array = llvm::dyn_cast<ArrayAttr>(attr)) {
    // The element kind: from the schema, else from the first element (an
    // empty list of unknown kind is written as INTS).
    OnnxAttrKind elementKind = OnnxAttrKind::Ints;
    if (kind)
      elementKind = *kind;
    else if (!array.empty())
      elementKind =
          llvm::TypeSwitch<Attribute, OnnxAttrKind>(array[0])
              .Case<FloatAttr>([](auto) { return OnnxAttrKind::Floats; })
              .Case<StringAttr>([](auto) { return OnnxAttrKind::Strings; })
              .Case<ElementsAttr>([](auto) { return OnnxAttrKind::Tensors; })
              .Case<TypeAttr>([](auto) { return OnnxAttrKind::TypeProtos; })
              .Default([](auto) { return OnnxAttrKind::Ints; });
    setKind(elementKind);
    for (Attribute element : array) {
      switch (elementKind) {
      case OnnxAttrKind::Ints:
        if (auto i = llvm::dyn_cast<IntegerAttr>(element)) {
          proto.add_ints(i.getValue().getSExtValue());
          continue;
        }
        return fail();
      case OnnxAttrKind::Floats:
        if (auto f = llvm::dyn_cast<FloatAttr>(element)) {
          proto.add_floats(float(f.getValueAsDouble()));
          continue;
        }
        return fail();
      case OnnxAttrKind::Strings:
        if (auto s = llvm::dyn_cast<StringAttr>(element)) {
          proto.add_strings(s.str());
          continue;
        }
        return fail();
      case OnnxAttrKind::Tensors:
        if (auto t = llvm::dyn_cast<ElementsAttr>(element)) {
          if (failed(exportTensor(op->getLoc(), t, *proto.add_tensors())))
            return failure();
          continue;
        }
        return fail();
      case OnnxAttrKind::TypeProtos:
        if (auto t = llvm::dyn_cast<TypeAttr>(element)) {
          if (failed(setType(op->getLoc(), t.getValue(), {},
                             *proto.add_type_protos())))
            return failure();
          continue;
        }
        return fail();
      default:
        return fail();
      }
    }
  } else {
    return fail();
  }
  return success();
}

LogicalResult ModelExporter::exportInitializer(onnx::ConstantOp op,
                                               ::onnx::GraphProto &graph) {
  auto value = llvm::dyn_cast_if_present<ElementsAttr>(op.getValueAttr());
  if (!value)
    return op->emitError() << "only Constants with a dense 'value' can be "
                              "exported as initializers";
  std::string name = uniqueName(nodeName(op));
  names[op->getResult(0)] = name;
  ::onnx::TensorProto *tensor = graph.add_initializer();
  tensor->set_name(name);
  return exportTensor(op->getLoc(), value, *tensor);
}

LogicalResult ModelExporter::exportNode(Operation *op,
                                        ::onnx::GraphProto &graph) {
  StringRef dialect = op->getName().getDialectNamespace();
  const OnnxOpSchema *schema = nullptr;
  ::onnx::NodeProto node;
  if (dialect == "onnx") {
    schema = lookupOpSchema(op->getName().getStringRef());
    if (!schema)
      return op->emitError()
             << "'" << op->getName() << "' has no ONNX operator to export to";
    node.set_op_type(schema->opType);
    node.set_domain(schema->domain);
    int64_t &version = neededOpsets[schema->domain];
    version = std::max<int64_t>(version, schema->newestVersion());
  } else if (dialect == "onnxc") {
    node.set_op_type(op->getName().stripDialect().str());
    node.set_domain("onnxc");
    neededOpsets["onnxc"] = 1;
  } else {
    return op->emitError() << "'" << op->getName()
                           << "' is not an onnx or onnxc op";
  }
  std::string name = nodeName(op);
  for (unsigned n = 1; !usedNodeNames.insert(name).second; ++n)
    name = nodeName(op) + "_" + std::to_string(n);
  node.set_name(name);

  for (Value operand : op->getOperands())
    node.add_input(nameOf(operand));
  while (node.input_size() && node.input(node.input_size() - 1).empty())
    node.mutable_input()->RemoveLast();
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    if (llvm::isa<NoneType>(result.getType())) {
      node.add_output("");
      continue;
    }
    std::string &valueName = names[result];
    if (valueName.empty())
      valueName = uniqueName(name + "_output_" + std::to_string(i));
    node.add_output(valueName);
    if (llvm::isa<RankedTensorType>(result.getType()) &&
        !graphOutputNames.contains(valueName)) {
      ::onnx::ValueInfoProto *info = graph.add_value_info();
      info->set_name(valueName);
      if (failed(setType(op->getLoc(), result.getType(), {},
                         *info->mutable_type())))
        return failure();
    }
  }
  while (node.output_size() && node.output(node.output_size() - 1).empty())
    node.mutable_output()->RemoveLast();

  // Attributes; the schema's graph attributes are the regions, in order.
  SmallVector<const OnnxAttrSchema *> graphAttrs;
  if (schema)
    for (const OnnxAttrSchema &attr : schema->attributes)
      if (attr.kind == OnnxAttrKind::Graph)
        graphAttrs.push_back(&attr);
  for (NamedAttribute attr : op->getAttrs()) {
    if (attr.getName().getValue().starts_with("onnxc."))
      continue; // onnxc's annotations (targets...), not ONNX attributes
    std::optional<OnnxAttrKind> kind;
    if (schema)
      if (const OnnxAttrSchema *s = schema->findAttribute(attr.getName()))
        kind = s->kind;
    if (failed(exportAttribute(op, attr.getName(), attr.getValue(), kind,
                               *node.add_attribute())))
      return failure();
  }
  if (op->getNumRegions() != graphAttrs.size())
    return op->emitError() << "cannot export the regions of '" << op->getName()
                           << "'";
  for (auto [region, attr] : llvm::zip(op->getRegions(), graphAttrs)) {
    if (!region.hasOneBlock())
      return op->emitError()
             << "graph attribute '" << attr->name << "' must have one block";
    ::onnx::AttributeProto *proto = node.add_attribute();
    proto->set_name(attr->name);
    proto->set_type(::onnx::AttributeProto::GRAPH);
    ::onnx::GraphProto *body = proto->mutable_g();
    body->set_name(name + "_" + attr->name);
    Block &block = region.front();
    for (auto [i, arg] : llvm::enumerate(block.getArguments())) {
      std::string argName =
          uniqueName(name + "_" + attr->name + "_input_" + std::to_string(i));
      names[arg] = argName;
      ::onnx::ValueInfoProto *info = body->add_input();
      info->set_name(argName);
      if (failed(
              setType(op->getLoc(), arg.getType(), {}, *info->mutable_type())))
        return failure();
    }
    SmallVector<std::string> outputNames;
    for (unsigned i = 0, e = block.getTerminator()->getNumOperands(); i < e;
         ++i)
      outputNames.push_back(name + "_" + attr->name + "_output_" +
                            std::to_string(i));
    if (failed(exportBody(block, *body, /*isMain=*/false, outputNames)))
      return failure();
  }
  *graph.add_node() = std::move(node);
  return success();
}

LogicalResult ModelExporter::exportBody(Block &block, ::onnx::GraphProto &graph,
                                        bool isMain,
                                        ArrayRef<std::string> outputNames) {
  Operation *terminator = block.getTerminator();
  // Outputs that are fresh results of this graph's nodes take the output's
  // name; the others get an Identity below.
  SmallVector<bool> needsIdentity;
  for (auto [i, value] : llvm::enumerate(terminator->getOperands())) {
    Operation *def = value.getDefiningOp();
    bool fresh = def && def->getBlock() == &block &&
                 !llvm::isa<onnx::ConstantOp>(def) && !names.count(value) &&
                 !onnx::isNoValue(value);
    needsIdentity.push_back(!fresh);
    if (fresh)
      names[value] = isMain ? outputNames[i] : uniqueName(outputNames[i]);
  }

  for (Operation &op : block) {
    if (&op == terminator)
      break;
    if (llvm::isa<onnx::NoValueOp>(op))
      continue;
    if (auto constant = llvm::dyn_cast<onnx::ConstantOp>(&op);
        constant && isMain) {
      if (failed(exportInitializer(constant, graph)))
        return failure();
      continue;
    }
    if (failed(exportNode(&op, graph)))
      return failure();
  }

  for (auto [i, value] : llvm::enumerate(terminator->getOperands())) {
    std::string outputName = names.lookup(value);
    if (needsIdentity[i]) {
      if (onnx::isNoValue(value))
        return terminator->emitError()
               << "output #" << i << " is an omitted value";
      outputName = isMain ? outputNames[i] : uniqueName(outputNames[i]);
      ::onnx::NodeProto *node = graph.add_node();
      std::string nodeName = outputName + "_identity";
      for (unsigned n = 1; !usedNodeNames.insert(nodeName).second; ++n)
        nodeName = outputName + "_identity_" + std::to_string(n);
      node->set_name(nodeName);
      node->set_op_type("Identity");
      node->add_input(nameOf(value));
      node->add_output(outputName);
    }
    ::onnx::ValueInfoProto *info = graph.add_output();
    info->set_name(outputName);
    ArrayAttr dimParams;
    if (isMain)
      dimParams = llvm::cast<func::FuncOp>(block.getParentOp())
                      .getResultAttrOfType<ArrayAttr>(i, "onnxc.dim_params");
    if (failed(setType(terminator->getLoc(), value.getType(), dimParams,
                       *info->mutable_type())))
      return failure();
  }
  return success();
}

LogicalResult ModelExporter::exportMainGraph(func::FuncOp func,
                                             ::onnx::GraphProto &graph) {
  Block &entry = func.getBody().front();
  if (!func.getBody().hasOneBlock())
    return func.emitError() << "main_graph must have one block";
  // Graph input and output names are fixed: reserve them first.
  SmallVector<std::string> outputNames;
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i) {
    auto name = func.getResultAttrOfType<StringAttr>(i, "onnxc.name");
    outputNames.push_back(name ? name.str() : "output_" + std::to_string(i));
  }
  for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
    auto name = func.getArgAttrOfType<StringAttr>(i, "onnxc.name");
    std::string argName = name ? name.str() : "input_" + std::to_string(i);
    usedNames.insert(argName);
    names[arg] = argName;
  }
  for (const std::string &name : outputNames)
    graphOutputNames.insert(name);
  for (const std::string &name : outputNames)
    if (!usedNames.insert(name).second)
      return func.emitError() << "graph output '" << name
                              << "' has the name of another input or output";
  for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
    ::onnx::ValueInfoProto *info = graph.add_input();
    info->set_name(names[arg]);
    if (failed(setType(func.getLoc(), arg.getType(),
                       func.getArgAttrOfType<ArrayAttr>(i, "onnxc.dim_params"),
                       *info->mutable_type())))
      return failure();
  }
  return exportBody(entry, graph, /*isMain=*/true, outputNames);
}

} // namespace

LogicalResult exportOnnxModel(ModuleOp module, llvm::StringRef path) {
  ::onnx::ModelProto model;
  ModelExporter exporter(module);
  if (failed(exporter.run(model)))
    return failure();
  if (model.ByteSizeLong() > size_t(INT32_MAX))
    return module.emitError()
           << "the optimized model is over 2 GiB, the protobuf limit";
  std::string bytes;
  if (!model.SerializeToString(&bytes))
    return module.emitError() << "cannot serialize the optimized model";
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return module.emitError() << path << ": " << ec.message();
  os << bytes;
  os.close();
  if (os.has_error())
    return module.emitError() << path << ": " << os.error().message();
  return success();
}

} // namespace onnxc
