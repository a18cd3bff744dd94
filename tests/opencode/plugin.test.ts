// Unit tests of the OpenCode plugin with Node's test runner (run through tsx), against the
// service at NEURALGENTICS_TEST_SERVICE_URL (started by tests/opencode/test_plugin_node.py).
// Each test asserts what the service holds afterwards, not what the plugin says about it.
import assert from "node:assert/strict"
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { after, before, test } from "node:test"
import { pathToFileURL } from "node:url"

const serviceUrl = process.env.NEURALGENTICS_TEST_SERVICE_URL
if (!serviceUrl) throw new Error("NEURALGENTICS_TEST_SERVICE_URL is not set")
// The service's config dir: its token file is what the plugin reads (test_plugin_node.py).
const configDir = process.env.NEURALGENTICS_CONFIG_DIR
if (!configDir) throw new Error("NEURALGENTICS_CONFIG_DIR is not set")
const tokenFile = join(configDir, "token")
const auth = (): Record<string, string> => ({ authorization: `Bearer ${readFileSync(tokenFile, "utf8").trim()}` })

type AnyHooks = Record<string, (input: any, output: any) => Promise<void>>

const warnings: string[] = []
const realWarn = console.warn
before(() => {
  console.warn = (...args: unknown[]) => {
    warnings.push(args.map(String).join(" "))
  }
})
after(() => {
  console.warn = realWarn
})

async function load(url: string, extraEnv: Record<string, string> = {}): Promise<AnyHooks> {
  process.env.NEURALGENTICS_SERVICE_URL = url
  process.env.NEURALGENTICS_PROJECT = "plugin-test"
  for (const [k, v] of Object.entries(extraEnv)) process.env[k] = v
  const mod = await import("../../src/neuralgentics/opencode/plugin/neuralgentics.ts")
  const hooks = await mod.NeuralgenticsPlugin({ directory: "/tmp/plugin-test", worktree: "/tmp/plugin-test" } as any)
  for (const k of Object.keys(extraEnv)) delete process.env[k]
  return hooks as unknown as AnyHooks
}

async function query(text: string): Promise<any[]> {
  const res = await fetch(`${serviceUrl}/memory/query`, {
    method: "POST",
    headers: { "content-type": "application/json", ...auth() },
    body: JSON.stringify({ query: text, project: "plugin-test", top_k: 20 }),
  })
  assert.equal(res.status, 200)
  const body: any = await res.json()
  return body.hits.map((h: any) => h.memory)
}

async function talkAs(hooks: AnyHooks, sessionID: string, agent: string, text: string): Promise<void> {
  await hooks["chat.message"]({ sessionID, agent }, { message: {}, parts: [{ type: "text", text }] })
  await hooks["chat.params"]({ sessionID, agent }, {})
}

test("a task delegated to a forbidden agent is blocked with the agent to use instead", async () => {
  const hooks = await load(serviceUrl)
  await talkAs(hooks, "s-block", "orchestrator", "Plan the service split")
  const args = {
    description: "Architecture of the billing split",
    prompt: "Design the architecture for splitting billing out of the monolith and weigh the trade-offs",
    subagent_type: "coder",
  }
  await assert.rejects(hooks["tool.execute.before"]({ tool: "task", sessionID: "s-block", callID: "c1" }, { args }), (err: Error) => {
    assert.match(err.message, /"coder" may not take this task/)
    assert.match(err.message, /Delegate it to "architect": call the task tool again with subagent_type "architect"/)
    return true
  })
})

test("a task delegated to the routed agent passes unchanged", async () => {
  const hooks = await load(serviceUrl)
  await talkAs(hooks, "s-allow", "orchestrator", "Implement the login endpoint")
  const args = { description: "Implement login", prompt: "Implement the POST /login endpoint", subagent_type: "coder" }
  const output = { args: { ...args } }
  await hooks["tool.execute.before"]({ tool: "task", sessionID: "s-allow", callID: "c2" }, output)
  assert.deepEqual(output.args, args)
})

