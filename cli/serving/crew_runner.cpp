#include "serving/crew_runner.hpp"

#include <event2/event.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include "agent/agent_invocation.hpp"
#include "agentworks/base64.hpp"
#include "agentworks/environment.hpp"
#include "agentworks/error.hpp"
#include "agentworks/server_client.hpp"
#include "call/call_executions.hpp"
#include "call/call_files.hpp"
#include "call/report_wire.hpp"
#include "declaration/declaration.hpp"
#include "declaration/schema_check.hpp"

namespace agentworks::cli {

using nlohmann::json;
namespace library = agentworks::functions;
namespace fs = std::filesystem;

namespace {

constexpr int kClaimWaitSeconds = 10;  // short enough that a stopping runner is not held long by its own poll
constexpr timeval kRetryDelay{2, 0};

// One request's answer, delivered on the loop.
struct HttpResult {
  std::optional<json> body;
  std::optional<ErrorCode> error;
  std::string message;
};

// A thread that sends requests one at a time, in order, and hands their answers to the loop through an eventfd.
// A request in flight when the runner stops (the claim's long poll) is given up within about a second and the
// thread is joined: nothing of it outlives the runner.
class HttpWorker {
 public:
  using Request = std::function<json(ServerClient&)>;
  using Done = std::function<void(const HttpResult&)>;

  HttpWorker(event_base* base, const ServedCrew& crew) : st_(std::make_shared<State>()) {
    st_->fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (st_->fd < 0) throw Error(ErrorCode::internal, "cannot make an eventfd for the runner");
    ev_ = event_new(base, st_->fd, EV_READ | EV_PERSIST, &HttpWorker::on_ready, this);
    event_add(ev_, nullptr);
    ServerClientOptions options;
    options.ca_file = crew.ca_file;
    options.abandon = &st_->abandon;
    thread_ = std::thread([st = st_, url = crew.server_url, token = crew.token, options] {
      ServerClient client(url, token, options);
      for (;;) {
        std::pair<Request, Done> job;
        {
          std::unique_lock<std::mutex> lock(st->mutex);
          st->cv.wait(lock, [&] { return st->stop || !st->jobs.empty(); });
          if (st->stop) return;
          job = std::move(st->jobs.front());
          st->jobs.pop_front();
        }
        HttpResult r;
        try {
          r.body = job.first(client);
        } catch (const Error& e) {
          r.error = e.code();
          r.message = e.what();
        } catch (const std::exception& e) {
          r.error = ErrorCode::internal;
          r.message = e.what();
        }
        std::lock_guard<std::mutex> lock(st->mutex);
        if (st->stop) return;
        st->done.emplace_back(std::move(job.second), std::move(r));
        const std::uint64_t one = 1;
        if (::write(st->fd, &one, sizeof one) < 0) {
          // the eventfd is full only after 2^64 wakes; nothing to do
        }
      }
    });
  }
  ~HttpWorker() {
    {
      std::lock_guard<std::mutex> lock(st_->mutex);
      st_->stop = true;
    }
    st_->abandon = true;
    st_->cv.notify_all();
    event_free(ev_);
    thread_.join();
  }
  HttpWorker(const HttpWorker&) = delete;
  HttpWorker& operator=(const HttpWorker&) = delete;

  void submit(Request request, Done done) {
    {
      std::lock_guard<std::mutex> lock(st_->mutex);
      st_->jobs.emplace_back(std::move(request), std::move(done));
    }
    st_->cv.notify_one();
  }

 private:
  struct State {
    std::mutex mutex;
    std::condition_variable cv;
    std::deque<std::pair<Request, Done>> jobs;
    std::deque<std::pair<Done, HttpResult>> done;
    bool stop = false;
    std::atomic<bool> abandon{false};  // read by the request in flight (ServerClientOptions::abandon)
    int fd = -1;
    ~State() {
      if (fd >= 0) ::close(fd);
    }
  };
  static void on_ready(int fd, short, void* arg) {
    auto* self = static_cast<HttpWorker*>(arg);
    std::uint64_t n = 0;
    if (::read(fd, &n, sizeof n) < 0) {
      // nothing was pending: another wake drained it
    }
    std::deque<std::pair<Done, HttpResult>> ready;
    {
      std::lock_guard<std::mutex> lock(self->st_->mutex);
      ready.swap(self->st_->done);
    }
    for (auto& [done, result] : ready) done(result);
  }

