#include "ops/offer_answer.hpp"

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "bridge.hpp"
#include "delivery/op_guard.hpp"
#include "platform/failpoint.hpp"

namespace agentworks::bridge {

using nlohmann::json;

OfferDone answer_offer(Bridge& bridge, const Reply& reply, OfferAnswer answer) {
  return [&bridge, reply, answer = std::move(answer)](OfferOutcome outcome) {
    guarded(bridge, reply, [&] {
      switch (outcome.kind) {
        case OfferOutcome::Kind::error:
          reply.error(outcome.code, outcome.message);
          return;
        case OfferOutcome::Kind::held:
          reply.ok(answer.held(outcome.row, outcome.held));
          return;
        case OfferOutcome::Kind::offered:
          break;
      }
      json fields;
      try {
        fields = answer.offered(outcome.row, outcome.batch);
      } catch (...) {
        // Once the answer is being written the outcome is ambiguous: from then on the timestamp stays.
        offer_not_carried(bridge, outcome);
        throw;
      }
      AGENTWORKS_FAILPOINT("bridge.before_take_reply");
      reply.ok(fields, [&bridge, offered = outcome.offered_ids(), after = answer.written](bool written) {
        settle_offers(bridge, offered, written);
        if (after) bridge.guard_journal("after an answer", [&] { after(written); });
      });
    });
  };
}

}  // namespace agentworks::bridge
