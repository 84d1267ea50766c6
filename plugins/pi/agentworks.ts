// agentworks extension for Pi
// Written by `agentworks attach pi`; `agentworks attach pi --uninstall` removes it (docs/plugins.md "Pi").
// Pi has no hooks and no MCP, so this extension is both: it runs agentworks-hook at Pi's lifecycle events (the
// person's typed /agentworks command, a typed prompt, the end of the agent's run, the session's start and end)
// and starts `agentworks mcp serve --provider pi --session-id ID` for its session, whose tools it registers under
// their own names and whose pushes (Pi's native route, docs/native-routes.md "Pi steer") it hands to Pi.
// The bridge decides everything; this file only carries. It never reads the person's login.
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { VERSION } from "@mariozechner/pi-coding-agent";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";

const AGENTWORKS_HOOK = "@AGENTWORKS_HOOK@";
const AGENTWORKS_CLI = "@AGENTWORKS_BIN@";
const HOOK_TIMEOUT_MS = 30000;
const RPC_TIMEOUT_MS = 60000;

type HookAnswer = { decision?: string; reason?: string; systemMessage?: string };

// Runs agentworks-hook pi EVENT with Claude-shaped input; its stdout is one JSON object or nothing.
function runHook(event: string, input: Record<string, unknown>): Promise<HookAnswer> {
  return new Promise((resolve) => {
    let out = "";
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn(AGENTWORKS_HOOK, ["pi", event], { stdio: ["pipe", "pipe", "pipe"] });
    } catch {
      resolve({});
      return;
    }
    const timer = setTimeout(() => child.kill("SIGKILL"), HOOK_TIMEOUT_MS);
    child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
    child.stderr.on("data", () => {});
    child.on("error", () => {
      clearTimeout(timer);
      resolve({});
    });
    child.on("close", () => {
      clearTimeout(timer);
      const line = out.trim();
      if (!line) return resolve({});
      try {
        resolve(JSON.parse(line) as HookAnswer);
      } catch {
        resolve({});
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(input));
  });
}

// A line-delimited JSON-RPC client of `agentworks mcp serve` on its stdio.
class McpChild {
  private child: ChildProcessWithoutNullStreams;
  private buffer = "";
  private nextId = 1;
  private waiting = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  closed = false;
  private stopped = false;

  constructor(
    sessionId: string,
    private onNotification: (method: string, params: any) => void,
    onExit: () => void,
  ) {
    this.child = spawn(AGENTWORKS_CLI, ["mcp", "serve", "--provider", "pi", "--session-id", sessionId], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stdout.on("data", (d: Buffer) => this.read(d.toString("utf8")));
    this.child.stderr.on("data", () => {});
    this.child.stdin.on("error", () => {});
    // "error" and "close" may both come: the first one counts.
    const gone = () => {
      this.closed = true;
      for (const w of this.waiting.values()) w.reject(new Error("agentworks mcp serve ended"));
      this.waiting.clear();
      if (!this.stopped) onExit();
      this.stopped = true;
    };
    this.child.on("error", gone);
    this.child.on("close", gone);
  }

  private read(text: string) {
    this.buffer += text;
    for (let at = this.buffer.indexOf("\n"); at >= 0; at = this.buffer.indexOf("\n")) {
      const line = this.buffer.slice(0, at);
      this.buffer = this.buffer.slice(at + 1);
      if (!line.trim()) continue;
      let msg: any;
      try {
        msg = JSON.parse(line);
      } catch {
        continue;
      }
      if (typeof msg.id === "number" && this.waiting.has(msg.id)) {
        const w = this.waiting.get(msg.id)!;
        this.waiting.delete(msg.id);
        if (msg.error) w.reject(new Error(String(msg.error.message ?? "error")));
        else w.resolve(msg.result);
      } else if (typeof msg.method === "string") {
        this.onNotification(msg.method, msg.params ?? {});
      }
    }
  }

  request(method: string, params: unknown): Promise<any> {
    if (this.closed) return Promise.reject(new Error("agentworks mcp serve is not running"));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`agentworks mcp serve did not answer ${method}`));
      }, RPC_TIMEOUT_MS);
      this.waiting.set(id, {
        resolve: (v) => (clearTimeout(timer), resolve(v)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      this.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  }

  notify(method: string, params: unknown) {
    if (!this.closed) this.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method, params }) + "\n");
  }

  stop() {
    this.stopped = true;
    this.closed = true;
    this.child.stdin.end();
    this.child.kill("SIGTERM");
  }
}

