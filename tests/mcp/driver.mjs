// A real MCP client (@modelcontextprotocol/sdk Client + StdioClientTransport) driven line by line from stdin by
// tests/integration/mcp_test.cpp. It stands in for an agent CLI: the MCP server it starts is its child, so this
// node process is that server's provider ancestor (pid + start time), printed first so the test can attach a
// session for exactly this process.
//
// stdin:  one JSON command per line, {"seq":N,"op":...}
//   start {command, args, env?, elicit?}  connect a Client to `command args` over stdio; with elicit (an
//                               ElicitResult such as {"action":"accept","content":{...}}) the client advertises
//                               the elicitation capability, reports each elicitation/create request as a
//                               notification and answers it with `elicit`
//   list                        tools/list
//   call {name, arguments, meta?}  tools/call (meta becomes params._meta)
//   ping                        ping
//   close                       close the client (the server sees EOF)
// stdout: {"ready":true,"pid","start"} once, then one {"seq":N,"ok":true,"result"} or
//         {"seq":N,"ok":false,"error":{"code"?,"message"}} per command, and {"notification":{method,params}}
//         for each server notification.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

function emit(obj) {
  process.stdout.write(JSON.stringify(obj) + "\n");
}

function ownStart() {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return fields[19]; // field 22 overall: fields after comm start at field 3
}

let client = null;
let transport = null;

async function handle(cmd) {
  switch (cmd.op) {
    case "start": {
      transport = new StdioClientTransport({
        command: cmd.command,
        args: cmd.args ?? [],
        env: { ...process.env, ...(cmd.env ?? {}) },
        stderr: "inherit",
      });
      const capabilities = cmd.elicit ? { elicitation: {} } : {};
      client = new Client({ name: "agentworks-mcp-test", version: "1.0.0" }, { capabilities });
      client.fallbackNotificationHandler = async (n) => emit({ notification: n });
      if (cmd.elicit) {
        client.setRequestHandler(ElicitRequestSchema, async (request) => {
          emit({ notification: { method: request.method, params: request.params } });
          return cmd.elicit;
        });
      }
      await client.connect(transport);
      return {
        serverVersion: client.getServerVersion(),
        capabilities: client.getServerCapabilities(),
        instructions: client.getInstructions(),
        childPid: transport.pid,
      };
    }
    case "list":
      return await client.listTools();
    case "call": {
      const params = { name: cmd.name, arguments: cmd.arguments ?? {} };
      if (cmd.meta) params._meta = cmd.meta;
      return await client.callTool(params);
    }
    case "ping":
      return await client.ping();
    case "close":
      await client.close();
      return { closed: true };
    default:
      throw new Error(`unknown op ${cmd.op}`);
  }
}

emit({ ready: true, pid: process.pid, start: ownStart() });

// Commands run one at a time, in order.
let chain = Promise.resolve();
const rl = createInterface({ input: process.stdin });
rl.on("line", (line) => {
  if (!line.trim()) return;
  let cmd;
  try {
    cmd = JSON.parse(line);
  } catch (e) {
    emit({ seq: null, ok: false, error: { message: `bad command: ${e.message}` } });
    return;
  }
  chain = chain.then(async () => {
    try {
      emit({ seq: cmd.seq, ok: true, result: (await handle(cmd)) ?? {} });
    } catch (e) {
      emit({ seq: cmd.seq, ok: false, error: { code: e.code ?? null, message: String(e.message ?? e) } });
    }
  });
});
rl.on("close", async () => {
  await chain;
  if (client) await client.close().catch(() => {});
  process.exit(0);
});