test("broker calls carry the calling agent as role and its session, whatever the model wrote", async () => {
  const hooks = await load(serviceUrl)
  await talkAs(hooks, "s-role", "coder", "what time is it in Tokyo")
  const output = { args: { server: "time", tool: "get_current_time", arguments: { timezone: "Asia/Tokyo" }, role: "admin" } }
  await hooks["tool.execute.before"]({ tool: "neuralgentics_mcp_router_call", sessionID: "s-role", callID: "c3" }, output)
  assert.equal(output.args.role, "coder")
  assert.equal((output.args as Record<string, unknown>).session_id, "s-role")
  assert.deepEqual(output.args.arguments, { timezone: "Asia/Tokyo" })
  const list = { args: {} as Record<string, unknown> }
  await hooks["tool.execute.before"]({ tool: "neuralgentics_get_tool_list", sessionID: "s-role", callID: "c3b" }, list)
  assert.deepEqual(list.args, { role: "coder", session_id: "s-role" })
  const other = { args: { path: "/x" } }
  await hooks["tool.execute.before"]({ tool: "read", sessionID: "s-role", callID: "c3c" }, other)
  assert.deepEqual(other.args, { path: "/x" })
})

test("a task result is stored in memory with session, agent and tool", async () => {
  const hooks = await load(serviceUrl)
  await talkAs(hooks, "s-after", "orchestrator", "Implement the zebra striping for tables")
  await hooks["tool.execute.after"](
    {
      tool: "task",
      sessionID: "s-after",
      callID: "c4",
      args: { description: "Zebra striping", prompt: "implement it", subagent_type: "coder" },
    },
    { title: "Zebra striping", output: "Added zebra striping to the quokka table renderer in table.css", metadata: {} },
  )
  const found = (await query("zebra striping quokka table renderer")).filter((m) => String(m.content).includes("quokka"))
  assert.equal(found.length, 1, `stored once, found ${found.length}`)
  const m = found[0]
  assert.equal(m.source_type, "task_result")
  assert.equal(m.metadata.session_id, "s-after")
  assert.equal(m.metadata.agent, "orchestrator")
  assert.equal(m.metadata.subagent_type, "coder")
  assert.equal(m.metadata.tool, "task")
})

test("results of tools not worth keeping are not stored", async () => {
  const hooks = await load(serviceUrl)
  await hooks["tool.execute.after"](
    { tool: "read", sessionID: "s-read", callID: "c5", args: { filePath: "/x" } },
    { title: "x", output: "the pangolin file contents", metadata: {} },
  )
  const found = (await query("pangolin file contents")).filter((m) => String(m.content).includes("pangolin"))
  assert.equal(found.length, 0)
})

test("the system prompt gets the context package for the session's agent", async () => {
  const hooks = await load(serviceUrl)
  await talkAs(hooks, "s-sys", "coder", "Implement the CSV exporter")
  const output = { system: ["You are OpenCode."] }
  await hooks["experimental.chat.system.transform"]({ sessionID: "s-sys", model: {} }, output)
  assert.equal(output.system[0], "You are OpenCode.")
  assert.equal(output.system.length, 2)
  assert.match(output.system[1], /coder/)
})

test("compaction backs the session up to memory and recalls memories into the context", async () => {
  const hooks = await load(serviceUrl)
  await hooks["tool.execute.after"](
    { tool: "task", sessionID: "s-compact", callID: "c6", args: { description: "narwhal parser", subagent_type: "coder" } },
    { title: "t", output: "The narwhal parser now accepts tusks in the header", metadata: {} },
  )
  await talkAs(hooks, "s-compact", "orchestrator", "Continue the narwhal parser work")
  const output: { context: string[]; prompt?: string } = { context: [] }
  await hooks["experimental.session.compacting"]({ sessionID: "s-compact" }, output)
  const backups = (await query("narwhal parser compacted")).filter((m) => m.source_type === "session_backup")
  assert.ok(backups.some((m) => m.metadata.session_id === "s-compact"), "the session was backed up")
  assert.equal(output.context.length, 1)
  assert.match(output.context[0], /narwhal parser now accepts tusks/)
})

test("a service that is down degrades to a warning: nothing throws and the task is allowed", async () => {
  const hooks = await load("http://127.0.0.1:9") // discard port: nothing listens
  warnings.length = 0
  await talkAs(hooks, "s-down", "orchestrator", "Implement the thing")
  const task = { args: { description: "x", prompt: "Implement the thing", subagent_type: "architect" } }
  await hooks["tool.execute.before"]({ tool: "task", sessionID: "s-down", callID: "c7" }, task)
  const sys = { system: ["base"] }
  await hooks["experimental.chat.system.transform"]({ sessionID: "s-down", model: {} }, sys)
  assert.deepEqual(sys.system, ["base"])
  await hooks["tool.execute.after"](
    { tool: "task", sessionID: "s-down", callID: "c7", args: task.args },
    { title: "t", output: "done", metadata: {} },
  )
  const ctx = { context: [] as string[] }
  await hooks["experimental.session.compacting"]({ sessionID: "s-down" }, ctx)
  assert.deepEqual(ctx.context, [])
  assert.ok(warnings.length >= 3, `warnings logged: ${warnings.length}`)
  assert.ok(warnings.every((w) => w.includes("[neuralgentics]") && w.includes("continuing without Neuralgentics")))
  // the next model step while the service is still down does not repeat the warning
  const before = warnings.length
  await hooks["tool.execute.before"]({ tool: "task", sessionID: "s-down", callID: "c7b" }, task)
  assert.equal(warnings.length, before)
})

