// The text of a notice about a function call (R-D2): what the call's record says, never more, and the exact way
// to read the rest. Pure: no store access.
#pragma once

#include <cstddef>
#include <string>

#include "store/function_records.hpp"

namespace agentworks::server {

inline constexpr std::size_t kNoticeAnswerChars = 2000;      // the answer's first characters in the notice
inline constexpr std::size_t kNoticeResultBytes = 8 * 1024;  // a larger result is named, not shown

// The call reached its outcome: status, the answer's start, the result (or its file), the error, how to read more.
std::string call_outcome_text(const CallRow& call);
// The call asks its caller a question: the question, its schema if any, and how to answer it.
std::string call_question_text(const CallRow& call, const CallInput& question);

}  // namespace agentworks::server
