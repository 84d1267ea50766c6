#include "platform/http_client.hpp"

#include <memory>

#include "agentworks/server_trust.hpp"
#include "platform/login_trust.hpp"

namespace agentworks::bridge {
namespace {

constexpr std::size_t kMaxBody = 4u << 20;

struct Transfer {
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  std::string request_body;
  HttpResponse response;
  char error[CURL_ERROR_SIZE] = {};
  HttpClient::Callback callback;
  std::string refusal;  // plain http beyond loopback: never sent
  ~Transfer() {
    curl_slist_free_all(headers);
    curl_easy_cleanup(easy);
  }
};

size_t on_write(char* data, size_t size, size_t count, void* userp) {
  auto* t = static_cast<Transfer*>(userp);
  const size_t n = size * count;
  if (t->response.body.size() + n > kMaxBody) return 0;  // abort an absurd answer
  t->response.body.append(data, n);
  return n;
}

}  // namespace

std::string join_url(const std::string& base, const std::string& path) {
  std::string b = base;
  while (!b.empty() && b.back() == '/') b.pop_back();
  return b + path;
}

void HttpClient::request(const std::string& method, const std::string& url, const std::string& token,
                         const std::string& body, Callback callback, long timeout_ms) {
  auto t = std::make_shared<Transfer>();
  t->easy = curl_easy_init();
  t->callback = std::move(callback);
  t->request_body = body;
  CURL* e = t->easy;
  curl_easy_setopt(e, CURLOPT_URL, url.c_str());
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms < 5000 ? timeout_ms : 5000L);
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->error);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &on_write);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, t.get());
  try {
    check_server_url_security(url);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
  } catch (const Error& refused) {
    // Failed through curl like any transport error, so the callback still runs later, never inside this call.
    t->refusal = refused.what();
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "https");
  }
  apply_server_trust(e, ca_file_for(url));
  if (!token.empty()) t->headers = curl_slist_append(t->headers, ("Authorization: Bearer " + token).c_str());
  t->headers = curl_slist_append(t->headers, "Accept: application/json");
  if (method == "POST") {
    t->headers = curl_slist_append(t->headers, "Content-Type: application/json");
    curl_easy_setopt(e, CURLOPT_POST, 1L);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, t->request_body.c_str());
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(t->request_body.size()));
  } else if (method != "GET") {
    curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method.c_str());
  }
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->headers);
  // The closure owns the transfer: it is freed after completion or when the multi is closed.
  multi_.add(e, [owned = t](CURLcode result) {
    if (result != CURLE_OK) {
      owned->response.transport_error = owned->error[0] != '\0' ? owned->error : curl_easy_strerror(result);
      if (!owned->refusal.empty()) owned->response.transport_error = owned->refusal;
      owned->response.certificate_failure = is_certificate_failure(result);
      owned->response.status = 0;
    } else {
      curl_easy_getinfo(owned->easy, CURLINFO_RESPONSE_CODE, &owned->response.status);
    }
    if (owned->callback) owned->callback(owned->response);
  });
}

}  // namespace agentworks::bridge
