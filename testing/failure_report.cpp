#include "testing/failure_report.hpp"

#include <iostream>

namespace agentworks::testing {
namespace {
FailureReporter g_reporter = nullptr;
}  // namespace

void set_failure_reporter(FailureReporter reporter) { g_reporter = reporter; }

void report_failure(const std::string& text) {
  if (g_reporter != nullptr) {
    g_reporter(text);
  } else {
    std::cerr << "agentworks testing: " << text << "\n";
  }
}

}  // namespace agentworks::testing
