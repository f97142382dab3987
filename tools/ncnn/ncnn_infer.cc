// Runs an ncnn model (a .param and .bin written by pnnx) on one thread, for
// tools/arm_insn_count.sh: the ncnn columns of docs/reports/arm_instructions.md
// come from this program, cross-built with the ncnn library under qemu-user.
//
//   ncnn_infer MODEL.param MODEL.bin C H W ROUNDS fp32|default
//
// The input blob is "in0" and the output "out0" (pnnx's names). Each round is
// one inference on a fresh extractor with the same deterministic input, so the
// instructions of N rounds less those of one are N-1 inferences. "fp32" turns
// off every reduced-precision storage and arithmetic option; "default" keeps
// ncnn's own defaults: on arm64 with ARMv8.2 FP16, fp16 storage and
// arithmetic; on armv7 with VFPv4, fp16 weights only in the layers that have
// them there (InnerProduct among these models), computed in fp32. The first line
// printed says which of these CPU features ncnn found.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cpu.h"
#include "net.h"

namespace {

int Usage() {
  std::fprintf(stderr,
               "usage: ncnn_infer MODEL.param MODEL.bin C H W ROUNDS fp32|default\n");
  return 2;
}

bool ParsePositive(const char* text, int* value) {
  char* end = nullptr;
  long parsed = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || parsed <= 0 || parsed > 1 << 20) return false;
  *value = static_cast<int>(parsed);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 8) return Usage();
  int c = 0, h = 0, w = 0, rounds = 0;
  if (!ParsePositive(argv[3], &c) || !ParsePositive(argv[4], &h) ||
      !ParsePositive(argv[5], &w) || !ParsePositive(argv[6], &rounds)) {
    std::fprintf(stderr, "ncnn_infer: C, H, W and ROUNDS must be positive integers\n");
    return Usage();
  }
  const bool fp32 = std::strcmp(argv[7], "fp32") == 0;
  if (!fp32 && std::strcmp(argv[7], "default") != 0) {
    std::fprintf(stderr, "ncnn_infer: the mode is fp32 or default, not '%s'\n", argv[7]);
    return Usage();
  }

  std::printf("ncnn_infer: cpu neon %d vfpv4 %d asimdhp %d\n", ncnn::cpu_support_arm_neon() != 0,
              ncnn::cpu_support_arm_vfpv4() != 0, ncnn::cpu_support_arm_asimdhp() != 0);

  ncnn::Net net;
  net.opt.num_threads = 1;
  net.opt.use_vulkan_compute = false;
  if (fp32) {
    net.opt.use_fp16_packed = false;
    net.opt.use_fp16_storage = false;
    net.opt.use_fp16_arithmetic = false;
    net.opt.use_bf16_storage = false;
    net.opt.use_bf16_packed = false;
  }
  if (net.load_param(argv[1]) != 0) {
    std::fprintf(stderr, "ncnn_infer: cannot load %s\n", argv[1]);
    return 1;
  }
  if (net.load_model(argv[2]) != 0) {
    std::fprintf(stderr, "ncnn_infer: cannot load %s\n", argv[2]);
    return 1;
  }

  // A fixed pattern in [-1, 1): the count must not depend on a seed.
  ncnn::Mat input(w, h, c);
  for (int q = 0; q < c; ++q) {
    float* plane = input.channel(q);
    for (int i = 0; i < w * h; ++i) {
      plane[i] = static_cast<float>((i * 7 + q * 13) % 256) / 128.0f - 1.0f;
    }
  }

  double checksum = 0.0;
  for (int round = 0; round < rounds; ++round) {
    ncnn::Extractor extractor = net.create_extractor();
    if (extractor.input("in0", input) != 0) {
      std::fprintf(stderr, "ncnn_infer: the model has no input blob in0\n");
      return 1;
    }
    ncnn::Mat output;
    if (extractor.extract("out0", output) != 0) {
      std::fprintf(stderr, "ncnn_infer: extracting out0 failed\n");
      return 1;
    }
    const float* data = output;
    const size_t total = output.total();
    for (size_t i = 0; i < total; ++i) checksum += data[i];
    if (round == 0) {
      std::printf("ncnn_infer: out0 %d x %d x %d, elemsize %zu\n", output.c, output.h,
                  output.w, output.elemsize);
    }
  }
  std::printf("ncnn_infer: %d rounds, checksum %.6g\n", rounds, checksum);
  return 0;
}
