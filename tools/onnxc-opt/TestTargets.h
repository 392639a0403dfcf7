//===- TestTargets.h - The partitioner's test targets -----------*- C++ -*-===//

#ifndef ONNXC_TOOLS_ONNXC_OPT_TESTTARGETS_H
#define ONNXC_TOOLS_ONNXC_OPT_TESTTARGETS_H

namespace onnxc {
/// Registers `test-host` and `test-device` (TestTargets.cpp).
void registerTestTargets();
} // namespace onnxc

#endif
