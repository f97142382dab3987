// The OpenCL 1.2 C API as a table of function pointers, filled by dlopen
// from the system's or the vendor's libOpenCL.so at run time. libmace never
// links libOpenCL, so one library runs on devices with and without OpenCL
// and never fails to load for lack of it.
#ifndef MACE_RUNTIMES_OPENCL_OPENCL_API_H_
#define MACE_RUNTIMES_OPENCL_OPENCL_API_H_

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <string>
#include <vector>

#include "mace/public/mace.h"

namespace mace {
namespace opencl {

// Every entry point the runtime calls, listed once.
#define MACE_OPENCL_FUNCTIONS(X) \
  X(clGetPlatformIDs)            \
  X(clGetPlatformInfo)           \
  X(clGetDeviceIDs)              \
  X(clGetDeviceInfo)             \
  X(clCreateContext)             \
  X(clReleaseContext)            \
  X(clCreateCommandQueue)        \
  X(clReleaseCommandQueue)       \
  X(clCreateBuffer)              \
  X(clCreateImage)               \
  X(clReleaseMemObject)          \
  X(clGetSupportedImageFormats)  \
  X(clCreateProgramWithSource)   \
  X(clCreateProgramWithBinary)   \
  X(clBuildProgram)              \
  X(clGetProgramInfo)            \
  X(clGetProgramBuildInfo)       \
  X(clReleaseProgram)            \
  X(clCreateKernel)              \
  X(clReleaseKernel)             \
  X(clSetKernelArg)              \
  X(clGetKernelWorkGroupInfo)    \
  X(clEnqueueNDRangeKernel)      \
  X(clEnqueueReadBuffer)         \
  X(clEnqueueWriteBuffer)        \
  X(clEnqueueCopyBuffer)         \
  X(clEnqueueMapBuffer)          \
  X(clEnqueueMapImage)           \
  X(clEnqueueUnmapMemObject)     \
  X(clFinish)                    \
  X(clFlush)                     \
  X(clWaitForEvents)             \
  X(clGetEventProfilingInfo)     \
  X(clReleaseEvent)

struct OpenCLApi {
#define MACE_OPENCL_DECLARE(name) decltype(&::name) name = nullptr;
  MACE_OPENCL_FUNCTIONS(MACE_OPENCL_DECLARE)
#undef MACE_OPENCL_DECLARE
  // OpenCL 2.0's queue creation with a property list (for queue priority
  // hints); null when the library lacks it.
  cl_command_queue (*clCreateCommandQueueWithProperties)(cl_context, cl_device_id,
                                                         const cl_bitfield*, cl_int*) = nullptr;
  std::string library_path;  // the file the table was loaded from
};

// Where libOpenCL.so is looked for, in order: the dynamic linker's own
// search (LD_LIBRARY_PATH, the system's library paths), then the paths
// Android vendors install it under, including Mali's GLES library, which
// carries the OpenCL entry points.
std::vector<std::string> DefaultOpenCLLibraryPaths();

// Loads the first of `paths` that opens and has every entry point. The
// libraries are never unloaded. UNSUPPORTED, naming what was tried, when
// none does.
MaceStatus LoadOpenCLApi(const std::vector<std::string>& paths, OpenCLApi* api);

// The process's table, loaded once from DefaultOpenCLLibraryPaths(); the
// same error each time when no library loads.
MaceStatus SharedOpenCLApi(const OpenCLApi** api);

// "CL_OUT_OF_RESOURCES (-5)".
std::string OpenCLErrorName(cl_int error);

}  // namespace opencl
}  // namespace mace

#endif  // MACE_RUNTIMES_OPENCL_OPENCL_API_H_
