// The end-to-end driver of `coderun mcp` with the official TypeScript SDK
// client (@modelcontextprotocol/sdk), run by e2e_test.go:
//
//	node e2e.mjs SCENARIO CONFIG_JSON
//
// CONFIG_JSON holds the SDK's directory (sdk) and the scenario's inputs. The
// driver prints one JSON object: what it observed, for the Go test to
// assert. It asserts nothing itself.
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [scenario, configJSON] = process.argv.slice(2);
const config = JSON.parse(configJSON);
const load = (p) => import(pathToFileURL(join(config.sdk, "dist/esm", p)).href);
const { Client } = await load("client/index.js");
const { StdioClientTransport } = await load("client/stdio.js");
const { StreamableHTTPClientTransport } = await load("client/streamableHttp.js");

const newClient = () => new Client({ name: "coderun-e2e", version: "1" });

// stdio connects to a coderun mcp subprocess (config.command, config.args).
async function stdio() {
  const client = newClient();
  const transport = new StdioClientTransport({ command: config.command, args: config.args, stderr: "inherit" });
  await client.connect(transport);
  return { client, transport };
}

// http connects to config.url, with extra headers.
async function http(headers = {}) {
  const client = newClient();
  const transport = new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers } });
  await client.connect(transport);
  return { client, transport };
}

const run = (client, code, options) => client.callTool({ name: "run_code", arguments: { code } }, undefined, options);

// texts returns a result's text items.
const texts = (res) => res.content.filter((c) => c.type === "text").map((c) => c.text);

// outcome runs f and reports its result or error.
async function outcome(f) {
  try {
    return { ok: true, value: await f() };
  } catch (e) {
    return { ok: false, error: String(e?.message ?? e), code: e?.code };
  }
}

const scenarios = {
  // Origin and bearer token over HTTP.
  async auth() {
    const connectWith = (headers) => outcome(async () => {
      const { client } = await http(headers);
      const res = await run(client, "return 6 * 7");
      await client.close();
      return texts(res);
    });
    return {
      evilOrigin: await connectWith({ Authorization: `Bearer ${config.token}`, Origin: "http://evil.example" }),
      noToken: await connectWith({}),
      wrongToken: await connectWith({ Authorization: `Bearer ${config.token}x` }),
      rightToken: await connectWith({ Authorization: `Bearer ${config.token}` }),
      loopbackOrigin: await connectWith({ Authorization: `Bearer ${config.token}`, Origin: "http://localhost:6274" }),
    };
  },

  // DELETE of the session during a long run.
  async delete() {
    const { client, transport } = await http();
    const call = outcome(() => run(client, `console.log("started"); await new Promise(r => setTimeout(r, 60000)); return "finished"`, { timeout: 2000 }));
    await new Promise((r) => setTimeout(r, config.waitMs));
    const start = performance.now();
    const terminated = await outcome(() => transport.terminateSession());
    const deleteMs = performance.now() - start;
    const callStart = performance.now();
    const callOutcome = await call;
    const callEndedMs = performance.now() - callStart;
    await client.close();
    return { terminated, deleteMs, callOutcome, callEndedMs };
  },

  // A malformed line on the server's stdin, then a working call.
  async badline() {
    const { client, transport } = await stdio();
    const errors = [];
    client.onerror = (e) => errors.push(String(e?.message ?? e));
    const before = texts(await run(client, `return "before"`));
    // The SDK gives no way to write a raw line: reach for its child process.
    transport._process.stdin.write("this is not JSON\n");
    transport._process.stdin.write('{"jsonrpc": "2.0", "id": \n');
    const after = await outcome(async () => texts(await run(client, `return "after"`)));
    await new Promise((r) => setTimeout(r, 100));
    await client.close();
    return { before, after, errors };
  },

  // Progress, and resetTimeoutOnProgress keeping a long run alive.
  async progress() {
    const { client } = await (config.url ? http() : stdio());
    const progress = [];
    const withReset = await outcome(async () => texts(await run(client, config.code, {
      timeout: config.timeoutMs, resetTimeoutOnProgress: true, onprogress: (p) => progress.push(p),
    })));
    const withoutReset = await outcome(async () => texts(await run(client, config.code, {
      timeout: config.timeoutMs, onprogress: () => {},
    })));
    const upstreamProgress = [];
    const folded = await outcome(async () => texts(await run(client, config.foldedCode, {
      onprogress: (p) => upstreamProgress.push(p),
    })));
    await client.close();
    return { withReset, progress, withoutReset, folded, upstreamProgress };
  },

  // The description's examples, run as they are.
  async examples() {
    const { client } = await stdio();
    const { tools } = await client.listTools();
    const description = tools[0].description;
    const examples = [...description.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]).slice(0, -1);
    const results = [];
    for (const code of examples) {
      const res = await run(client, code);
      results.push({ code, isError: !!res.isError, texts: texts(res) });
    }
    await client.close();
    return { description, results };
  },

  // Structured results: content items and structuredContent, validated by
  // the SDK against run_code's outputSchema.
  async structured() {
    const { client } = await (config.url ? http() : stdio());
    const { tools } = await client.listTools();
    const ok = await run(client, `console.log("a", 1); console.log("b"); return {n: 1, s: "x"}`);
    const failed = await run(client, `console.log("before"); throw new RangeError("boom")`);
    await client.close();
    return { outputSchema: tools[0].outputSchema, ok, failed };
  },

  // Stateless mode: many calls through a load balancer.
  async stateless() {
    const { client, transport } = await http();
    const { tools } = await client.listTools();
    const values = [];
    for (let i = 0; i < config.calls; i++) {
      const res = await run(client, `return ${i} * 2`);
      values.push(res.structuredContent?.value);
    }
    const sessionId = transport.sessionId ?? null;
    await client.close();
    return { tools: tools.map((t) => t.name), values, sessionId };
  },
};

const result = await scenarios[scenario]();
process.stdout.write(JSON.stringify(result) + "\n");
process.exit(0);