test("the service refuses a request without its token: the plugin's requests carry it", async () => {
  const res = await fetch(`${serviceUrl}/memory/query`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: "anything", top_k: 1 }),
  })
  assert.equal(res.status, 401)
  const hooks = await load(serviceUrl)
  warnings.length = 0
  await hooks["tool.execute.after"](
    { tool: "task", sessionID: "s-token", callID: "c9", args: { description: "okapi token check", subagent_type: "coder" } },
    { title: "t", output: "the okapi migration finished", metadata: {} },
  )
  assert.deepEqual(warnings, [])
  assert.ok((await query("okapi migration finished")).some((m) => m.metadata.session_id === "s-token"))
})

test("a wrong token is refused with a warning naming where it came from; the session goes on", async () => {
  const hooks = await load(serviceUrl, { NEURALGENTICS_TOKEN: "not-the-token" })
  warnings.length = 0
  const task = { args: { description: "x", prompt: "Implement the thing", subagent_type: "architect" } }
  process.env.NEURALGENTICS_TOKEN = "not-the-token" // read on each call, as OpenCode's env is
  try {
    await hooks["tool.execute.before"]({ tool: "task", sessionID: "s-wrong", callID: "c10" }, task)
  } finally {
    delete process.env.NEURALGENTICS_TOKEN
  }
  assert.equal(warnings.length, 1)
  assert.match(warnings[0], /refused the credential \(401; read from NEURALGENTICS_TOKEN\)/)
  assert.ok(!warnings[0].includes("not-the-token"), "the token itself is never logged")
})

test("installed copy: the token file named in neuralgentics.json next to the plugin is used", async () => {
  // What `neuralgentics opencode install` writes: the plugin, and beside it the token file's
  // path (never the token). No NEURALGENTICS_TOKEN / NEURALGENTICS_CONFIG_DIR in the env.
  const dir = mkdtempSync(join(tmpdir(), "ng-plugin-"))
  copyFileSync(new URL("../../src/neuralgentics/opencode/plugin/neuralgentics.ts", import.meta.url), join(dir, "neuralgentics.ts"))
  writeFileSync(join(dir, "neuralgentics.json"), JSON.stringify({ token_file: tokenFile }))
  const saved = process.env.NEURALGENTICS_CONFIG_DIR
  delete process.env.NEURALGENTICS_CONFIG_DIR
  try {
    process.env.NEURALGENTICS_SERVICE_URL = serviceUrl
    process.env.NEURALGENTICS_PROJECT = "plugin-test"
    const mod = await import(pathToFileURL(join(dir, "neuralgentics.ts")).href)
    const hooks = (await mod.NeuralgenticsPlugin({ directory: "/tmp/plugin-test", worktree: "/tmp/plugin-test" } as any)) as AnyHooks
    warnings.length = 0
    await hooks["tool.execute.after"](
      { tool: "task", sessionID: "s-installed", callID: "c11", args: { description: "quokka", subagent_type: "coder" } },
      { title: "t", output: "the quokka importer was rewritten", metadata: {} },
    )
    assert.deepEqual(warnings, [])
  } finally {
    process.env.NEURALGENTICS_CONFIG_DIR = saved
  }
  assert.ok((await query("quokka importer rewritten")).some((m) => m.metadata.session_id === "s-installed"))
})

test("a service that hangs is given up on after the timeout and the task goes ahead", async () => {
  const sockets: any[] = []
  const server: Server = createServer((s) => sockets.push(s)) // accepts, never answers
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  const port = (server.address() as any).port
  try {
    const hooks = await load(`http://127.0.0.1:${port}`, { NEURALGENTICS_PLUGIN_TIMEOUT_MS: "300" })
    warnings.length = 0
    const task = { args: { description: "x", prompt: "Implement the thing", subagent_type: "architect" } }
    await hooks["tool.execute.before"]({ tool: "task", sessionID: "s-hang", callID: "c8" }, task)
    assert.equal(warnings.length, 1)
    assert.match(warnings[0], /TimeoutError/)
  } finally {
    for (const s of sockets) s.destroy()
    server.close()
  }
})