  std::shared_ptr<State> st_;
  event* ev_ = nullptr;
  std::thread thread_;
};

class CrewRunner final : private library::CallLedger {
 public:
  CrewRunner(event_base* base, ServedCrew crew, library::RunnerConfig config)
      : base_(base), crew_(std::move(crew)), claims_(base, crew_), uploads_(base, crew_) {
    library::CallLedger& ledger = *this;
    executions_ = std::make_unique<library::CallExecutions>(base_, ledger, std::move(config));
    beat_ev_ = event_new(base_, -1, EV_PERSIST, &CrewRunner::on_beat, this);
    claim_retry_ev_ = evtimer_new(base_, &CrewRunner::on_claim_retry, this);
    arm_beat();
    claim();
  }
  ~CrewRunner() override {
    executions_.reset();  // the keepers kill the trees; the server interrupts those calls when their lease lapses
    event_free(beat_ev_);
    event_free(claim_retry_ev_);
    outcome_retries_.clear();
  }
  CrewRunner(const CrewRunner&) = delete;
  CrewRunner& operator=(const CrewRunner&) = delete;

  const std::string& ended() const { return ended_; }

 private:
  std::string path(const std::string& rest) const { return "/v1/runners/" + crew_.crew_id + rest; }

  void stop(const std::string& why) {
    if (!ended_.empty()) return;
    ended_ = why;
    event_base_loopexit(base_, nullptr);
  }

  // A refusal of the runner's own connection ends the serving; anything else is retried.
  bool revoked(const HttpResult& r) {
    if (r.error != ErrorCode::unauthenticated && r.error != ErrorCode::forbidden && r.error != ErrorCode::not_found)
      return false;
    stop("the server no longer lets this computer serve Crew " + crew_.crew_name + " (" + r.message +
         "): it was stopped, unregistered, or is served from another computer now");
    return true;
  }

  void claim() {
    claims_.submit(
        [p = path("/work")](ServerClient& c) { return c.post(p, json{{"wait_seconds", kClaimWaitSeconds}}, kClaimWaitSeconds); },
        [this](const HttpResult& r) { on_work(r); });
  }

  void on_work(const HttpResult& r) {
    if (r.error) {
      if (revoked(r)) return;
      std::cerr << "runner of " << crew_.crew_name << ": cannot reach the server (" << r.message << "); retrying\n";
      evtimer_add(claim_retry_ev_, &kRetryDelay);
      return;
    }
    lease_seconds_ = std::max(1, r.body->value("lease_seconds", lease_seconds_));
    if (armed_lease_ != lease_seconds_) arm_beat();  // the server's lease, not the default, paces the heartbeat
    upload_limit_ = r.body->value("upload_limit", upload_limit_);
    if (const auto& call = r.body->at("call"); !call.is_null()) start(call);
    claim();
  }

  // R-R2: the call runs only as the folder here declares it now, and only if that is what it was admitted under.
  void start(const json& call) {
    const std::string id = call.at("call_id").get<std::string>();
    library::CallJob job;
    job.call_id = id;
    job.token = call.at("token").get<std::string>();
    job.crew_dir = crew_.dir;
    job.arguments_json = call.at("arguments").dump();
    try {
      // The content is judged by its hash, which the server accepted under the person's allowance (R-R2).
      const library::Declaration d = library::load_declaration(crew_.dir, library::widest_allowance(), crew_.crew_name);
      if (library::declaration_hash(library::declaration_to_json(d)) != call.at("declaration_hash").get<std::string>())
        return refuse(id, "declaration_changed",
                      "the Crew's .agentworks files on " + crew_.host + " changed since this call was admitted; run "
                      "`agentworks crews reload " + crew_.crew_name + "` there, then call again");
      const library::FunctionDecl* f = library::find_function(d, call.at("function").get<std::string>());
      if (f == nullptr)
        return refuse(id, "declaration_changed", "the folder on " + crew_.host + " declares no function '" +
                                                     call.at("function").get<std::string>() + "'");
      const auto violations = library::CompiledSchema::compile(f->inputs_json)->check(job.arguments_json, "arguments");
      if (!violations.empty())
        return refuse(id, "invalid_input", "the arguments do not match the inputs of " + f->name + " on " + crew_.host +
                                               ": " + library::describe(violations));
      job.function = *f;
    } catch (const std::exception& e) {
      return refuse(id, "declaration_changed", std::string("the Crew's folder on ") + crew_.host +
                                                   " no longer declares it: " + e.what());
    }
    executions_->start(std::move(job));
  }

  void refuse(const std::string& call_id, const std::string& code, const std::string& message) {
    library::ExecutionOutcome o;
    o.status = library::ExecutionOutcome::Status::failed;
    o.error_code = code;
    o.error_message = message;
    finished(call_id, o);
  }

