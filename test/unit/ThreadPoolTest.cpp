//===- ThreadPoolTest.cpp - How the pool deals out a region's tasks -------===//
//
// runtime/cpu/ThreadPool.c gives each participant a contiguous range of the
// tasks and lets one that is done steal from the others. These tests check
// that every task still runs exactly once, and that a participant stuck in
// one task does not hold up the rest of its range.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/ThreadPool.h"

#include <gtest/gtest.h>

#if defined(__linux__)
#include <sched.h>
#endif

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace {

struct Tally {
  std::vector<std::atomic<int>> runs;
  std::vector<std::atomic<int>> worker;
  explicit Tally(size_t tasks) : runs(tasks), worker(tasks) {}
  static void task(void *context, size_t t, int w) {
    auto *self = static_cast<Tally *>(context);
    self->runs[t].fetch_add(1);
    self->worker[t].store(w);
  }
};

TEST(ThreadPoolRanges, EveryTaskOnceForAwkwardCounts) {
  for (int threads : {2, 3, 5}) {
    onnxc_set_num_threads(threads);
    for (size_t tasks : {2, 3, 7, 64, 1001}) {
      Tally tally(tasks);
      onnxc_parallel_for(tasks, 0, Tally::task, &tally);
      for (size_t t = 0; t < tasks; ++t) {
        ASSERT_EQ(tally.runs[t].load(), 1)
            << threads << " " << tasks << " " << t;
        EXPECT_GE(tally.worker[t].load(), 0);
        EXPECT_LT(tally.worker[t].load(), threads);
      }
    }
  }
  onnxc_set_num_threads(0);
}

/// Task 0 (the first task of the caller's range) waits until every other
/// task has run: the rest of the caller's range must be stolen.
struct BlockedOwner {
  size_t tasks;
  std::atomic<size_t> done{0};
  std::atomic<bool> gaveUp{false};
  std::vector<std::atomic<int>> runs;
  explicit BlockedOwner(size_t n) : tasks(n), runs(n) {}
  static void task(void *context, size_t t, int) {
    auto *self = static_cast<BlockedOwner *>(context);
    self->runs[t].fetch_add(1);
    if (t != 0) {
      self->done.fetch_add(1);
      return;
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (self->done.load() != self->tasks - 1) {
      if (std::chrono::steady_clock::now() > deadline) {
        self->gaveUp.store(true);
        return;
      }
      std::this_thread::yield();
    }
  }
};

TEST(ThreadPoolRanges, StuckParticipantsRangeIsStolen) {
  onnxc_set_num_threads(2);
  for (int round = 0; round < 20; ++round) {
    BlockedOwner region(16);
    onnxc_parallel_for(region.tasks, 0, BlockedOwner::task, &region);
    EXPECT_FALSE(region.gaveUp.load()) << "round " << round;
    for (size_t t = 0; t < region.tasks; ++t)
      ASSERT_EQ(region.runs[t].load(), 1) << t;
  }
  onnxc_set_num_threads(0);
}

/// Back-to-back regions of different sizes and thread caps: the ranges of
/// one must never leak into the next.
TEST(ThreadPoolRanges, ConsecutiveRegionsDoNotMix) {
  onnxc_set_num_threads(4);
  for (int round = 0; round < 500; ++round) {
    size_t tasks = 1 + (size_t)(round * 37 % 97);
    Tally tally(tasks);
    onnxc_parallel_for(tasks, round % 3 == 0 ? 2 : 0, Tally::task, &tally);
    for (size_t t = 0; t < tasks; ++t)
      ASSERT_EQ(tally.runs[t].load(), 1) << round << " " << t;
  }
  onnxc_set_num_threads(0);
}

/// Callers on several threads at once (the losers run inline), some of
/// their tasks opening regions of their own: every task of every region
/// runs once.
TEST(ThreadPoolRanges, ConcurrentAndNestedCallers) {
  onnxc_set_num_threads(3);
  constexpr int kCallers = 6, kRounds = 100;
  std::vector<int> failures(kCallers, 0);
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c)
    callers.emplace_back([&, c] {
      for (int r = 0; r < kRounds; ++r) {
        size_t tasks = 1 + (size_t)((c * 13 + r) % 29);
        Tally tally(tasks);
        if (r % 4 == 0) {
          // Each outer task runs a whole nested region of 5 tasks.
          struct Outer {
            Tally *tally;
            static void task(void *context, size_t t, int) {
              Tally inner(5);
              onnxc_parallel_for(5, 0, Tally::task, &inner);
              auto *self = static_cast<Outer *>(context);
              int ok = 1;
              for (size_t i = 0; i < 5; ++i)
                ok &= inner.runs[i].load() == 1;
              self->tally->runs[t].fetch_add(ok ? 1 : 100);
            }
          } outer{&tally};
          onnxc_parallel_for(tasks, 0, Outer::task, &outer);
        } else {
          onnxc_parallel_for(tasks, 0, Tally::task, &tally);
        }
        for (size_t t = 0; t < tasks; ++t)
          failures[c] += tally.runs[t].load() != 1;
      }
    });
  for (std::thread &caller : callers)
    caller.join();
  for (int c = 0; c < kCallers; ++c)
    EXPECT_EQ(failures[c], 0) << "caller " << c;
  onnxc_set_num_threads(0);
}

#if defined(__linux__)
/// A worker woken from sleep runs with a mask without one of the process's
/// CPUs (the caller's at the wake), when there are more CPUs than helpers.
struct MaskProbe {
  std::atomic<int> workerCpus{-1};
  static void task(void *context, size_t, int worker) {
    auto *self = static_cast<MaskProbe *>(context);
    cpu_set_t mask;
    if (worker == 1 && sched_getaffinity(0, sizeof mask, &mask) == 0)
      self->workerCpus.store(CPU_COUNT(&mask));
    // Long enough that the worker takes a task of its own.
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
};

TEST(ThreadPoolRanges, WokenWorkerLeavesTheCallersCpu) {
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  int cpus = CPU_COUNT(&allowed);
  if (cpus < 2)
    GTEST_SKIP() << "one CPU";
  onnxc_set_num_threads(2);
  MaskProbe probe;
  for (int round = 0; round < 5 && probe.workerCpus.load() < 0; ++round) {
    // Past the poll: the worker is asleep when the region starts.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    onnxc_parallel_for(2, 0, MaskProbe::task, &probe);
  }
  ASSERT_GE(probe.workerCpus.load(), 0) << "the worker never ran a task";
  EXPECT_EQ(probe.workerCpus.load(), cpus - 1);
  onnxc_set_num_threads(0);
}
#endif

} // namespace
