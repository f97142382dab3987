// Local work sizes chosen per kernel launch, and the tuned-parameter file
// that carries them from a tuning run to later engines.
//
// A launch is a kernel name and its 2D global size (before rounding up to
// the work-group). Tuning times each candidate local size with profiling
// events and keeps the fastest; an engine given the file then launches
// with the stored local size (the global size rounded up to it, as always:
// kernels bounds-check).
//
// The file is a per-device file (program_cache.h) with magic "MACECLTP":
// the header names the platform, device and driver it was tuned on, and
// checksums guard it, so a foreign, truncated or corrupt file is ignored.
// Its body is text, one launch a line:
//   <kernel> <global width> <global height> <local width> <local height>
#ifndef MACE_RUNTIMES_OPENCL_TUNING_H_
#define MACE_RUNTIMES_OPENCL_TUNING_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "mace/runtimes/opencl/program_cache.h"

namespace mace {
namespace opencl {

constexpr uint32_t kTunedParameterVersion = 1;
extern const DeviceFileFormat kTunedParameterFormat;

struct LocalSize {
  uint32_t width = 0;
  uint32_t height = 0;
  bool operator==(const LocalSize& other) const {
    return width == other.width && height == other.height;
  }
};

// "conv_2d 28 14": what a launch is tuned by.
std::string LaunchKey(const std::string& kernel, int64_t width, int64_t height);

using TunedParameters = std::map<std::string, LocalSize>;

// The file body for `tuned`, and back; Parse fails with a reason on any
// malformed line.
std::string FormatTunedParameters(const TunedParameters& tuned);
bool ParseTunedParameters(const std::string& body, TunedParameters* tuned, std::string* why);

// The local sizes tuning tries for a width x height launch whose kernel
// takes at most `limit` work-items per group: the default first, then
// shapes that fit the limit and waste at most half of either side.
std::vector<LocalSize> CandidateLocalSizes(int64_t width, int64_t height, int64_t limit);

// The local size untuned launches use: 16 x 4, shrunk to `limit`. One
// shape for every kernel, because some drivers (PoCL) compile a kernel
// again for each new shape.
LocalSize DefaultLocalSize(int64_t limit);

}  // namespace opencl
}  // namespace mace

#endif  // MACE_RUNTIMES_OPENCL_TUNING_H_
