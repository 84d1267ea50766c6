// The offer journal (invariants 1, 2, 10 in docs/requirements.md): every message received for an attachment is cached
// here until a chat takes it, and a message handed out once is never handed out automatically again.
//
// Message states: received (pending, body cached) -> offered (persisted BEFORE it is handed out; body cleared)
// -> admitted -> processed; `withheld` when the server's release check refused it (body kept for recovery).
// An offer also records whether its hand-out is known to have completed (the `emit` column, R-B6):
// pending (persisted, being handed out) -> done, or unsure (it may not have arrived: the bridge restarted or the
// client went away first) -> told (a later delivery text listed it). Unsure and told offers count as possibly
// lost until they are acknowledged, read through the bridge or cleared by cleanup.
// The receive watermark (highest mailbox sequence seen for an agent on a server) is written in the same
// transaction as the message, only grows, and survives cleanup, detach and restart: a message at or below it is
// never cached again. SQLite errors propagate as sql::SqliteError; fatal() ones must stop the bridge. A state column
// holding a value this bridge does not know reads as corruption (a fatal SqliteError), never as some other state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "agentworks/journal_quota.hpp"
#include "agentworks/sqlite.hpp"
#include "state/states.hpp"

namespace agentworks::bridge {

struct JournalLimits {
  std::int64_t max_messages_per_session = kJournalMaxMessagesPerSession;  // R-B9
  std::int64_t max_total_body_bytes = kJournalMaxTotalBodyBytes;          // R-B9
  std::int64_t offered_retention_seconds = 7 * 86400;     // R-B11
  std::int64_t guidance_refresh_seconds = 86400;          // R-B17
};

struct AttachmentRow {
  std::string attachment_id;
  std::string provider;
  std::string session_id;
  std::string agent_name;
  std::string purpose;
  std::string server_url;
  std::string connection_id;  // the agent's child connection
  AttachmentState state = AttachmentState::attached;
  std::optional<std::int64_t> guidance_at;
  std::int64_t created_at = 0;
  // The provider process (pid + start time) that attached or last resumed this session (R-H11); 0/"" unknown.
  std::int64_t provider_pid = 0;
  std::string provider_start;
};

enum class ReceiveResult {
  cached,           // new pending message, watermark advanced
  acknowledged,     // already admitted/processed on the server: watermark advanced, nothing cached (R-B4)
  below_watermark,  // seq <= watermark: ignored (R-B12)
  duplicate,        // message id already journaled: watermark advanced, nothing else
  over_quota,       // no room (R-B9): NOT journaled and the watermark stays before it (the stream must fetch it
                    // again later); so is every later message of the same batch
};

struct IncomingMessage {
  std::string message_id;
  std::int64_t seq = 0;  // N of the mailbox cursor m<N>
  std::string body;      // the Message object as JSON text
  bool acknowledged = false;
  std::string inbox_id;  // the conversation an agent's message came in (empty for a notice about a call)
};

// A message handed to the chat that it has not yet marked processed: what a reply or a decline without an
// address refers to (R-X2, R-X4).
struct OpenOffer {
  std::string message_id;
  std::string inbox_id;
};

// R-X3: in which turn of its chat an offer is seen. The turns are counted per attachment (attachments.turn_seq).
enum class OfferSeen {
  this_turn,   // handed to the turn under way (a Stop hook's continuation, a take)
  a_new_turn,  // pushed into an idle chat: the push starts the next turn
  next_turn,   // pushed into a busy chat: it queues behind the turn under way
};

// A message the chat was handed in a turn that has ended, neither answered nor declined (R-X3).
struct SilentOffer {
  std::string message_id;
  std::string inbox_id;
  bool nudged = false;  // the chat was already asked once to answer it
};

struct CachedMessage {
  std::string message_id;
  std::int64_t seq = 0;
  std::string body;
};

struct OfferBatch {
  std::vector<CachedMessage> messages;           // exactly the ones this call moved to `offered`
  bool guidance = false;                         // this offer carries ack/reply instructions (R-B17)
  std::optional<std::int64_t> previous_guidance;  // for restore_guidance after a definite failure
};

struct AttachmentCounts {
  std::int64_t pending = 0;
  std::int64_t offered_not_admitted = 0;
  std::int64_t withheld = 0;
  std::int64_t admitted = 0;   // acknowledged rows still journaled (cleanup and the quota reclaim them)
  std::int64_t processed = 0;
  std::int64_t total = 0;
  std::int64_t possibly_lost = 0;  // offered, not acknowledged, and not known to have arrived (R-B6)
};

// Offers that may not have reached the chat (R-B6).
struct PossiblyLost {
  std::vector<std::string> message_ids;  // oldest first, at most the limit asked for
  std::int64_t count = 0;                // all of them, listed or not
  std::int64_t first_seq = 0;            // mailbox sequence of the oldest of them (0 when none)
};

struct NameLoss {
  std::string taken_by;  // e.g. "a Claude chat (session 1a2b3c4d…9f0e)"; "" when the server did not say
  std::int64_t taken_at = 0;
  bool told = false;
};

// Who cleans up: the bridge on its own (at start and hourly) never erases a possibly-not-arrived notice (R-B6);
// only the person's `/agentworks cleanup` clears them.
enum class CleanupScope { automatic, by_person };

struct CleanupResult {
  std::int64_t processed_removed = 0;
  std::int64_t offered_removed = 0;
  std::int64_t possibly_lost_cleared = 0;
};

struct OutboxItem {
  std::int64_t seq = 0;
  std::string submission_id;
  std::string attachment_id;
  std::string kind;    // ack | reply | send
  std::string method;  // POST
  std::string path;    // server path, e.g. /v1/messages
  std::string body;    // JSON text, submission_id already inside where the route takes one
  std::int64_t attempts = 0;
};

// One journaled message as the local status page lists it (no body: bodies are shown only when asked for).
struct DeliveryEntry {
  std::string message_id;
  std::string attachment_id;
  std::int64_t seq = 0;
  MessageState state = MessageState::received;
  std::string reason;  // why withheld, "" otherwise
  std::int64_t received_at = 0;
  std::optional<std::int64_t> offered_at, admitted_at, processed_at;
  bool body_cached = false;  // still pending (or withheld): the body is in the journal
};

// One outbox item as the status page lists it: where it goes, never what it says.
struct OutboxEntry {
  std::int64_t seq = 0;
  std::string submission_id;
  std::string attachment_id;
  std::string kind;
  std::string path;
  std::string body;  // the request JSON; the op extracts its target, the page never sees the text
  OutboxState state = OutboxState::queued;
  std::int64_t attempts = 0;
  std::string last_error;
  std::int64_t created_at = 0;
  std::optional<std::int64_t> done_at;
};

class Journal {
 public:
  explicit Journal(const std::string& path, JournalLimits limits = {});

