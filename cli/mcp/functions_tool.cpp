// The `functions_*` tools of `mcp serve --full` (list, call, status, read, reply, cancel), each one request of the Crew
// and function routes (functions/routes.hpp, the same requests as the `functions …` commands).
#include <algorithm>

#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/validation.hpp"
#include "functions/describe.hpp"
#include "functions/routes.hpp"
#include "mcp/full_actions.hpp"
#include "mcp/tool_args.hpp"
#include "session.hpp"

namespace agentworks::cli::mcp {
using nlohmann::json;
namespace {

// wait_seconds is capped, not refused: an agent asking for 60 gets the longest wait there is.
int capped_wait(const ToolArgs& args) {
  const auto wait = args.opt_integer("wait_seconds").value_or(0);
  if (wait < 0) throw Error(ErrorCode::bad_request, "'wait_seconds' must be 0 or more");
  return static_cast<int>(std::min<long long>(wait, kMaxWaitSeconds));
}

std::string page_text(const json& page) {
  std::string text = "file " + page.value("name", std::string()) + " bytes " +
                     std::to_string(page.value("offset", 0LL)) + "-" + std::to_string(page.value("next_offset", 0LL)) +
                     " of " + std::to_string(page.value("size", 0LL));
  text += page.value("eof", false) ? " (end of file)" : "; more follows at offset " +
                                                             std::to_string(page.value("next_offset", 0LL));
  if (page.contains("content") && page["content"].is_string()) return text + ":\n" + page["content"].get<std::string>();
  return text + ": binary, the bytes are in structuredContent.content_base64";
}

}  // namespace

json run_functions_tool(const std::string& tool, ToolArgs& args, const LoginSource& login, std::string& text) {
  if (tool == "functions_list") {
    args.only({"target"});
    const std::string target = args.string("target");
    const Config config = login();
    const json list = client_for(config).get(functions::crew_path(target) + "/functions");
    text = functions::describe_functions(list);
    return list;
  }
  if (tool == "functions_call") {
    args.only({"target", "function", "arguments", "submission_id", "wait_seconds"});
    const std::string target = args.string("target");
    const int wait = capped_wait(args);
    const json body = functions::call_body(args.string("function"), args.value("arguments"),
                                           args.opt_string("submission_id"), wait);
    const Config config = login();
    ServerClient client = functions::client_with_wait(config.server_url, config.token, wait, config.ca_file);
    const json call = client.post(functions::crew_path(target) + "/calls", body);
    text = (call.value("accepted", false) ? "accepted " : "") + functions::describe_call(call, functions::Surface::mcp);
    return call;
  }
  if (tool == "functions_status") {
    args.only({"call_id", "after", "message_limit", "after_event", "wait_seconds"});
    functions::StatusQuery query;
    query.after = args.opt_integer("after");
    query.message_limit = args.opt_integer("message_limit");
    query.after_event = args.opt_integer("after_event");
    query.wait_seconds = capped_wait(args);
    const std::string path = functions::status_path(args.string("call_id"), query);
    const Config config = login();
    const json call = client_for(config).get(path, query.wait_seconds);
    text = functions::describe_call(call, functions::Surface::mcp);
    return call;
  }
  if (tool == "functions_read") {
    args.only({"call_id", "file", "offset", "limit"});
    const std::string path = functions::file_path(args.string("call_id"), args.string("file"),
                                                  args.opt_integer("offset"), args.opt_integer("limit"));
    const Config config = login();
    const json page = client_for(config).get(path);
    text = page_text(page);
    return page;
  }
  if (tool == "functions_cancel") {
    args.only({"call_id", "wait_seconds"});
    const int wait = capped_wait(args);
    const std::string call_id = args.string("call_id");
    const Config config = login();
    ServerClient client = functions::client_with_wait(config.server_url, config.token, wait, config.ca_file);
    const json call = client.post(functions::call_path(call_id) + "/cancel", functions::cancel_body(wait));
    text = functions::describe_cancel(call, functions::Surface::mcp);
    return call;
  }
  if (tool != "functions_reply") throw Error(ErrorCode::internal, "no functions tool " + tool);
  args.only({"call_id", "request_id", "answer"});
  const std::string call_id = args.string("call_id");
  const json body = {{"request_id", args.string("request_id")}, {"answer", args.string("answer")}};
  const Config config = login();
  const json answered = client_for(config).post(functions::call_path(call_id) + "/replies", body);
  text = "answered " + body["request_id"].get<std::string>() +
         "; the call goes on: follow it with functions_status call_id=" + call_id + " wait_seconds=25";
  return answered;
}

}  // namespace agentworks::cli::mcp
