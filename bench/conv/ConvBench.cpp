//===- ConvBench.cpp - The NCHWc direct convolution on the bench models ---===//
//
// Times onnxc_conv_nchwc (runtime/cpu/kernels/ConvNchwc.h) on the
// convolutions of the bench CNNs at batch 1, 224 x 224: every distinct one
// of torchvision's ResNet-50 and most of MobileNetV2's, each with the bias
// (folded BatchNorm), activation and residual input the model gives it.
// One benchmark family per shape, named <model>/<conv>, with the args
//   isa      the micro-kernel variant (onnxc_sgemm_force_isa)
//   threads  the thread pool's size
//   cold     0: hot, the same call again (weights in L1/L2);
//            1: before each call a 32 MB buffer is read, on all threads,
//               which evicts L1 and L2 (the weights may stay in a large L3,
//               as a model's do between two inferences on such a CPU), then
//               X and Z are read again on the calling thread;
//            2: the weights are flushed from every cache (clflush), so they
//               come from DRAM, as in a model whose weights outgrow L3; X,
//               Z and Y stay where the previous call left them.
//            The eviction is outside the timed region. A model's
//            activations come from the previous layer, hence X and Z warm.
// The 3x3 convolutions with unit strides are also timed as Winograd F(2x2,
// 3x3) (onnxc_conv_nchwc_winograd on weights transformed beforehand, as the
// compiler does), in families named <model>/<conv>_winograd (F(2x2)) and
// <model>/<conv>_winograd4 (F(4x4, 3x3)), and the stems
// (fewer than 16 input channels) also read X as plain NCHW (nchw_input, as
// the compiler passes the image), in families named <model>/<conv>_nchw.
// Times are wall clock around each call (manual time), so hot and cold are
// measured alike. Counters:
//   GFLOPS      2 * OH * OW * M * C * KH * KW (true channels; depthwise
//               C = 1 per output) per second / 1e9
//   peak_GFLOPS the single-core FMA peak (bench/common/FmaPeak.h) measured
//               right before and after, times the threads
//   pct_peak    GFLOPS / peak_GFLOPS * 100
//   weight_MB   the blocked weights' size
//   per_model   how many convolutions of the model have this shape
//
//===----------------------------------------------------------------------===//

#include "bench/common/FmaPeak.h"
#include "runtime/cpu/ThreadPool.h"
#include "runtime/cpu/kernels/ConvNchwc.h"
#include "runtime/cpu/kernels/ConvWinogradWeights.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace onnxc_bench;

constexpr int64_t kBlock = ONNXC_NCHWC_BLOCK;

int64_t blocks(int64_t channels) { return (channels + kBlock - 1) / kBlock; }

enum Activation { kNone, kRelu, kRelu6 };

/// A convolution of a bench model: square maps and kernels, pad k / 2.
struct ConvSpec {
  const char *name;
  int64_t c, m, inHw, k, stride;
  bool depthwise;
  Activation activation;
  bool residual;
  int perModel;
};

// torchvision ResNet-50 (v1.5: the stride in the 3x3): the stem, then per
// layer the first block's shapes (its 1x1 on the wider input, the strided
// 3x3 and the strided downsample) and the repeated blocks'. The last 1x1 of
// a block adds the shortcut and applies ReLU; the downsample has no
// activation.
const ConvSpec kResnet50[] = {
    {"stem_7x7s2_3to64_224", 3, 64, 224, 7, 2, false, kRelu, false, 1},
    {"l1_1x1_64to64_56", 64, 64, 56, 1, 1, false, kRelu, false, 1},
    {"l1_1x1_256to64_56", 256, 64, 56, 1, 1, false, kRelu, false, 2},
    {"l1_3x3_64_56", 64, 64, 56, 3, 1, false, kRelu, false, 3},
    {"l1_1x1_64to256_56_res", 64, 256, 56, 1, 1, false, kRelu, true, 3},
    {"l1_down_64to256_56", 64, 256, 56, 1, 1, false, kNone, false, 1},
    {"l2_1x1_256to128_56", 256, 128, 56, 1, 1, false, kRelu, false, 1},
    {"l2_3x3s2_128_56", 128, 128, 56, 3, 2, false, kRelu, false, 1},
    {"l2_down_s2_256to512_56", 256, 512, 56, 1, 2, false, kNone, false, 1},
    {"l2_1x1_512to128_28", 512, 128, 28, 1, 1, false, kRelu, false, 3},
    {"l2_3x3_128_28", 128, 128, 28, 3, 1, false, kRelu, false, 3},
    {"l2_1x1_128to512_28_res", 128, 512, 28, 1, 1, false, kRelu, true, 4},
    {"l3_1x1_512to256_28", 512, 256, 28, 1, 1, false, kRelu, false, 1},
    {"l3_3x3s2_256_28", 256, 256, 28, 3, 2, false, kRelu, false, 1},
    {"l3_down_s2_512to1024_28", 512, 1024, 28, 1, 2, false, kNone, false, 1},
    {"l3_1x1_1024to256_14", 1024, 256, 14, 1, 1, false, kRelu, false, 5},
    {"l3_3x3_256_14", 256, 256, 14, 3, 1, false, kRelu, false, 5},
    {"l3_1x1_256to1024_14_res", 256, 1024, 14, 1, 1, false, kRelu, true, 6},
    {"l4_1x1_1024to512_14", 1024, 512, 14, 1, 1, false, kRelu, false, 1},
    {"l4_3x3s2_512_14", 512, 512, 14, 3, 2, false, kRelu, false, 1},
    {"l4_down_s2_1024to2048_14", 1024, 2048, 14, 1, 2, false, kNone, false, 1},
    {"l4_1x1_2048to512_7", 2048, 512, 7, 1, 1, false, kRelu, false, 2},
    {"l4_3x3_512_7", 512, 512, 7, 3, 1, false, kRelu, false, 2},
    {"l4_1x1_512to2048_7_res", 512, 2048, 7, 1, 1, false, kRelu, true, 3},
};