export default function agentworks(pi: ExtensionAPI) {
  let ctx: ExtensionContext | undefined;
  let sessionId = "";
  let cwd = "";
  let mcp: McpChild | undefined;
  let continued = false; // the current run was started by a turn-end delivery (the loop guard's input)
  const registered = new Set<string>();

  // R-N3: only an API this extension knows how to use is used; anything missing turns Pi's route off.
  const missingApi = (c: ExtensionContext): string => {
    const missing: string[] = [];
    if (typeof pi.sendUserMessage !== "function") missing.push("pi.sendUserMessage");
    if (typeof c.isIdle !== "function") missing.push("ctx.isIdle");
    return missing.length ? `this Pi has no ${missing.join(", ")}` : "";
  };

  // Into an idle session as a new turn; into a busy one as a follow-up, after its run (R-N4: never into a turn).
  const inject = (text: string) => {
    if (ctx && !ctx.isIdle()) pi.sendUserMessage(text, { deliverAs: "followUp" });
    else pi.sendUserMessage(text);
  };

  const onPush = (method: string, params: any) => {
    if (method === "notifications/agentworks/steer_off") {
      ctx?.ui.notify(`agentworks: ${params.reason}`, "info");
      return;
    }
    if (method !== "notifications/agentworks/steer" || !mcp) return;
    const pushId = String(params.push_id ?? "");
    let outcome = "written";
    let detail = "";
    try {
      inject(String(params.text ?? ""));
      continued = false; // a pushed message is a new turn of its own, not a continuation
    } catch (e) {
      outcome = "refused";
      detail = e instanceof Error ? e.message : String(e);
    }
    mcp.request("agentworks/steer_result", { push_id: pushId, outcome, detail }).catch(() => {});
  };

  const startMcp = async (c: ExtensionContext) => {
    mcp?.stop();
    // A child that ends on its own (killed, crashed) is started again: a push it held stays offered, never
    // pushed twice (the bridge persisted it first); the new child's wait brings what comes next.
    const child: McpChild = new McpChild(sessionId, onPush, () => {
      if (mcp !== child) return;
      mcp = undefined;
      setTimeout(() => {
        if (mcp === undefined && sessionId && ctx) startMcp(ctx).catch(() => {});
      }, 1000);
    });
    mcp = child;
    const unusable = missingApi(c);
    await child.request("initialize", {
      protocolVersion: "2025-06-18",
      clientInfo: { name: "agentworks-pi-extension", version: VERSION },
      capabilities: { experimental: { "agentworks/steer": { pi_version: VERSION, unusable } } },
    });
    child.notify("notifications/initialized", {});
    const listed = await child.request("tools/list", {});
    for (const tool of listed?.tools ?? []) {
      if (registered.has(tool.name)) continue;
      registered.add(tool.name);
      pi.registerTool({
        name: tool.name,
        label: tool.name,
        description: tool.description ?? "",
        parameters: tool.inputSchema ?? { type: "object", properties: {} },
        async execute(_id: string, params: unknown) {
          // The child of the current session (a new session starts its own).
          if (!mcp) throw new Error("agentworks is not running for this Pi session");
          const result = await mcp.request("tools/call", { name: tool.name, arguments: params ?? {} });
          const text = (result?.content ?? []).map((c: any) => c?.text ?? "").join("\n");
          if (result?.isError) throw new Error(text || "agentworks refused the call");
          // The words for the model, then the bridge's answer itself (what Claude Code and Codex pass on).
          const structured = result?.structuredContent ?? {};
          return {
            content: [
              { type: "text", text },
              { type: "text", text: JSON.stringify(structured) },
            ],
            details: structured,
          };
        },
      } as any);
    }
  };

  const session = () => ({ session_id: sessionId, cwd });

  pi.on("session_start", async (event: any, c: ExtensionContext) => {
    ctx = c;
    sessionId = c.sessionManager.getSessionId();
    cwd = c.cwd;
    continued = false;
    const start = await runHook("SessionStart", { ...session(), source: event?.reason ?? "startup" });
    if (start.systemMessage) c.ui.notify(start.systemMessage, "info"); // e.g. how to resume an offline attachment
    try {
      await startMcp(c);
    } catch (e) {
      c.ui.notify(`agentworks: its tools are unavailable: ${e instanceof Error ? e.message : e}`, "warning");
    }
  });

  pi.on("session_shutdown", async (event: any) => {
    mcp?.stop();
    mcp = undefined;
    // A reload keeps the same session; anything else leaves it (the attachment goes offline, R-H11).
    if (event?.reason !== "reload" && sessionId) await runHook("SessionEnd", { ...session(), reason: event?.reason });
  });

  // The person's typed command: handled here, never shown to the model.
  pi.registerCommand("agentworks", {
    description: "agentworks: attach this session under a name, status, detach, resume, cleanup",
    handler: async (args: string, c: ExtensionContext) => {
      ctx = c;
      const answer = await runHook("UserPromptSubmit", { ...session(), prompt: `/agentworks ${args ?? ""}`.trim() });
      const text = answer.reason ?? answer.systemMessage ?? "agentworks: the bridge did not answer";
      c.ui.notify(text, "info");
    },
  });

  // A prompt the person typed starts a turn (R-X3); a delivery's own continuation does not.
  pi.on("input", async (event: any) => {
    if (event?.source !== "interactive" || !sessionId) return { action: "continue" };
    continued = false;
    await runHook("UserPromptSubmit", { ...session(), prompt: String(event.text ?? "") });
    return { action: "continue" };
  });

  // The turn-end delivery (the Stop hook's counterpart), within the bridge's loop guard.
  pi.on("agent_end", async (event: any) => {
    if (!sessionId) return;
    const messages: any[] = event?.messages ?? [];
    const last = [...messages].reverse().find((m) => m?.role === "assistant");
    const lastText = Array.isArray(last?.content)
      ? last.content.filter((p: any) => p?.type === "text").map((p: any) => p.text).join("\n")
      : "";
    const answer = await runHook("Stop", { ...session(), stop_hook_active: continued, last_assistant_message: lastText });
    if (answer.decision === "block" && answer.reason) {
      continued = true;
      // After this run has ended: a new turn when idle, else a follow-up of the run still finishing.
      setTimeout(() => inject(answer.reason!), 0);
    } else if (answer.systemMessage) {
      ctx?.ui.notify(answer.systemMessage, "info");
    }
  });
}
