// The terminate handler the shared libraries define (terminate_handler.cc)
// replaces the C++ runtime's verbose one: an exception that leaves a
// noexcept function names its mangled type on stderr and aborts.

#include <exception>
#include <stdexcept>

#include "gtest/gtest.h"

namespace {

[[gnu::noinline]] void Throw() { throw std::runtime_error("escaped"); }

void ThrowThroughNoexcept() noexcept { Throw(); }

TEST(TerminateHandlerDeathTest, NamesTheExceptionTypeAndAborts) {
  EXPECT_DEATH(ThrowThroughNoexcept(),
               "libmace: terminate called after an uncaught exception of type "
               "St13runtime_error");
}

TEST(TerminateHandlerDeathTest, WithoutAnExceptionSaysSo) {
  EXPECT_DEATH(std::terminate(), "libmace: terminate called without an active exception");
}

}  // namespace
