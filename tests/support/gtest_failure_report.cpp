// Linked (as an object library) into every GoogleTest program: what testing/ reports becomes a failure of the
// running test, exactly as if the library had called ADD_FAILURE itself.
#include <gtest/gtest.h>

#include "testing/failure_report.hpp"

namespace {

const bool g_installed = [] {
  agentworks::testing::set_failure_reporter([](const std::string& text) { ADD_FAILURE() << text; });
  return true;
}();

}  // namespace
