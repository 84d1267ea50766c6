// Where the library reports a failure it finds on its own (e.g. TempHome's destructor seeing a program talk to
// the planted foreign bridge). The library does not depend on GoogleTest: by default the text goes to stderr;
// the test programs link tests/support/gtest_failure_report.cpp, which makes every report a test failure.
#pragma once

#include <string>

namespace agentworks::testing {

using FailureReporter = void (*)(const std::string& text);

// Replaces the reporter (nullptr restores the stderr default).
void set_failure_reporter(FailureReporter reporter);
void report_failure(const std::string& text);

}  // namespace agentworks::testing
