#include "functions/result_check.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "functions/schema_check.hpp"

namespace agentworks::server::functions {
namespace {

ResultCheck check_text(const std::string& text, const std::string& schema_json, const std::string& what) {
  ResultCheck r;
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string why = e.what();
    if (const auto colon = why.rfind(": "); colon != std::string::npos) why = why.substr(colon + 2);
    r.problem = what + " is not valid JSON (" + why + ")";
    return r;
  }
  const std::string compact = doc.dump();
  const auto violations = validate(schema_json, compact, "result");
  if (!violations.empty()) {
    r.problem = what + " does not match the output schema: " + describe(violations);
    return r;
  }
  r.result_json = compact;
  return r;
}

}  // namespace

ResultCheck check_result_file(const std::string& path, const std::string& schema_json) {
  ResultCheck r;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    r.problem = errno == ENOENT ? "no result file: write the JSON result to FUNCTION_RESULT_FILE (" + path + ")"
                                : "cannot read FUNCTION_RESULT_FILE: " + std::string(std::strerror(errno));
    return r;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    r.problem = "FUNCTION_RESULT_FILE is not a regular file";
    return r;
  }
  if (static_cast<std::size_t>(st.st_size) > kMaxResultBytes) {
    ::close(fd);
    r.problem = "the result file is over 16 MiB";
    return r;
  }
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::pread(fd, text.data() + got, text.size() - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  text.resize(got);
  return check_text(text, schema_json, "the result file");
}

ResultCheck check_answer(const std::string& answer, const std::string& schema_json) {
  return check_text(answer, schema_json, "the final answer");
}

}  // namespace agentworks::server::functions
