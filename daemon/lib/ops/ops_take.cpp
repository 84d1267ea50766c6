// take: hands out waiting messages as Message objects (R-H1) through the shared release-check -> offer ->
// answer flow (offer_flow.hpp). `deliver` is the same for a Stop hook, with the text built by the bridge.
#include <nlohmann/json.hpp>

#include "bridge.hpp"
#include "delivery/offer_flow.hpp"
#include "ops/offer_answer.hpp"
#include "ops/ops.hpp"
#include "request/request_fields.hpp"

namespace agentworks::bridge {

using nlohmann::json;

namespace {

constexpr int kMaxTake = 20;

json attachment_meta(const AttachmentRow& row) {
  return {{"attachment_id", row.attachment_id}, {"agent_name", row.agent_name}, {"provider", row.provider},
          {"session_id", row.session_id}};
}

json empty_answer(const AttachmentRow& row, std::size_t held) {
  return {{"messages", json::array()}, {"guidance", false}, {"held", held}, {"attachment", attachment_meta(row)},
          {"state", std::string(to_string(row.state))}};
}

}  // namespace

void op_take(Bridge& bridge, const json& req, const Reply& reply, const AttachmentRow*) {
  const auto key = session_key(req);
  const auto limit = static_cast<int>(optional_int(req, "limit", kMaxTake, 1, kMaxTake));
  const auto row = bridge.journal().find_attachment(key.provider, key.session_id);
  if (!row) throw Error(ErrorCode::not_found, "this session is not attached");
  if (row->state == AttachmentState::fenced) {
    throw Error(ErrorCode::fenced, "this attachment was superseded, detached or revoked; nothing is delivered");
  }
  if (row->state != AttachmentState::attached) {
    reply.ok(empty_answer(*row, 0));  // offline: messages wait
    return;
  }
  auto pending = bridge.journal().pending(row->attachment_id, limit);
  if (pending.empty()) {
    reply.ok(empty_answer(*row, 0));
    return;
  }
  const auto token = bridge.token_for(*row);
  if (!token) {
    reply.ok(empty_answer(*row, pending.size()));
    return;
  }
  OfferAnswer answer;
  answer.offered = [](const AttachmentRow& r, const OfferBatch& batch) {
    json messages = json::array();
    for (const auto& m : batch.messages) {
      json body = json::parse(m.body, nullptr, false);
      if (!body.is_object()) body = json::object({{"message_id", m.message_id}});
      messages.push_back(std::move(body));
    }
    return json{{"messages", messages}, {"guidance", batch.guidance}, {"held", 0}, {"attachment", attachment_meta(r)}};
  };
  answer.held = [](const AttachmentRow& r, std::size_t held) {
    return json{{"messages", json::array()}, {"guidance", false}, {"held", held}, {"attachment", attachment_meta(r)}};
  };
  release_and_offer(bridge, *row, *token, std::move(pending), nullptr,
                    answer_offer(bridge, reply, std::move(answer)));
}

}  // namespace agentworks::bridge