// torchvision MobileNetV2: the stem, and per resolution the expanding 1x1
// (ReLU6), the depthwise 3x3 (ReLU6, strided where the resolution halves)
// and the projecting 1x1 (linear, plus the shortcut where the block has
// one), plus the last 1x1.
const ConvSpec kMobilenetV2[] = {
    {"stem_3x3s2_3to32_224", 3, 32, 224, 3, 2, false, kRelu6, false, 1},
    {"dw_3x3_32_112", 32, 32, 112, 3, 1, true, kRelu6, false, 1},
    {"pw_32to16_112", 32, 16, 112, 1, 1, false, kNone, false, 1},
    {"pw_16to96_112", 16, 96, 112, 1, 1, false, kRelu6, false, 1},
    {"dw_3x3s2_96_112", 96, 96, 112, 3, 2, true, kRelu6, false, 1},
    {"pw_24to144_56", 24, 144, 56, 1, 1, false, kRelu6, false, 2},
    {"dw_3x3_144_56", 144, 144, 56, 3, 1, true, kRelu6, false, 1},
    {"pw_144to24_56_res", 144, 24, 56, 1, 1, false, kNone, true, 1},
    {"pw_32to192_28", 32, 192, 28, 1, 1, false, kRelu6, false, 3},
    {"dw_3x3_192_28", 192, 192, 28, 3, 1, true, kRelu6, false, 2},
    {"pw_192to32_28_res", 192, 32, 28, 1, 1, false, kNone, true, 2},
    {"pw_64to384_14", 64, 384, 14, 1, 1, false, kRelu6, false, 4},
    {"dw_3x3_384_14", 384, 384, 14, 3, 1, true, kRelu6, false, 4},
    {"pw_384to64_14_res", 384, 64, 14, 1, 1, false, kNone, true, 3},
    {"dw_3x3s2_576_14", 576, 576, 14, 3, 2, true, kRelu6, false, 1},
    {"pw_160to960_7", 160, 960, 7, 1, 1, false, kRelu6, false, 3},
    {"dw_3x3_960_7", 960, 960, 7, 3, 1, true, kRelu6, false, 3},
    {"pw_960to160_7_res", 960, 160, 7, 1, 1, false, kNone, true, 2},
    {"pw_320to1280_7", 320, 1280, 7, 1, 1, false, kRelu6, false, 1},
};

onnxc_conv_nchwc_shape shapeOf(const ConvSpec &spec) {
  onnxc_conv_nchwc_shape s{};
  int64_t pad = spec.k / 2;
  s.batch = 1;
  s.in_channels = spec.c;
  s.out_channels = spec.m;
  s.in_h = s.in_w = spec.inHw;
  s.out_h = s.out_w = (spec.inHw + 2 * pad - spec.k) / spec.stride + 1;
  s.kernel_h = s.kernel_w = spec.k;
  s.stride_h = s.stride_w = spec.stride;
  s.dilation_h = s.dilation_w = 1;
  s.pad_top = s.pad_left = pad;
  s.depthwise = spec.depthwise;
  return s;
}

/// Blocked operands as NchwcLayout makes them: random real channels, zero
/// weights and bias in the padding channels (X's padding lanes are zero
/// here: any finite value times a zero weight).
struct Operands {
  std::vector<float> x, w, bias, z, y;

