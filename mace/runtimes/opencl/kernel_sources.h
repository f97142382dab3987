// The OpenCL C sources of the runtime's kernels, embedded in the library at
// build time (embed_kernels.sh, run by a genrule over cl/*.cl): the library
// never reads kernel files at run time.
#ifndef MACE_RUNTIMES_OPENCL_KERNEL_SOURCES_H_
#define MACE_RUNTIMES_OPENCL_KERNEL_SOURCES_H_

#include <string>
#include <vector>

namespace mace {
namespace opencl {

struct KernelSource {
  const char* file;  // "conv_2d.cl"
  const char* text;
};

// In build order: common.cl first, which the others use.
const std::vector<KernelSource>& EmbeddedKernelSources();

}  // namespace opencl
}  // namespace mace

#endif  // MACE_RUNTIMES_OPENCL_KERNEL_SOURCES_H_
