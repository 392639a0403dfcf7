//===- RewriteCounts.cpp - What the graph passes rewrote ------------------===//

#include "passes/RewriteCounts.h"

#include <mutex>

namespace onnxc {
namespace {
struct Collector {
  std::mutex mutex;
  bool enabled = false;
  std::vector<RewriteCount> counts;
};

Collector &getCollector() {
  static Collector collector;
  return collector;
}
} // namespace

void addRewriteCount(llvm::StringRef pass, llvm::StringRef counter,
                     int64_t count) {
  Collector &c = getCollector();
  std::lock_guard<std::mutex> lock(c.mutex);
  if (!c.enabled)
    return;
  for (RewriteCount &entry : c.counts) {
    if (entry.pass == pass && entry.counter == counter) {
      entry.count += count;
      return;
    }
  }
  c.counts.push_back({pass.str(), counter.str(), count});
}

void startCollectingRewriteCounts() {
  Collector &c = getCollector();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.enabled = true;
  c.counts.clear();
}

std::vector<RewriteCount> takeRewriteCounts() {
  Collector &c = getCollector();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.enabled = false;
  return std::move(c.counts);
}

} // namespace onnxc