  explicit Operands(const ConvSpec &spec, const onnxc_conv_nchwc_shape &s) {
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    int64_t cb = blocks(spec.c), mb = blocks(spec.m);
    int64_t taps = spec.k * spec.k;
    x.assign(cb * s.in_h * s.in_w * kBlock, 0.0f);
    for (size_t i = 0; i < x.size(); ++i)
      if ((int64_t)(i / (s.in_h * s.in_w * kBlock)) * kBlock +
              (int64_t)(i % kBlock) <
          spec.c)
        x[i] = dist(rng);
    if (spec.depthwise) {
      w.assign(cb * taps * kBlock, 0.0f);
      for (size_t i = 0; i < w.size(); ++i)
        if ((int64_t)(i / (taps * kBlock)) * kBlock + (int64_t)(i % kBlock) <
            spec.c)
          w[i] = dist(rng);
    } else {
      w.assign(mb * cb * taps * kBlock * kBlock, 0.0f);
      for (size_t i = 0; i < w.size(); ++i) {
        int64_t mo = i % kBlock, ci = (i / kBlock) % kBlock;
        int64_t cBlock = (i / (taps * kBlock * kBlock)) % cb;
        int64_t mBlock = i / (cb * taps * kBlock * kBlock);
        if (mBlock * kBlock + mo < spec.m && cBlock * kBlock + ci < spec.c)
          w[i] = dist(rng) * 0.1f;
      }
    }
    bias.assign(mb * kBlock, 0.0f);
    for (int64_t i = 0; i < spec.m; ++i)
      bias[i] = dist(rng);
    size_t ySize = mb * s.out_h * s.out_w * kBlock;
    y.assign(ySize, 0.0f);
    if (spec.residual) {
      z.resize(ySize);
      for (float &v : z)
        v = dist(rng);
    }
  }
};

/// Reads `sweep` in 64 tasks on the pool, so that every thread's L1 and L2
/// (and the last level up to the sweep's size) hold the sweep.
struct SweepWork {
  const float *data;
  size_t perTask;
  float sums[64];
};

void sweepTask(void *context, size_t task, int worker) {
  (void)worker;
  auto *work = static_cast<SweepWork *>(context);
  const float *p = work->data + task * work->perTask;
  float sum = 0;
  // One load per cache line is enough to pull it in.
  for (size_t i = 0; i < work->perTask; i += 16)
    sum += p[i];
  work->sums[task] = sum;
}

void sweepCaches(const std::vector<float> &sweep, int threads) {
  SweepWork work{sweep.data(), sweep.size() / 64, {}};
  onnxc_parallel_for(64, threads, sweepTask, &work);
  benchmark::DoNotOptimize(work.sums);
}

/// Pulls `data` into the calling thread's caches.
void touch(const std::vector<float> &data) {
  float sum = 0;
  for (size_t i = 0; i < data.size(); i += 16)
    sum += data[i];
  benchmark::DoNotOptimize(sum);
}

/// Evicts `data` from every cache level, of every core.
void flushFromCaches(const std::vector<float> &data,
                     const std::vector<float> &sweep, int threads) {
#if defined(__x86_64__)
  (void)sweep;
  (void)threads;
  const char *bytes = reinterpret_cast<const char *>(data.data());
  for (size_t i = 0; i < data.size() * sizeof(float); i += 64)
    _mm_clflush(bytes + i);
  _mm_mfence();
#else
  // No user-mode flush: the sweep is the best there is.
  (void)data;
  sweepCaches(sweep, threads);
#endif
}

/// How a family computes its convolution.
enum class Form { kDirect, kWinograd, kWinograd4, kPlainInput };

/// X's real channels as a plain [C][H][W] tensor.
std::vector<float> plainInput(const std::vector<float> &x, int64_t channels,
                              int64_t plane) {
  std::vector<float> plain(channels * plane);
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t i = 0; i < plane; ++i)
      plain[c * plane + i] =
          x[((c / kBlock) * plane + i) * kBlock + c % kBlock];
  return plain;
}

