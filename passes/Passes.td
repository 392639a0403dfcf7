//===- Passes.td - Graph passes -----------------------------*- tablegen -*-===//

#ifndef ONNXC_PASSES_PASSES_TD
#define ONNXC_PASSES_PASSES_TD

include "mlir/Pass/PassBase.td"

def Partition : Pass<"onnxc-partition", "mlir::ModuleOp"> {
  let summary = "Split main_graph into partitions, one target each";
  let description = [{
    Asks the targets in priority order (`targets`; the host target `cpu` is
    always the implicit last) which nodes of `main_graph` they take; a node
    goes to the first that takes it. A group of connected nodes of one
    non-host target that holds no compute-heavy node (convolution, matrix
    product, pooling, normalization, softmax, attention, recurrence) goes to
    the next target that takes its nodes, so cheap nodes are not split off.
    The nodes are then reordered (a topological order that keeps each
    target's nodes together), every run of one target's nodes is outlined
    into a private function tagged `onnxc.target` that main_graph calls, and
    an `onnxc.Transfer` is inserted wherever a value crosses memory spaces.
    A node no target takes fails the pass with an error naming the node, the
    targets asked and their reasons. `print-partitions` prints each
    partition and every refusal; `partition-graph` writes a Graphviz picture
    of the graph coloured by target.
  }];
  let options = [
    ListOption<"targets", "targets", "std::string",
               "targets in priority order">,
    Option<"printPartitions", "print-partitions", "bool", "false",
           "print the partitions and the refusals to stdout">,
    Option<"graphFile", "partition-graph", "std::string", "\"\"",
           "write the graph, coloured by target, as Graphviz to this file">
  ];
  let constructor = "onnxc::createPartitionPass({})";
  let dependentDialects = ["mlir::func::FuncDialect"];
}

def InlineHostPartitions : Pass<"onnxc-inline-host-partitions",
                                "mlir::ModuleOp"> {
  let summary = "Inline the partitions whose target keeps values in host memory";
  let description = [{
    After every target lowered its partitions: a partition of a host-memory
    target is code the host graph can run in place, so its function is
    inlined into main_graph (one workspace plan then covers every partition)
    and erased.
  }];
  let constructor = "onnxc::createInlineHostPartitionsPass()";
}

//===----------------------------------------------------------------------===//
// Graph optimizations (run by buildGraphOptimizationPipeline, -O1 and up)
//===----------------------------------------------------------------------===//

def ConstantFolding : Pass<"onnxc-constant-folding", "mlir::func::FuncOp"> {
  let summary = "Evaluate onnx ops whose inputs are all constants";
  let description = [{
    Replaces an onnx op whose operands are all `onnx.Constant`s (or omitted
    optional inputs) by the constants it computes, and `Shape`/`Size` of a
    statically shaped tensor by their value. Covers the shape computations
    exporters emit (Shape, Gather, Unsqueeze, Squeeze, Concat, Reshape,
    Slice, Cast, ConstantOfShape, Range, Expand, Equal, Where, Transpose...)
    and elementwise arithmetic on integers and floats. A result with more
    than `max-elements` elements is not folded, so that a small graph cannot
    make compile time memory explode. Ops left without users are erased.
    DequantizeLinear is folded only with `fold-dequantize` (the graph
    optimizer's run after the QDQ fusions: before them, a dequantized weight
    is what FuseQdq matches).
  }];
  let options = [
    Option<"maxElements", "max-elements", "int64_t",
           /*default=*/"onnxc::kDefaultMaxFoldedElements",
           "the largest result (in elements) a fold may create">,
    Option<"foldDequantize", "fold-dequantize", "bool", /*default=*/"false",
           "also fold DequantizeLinear of constants (weights the QDQ "
           "fusions left to float ops)">
  ];
  let constructor = "onnxc::createConstantFoldingPass()";
}

def RedundantNodeElimination
    : Pass<"onnxc-eliminate-redundant-nodes", "mlir::func::FuncOp"> {
  let summary = "Remove onnx ops that do not change their input";
  let description = [{
    Removes Identity, inference-mode Dropout, Cast to the same type and
    Slice/Expand/Reshape/Transpose that leave their input as it is, and
    collapses Transpose∘Transpose, Squeeze/Unsqueeze pairs on the same axes,
    Unsqueeze∘Unsqueeze and Reshape∘Reshape. A value that main_graph returns
    is never replaced by a graph input, a constant or another returned value,
    so the graph's interface stays as it is.
  }];
  let constructor = "onnxc::createRedundantNodeEliminationPass()";
}

def CommonSubexpressionElimination
    : Pass<"onnxc-cse", "mlir::func::FuncOp"> {
  let summary = "Merge identical side-effect-free onnx ops";
  let description = [{
    Replaces an onnx op by an earlier one with the same name, attributes,
    operands and result types that dominates it (the same block or an
    enclosing one). Random ops (RandomNormal, Bernoulli, ...) and Dropout in
    training mode are never merged: two of them give different values.
    Identical constants are merged as well.
  }];
  let constructor = "onnxc::createCommonSubexpressionEliminationPass()";
}

//===----------------------------------------------------------------------===//
// Layout transformations (-O3)
//===----------------------------------------------------------------------===//

def NchwcLayout : Pass<"onnxc-nchwc-layout", "mlir::func::FuncOp"> {
  let summary = "Run chains of f32 convolutions in the blocked NCHWc layout";
  let description = [{
    Finds connected regions of Conv / onnxc.FusedConv (group 1 or
    depthwise, constant weights, static channel counts, explicit pads) and
    of the ops that work on blocked tensors unchanged (unary activations,
    same-shape or per-channel Add/Sub/Mul, MaxPool, AveragePool,
    GlobalAveragePool), and rewrites each region with at least `min-convs`
    convolutions into onnxc.BlockedConv and the blocked forms of those ops,
    with
    onnxc.ReorderToBlocked / ReorderFromBlocked only where a value enters or
    leaves the region. Weights are blocked at compile time. A convolution
    whose output channels (depthwise: channels) fill less than half of their
    last block stays NCHW; a group-1 one reads only its true input channels,
    so a 3-channel image is blocked like any other input. --print-pass-stats
    counts the regions rewritten and skipped, the ops blocked, the reorders
    and the convolutions left NCHW.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"16",
           "channels per block (16: the f32 lanes of AVX-512)">,
    Option<"minConvs", "min-convs", "int64_t", /*default=*/"2",
           "the fewest convolutions a region needs to be rewritten">
  ];
  let constructor = "onnxc::createNchwcLayoutPass()";
  let dependentDialects = ["::onnxc::fused::OnnxcDialect"];
}

def QuantizedChannelsLast
    : Pass<"onnxc-quantized-channels-last", "mlir::func::FuncOp"> {
  let summary = "Run chains of 8-bit convolutions on NHWC tensors";
  let description = [{
    Before partitioning (the driver runs it, from -O2, not for --emit
    static): connected regions of 2-D QLinearConv (constant W, static
    channels and spatial dims) and of the ops that work on blocked tensors
    unchanged (Quantize/DequantizeLinear per tensor, unary activations,
    same-shape Add/Sub/Mul, MaxPool, AveragePool, GlobalAveragePool) are
    rewritten onto [N, 1, H, W, C] (a single block of all channels:
    onnxc.ReorderToBlocked with block_size = C), the convolutions into
    onnxc.BlockedQLinearConv, with reorders only where a value enters or
    leaves a region (layout/QuantizedChannelsLast.cpp). The cpu and dnnl
    targets both lower onnxc.BlockedQLinearConv.
  }];
  let dependentDialects = ["::onnxc::fused::OnnxcDialect"];
}

#endif
