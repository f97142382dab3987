// The Winograd port of the ARM builds (cpu/winograd_port.h): NEON's
// transforms of several channels per call; on arm64 the products of every
// position per call and the partial GEMM's whole-vector reads; on armv7 the
// assembly run kernels for narrow last panels. The blocked Winograd's cost
// model gets no last-level cache size here.
#include "mace/ops/arm/neon_kernels.h"
#include "mace/ops/cpu/winograd_port.h"
#if !defined(__aarch64__)
#include "mace/ops/arm/sgemm_neon_armv7.h"
#endif

namespace mace {
namespace ops {
namespace {

constexpr WinogradPort MakePort() {
  WinogradPort port;
  port.input = arm::NeonWinogradInput;
  port.input_channels = arm::NeonWinogradInputChannels;
  port.output = arm::NeonWinogradOutput;
  port.output_channels = arm::NeonWinogradOutputChannels;
#if defined(__aarch64__)
  port.position_gemms = arm::NeonWinogradGemms;
  port.partial_reads_vectors = true;
#else
  port.run_6x4 = arm::Armv7GemmRun6x4;
  port.run_12x4 = arm::Armv7GemmRun12x4;
  port.run_6x8_on_panels = arm::Armv7GemmRun6x8OnPanels;
  port.tile_6x1 = arm::Armv7GemmTile6x1;
#endif
  return port;
}

}  // namespace

const WinogradPort kWinogradPort = MakePort();

}  // namespace ops
}  // namespace mace
