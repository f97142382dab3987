// The default terminate handler of the C++ runtime linked into the engine's
// shared libraries (LIBRARY_LINKOPTS link libstdc++ statically).
//
// libstdc++'s default handler, __gnu_cxx::__verbose_terminate_handler,
// demangles the type of the uncaught exception and so links the runtime's
// demangler (about 40 KiB of code). A library that defines the handler
// itself keeps libstdc++'s definition, and with it the demangler, out of
// the link, as libstdc++ configured with --disable-libstdcxx-verbose does.
//
// Only the shared libraries link this file, and their version scripts keep
// the definition local. The engine's entry points catch what they call and
// return a MaceStatus, so the handler runs only for a bug. It names the
// exception's type (mangled: `c++filt -t` reads it) on stderr and aborts,
// which leaves the stack to the crash report.

#include <cxxabi.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <typeinfo>

namespace {

void WriteStderr(const char* text) {
  size_t left = std::strlen(text);
  while (left > 0) {
    const ssize_t n = write(STDERR_FILENO, text, left);
    if (n <= 0) return;
    text += n;
    left -= static_cast<size_t>(n);
  }
}

}  // namespace

namespace __gnu_cxx {

void __verbose_terminate_handler() {
  const std::type_info* type = abi::__cxa_current_exception_type();
  if (type != nullptr) {
    WriteStderr("libmace: terminate called after an uncaught exception of type ");
    WriteStderr(type->name());
    WriteStderr("\n");
  } else {
    WriteStderr("libmace: terminate called without an active exception\n");
  }
  std::abort();
}

}  // namespace __gnu_cxx