  // Attachments.
  void upsert_attachment(const AttachmentRow& row);
  std::optional<AttachmentRow> find_attachment(const std::string& provider, const std::string& session_id);
  std::optional<AttachmentRow> attachment(const std::string& attachment_id);
  std::vector<AttachmentRow> attachments();
  void set_attachment_state(const std::string& attachment_id, AttachmentState state);
  void set_provider_process(const std::string& attachment_id, std::int64_t pid, const std::string& start);
  // Moves the still-`received` messages of other local attachments of the same agent on the same server to
  // `row` (the name moved to it, R-H7); returns how many moved.
  std::int64_t adopt_pending(const AttachmentRow& row);
  // The person's and the provider's settings for the native routes (JSON text, native_router.cpp); "" = none.
  void set_native_settings(const std::string& attachment_id, const std::string& settings_json);
  std::string native_settings(const std::string& attachment_id);
  // Another chat took this attachment's name (R-H7): who (a description for the person, "" when unknown)
  // and when, kept until the attachment is removed; `told` once a turn end of the losing chat showed it.
  void record_name_loss(const std::string& attachment_id, const std::string& taken_by, std::int64_t at);
  std::optional<NameLoss> name_loss(const std::string& attachment_id);
  void name_loss_told(const std::string& attachment_id);
  // The folder the chat ran in when a typed attach made the attachment ("" = not known), so a new chat of the same
  // project can be told which names its predecessors held (R-H11).
  void set_attachment_cwd(const std::string& attachment_id, const std::string& cwd);
  std::string attachment_cwd(const std::string& attachment_id);
  // Detach: the attachment and its messages go; the agent's watermark stays (R-B12, R-B22).
  void remove_attachment(const std::string& attachment_id);

  // Receiving. The watermark is keyed by server URL and folded agent name.
  std::int64_t watermark(const std::string& server_url, const std::string& agent_name);
  // The messages of agents offered to this attachment, not yet marked processed and not settled (answered in their
  // conversation or declined), oldest first (at most 100;
  // R-X2, R-X4). A message offered before the journal kept inboxes is not among them.
  std::vector<OpenOffer> open_offers(const std::string& attachment_id);
  // The chat answered: a reply settles what it was handed in that conversation, a decline its one message.
  void settle_conversation(const std::string& attachment_id, const std::string& inbox_id, std::int64_t now);
  void settle_message(const std::string& message_id, std::int64_t now);
  // R-X3, the chat's turns: a turn started (a typed prompt); a turn ended, and true when offers queued behind it
  // start the next one at once. silent_offers(): handed in the turn under way or before, known to have arrived (an
  // offer that may not have is the R-B6 notice's), not answered, not declined (oldest first, at most 100);
  // mark_nudged(): the chat was asked about them.
  void start_turn(const std::string& attachment_id);
  bool end_turn(const std::string& attachment_id);
  std::vector<SilentOffer> silent_offers(const std::string& attachment_id);
  void mark_nudged(const std::vector<std::string>& message_ids, std::int64_t now);
  ReceiveResult record_received(const AttachmentRow& att, const IncomingMessage& msg, std::int64_t now);
  // The same for a batch in stream order, in one transaction; one result per message.
  std::vector<ReceiveResult> record_received_batch(const AttachmentRow& att, const std::vector<IncomingMessage>& batch,
                                                   std::int64_t now);

