#!/usr/bin/env python3
"""Generates compiler/dialect/OnnxOps.td from the ONNX operator schemas.

The `onnx` dialect has one op per ONNX operator (ai.onnx and ai.onnx.ml), in
the newest version the installed `onnx` package knows. Older opset versions are
normalized to that form by the importer (see compiler/import/OpsetNormalize.cpp).

Conventions of the generated ops:
  * every operand and result is `AnyType`: tensors, sequences and optionals all
    flow through; shape/type rules live in C++ (compiler/dialect/ShapeInference).
  * an omitted optional input is a value of type `none` (made by `onnx.NoValue`);
    the one variadic input an ONNX schema may have is always the last operand.
  * an omitted optional output has type `none`.
  * graph attributes (If/Loop/Scan bodies) are regions ended by `onnx.Yield`.
  * attributes keep their ONNX names; scalar attributes with a schema default
    get that default through the ODS getter.

With --schemas it writes instead compiler/dialect/OnnxOpSchemas.inc, the C++
table the importer reads: per op its every since_version, its formal inputs
and outputs (counts, which are optional or variadic) and its attributes.

Run:  .venv/bin/python scripts/gen_onnx_dialect.py > compiler/dialect/OnnxOps.td
      .venv/bin/python scripts/gen_onnx_dialect.py --schemas \\
          > compiler/dialect/OnnxOpSchemas.inc
"""
import sys

import onnx
from onnx import defs

FP = defs.OpSchema.FormalParameterOption
AT = defs.OpSchema.AttrType

# Domains that become part of the dialect, and the op-name prefix they get.
DOMAINS = {"": "", "ai.onnx.ml": "ml."}

# Ops whose results are not a function of their inputs: they must not be
# CSE'd, hoisted or folded, so they do not get the `Pure` trait.
IMPURE = {"RandomNormal", "RandomNormalLike", "RandomUniform",
          "RandomUniformLike", "Multinomial", "Bernoulli"}


def td_string(text):
    return text.replace("\\", "\\\\").replace('"', '\\"')


def scalar_default(attr):
    """The ODS default value string for a scalar attribute, or None."""
    dv = attr.default_value
    if dv is None or not dv.name:
        return None
    if attr.type == AT.INT:
        return str(dv.i)
    if attr.type == AT.FLOAT:
        return repr(float(dv.f))
    if attr.type == AT.STRING:
        return dv.s.decode()
    return None


def attr_decl(attr):
    base = {
        AT.INT: "ONNX_IntAttr",
        AT.FLOAT: "F32Attr",
        AT.STRING: "StrAttr",
        AT.INTS: "I64ArrayAttr",
        AT.FLOATS: "F32ArrayAttr",
        AT.STRINGS: "StrArrayAttr",
        AT.TENSOR: "ElementsAttr",
        AT.SPARSE_TENSOR: "ElementsAttr",
        AT.TENSORS: "ArrayAttr",
        AT.TYPE_PROTO: "TypeAttr",
        AT.TYPE_PROTOS: "TypeArrayAttr",
    }[attr.type]
    if attr.required:
        return base
    default = scalar_default(attr)
    if default is None:
        return f"OptionalAttr<{base}>"
    if attr.type == AT.STRING:
        return f'DefaultValuedStrAttr<{base}, "{td_string(default)}">'
    return f'DefaultValuedAttr<{base}, "{default}">'


def op_def(schema):
    prefix = DOMAINS[schema.domain]
    cname = ("ML_" if prefix else "") + schema.name
    traits = [] if schema.name in IMPURE else ["Pure"]
    ins, regions = [], []
    for p in schema.inputs:
        kind = "Variadic<AnyType>" if p.option == FP.Variadic else "AnyType"
        ins.append(f"{kind}:${p.name}")
    for name, attr in sorted(schema.attributes.items()):
        if attr.type == AT.GRAPH:
            regions.append(f"AnyRegion:${name}")
        elif attr.type == AT.GRAPHS:
            regions.append(f"VariadicRegion<AnyRegion>:${name}")
        else:
            ins.append(f"{attr_decl(attr)}:${name}")
    outs = []
    for p in schema.outputs:
        kind = "Variadic<AnyType>" if p.option == FP.Variadic else "AnyType"
        outs.append(f"{kind}:${p.name}")
    summary = f"ONNX {schema.domain or 'ai.onnx'} {schema.name}, opset {schema.since_version}"
    lines = [f'def ONNX_{cname}Op : ONNX_Op<"{prefix}{schema.name}", '
             f'{schema.since_version}, [{", ".join(traits)}]> {{',
             f'  let summary = "{summary}";']
    lines.append("  let arguments = (ins" + ("\n    " if ins else "") +
                 ",\n    ".join(ins) + ");")
    lines.append("  let results = (outs" + ("\n    " if outs else "") +
                 ",\n    ".join(outs) + ");")
    if regions:
        lines.append("  let regions = (region " + ", ".join(regions) + ");")
    lines.append("}")
    return "\n".join(lines)