  // CallLedger: each report is one upload, in order; its acknowledgement is what `recorded` waits for.
  bool record(const std::string& call_id, const char* what, const library::ExecutionReport& report) override {
    uploads_.submit(
        [p = path("/calls/" + call_id + "/report"), body = library::report_to_json(report)](ServerClient& c) {
          return c.post(p, body);
        },
        [this, call_id, what = std::string(what)](const HttpResult& r) {
          if (!r.error) {
            executions_->recorded(call_id);
          } else if (r.error == ErrorCode::conflict || r.error == ErrorCode::not_found) {
            executions_->abandon({call_id});  // settled by the server (or its lease lapsed): nothing more of it
          } else if (!revoked(r)) {
            std::cerr << "runner of " << crew_.crew_name << ": call " << call_id << ": cannot record " << what << ": "
                      << r.message << "\n";
          }
        });
    return true;
  }

  void explicit_answer(const std::string& call_id, ExplicitAnswerHandler done) override {
    read_state(call_id, [done](const std::optional<json>& state) {
      if (!state) return done(std::nullopt);
      done(library::explicit_answer_from_json(state->at("explicit")));
    });
  }

  void waiting_input(const std::string& call_id, WaitingHandler done) override {
    read_state(call_id, [done](const std::optional<json>& state) { done(state && state->value("waiting_input", false)); });
  }

  void read_state(const std::string& call_id, std::function<void(const std::optional<json>&)> done) {
    uploads_.submit([p = path("/calls/" + call_id + "/state")](ServerClient& c) { return c.get(p); },
                    [done](const HttpResult& r) { done(r.error ? std::nullopt : r.body); });
  }

  // The one outcome: the call's files first (R-R4), then the outcome, sent until the server takes it or says the
  // call is settled (then it stays as the server has it).
  void finished(const std::string& call_id, const library::ExecutionOutcome& outcome) override {
    upload_files(call_id);
    send_outcome(call_id, library::outcome_to_json(outcome));
  }

  // On the uploads' thread, in order before the outcome: every file of the call's folder (as its listing finds
  // them), in pieces; one over the server's limit is listed with its size only. A file that cannot be read is left
  // out; a settled call stops the upload.
  void upload_files(const std::string& call_id) {
    const fs::path dir = fs::path(crew_.dir) / ".calls" / call_id;
    std::error_code ec;
    if (!fs::exists(dir, ec)) return;
    uploads_.submit(
        [dir, p = path("/calls/" + call_id + "/files"), limit = upload_limit_](ServerClient& c) {
          int sent = 0;
          for (const auto& f : library::list_call_files(dir)) {
            json piece{{"name", f.name}, {"size", f.size}, {"text", f.text}, {"modified", f.modified},
                       {"stored", f.size <= limit}, {"offset", 0}};
            try {
              if (f.size > limit) {
                c.post(p, piece);
                ++sent;
                continue;
              }
              std::int64_t offset = 0;
              do {
                const library::FilePage page = library::read_call_file(dir, f.name, offset, library::kFilePieceBytes);
                piece["offset"] = offset;
                piece["data"] = base64_encode(page.bytes);
                c.post(p, piece);
                if (page.next_offset <= offset) break;
                offset = page.next_offset;
              } while (offset < f.size);
              ++sent;
            } catch (const Error& e) {
              if (e.code() == ErrorCode::conflict || e.code() == ErrorCode::not_found ||
                  e.code() == ErrorCode::unauthenticated)
                throw;  // the call is settled, or the serving ended: nothing more of it
              std::cerr << "a file of " << dir.string() << " was not uploaded: " << f.name << ": " << e.what() << "\n";
            }
          }
          return json{{"files", sent}};
        },
        [this, call_id](const HttpResult& r) {
          if (r.error && !revoked(r))
            std::cerr << "runner of " << crew_.crew_name << ": call " << call_id << ": files not uploaded: " << r.message
                      << "\n";
        });
  }

  void send_outcome(const std::string& call_id, const json& body) {
    uploads_.submit([p = path("/calls/" + call_id + "/outcome"), body](ServerClient& c) { return c.post(p, body); },
                    [this, call_id, body](const HttpResult& r) {
                      if (!r.error || r.error == ErrorCode::conflict || r.error == ErrorCode::not_found) {
                        drop_retry(call_id);
                        return;
                      }
                      if (revoked(r)) return;
                      retry_outcome(call_id, body);
                    });
  }

  // An outcome the server could not take yet, sent again after a pause (and its call's lease kept meanwhile).
  struct OutcomeRetry {
    CrewRunner* self = nullptr;
    std::string call_id;
    json body;
    event* ev = nullptr;
    ~OutcomeRetry() {
      if (ev != nullptr) event_free(ev);
    }
  };

  void retry_outcome(const std::string& call_id, const json& body) {
    auto& slot = outcome_retries_[call_id];
    if (!slot) {
      slot = std::make_unique<OutcomeRetry>();
      slot->self = this;
      slot->call_id = call_id;
      slot->ev = evtimer_new(base_, &CrewRunner::on_outcome_retry, slot.get());
    }
    slot->body = body;
    evtimer_add(slot->ev, &kRetryDelay);
  }

