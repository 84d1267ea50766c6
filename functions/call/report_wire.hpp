// The wire form of what an execution reports and how it ended, as a runner sends them to its server
// (docs/protocol.md "Runners"). Parsing is strict: what no execution of this library sends (an unknown key or
// kind, oversized text) is refused with Error(bad_request), so a server records only what an execution could
// have said.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>

#include "call/call_ledger.hpp"

namespace agentworks::functions {

inline constexpr std::size_t kMaxReportTextBytes = 64 * 1024;  // one message, event detail or progress line
inline constexpr std::size_t kMaxReportEntries = 256;           // messages, or events, in one report
inline constexpr std::size_t kFilePieceBytes = 128 * 1024;       // one upload of a file's bytes (base64 in JSON)

nlohmann::json report_to_json(const ExecutionReport& report);
ExecutionReport report_from_json(const nlohmann::json& body);

nlohmann::json outcome_to_json(const ExecutionOutcome& outcome);
ExecutionOutcome outcome_from_json(const nlohmann::json& body);

// The explicit function's answer as a runner reads it back (null: none recorded yet).
nlohmann::json explicit_answer_to_json(const ExplicitAnswer& answer);
ExplicitAnswer explicit_answer_from_json(const nlohmann::json& j);

}  // namespace agentworks::functions
