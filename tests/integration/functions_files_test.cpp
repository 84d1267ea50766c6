// Reading a call's files (R-F4): the file list, text pages in `content`, binary pages in `content_base64`,
// byte-offset paging with next_offset and eof, the 2 MiB page cap, UTF-8 sequences never split, and paths that
// cannot leave the call's folder; the CLI's call-file --output writes the whole file.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "testing/process.hpp"
#include "support/crew_fixture.hpp"

namespace agentworks::testing {
namespace {

namespace fs = std::filesystem;

class FunctionsFiles : public CrewTest {
 protected:
  // One completed call of a script that writes report.txt, blob.bin (bytes 0..255), big.txt (3 MiB of 'a'),
  // utf8.txt ("éééé"), sub/nested.txt, a symlink `link` and a hard link `hard` to a file outside the folder, a
  // FIFO `pipe`, and `deep.txt` 20 folders down (below what a walk looks at).
  std::string make_files_call() {
    write_text(home_.path("secret.txt"), "outside secret\n");
    make_crew("api", json::array({function_decl("files")}),
              {{"tools/files.sh",
                "cd \"$FUNCTION_OUTPUT_DIR\"\n"
                "printf 'hello report\\n' > report.txt\n"
                "i=0; while [ $i -lt 256 ]; do printf \"\\\\$(printf %03o $i)\"; i=$((i+1)); done > blob.bin\n"
                "head -c 3145728 /dev/zero | tr '\\0' a > big.txt\n"
                "printf '\\303\\251\\303\\251\\303\\251\\303\\251' > utf8.txt\n"
                "mkdir sub && printf 'nested\\n' > sub/nested.txt\n"
                "ln -s " + home_.path("secret.txt").string() + " link\n"
                "ln " + home_.path("secret.txt").string() + " hard\n"
                "mkfifo pipe\n"
                "d=x; for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19; do d=$d/x; done\n"
                "mkdir -p $d && printf deep > $d/deep.txt\n"
                "echo wrote"}});
    const std::string id = call_ok("api", "files").at("call_id").get<std::string>();
    const json done = wait_terminal(id);
    if (done.at("status") != "completed") throw std::runtime_error("files call did not complete: " + done.dump());
    return id;
  }
  json page_ok(const std::string& id, const std::string& name, std::optional<long long> offset = std::nullopt,
               std::optional<long long> limit = std::nullopt) {
    const HttpResponse r = file_page(owner_http(), id, name, offset, limit);
    if (r.status != 200) throw std::runtime_error("file page " + name + ": " + describe(r));
    return parse_json(r.body);
  }
};

// R-F3 R-F4: `files` lists every regular file with name, size, kind and modified.
TEST_F(FunctionsFiles, FilesListed_R_F3_R_F4) {
  start_server();
  const std::string id = make_files_call();
  const json c = status(id);
  std::map<std::string, json> files;
  for (const auto& f : c.at("files")) files[f.at("name").get<std::string>()] = f;
  ASSERT_TRUE(files.count("report.txt")) << c.dump();
  EXPECT_EQ(files["report.txt"].at("size"), 13);
  EXPECT_EQ(files["report.txt"].at("kind"), "text");
  EXPECT_TRUE(files["report.txt"].at("modified").is_number_integer());
  ASSERT_TRUE(files.count("blob.bin")) << c.dump();
  EXPECT_EQ(files["blob.bin"].at("kind"), "binary");
  EXPECT_EQ(files["blob.bin"].at("size"), 256);
  ASSERT_TRUE(files.count("big.txt"));
  EXPECT_EQ(files["big.txt"].at("size"), 3145728);
  EXPECT_TRUE(files.count("sub/nested.txt")) << c.dump();
  EXPECT_FALSE(files.count("link")) << "a symlink is not a regular file of the call: " << c.dump();
  EXPECT_FALSE(files.count("pipe")) << c.dump();
  EXPECT_FALSE(files.count("hard")) << "a hard link may name a file outside the folder: " << c.dump();
  for (const auto& [name, f] : files) {
    EXPECT_EQ(name.find("deep.txt"), std::string::npos) << "the walk goes at most 16 levels down: " << c.dump();
  }
  EXPECT_EQ(c.at("files_expired"), false);
  // The outputs are not the project's: git leaves .calls alone without an edit to the project's .gitignore.
  RunOptions in_crew;
  in_crew.cwd = crew_dir("api");
  ASSERT_EQ(run_process({"/usr/bin/git", "init", "-q"}, in_crew).exit_code, 0);
  const ProcessResult st = run_process({"/usr/bin/git", "status", "--porcelain", "--untracked-files=all"}, in_crew);
  ASSERT_EQ(st.exit_code, 0) << st.err;
  EXPECT_EQ(st.out.find(".calls"), std::string::npos) << st.out;
  EXPECT_NE(st.out.find("tools/files.sh"), std::string::npos) << "the project's own files still show: " << st.out;
}

// R-F4: text pages carry `content`, binary pages `content_base64`; paging by offset reaches eof.
TEST_F(FunctionsFiles, TextAndBinaryPages_R_F4) {
  start_server();
  const std::string id = make_files_call();
  const json text = page_ok(id, "report.txt");
  EXPECT_EQ(text.at("content"), "hello report\n") << text.dump();
  EXPECT_FALSE(text.contains("content_base64") && !text.at("content_base64").is_null()) << text.dump();
  EXPECT_EQ(text.at("size"), 13);
  EXPECT_EQ(text.at("offset"), 0);
  EXPECT_EQ(text.at("next_offset"), 13);
  EXPECT_EQ(text.at("eof"), true);
  EXPECT_EQ(text.at("call_id"), id);
  EXPECT_EQ(page_ok(id, "sub/nested.txt").at("content"), "nested\n");

  const json bin = page_ok(id, "blob.bin");
  ASSERT_TRUE(bin.contains("content_base64")) << bin.dump();
  std::string expected;
  for (int i = 0; i < 256; ++i) expected.push_back(static_cast<char>(i));
  EXPECT_EQ(base64_decode(bin.at("content_base64").get<std::string>()), expected);
  EXPECT_EQ(bin.at("eof"), true);

  // Binary paged in 100-byte pages: 0..100, 100..200, 200..256 eof. Each page is `content` when its own bytes
  // are valid UTF-8 (the first, bytes 0..99, is) and `content_base64` otherwise (the last is).
  std::string joined;
  long long offset = 0;
  for (int pages = 0; pages < 5; ++pages) {
    const json p = page_ok(id, "blob.bin", offset, 100);
    if (offset == 200) {
      EXPECT_TRUE(p.contains("content_base64")) << p.dump();
    }
    joined += p.contains("content_base64") ? base64_decode(p.at("content_base64").get<std::string>())
                                           : p.at("content").get<std::string>();
    offset = p.at("next_offset").get<long long>();
    if (p.at("eof") == true) break;
  }
  EXPECT_EQ(joined, expected);
  EXPECT_EQ(offset, 256);

  // A page never splits a UTF-8 sequence of a text file: 3 bytes of "éééé" give one "é" and next_offset 2.
  const json utf = page_ok(id, "utf8.txt", 0, 3);
  EXPECT_EQ(utf.value("content", ""), "\xC3\xA9") << utf.dump();
  EXPECT_EQ(utf.at("next_offset"), 2) << utf.dump();
  EXPECT_EQ(utf.at("eof"), false);
  const json rest = page_ok(id, "utf8.txt", 2, 100);
  EXPECT_EQ(rest.value("content", ""), "\xC3\xA9\xC3\xA9\xC3\xA9");
  EXPECT_EQ(rest.at("eof"), true);
}

// R-F4: pages are at most 2 MiB; a 3 MiB file needs two full-cap pages; a bigger limit is bad_request.
TEST_F(FunctionsFiles, PagesCappedAtTwoMiB_R_F4) {
  start_server();
  const std::string id = make_files_call();
  const long long cap = 2097152;
  const json first = page_ok(id, "big.txt", 0, cap);
  EXPECT_EQ(first.at("content").get<std::string>().size(), static_cast<std::size_t>(cap));
  EXPECT_EQ(first.at("next_offset"), cap);
  EXPECT_EQ(first.at("eof"), false);
  const json second = page_ok(id, "big.txt", cap, cap);
  EXPECT_EQ(second.at("content").get<std::string>().size(), 3145728u - static_cast<std::size_t>(cap));
  EXPECT_EQ(second.at("eof"), true);
  EXPECT_EQ(page_ok(id, "big.txt").at("content").get<std::string>().size(), 262144u) << "default limit 256 KiB";
  const HttpResponse over = file_page(owner_http(), id, "big.txt", 0, cap + 1);
  EXPECT_EQ(over.status, 400) << describe(over);
  EXPECT_EQ(error_code_of(over.body), "bad_request") << describe(over);
  EXPECT_EQ(error_code_of(file_page(owner_http(), id, "big.txt", 0, 0).body), "bad_request");
  EXPECT_EQ(error_code_of(file_page(owner_http(), id, "big.txt", -1, 10).body), "bad_request");
  // Past the end: an empty page at eof (or bad_request); never content from elsewhere.
  const HttpResponse past = file_page(owner_http(), id, "report.txt", 1000, 10);
  if (past.status == 200) {
    EXPECT_EQ(parse_json(past.body).at("eof"), true) << describe(past);
  } else {
    EXPECT_EQ(error_code_of(past.body), "bad_request") << describe(past);
  }

  // The CLI's --output pages the whole file into PATH.
  const fs::path out = home_.path("big-copy.txt");
  const json written = cli_ok(owner(), {"functions", "call-file", "--call", id, "--file", "big.txt", "--output", out.string()});
  EXPECT_EQ(written.at("bytes"), 3145728) << written.dump();
  EXPECT_EQ(fs::file_size(out), 3145728u);
  const json page = cli_ok(owner(), {"functions", "call-file", "--call", id, "--file", "report.txt"});
  EXPECT_EQ(page.at("content"), "hello report\n") << page.dump();
  const json alias = cli_ok(owner(), {"crews", "call-file", "--call", id, "--file", "report.txt", "--offset", "6",
                                      "--limit", "3"});
  EXPECT_EQ(alias.at("content"), "rep") << alias.dump();
}

// R-F4: names that leave the call's folder are bad_request (.., absolute, a symlink out); a missing file is
// not_found; nothing of the outside file is ever shown.
TEST_F(FunctionsFiles, PathEscapesRefused_R_F4) {
  start_server();
  const std::string id = make_files_call();
  const std::vector<std::string> escapes = {"../../../secret.txt", "sub/../../x", "..",
                                            home_.path("secret.txt").string(), "/etc/passwd", "link", "hard",
                                            "pipe"};
  for (const std::string& name : escapes) {
    const HttpResponse r = file_page(owner_http(), id, name);
    EXPECT_EQ(r.status, 400) << name << " " << describe(r);
    EXPECT_EQ(error_code_of(r.body), "bad_request") << name << " " << describe(r);
    EXPECT_EQ(r.body.find("outside secret"), std::string::npos) << name;
  }
  const HttpResponse missing = file_page(owner_http(), id, "nothing.txt");
  EXPECT_EQ(missing.status, 404) << describe(missing);
  EXPECT_EQ(error_code_of(missing.body), "not_found");
  const CliResult cli = owner().json({"functions", "call-file", "--call", id, "--file", "../../../secret.txt"});
  EXPECT_EQ(cli.exit_code, 2) << cli.describe();
  EXPECT_EQ(cli.out.find("outside secret"), std::string::npos);
}

}  // namespace
}  // namespace agentworks::testing