  void drop_retry(const std::string& call_id) { outcome_retries_.erase(call_id); }

  static void on_outcome_retry(int, short, void* arg) {
    auto* retry = static_cast<OutcomeRetry*>(arg);
    retry->self->send_outcome(retry->call_id, retry->body);
  }

  // The lease of every call this runner holds (running, or its outcome not taken yet) is renewed at a third of the
  // lease; the answer carries cancels (R-D3) and the calls the server settled without it.
  void arm_beat() {
    const int ms = std::max(300, lease_seconds_ * 1000 / 3);
    const timeval tv{ms / 1000, (ms % 1000) * 1000};
    event_del(beat_ev_);
    event_add(beat_ev_, &tv);
    armed_lease_ = lease_seconds_;
  }

  static void on_beat(int, short, void* arg) {
    auto* self = static_cast<CrewRunner*>(arg);
    if (self->armed_lease_ != self->lease_seconds_) self->arm_beat();
    std::vector<std::string> ids = self->executions_->running_ids();
    for (const auto& [id, slot] : self->outcome_retries_) ids.push_back(id);
    if (ids.empty()) return;
    self->uploads_.submit(
        [p = self->path("/heartbeat"), ids](ServerClient& c) { return c.post(p, json{{"calls", ids}}); },
        [self](const HttpResult& r) {
          if (r.error) {
            self->revoked(r);
            return;
          }
          self->executions_->cancel(r.body->value("cancel", std::vector<std::string>{}));
          const auto settled = r.body->value("settled", std::vector<std::string>{});
          self->executions_->abandon(settled);
          for (const auto& id : settled) self->drop_retry(id);
        });
  }

  static void on_claim_retry(int, short, void* arg) { static_cast<CrewRunner*>(arg)->claim(); }

  event_base* base_;
  ServedCrew crew_;
  HttpWorker claims_;
  HttpWorker uploads_;
  std::unique_ptr<library::CallExecutions> executions_;
  event* beat_ev_ = nullptr;
  event* claim_retry_ev_ = nullptr;
  int lease_seconds_ = 30;
  std::int64_t upload_limit_ = 0;  // the server's, from its claim answers
  int armed_lease_ = 0;
  std::unordered_map<std::string, std::unique_ptr<OutcomeRetry>> outcome_retries_;
  std::string ended_;
};

void on_signal(int, short, void* arg) { event_base_loopexit(static_cast<event_base*>(arg), nullptr); }

std::string self_dir() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : self.parent_path().string();
}

}  // namespace

library::RunnerConfig runner_config_for(const ServedCrew& crew) {
  library::RunnerConfig config;
  const std::string dir = self_dir();
  if (const char* given = env::get(env::Var::keeper_bin); given != nullptr) {
    config.keeper = given;
  } else {
    for (const std::string& candidate : {dir + "/agentworks-keeper", dir + "/../server/agentworks-keeper"}) {
      if (::access(candidate.c_str(), X_OK) == 0) {
        config.keeper = std::filesystem::weakly_canonical(candidate).string();
        break;
      }
    }
  }
  if (config.keeper.empty() || ::access(config.keeper.c_str(), X_OK) != 0)
    throw Error(ErrorCode::internal, "agentworks-keeper is missing beside " + dir + ": it is installed with agentworks; "
                                     "reinstall, or set AGENTWORKS_KEEPER_BIN");
  config.agentworks_cli = library::find_agentworks_cli(dir);
  config.server_url = crew.server_url;
  config.server_ca_file = crew.ca_file;
  return config;
}

RunnerEnd serve_crew(const ServedCrew& crew, const library::RunnerConfig& config) {
  ::signal(SIGPIPE, SIG_IGN);
  // A runner ends with whoever started it (the bridge, or a terminal): its executions' keepers end with it.
  const pid_t parent = ::getppid();
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != parent) return RunnerEnd{0, "its parent ended as it started"};
  event_base* base = event_base_new();
  if (base == nullptr) throw Error(ErrorCode::internal, "cannot make the runner's event loop");
  RunnerEnd end;
  {
    event* term = evsignal_new(base, SIGTERM, &on_signal, base);
    event* intr = evsignal_new(base, SIGINT, &on_signal, base);
    evsignal_add(term, nullptr);
    evsignal_add(intr, nullptr);
    {
      CrewRunner runner(base, crew, config);
      std::cerr << "serving Crew " << crew.crew_name << " from " << crew.dir << " for " << crew.server_url << "\n";
      event_base_dispatch(base);
      end.reason = runner.ended().empty() ? "stopped" : runner.ended();
      end.exit_code = runner.ended().empty() ? 0 : 3;
    }
    event_free(term);
    event_free(intr);
  }
  event_base_free(base);
  return end;
}

}  // namespace agentworks::cli
