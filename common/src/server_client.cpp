#include "agentworks/server_client.hpp"

#include "agentworks/server_trust.hpp"

#include <curl/curl.h>

#include <cstdlib>
#include <mutex>
#include <nlohmann/json.hpp>

namespace agentworks {
using nlohmann::json;
namespace {

std::size_t append_body(char* data, std::size_t size, std::size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

// A code for an error answer that carries no (known) error JSON.
ErrorCode code_for_status(long status) {
  switch (status) {
    case 400: return ErrorCode::bad_request;
    case 401: return ErrorCode::unauthenticated;
    case 403: return ErrorCode::forbidden;
    case 404: return ErrorCode::not_found;
    case 409: return ErrorCode::conflict;
    case 410: return ErrorCode::expired;
    case 413: return ErrorCode::payload_too_large;
    case 429: return ErrorCode::limit_reached;
    case 502:
    case 503:
    case 504: return ErrorCode::busy;
    default: return status >= 400 && status < 500 ? ErrorCode::bad_request : ErrorCode::internal;
  }
}

// Loopback must never go through a proxy from the environment; keep the user's own no_proxy list too.
std::string no_proxy_list() {
  std::string list = "localhost,127.0.0.1,::1";
  for (const char* name : {"no_proxy", "NO_PROXY"}) {
    if (const char* v = std::getenv(name); v != nullptr && v[0] != '\0') {
      list += ",";
      list += v;
    }
  }
  return list;
}

}  // namespace

struct ServerClient::Handle {
  CURL* curl = nullptr;
  ~Handle() {
    if (curl != nullptr) curl_easy_cleanup(curl);
  }
};

void ensure_curl_initialized() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string url_encode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0x0F]);
    }
  }
  return out;
}

Error unreachable_error(std::string_view base_url, std::string_view detail) {
  return Error(ErrorCode::unreachable, "cannot reach the agentworks server at " + std::string(base_url) +
                                           ": " + std::string(detail) +
                                           " (is it running? try `agentworks up` or `agentworks status`)");
}

Error error_from_response(long http_status, std::string_view body, std::string_view url) {
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_object() && j.contains("error") && j["error"].is_object()) {
    const json& e = j["error"];
    std::string message = e.value("message", std::string());
    std::string code_text = e.contains("code") && e["code"].is_string() ? e["code"].get<std::string>() : "";
    auto code = parse_code(code_text);
    if (message.empty()) message = "the server refused the request (" + code_text + ")";
    return Error(code.value_or(code_for_status(http_status)), message);
  }
  std::string snippet(body.substr(0, 200));
  return Error(code_for_status(http_status), "the server at " + std::string(url) + " answered HTTP " +
                                                 std::to_string(http_status) +
                                                 (snippet.empty() ? "" : ": " + snippet));
}

ServerClient::ServerClient(std::string base_url, std::string token, ServerClientOptions options)
    : base_url_(std::move(base_url)), token_(std::move(token)), options_(options) {
  while (!base_url_.empty() && base_url_.back() == '/') base_url_.pop_back();
  if (base_url_.rfind("http://", 0) != 0 && base_url_.rfind("https://", 0) != 0) {
    throw Error(ErrorCode::bad_request,
                "server URL \"" + base_url_ + "\" must start with http:// or https:// (e.g. http://127.0.0.1:7787)");
  }
  check_server_url_security(base_url_);
  ensure_curl_initialized();
  handle_ = std::make_unique<Handle>();
  handle_->curl = curl_easy_init();
  if (handle_->curl == nullptr) throw Error(ErrorCode::internal, "cannot initialise libcurl");
}

ServerClient::~ServerClient() = default;
ServerClient::ServerClient(ServerClient&&) noexcept = default;
ServerClient& ServerClient::operator=(ServerClient&&) noexcept = default;

json ServerClient::get(std::string_view path, int wait_seconds) {
  long extra = wait_seconds > 0 ? static_cast<long>(wait_seconds) * 1000 : 0;
  return request("GET", path, nullptr, options_.request_timeout_ms + extra);
}

json ServerClient::post(std::string_view path, const json& body, int wait_seconds) {
  std::string text = body.dump();
  const long extra = wait_seconds > 0 ? static_cast<long>(wait_seconds) * 1000 : 0;
  return request("POST", path, &text, options_.request_timeout_ms + extra);
}

json ServerClient::del(std::string_view path) {
  return request("DELETE", path, nullptr, options_.request_timeout_ms);
}

json ServerClient::request(const char* method, std::string_view path, const std::string* body,
                           long timeout_ms) {
  CURL* curl = handle_->curl;
  curl_easy_reset(curl);
  const std::string url = base_url_ + std::string(path);
  const std::string no_proxy = no_proxy_list();
  std::string response;
  char errbuf[CURL_ERROR_SIZE] = {0};

  curl_slist* headers = nullptr;
  headers = curl_slist_append(headers, "Accept: application/json");
  std::string auth;
  if (!token_.empty()) {
    auth = "Authorization: Bearer " + token_;
    headers = curl_slist_append(headers, auth.c_str());
  }
  if (body != nullptr) headers = curl_slist_append(headers, "Content-Type: application/json");
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip

  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_NOPROXY, no_proxy.c_str());
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, options_.connect_timeout_ms);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, append_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "agentworks/0.1.0");
  if (options_.abandon != nullptr) {
    // libcurl calls this at least about once a second while a transfer runs, idle or not.
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, options_.abandon);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION,
                     +[](void* flag, curl_off_t, curl_off_t, curl_off_t, curl_off_t) -> int {
                       return static_cast<const std::atomic<bool>*>(flag)->load() ? 1 : 0;
                     });
  }
  apply_server_trust(curl, options_.ca_file);
  if (body != nullptr) {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body->data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body->size()));
  }

  CURLcode rc = curl_easy_perform(curl);
  curl_slist_free_all(headers);
  if (rc != CURLE_OK) {
    std::string detail = errbuf[0] != '\0' ? errbuf : curl_easy_strerror(rc);
    if (is_certificate_failure(rc)) throw certificate_error(base_url_, detail);
    if (rc == CURLE_ABORTED_BY_CALLBACK)
      throw Error(ErrorCode::unavailable, "the request to " + base_url_ + " was given up: its owner is ending");
    if (rc == CURLE_OPERATION_TIMEDOUT) detail = "no answer in time (" + detail + ")";
    throw unreachable_error(base_url_, detail);
  }
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  if (status < 200 || status >= 300) throw error_from_response(status, response, url);

  json j = json::parse(response, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    throw Error(ErrorCode::internal, "the server at " + base_url_ + " sent an answer that is not JSON for " +
                                         method + " " + std::string(path) + "; is it an agentworks server?");
  }
  last_status_ = status;
  return j;
}

}  // namespace agentworks
