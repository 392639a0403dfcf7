//===- Passes.td - Graph passes -----------------------------*- tablegen -*-===//

#ifndef ONNXC_PASSES_PASSES_TD
#define ONNXC_PASSES_PASSES_TD

include "mlir/Pass/PassBase.td"

def Partition : Pass<"onnxc-partition", "mlir::func::FuncOp"> {
  let summary = "Assign every onnx op to the first target that supports it";
  let description = [{
    Asks the targets in priority order (`targets`, the last of which should be
    `cpu`) whether they support each onnx op, and records the winner as the
    op's `onnxc.target` attribute. An op no target supports fails the pass with
    an error naming the node and the targets asked.
  }];
  let options = [
    ListOption<"targets", "targets", "std::string",
               "targets in priority order">
  ];
  let constructor = "onnxc::createPartitionPass()";
}

#endif