# AttributeProto.AttributeType -> the OnnxAttrKind enumerator of the table.
ATTR_KINDS = {
    AT.FLOAT: "Float", AT.INT: "Int", AT.STRING: "String",
    AT.TENSOR: "Tensor", AT.GRAPH: "Graph", AT.FLOATS: "Floats",
    AT.INTS: "Ints", AT.STRINGS: "Strings", AT.TENSORS: "Tensors",
    AT.GRAPHS: "Graphs", AT.SPARSE_TENSOR: "SparseTensor",
    AT.SPARSE_TENSORS: "SparseTensors", AT.TYPE_PROTO: "TypeProto",
    AT.TYPE_PROTOS: "TypeProtos",
}


def param_kinds(params):
    """One letter per formal parameter: S single, O optional, V variadic."""
    letters = {FP.Single: "S", FP.Optional: "O", FP.Variadic: "V"}
    return "".join(letters[p.option] for p in params)


def write_schema_table(latest, history, out):
    out.write("// GENERATED by scripts/gen_onnx_dialect.py --schemas from the schemas of\n")
    out.write(f"// onnx {onnx.__version__} (ai.onnx opset {defs.onnx_opset_version()}). Do not edit.\n")
    out.write("// Regenerate: .venv/bin/python scripts/gen_onnx_dialect.py --schemas "
              "> compiler/dialect/OnnxOpSchemas.inc\n")
    out.write("//\n// One OnnxOpSchema per op of compiler/dialect/OnnxOps.td, in the same\n"
              "// order (the types are declared in compiler/import/OpSchemas.h):\n"
              "//   {mlir op name, domain, op type, since_versions (ascending),\n"
              "//    inputs, last input variadic, min inputs,\n"
              "//    outputs, last output variadic, min outputs,\n"
              "//    input kinds, output kinds (S single, O optional, V variadic),\n"
              "//    attributes of the newest version (sorted by name)}\n\n")
    rows = []
    for key in sorted(latest, key=lambda k: (k[0], k[1])):
        s = latest[key]
        ident = ("ML_" if DOMAINS[s.domain] else "") + s.name
        versions = ", ".join(str(v) for v in sorted(history[key]))
        out.write(f"static const int kSince_{ident}[] = {{{versions}}};\n")
        attrs = "{}"
        if s.attributes:
            out.write(f"static const OnnxAttrSchema kAttrs_{ident}[] = {{\n")
            for name, attr in sorted(s.attributes.items()):
                required = "true" if attr.required else "false"
                out.write(f'    {{"{name}", OnnxAttrKind::{ATTR_KINDS[attr.type]}, {required}}},\n')
            out.write("};\n")
            attrs = f"kAttrs_{ident}"
        ins, outs = list(s.inputs), list(s.outputs)
        var_in = bool(ins) and ins[-1].option == FP.Variadic
        var_out = bool(outs) and outs[-1].option == FP.Variadic
        flag = lambda b: "true" if b else "false"
        rows.append(
            f'    {{"onnx.{DOMAINS[s.domain]}{s.name}", "{s.domain}", "{s.name}", '
            f"kSince_{ident},\n"
            f"     {len(ins)}, {flag(var_in)}, {s.min_input}, "
            f"{len(outs)}, {flag(var_out)}, {s.min_output}, "
            f'"{param_kinds(ins)}", "{param_kinds(outs)}", {attrs}}},\n')
    out.write("\nstatic const OnnxOpSchema kOnnxOpSchemas[] = {\n")
    for row in rows:
        out.write(row)
    out.write("};\n")


def main():
    latest, history = {}, {}
    for s in defs.get_all_schemas_with_history():
        if s.domain not in DOMAINS:
            continue
        key = (s.domain, s.name)
        history.setdefault(key, []).append(s.since_version)
        if key not in latest or latest[key].since_version < s.since_version:
            latest[key] = s
    out = sys.stdout
    if sys.argv[1:] == ["--schemas"]:
        write_schema_table(latest, history, out)
        return
    if sys.argv[1:]:
        sys.exit("usage: gen_onnx_dialect.py [--schemas]")
    out.write("// GENERATED by scripts/gen_onnx_dialect.py from the schemas of\n")
    out.write(f"// onnx {onnx.__version__} (ai.onnx opset {defs.onnx_opset_version()}). Do not edit.\n")
    out.write("// Regenerate: .venv/bin/python scripts/gen_onnx_dialect.py "
              "> compiler/dialect/OnnxOps.td\n\n")
    out.write("#ifndef ONNXC_DIALECT_ONNXOPS_TD\n#define ONNXC_DIALECT_ONNXOPS_TD\n\n")
    out.write('include "OnnxBase.td"\n\n')
    for key in sorted(latest, key=lambda k: (k[0], k[1])):
        out.write(op_def(latest[key]) + "\n\n")
    out.write("#endif // ONNXC_DIALECT_ONNXOPS_TD\n")


if __name__ == "__main__":
    main()
