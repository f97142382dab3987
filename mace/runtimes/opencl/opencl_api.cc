#include "mace/runtimes/opencl/opencl_api.h"

#include <dlfcn.h>

#include <mutex>

#include "mace/utils/logging.h"
#include "mace/utils/status.h"

namespace mace {
namespace opencl {

std::vector<std::string> DefaultOpenCLLibraryPaths() {
#if defined(__LP64__)
  const std::string lib = "lib64";
#else
  const std::string lib = "lib";
#endif
  std::vector<std::string> paths = {"libOpenCL.so", "libOpenCL.so.1"};
  for (const char* root : {"/system/vendor/", "/vendor/", "/system/"}) {
    paths.push_back(std::string(root) + lib + "/libOpenCL.so");
  }
  for (const char* root : {"/system/vendor/", "/vendor/", "/system/"}) {
    paths.push_back(std::string(root) + lib + "/egl/libGLES_mali.so");
    paths.push_back(std::string(root) + lib + "/libGLES_mali.so");
  }
  // PowerVR's OpenCL library.
  paths.push_back("/system/vendor/" + lib + "/libPVROCL.so");
  paths.push_back("/vendor/" + lib + "/libPVROCL.so");
  return paths;
}

MaceStatus LoadOpenCLApi(const std::vector<std::string>& paths, OpenCLApi* api) {
  std::string tried;
  for (const std::string& path : paths) {
    void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (handle == nullptr) {
      tried += "\n  " + path + ": " + dlerror();
      continue;
    }
    OpenCLApi table;
    std::string missing;
#define MACE_OPENCL_LOAD(name)                                             \
  table.name = reinterpret_cast<decltype(table.name)>(dlsym(handle, #name)); \
  if (table.name == nullptr) missing += std::string(missing.empty() ? "" : ", ") + #name;
    MACE_OPENCL_FUNCTIONS(MACE_OPENCL_LOAD)
#undef MACE_OPENCL_LOAD
    if (!missing.empty()) {
      tried += "\n  " + path + ": lacks " + missing;
      dlclose(handle);
      continue;
    }
    table.clCreateCommandQueueWithProperties =
        reinterpret_cast<decltype(table.clCreateCommandQueueWithProperties)>(
            dlsym(handle, "clCreateCommandQueueWithProperties"));
    table.library_path = path;
    *api = table;
    VLOG(1) << "OpenCL library: " << path;
    return MaceStatus();
  }
  return MaceStatus(MaceStatus::MACE_UNSUPPORTED,
                    StrCat("no OpenCL library could be loaded; tried:", tried));
}

MaceStatus SharedOpenCLApi(const OpenCLApi** api) {
  static std::once_flag once;
  static OpenCLApi* table = nullptr;
  static MaceStatus* status = nullptr;
  std::call_once(once, [] {
    table = new OpenCLApi;
    status = new MaceStatus(LoadOpenCLApi(DefaultOpenCLLibraryPaths(), table));
  });
  *api = table;
  return *status;
}

std::string OpenCLErrorName(cl_int error) {
  const char* name = "unknown OpenCL error";
  switch (error) {
#define MACE_CL_ERROR(code) \
  case code:                \
    name = #code;           \
    break;
    MACE_CL_ERROR(CL_SUCCESS)
    MACE_CL_ERROR(CL_DEVICE_NOT_FOUND)
    MACE_CL_ERROR(CL_DEVICE_NOT_AVAILABLE)
    MACE_CL_ERROR(CL_COMPILER_NOT_AVAILABLE)
    MACE_CL_ERROR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    MACE_CL_ERROR(CL_OUT_OF_RESOURCES)
    MACE_CL_ERROR(CL_OUT_OF_HOST_MEMORY)
    MACE_CL_ERROR(CL_PROFILING_INFO_NOT_AVAILABLE)
    MACE_CL_ERROR(CL_MEM_COPY_OVERLAP)
    MACE_CL_ERROR(CL_IMAGE_FORMAT_MISMATCH)
    MACE_CL_ERROR(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    MACE_CL_ERROR(CL_BUILD_PROGRAM_FAILURE)
    MACE_CL_ERROR(CL_MAP_FAILURE)
    MACE_CL_ERROR(CL_INVALID_VALUE)
    MACE_CL_ERROR(CL_INVALID_DEVICE_TYPE)
    MACE_CL_ERROR(CL_INVALID_PLATFORM)
    MACE_CL_ERROR(CL_INVALID_DEVICE)
    MACE_CL_ERROR(CL_INVALID_CONTEXT)
    MACE_CL_ERROR(CL_INVALID_QUEUE_PROPERTIES)
    MACE_CL_ERROR(CL_INVALID_COMMAND_QUEUE)
    MACE_CL_ERROR(CL_INVALID_HOST_PTR)
    MACE_CL_ERROR(CL_INVALID_MEM_OBJECT)
    MACE_CL_ERROR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    MACE_CL_ERROR(CL_INVALID_IMAGE_SIZE)
    MACE_CL_ERROR(CL_INVALID_BINARY)
    MACE_CL_ERROR(CL_INVALID_BUILD_OPTIONS)
    MACE_CL_ERROR(CL_INVALID_PROGRAM)
    MACE_CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE)
    MACE_CL_ERROR(CL_INVALID_KERNEL_NAME)
    MACE_CL_ERROR(CL_INVALID_KERNEL)
    MACE_CL_ERROR(CL_INVALID_ARG_INDEX)
    MACE_CL_ERROR(CL_INVALID_ARG_VALUE)
    MACE_CL_ERROR(CL_INVALID_ARG_SIZE)
    MACE_CL_ERROR(CL_INVALID_KERNEL_ARGS)
    MACE_CL_ERROR(CL_INVALID_WORK_DIMENSION)
    MACE_CL_ERROR(CL_INVALID_WORK_GROUP_SIZE)
    MACE_CL_ERROR(CL_INVALID_WORK_ITEM_SIZE)
    MACE_CL_ERROR(CL_INVALID_GLOBAL_OFFSET)
    MACE_CL_ERROR(CL_INVALID_EVENT_WAIT_LIST)
    MACE_CL_ERROR(CL_INVALID_OPERATION)
    MACE_CL_ERROR(CL_INVALID_BUFFER_SIZE)
    MACE_CL_ERROR(CL_INVALID_GLOBAL_WORK_SIZE)
#undef MACE_CL_ERROR
    case -1001:
      name = "CL_PLATFORM_NOT_FOUND_KHR";
      break;
  }
  return StrCat(name, " (", error, ")");
}

}  // namespace opencl
}  // namespace mace
