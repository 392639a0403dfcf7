//===- RewriteCounts.h - What the graph passes rewrote ----------*- C++ -*-===//
//
// The counts behind `--print-pass-stats`. MLIR's own pass statistics
// (Pass::Statistic) are llvm::NoopStatistic in NDEBUG builds, which is how
// onnxc and the LLVM it links are built, so the graph passes report here.
// Counting is off (and free) unless a driver turns it on.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_PASSES_REWRITECOUNTS_H
#define ONNXC_PASSES_REWRITECOUNTS_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace onnxc {

struct RewriteCount {
  std::string pass;    // the pass argument, "onnxc-cse"
  std::string counter; // "merged-ops"
  int64_t count;       // summed over the pass's runs
};

/// Adds `count` to `pass`'s `counter` (a no-op unless collecting).
void addRewriteCount(llvm::StringRef pass, llvm::StringRef counter,
                     int64_t count);

/// Starts collecting counts (dropping any collected before).
void startCollectingRewriteCounts();

/// Stops collecting; returns the counts in the order first reported.
std::vector<RewriteCount> takeRewriteCounts();

} // namespace onnxc

#endif // ONNXC_PASSES_REWRITECOUNTS_H
