// offline (SessionEnd: identity stays, delivery stops, messages wait) and resume (reconnect the same session).
#include <nlohmann/json.hpp>

#include "bridge.hpp"
#include "delivery/offline.hpp"
#include "native/native_router.hpp"
#include "ops/ops.hpp"
#include "platform/log.hpp"
#include "request/request_fields.hpp"

namespace agentworks::bridge {

using nlohmann::json;

namespace {

AttachmentRow attached_row(Bridge& bridge, const json& req) {
  const auto key = session_key(req);
  auto row = bridge.journal().find_attachment(key.provider, key.session_id);
  if (!row) throw Error(ErrorCode::not_found, "this session is not attached; attach it with /agentworks attach");
  return *row;
}

}  // namespace

void op_offline(Bridge& bridge, const json& req, const Reply& reply, const AttachmentRow*) {
  const auto row = attached_row(bridge, req);
  take_offline(bridge, row.attachment_id, "the session ended (SessionEnd)");
  reply.ok({{"attachment_id", row.attachment_id},
            {"agent_name", row.agent_name},
            {"state", std::string(to_string(row.state == AttachmentState::attached ? AttachmentState::offline
                                                                                : row.state))}});
}

void op_resume(Bridge& bridge, const json& req, const Reply& reply, const AttachmentRow*) {
  // R-H11: only the provider process now running this session resumes it; the hook sends its key.
  const auto process = optional_process(req);
  if (!process) {
    throw Error(ErrorCode::bad_request,
                "field 'process' is required: resume needs the current provider process key (type /agentworks "
                "resume in the chat)");
  }
  const auto row = attached_row(bridge, req);
  if (row.state == AttachmentState::fenced) {
    throw Error(ErrorCode::fenced, "this attachment was superseded, detached or revoked; attach this session again");
  }
  bridge.journal().set_provider_process(row.attachment_id, process->pid, process->start);
  if (row.state != AttachmentState::attached) {
    bridge.journal().set_attachment_state(row.attachment_id, AttachmentState::attached);
    bridge.chat_turns().ended(row.attachment_id);  // R-X3: the typed resume was blocked, no turn runs
    auto fresh = row;
    fresh.state = AttachmentState::attached;
    bridge.open_stream(fresh);
    log::info("resumed: " + row.agent_name + " (" + row.attachment_id + ")");
  }
  bridge.native().refresh(row.attachment_id);  // the process now running the session (R-N1)
  reply.ok({{"attachment_id", row.attachment_id}, {"agent_name", row.agent_name}, {"state", "attached"}});
}

}  // namespace agentworks::bridge
