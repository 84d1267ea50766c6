#include "store/call_notice_text.hpp"

namespace agentworks::server {
namespace {

// The first `chars` code points of valid UTF-8 text, and whether anything was cut.
std::string first_chars(const std::string& text, std::size_t chars, bool& cut) {
  std::size_t i = 0;
  std::size_t n = 0;
  while (i < text.size() && n < chars) {
    const auto lead = static_cast<unsigned char>(text[i]);
    i += lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    ++n;
  }
  cut = i < text.size();
  return text.substr(0, std::min(i, text.size()));
}

std::string head(const CallRow& call) {
  return "Function call " + call.call_id + " (" + call.crew_name + "/" + call.function + ")";
}

std::string read_more(const CallRow& call) {
  return "Read the whole call with the get_function_call tool (call_id \"" + call.call_id +
         "\") or `agentworks functions call-status --call " + call.call_id + "`.";
}

}  // namespace

std::string call_outcome_text(const CallRow& call) {
  std::string out = head(call) + " ended: " + state_text(call.status) + ".";
  if (call.error_code)
    out += "\nError " + *call.error_code + ": " + call.error_message.value_or("");
  if (call.result_json) {
    if (call.result_json->size() <= kNoticeResultBytes) out += "\nResult (JSON): " + *call.result_json;
    else out += "\nResult: " + std::to_string(call.result_json->size()) + " bytes of JSON, not shown here.";
  }
  if (call.result_file) out += "\nResult file: " + *call.result_file + " (too large to show; read it as a call file).";
  if (call.answer && !call.answer->empty()) {
    bool cut = false;
    out += "\nAnswer:\n" + first_chars(*call.answer, kNoticeAnswerChars, cut);
    if (cut) out += "\n[the answer goes on; its first " + std::to_string(kNoticeAnswerChars) + " characters are shown]";
  }
  return out + "\n" + read_more(call);
}

std::string call_question_text(const CallRow& call, const CallInput& question) {
  std::string out = head(call) + " asks (request " + question.request_id + "):\n" + question.question;
  if (question.schema_json) out += "\nThe answer must be JSON valid against this schema: " + *question.schema_json;
  return out + "\nAnswer with the reply_function_call tool (call_id \"" + call.call_id + "\", request_id \"" +
         question.request_id + "\", answer) or `agentworks functions reply --call " + call.call_id + " --request " +
         question.request_id + " --answer TEXT`.";
}

}  // namespace agentworks::server