/// Args: isa, threads, cold (see the file comment).
void BM_Conv(benchmark::State &state, const ConvSpec &spec, Form form) {
  int tile = form == Form::kWinograd ? 2 : form == Form::kWinograd4 ? 4 : 0;
  bool winograd = tile != 0;
  int isa = static_cast<int>(state.range(0));
  int threads = static_cast<int>(state.range(1));
  int cold = static_cast<int>(state.range(2));
  if (!onnxc_sgemm_isa_supported(isa)) {
    state.SkipWithError("ISA not supported by this CPU");
    return;
  }
  onnxc_sgemm_force_isa(isa);
  onnxc_set_num_threads(threads);
  onnxc_conv_nchwc_shape s = shapeOf(spec);
  Operands ops(spec, s);
  if (form == Form::kPlainInput) {
    ops.x = plainInput(ops.x, spec.c, s.in_h * s.in_w);
    s.nchw_input = 1;
  }
  onnxc_sgemm_epilogue epilogue{};
  if (spec.activation == kRelu) {
    epilogue.activation = ONNXC_ACTIVATION_RELU;
  } else if (spec.activation == kRelu6) {
    epilogue.activation = ONNXC_ACTIVATION_CLIP;
    epilogue.activation_alpha = 0.0f;
    epilogue.activation_beta = 6.0f;
  }
  std::vector<float> sweep;
  if (cold != 0)
    sweep.assign((32u << 20) / sizeof(float), 1.0f);
  if (winograd) {
    std::vector<float> u(
        onnxc_conv_winograd_weight_floats(tile, spec.c, spec.m));
    onnxc_conv_winograd_weights(tile, spec.c, spec.m, ops.w.data(), u.data());
    ops.w = std::move(u); // what cold:2 flushes
  }
  auto call = [&] {
    const float *z = spec.residual ? ops.z.data() : nullptr;
    if (winograd)
      onnxc_conv_nchwc_winograd(&s, tile, ops.x.data(), ops.w.data(),
                                ops.bias.data(), z, ops.y.data(), &epilogue, 0);
    else
      onnxc_conv_nchwc(&s, ops.x.data(), ops.w.data(), ops.bias.data(), z,
                       ops.y.data(), &epilogue, 0);
  };
  call(); // the pool's threads started, scratch memory taken
  double peakBefore = peakNow(isa, 3, 2'000'000);
  for (auto _ : state) {
    if (cold == 1) {
      sweepCaches(sweep, threads);
      touch(ops.x);
      touch(ops.z);
    } else if (cold == 2)
      flushFromCaches(ops.w, sweep, threads);
    auto start = std::chrono::steady_clock::now();
    call();
    auto end = std::chrono::steady_clock::now();
    benchmark::ClobberMemory();
    state.SetIterationTime(std::chrono::duration<double>(end - start).count());
  }
  double peakAfter = peakNow(isa, 3, 2'000'000);
  double reduction = (spec.depthwise ? 1.0 : (double)spec.c) * spec.k * spec.k;
  double flops = 2.0 * s.out_h * s.out_w * spec.m * reduction;
  state.counters["GFLOPS"] = benchmark::Counter(
      flops / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak_GFLOPS"] = std::max(peakBefore, peakAfter) * threads;
  state.counters["weight_MB"] = ops.w.size() * sizeof(float) / 1e6;
  state.counters["per_model"] = spec.perModel;
  state.SetLabel(onnxc_sgemm_isa_name(isa));
  onnxc_sgemm_force_isa(ONNXC_SGEMM_ISA_AUTO);
  onnxc_set_num_threads(0);
}

template <size_t N>
void registerModel(const char *model, const ConvSpec (&specs)[N]) {
  const std::vector<int64_t> isas = {
      ONNXC_SGEMM_ISA_AVX512, ONNXC_SGEMM_ISA_AVX2, ONNXC_SGEMM_ISA_PORTABLE};
  for (const ConvSpec &spec : specs)
    for (Form form : {Form::kDirect, Form::kWinograd, Form::kWinograd4,
                      Form::kPlainInput}) {
      onnxc_conv_nchwc_shape s = shapeOf(spec);
      if ((form == Form::kWinograd || form == Form::kWinograd4) &&
          !onnxc_conv_nchwc_winograd_applies(&s))
        continue;
      if (form == Form::kPlainInput && (spec.depthwise || spec.c >= kBlock))
        continue;
      std::string name = std::string(model) + "/" + spec.name +
                         (form == Form::kWinograd     ? "_winograd"
                          : form == Form::kWinograd4  ? "_winograd4"
                          : form == Form::kPlainInput ? "_nchw"
                                                      : "");
      // Cold runs a fixed number of times: the eviction (about a millisecond
      // for the sweep) is not timed, so a time budget would run small shapes
      // for minutes.
      for (bool cold : {false, true}) {
        auto *b =
            benchmark::RegisterBenchmark(name.c_str(), BM_Conv, spec, form)
                ->ArgsProduct({isas,
                               {1, 2},
                               cold ? std::vector<int64_t>{1, 2}
                                    : std::vector<int64_t>{0}})
                ->ArgNames({"isa", "threads", "cold"})
                ->UseManualTime()
                ->Unit(benchmark::kMicrosecond);
        if (cold)
          b->Iterations(200);
      }
    }
}

} // namespace

int main(int argc, char **argv) {
  registerModel("resnet50", kResnet50);
  registerModel("mobilenetv2", kMobilenetV2);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  PercentOfPeakReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
