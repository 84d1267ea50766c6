// Functions run by Codex 0.171.0 (codex exec --json) against the mock model, through a real agentworks-server:
// result through the shell tool, the one correction turn in the same session, API errors, request_input, the idle
// timeout, kill -9 and the per-Crew limit. The scenarios are shared with the other CLI's tests
// (driver/function_e2e_scenarios.cpp); docs/e2e.md "Agent runners" lists what each proves.
#include "driver/function_e2e_fixture.hpp"

namespace agentworks::e2e {
namespace {

class FunctionsCodexE2eTest : public FunctionE2eTest {
 protected:
  FunctionsCodexE2eTest() : FunctionE2eTest("codex") {}
};

TEST_F(FunctionsCodexE2eTest, AnExplicitFunctionsAnswerIsWhatItSent_RX7) {
  scenario_explicit_answer_is_what_it_sent();
}

TEST_F(FunctionsCodexE2eTest, AnExplicitFunctionDeclinesOrIsNudgedOnceThenEndsSilent_RX7) {
  scenario_explicit_no_reply_and_silence();
}

TEST_F(FunctionsCodexE2eTest, ValidResultThroughShellToolCompletesWithAnswer_R_F5_R_F3) {
  scenario_valid_result_completes();
}

TEST_F(FunctionsCodexE2eTest, InvalidResultOneCorrectionTurnSameSessionThenCompletes_R_F5) {
  scenario_correction_turn(true);
}

TEST_F(FunctionsCodexE2eTest, StillInvalidAfterCorrectionFailsResultInvalid_R_F5) {
  scenario_correction_turn(false);
}

TEST_F(FunctionsCodexE2eTest, ApiErrorFailsAsAgentErrorNeverCompleted_R_F3) { scenario_api_error_fails(); }

TEST_F(FunctionsCodexE2eTest, RequestInputWaitsForReplyAndAnswerReachesModel_R_F3) {
  scenario_request_input_waits_for_reply();
}

TEST_F(FunctionsCodexE2eTest, IdleRunFailsAsStalled_R_F3) { scenario_stalled_run_fails(); }

TEST_F(FunctionsCodexE2eTest, KillNineDuringRunInterruptedWithSessionId_R_F6) { scenario_kill_nine_interrupts(); }

TEST_F(FunctionsCodexE2eTest, ThreeParallelCallsSeparateSessionsFourthBusy_R_F2) {
  scenario_three_parallel_fourth_busy();
}

}  // namespace
}  // namespace agentworks::e2e
