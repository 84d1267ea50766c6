// A libuv loop for one test that fails the test for every handle still open when it ends: the test or the code
// under test forgot to close it. Like libuv's own tests, it then closes what is left so the loop can close.
#pragma once

#include <gtest/gtest.h>
#include <uv.h>

namespace agentworks::testing {

class UvLoopTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(uv_loop_init(&loop_), 0); }
  void TearDown() override { close_loop(); }

  // Fails for each open handle (naming its type), closes it, lets every close finish, then closes the loop.
  void close_loop() {
    uv_walk(
        &loop_,
        [](uv_handle_t* handle, void*) {
          if (uv_is_closing(handle) != 0) return;
          ADD_FAILURE() << "a " << uv_handle_type_name(uv_handle_get_type(handle))
                        << " handle was left open at the end of the test";
          uv_close(handle, nullptr);
        },
        nullptr);
    uv_run(&loop_, UV_RUN_DEFAULT);
    EXPECT_EQ(uv_loop_close(&loop_), 0) << "the loop must close with no leaked handles";
  }

  uv_loop_t loop_{};
};

}  // namespace agentworks::testing