  // Offering. pending() reads; offer() moves exactly those still `received` to `offered` in one transaction,
  // returning their bodies, and decides the guidance flag (R-B5, R-B10, R-B17).
  std::vector<CachedMessage> pending(const std::string& attachment_id, int limit);
  // Offered messages start with emit `pending`: settle_offers() records whether the hand-out completed.
  OfferBatch offer(const std::string& attachment_id, const std::vector<std::string>& message_ids, OfferSeen seen,
                   std::int64_t now);
  // Whether an offer made at `now` carries the instructions (R-B17); offer() decides with the same rule.
  bool guidance_due(const std::string& attachment_id, std::int64_t now);
  void restore_guidance(const std::string& attachment_id, std::optional<std::int64_t> previous);
  // A native push failed definitely before anything was written: exactly these offered messages become
  // `received` again with their bodies, for the Stop hook. Returns how many moved back.
  std::size_t return_to_pending(const std::string& attachment_id, const std::vector<CachedMessage>& messages);
  void withhold(const std::vector<std::string>& message_ids, const std::string& reason);

  // The hand-out of these offers completed (emitted) or may not have (not emitted: they become possibly lost).
  // Only offers still `pending` change. The commit is not flushed to disk: losing it in a power cut leaves the
  // offers `pending`, which the next start turns into the same "possibly not arrived" notice as a crash between
  // hand-out and settle would, and the next flushed commit carries it. So a take costs one flush, not two.
  void settle_offers(const std::vector<std::string>& message_ids, bool emitted);
  // At bridge start: every offer still `pending` was being handed out when the last bridge died. Returns how many.
  std::int64_t unsettled_offers_unsure();
  // Those no delivery text has listed yet; with `include_told` also those already listed.
  PossiblyLost possibly_lost(const std::string& attachment_id, int limit, bool include_told = false);
  // A delivery text that reached the chat listed these possibly lost offers (they are listed once).
  void possibly_lost_told(const std::vector<std::string>& message_ids);
  // The agent read these messages explicitly: no longer possibly lost. Returns how many changed.
  std::int64_t possibly_lost_read(const std::vector<std::string>& message_ids);

  // Quota room of an attachment (R-B9): message slots not held by pending or withheld rows (the others are
  // reclaimed on demand), and body bytes still free in all.
  std::int64_t free_slots(const std::string& attachment_id);
  std::int64_t free_body_bytes();
  const JournalLimits& limits() const { return limits_; }
  // Receiver acknowledgements (admitted or processed; any other state is refused); a state never goes backwards.
  // Returns false for an unknown id.
  bool set_delivery(const std::string& message_id, MessageState delivery, std::int64_t now);
  std::optional<MessageState> message_state(const std::string& message_id);

  AttachmentCounts counts(const std::string& attachment_id);
  std::int64_t total_body_bytes();
  CleanupResult cleanup(std::int64_t now, CleanupScope scope);

  // Durable outbox (R-B2): the submission id is minted by the caller once, before the first attempt.
  std::int64_t outbox_add(const OutboxItem& item, std::int64_t now);
  std::vector<OutboxItem> outbox_queued(int limit);
  void outbox_attempted(std::int64_t seq, const std::string& error);
  void outbox_finish(std::int64_t seq, OutboxState state, const std::string& result, std::int64_t now);
  std::optional<OutboxState> outbox_state(std::int64_t seq);

  // The newest messages and outbox items first, for the `activity` op (journal_activity.cpp).
  std::vector<DeliveryEntry> recent_deliveries(int limit);
  std::vector<OutboxEntry> recent_outbox(int limit);
  std::optional<DeliveryEntry> delivery(const std::string& message_id);
  // The cached Message JSON of a message still pending or withheld; nullopt once offered (the body is cleared).
  std::optional<std::string> cached_body(const std::string& message_id);

  std::string integrity_check() { return db_.integrity_check(); }
  sql::Db& db() { return db_; }

 private:
  void migrate();
  // Deletes up to `n` reclaimable rows of the attachment, processed first, then admitted, then offered (known
  // delivered before possibly lost), oldest first (R-B11). Returns how many went.
  std::int64_t reclaim(const std::string& attachment_id, std::int64_t n);
  bool guidance_expired(std::optional<std::int64_t> given_at, std::int64_t now) const;
  sql::Db db_;
  JournalLimits limits_;
};

}  // namespace agentworks::bridge
