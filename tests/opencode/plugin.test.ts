// Unit tests of the OpenCode plugin with Node's test runner (run through tsx), against the
// service at NEURALGENTICS_TEST_SERVICE_URL (started by tests/opencode/test_plugin_node.py).
// Each test asserts what the service holds afterwards, not what the plugin says about it.
import assert from "node:assert/strict"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { after, before, test } from "node:test"

const serviceUrl = process.env.NEURALGENTICS_TEST_SERVICE_URL
if (!serviceUrl) throw new Error("NEURALGENTICS_TEST_SERVICE_URL is not set")
// The service's config dir: its token file is what the installer names in the plugin options.
const configDir = process.env.NEURALGENTICS_TEST_CONFIG_DIR
if (!configDir) throw new Error("NEURALGENTICS_TEST_CONFIG_DIR is not set")
const tokenFile = join(configDir, "token")
const auth = (): Record<string, string> => ({ authorization: `Bearer ${readFileSync(tokenFile, "utf8").trim()}` })
const PROJECT = "plugin-test"

type AnyHooks = Record<string, any>

// What the user sees: the plugin writes its one-line notices to stderr in `opencode run`.
const notices: string[] = []
const realWrite = process.stderr.write.bind(process.stderr)
before(() => {
  ;(process.stderr as any).write = (chunk: any, ...rest: any[]) => {
    const text = String(chunk)
    if (text.startsWith("[neuralgentics]")) {
      notices.push(text.trim())
      return true
    }
    return realWrite(chunk, ...rest)
  }
})
after(() => {
  ;(process.stderr as any).write = realWrite
})

// Calls the plugin makes, by path (fetch is read at call time).
const calls: string[] = []
const realFetch = globalThis.fetch
before(() => {
  globalThis.fetch = (async (url: any, init?: any) => {
    calls.push(`${init?.method ?? "GET"} ${new URL(String(url)).pathname}`)
    return realFetch(url, init)
  }) as typeof fetch
})
after(() => {
  globalThis.fetch = realFetch
})

const fakeClient = (agents: any[] = []) => ({
  app: { agents: async () => ({ data: agents }), log: async () => true },
  tui: { showToast: async () => true },
})

// OpenCode's project directory (it exists: the orchestrator reads its overrides from there)
const PROJECT_DIR = mkdtempSync(join(tmpdir(), `${PROJECT}-`))

/** The plugin as OpenCode loads it after `neuralgentics opencode install`: options, no env. */
async function load(options: Record<string, unknown> = {}, client: any = fakeClient(), directory = PROJECT_DIR): Promise<AnyHooks> {
  const mod = await import("../../src/neuralgentics/opencode/plugin/neuralgentics.ts")
  return (await mod.NeuralgenticsPlugin(
    { client, directory, worktree: directory } as any,
    { service_url: serviceUrl, token_file: tokenFile, project: PROJECT, ...options },
  )) as AnyHooks
}

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const res = await realFetch(`${serviceUrl}${path}`, {
    method,
    headers: { "content-type": "application/json", ...auth() },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${await res.clone().text()}`)
  return res.json()
}

const memory = (id: string) => api("GET", `/memory/${id}`)

async function say(hooks: AnyHooks, sessionID: string, agent: string, text: string): Promise<void> {
  // as OpenCode 1.18 calls it: the agent is on the message, not in the input (opencode run)
  await hooks["chat.message"]({ sessionID }, { message: { agent }, parts: [{ type: "text", text }] })
}

const tool = (hooks: AnyHooks, name: string, args: Record<string, unknown>, agent = "build", sessionID = "s-tools") =>
  hooks.tool[name].execute(args, { agent, sessionID }) as Promise<string>

const idOf = (answer: string): string => {
  const m = /Saved ([0-9a-f-]{36})/.exec(answer) ?? /Already known as ([0-9a-f-]{36})/.exec(answer)
  assert.ok(m, answer)
  return m[1]
}

test("the memory tools are plain JSON schemas with only their real required arguments", async () => {
  const hooks = await load()
  assert.deepEqual(Object.keys(hooks.tool).sort(), ["memory_feedback", "memory_save", "memory_search", "project_search"])
  for (const [name, def] of Object.entries<any>(hooks.tool)) {
    assert.ok(def.description.length < 140, `${name}: keep it short`)
    const out: any = {}
    await hooks["tool.definition"]({ toolID: name }, out)
    assert.equal(out.jsonSchema.type, "object")
    assert.deepEqual(Object.keys(out.jsonSchema.properties), Object.keys(def.args))
  }
  const out: any = {}
  await hooks["tool.definition"]({ toolID: "memory_feedback" }, out)
  assert.deepEqual(out.jsonSchema.required, ["id", "verdict"])
  const other: any = {}
  await hooks["tool.definition"]({ toolID: "bash" }, other)
  assert.deepEqual(other, {})
})

test("memory_save stores the fact in the project with who saved it; memory_search finds it", async () => {
  const hooks = await load()
  const answer = await tool(hooks, "memory_save", { fact: "The ocelot service deploys from the blue branch." }, "build", "s-save")
  const m = (await memory(idOf(answer))).memory
  assert.equal(m.content, "The ocelot service deploys from the blue branch.")
  assert.equal(m.project, PROJECT)
  assert.equal(m.source_type, "agent")
  assert.equal(m.metadata.agent, "build")
  assert.equal(m.metadata.session_id, "s-save")
  const again = await tool(hooks, "memory_save", { fact: "The ocelot service deploys from the blue branch." })
  assert.match(again, /Already known as/)
  const found = await tool(hooks, "memory_search", { query: "which branch does ocelot deploy from" })
  assert.match(found, new RegExp(`${m.id} · trust 0\\.\\d\\d · The ocelot service deploys`))
  assert.equal(await tool(hooks, "memory_save", { fact: "  " }), "Give the fact to save.")
})

test("memory_save scope: a user fact joins every search, a session fact only its session's, an agent fact only its agent's", async () => {
  const hooks = await load()
  const user = (await memory(idOf(await tool(hooks, "memory_save", { fact: "I prefer tabs in the okapi scripts.", scope: "user" })))).memory
  assert.equal(user.scope, "user")
  assert.equal(user.project, "")
  const session = (await memory(idOf(await tool(hooks, "memory_save", { fact: "The okapi tests are flaky today.", scope: "session" }, "build", "s-one")))).memory
  assert.equal(session.scope, "session")
  assert.equal(session.session, "s-one")
  assert.equal(session.project, PROJECT)
  const mine = (await memory(idOf(await tool(hooks, "memory_save", { fact: "Okapi reviews: check the migrations first.", scope: "agent" }, "reviewer")))).memory
  assert.equal(mine.scope, "agent")
  assert.equal(mine.agent, "reviewer")
  const here = await tool(hooks, "memory_search", { query: "okapi" }, "reviewer", "s-one")
  for (const m of [user, session, mine]) assert.match(here, new RegExp(m.id))
  const elsewhere = await tool(hooks, "memory_search", { query: "okapi" }, "build", "s-two")
  assert.match(elsewhere, new RegExp(user.id))
  assert.doesNotMatch(elsewhere, new RegExp(session.id))
  assert.doesNotMatch(elsewhere, new RegExp(mine.id))
  assert.match(await tool(hooks, "memory_save", { fact: "x", scope: "team" }), /scope must be one of project, user, agent, session/)
})

test("memory_feedback records the agent's own, smaller events (never the user's word)", async () => {
  const hooks = await load()
  const ids = []
  for (const fact of ["The tapir job runs at 02:00.", "The yak cache holds 10 minutes.", "The emu queue is FIFO."]) {
    ids.push(idOf(await tool(hooks, "memory_save", { fact })))
  }
  const [a, b, c] = ids
  assert.match(await tool(hooks, "memory_feedback", { id: a, verdict: "confirmed" }, "coder", "s-fb"), /agent_confirmed\); trust 0\.50 → 0\.55/)
  // once per memory and session: the same session confirming again adds nothing
  assert.match(await tool(hooks, "memory_feedback", { id: a, verdict: "confirmed" }, "coder", "s-fb"), /0\.55 → 0\.55/)
  assert.match(await tool(hooks, "memory_feedback", { id: b, verdict: "rejected" }), /0\.50 → 0\.45/)
  assert.match(await tool(hooks, "memory_feedback", { id: c, verdict: "wrong" }), /0\.50 → 0\.45/)
  const events = (await memory(a)).trust_history.map((e: any) => [e.event, e.actor, e.session])
  assert.deepEqual(events, [["agent_confirmed", "coder", "s-fb"], ["agent_confirmed", "coder", "s-fb"]])
  assert.equal((await memory(b)).memory.trust_score, 0.45)
  assert.equal((await memory(c)).trust_history[0].event, "agent_rejected")
  assert.match(await tool(hooks, "memory_feedback", { id: a, verdict: "maybe" }), /verdict must be one of/)
  assert.match(
    await tool(hooks, "memory_feedback", { id: "00000000-0000-4000-8000-000000000000", verdict: "confirmed" }),
    /Refused \(404\)/,
  )
})

test("memory_save says what the save superseded or probably replaces; the call it offers confirms it", async () => {
  const hooks = await load()
  const old = idOf(await tool(hooks, "memory_save", { fact: "Our nightly exports use a semicolon as the separator." }))
  const answer = await tool(hooks, "memory_save", { fact: "Our nightly exports now use a comma as the separator." })
  const fresh = idOf(answer)
  // update detection either superseded the old fact or reported it as a likely update
  assert.match(answer, new RegExp(`(Replaced \\(now hidden\\)|Probably replaces): ${old} "Our nightly exports use a semicolon`))
  const offered = /memory_feedback (\{.*?\})/.exec(answer)
  if (offered) {
    const args = JSON.parse(offered[1])
    assert.deepEqual(args, { id: old, verdict: "outdated", by: fresh })
    assert.match(await tool(hooks, "memory_feedback", args), new RegExp(`${old} is superseded by ${fresh}`))
  }
  assert.equal((await memory(old)).memory.superseded_by, fresh)
  const found = await tool(hooks, "memory_search", { query: "which separator do nightly exports use" })
  assert.ok(found.includes(fresh) && !found.includes(old), found)
})

test("an agent's save that reads as an update of the user's fact hides nothing: it says who can retire it", async () => {
  const agentToken = process.env.NEURALGENTICS_TEST_AGENT_TOKEN_FILE
  assert.ok(agentToken, "NEURALGENTICS_TEST_AGENT_TOKEN_FILE is not set")
  const users = (await api("POST", "/memory/add", { content: "The otter service listens on port 8080.", project: PROJECT })).memory.id
  const hooks = await load({ token_file: agentToken })
  const answer = await tool(hooks, "memory_save", { fact: "The otter service now listens on port 9090." })
  const fresh = idOf(answer)
  assert.match(answer, new RegExp(`Probably replaces: ${users} "The otter service listens on port 8080`))
  assert.match(answer, new RegExp(`The user wrote ${users}: only they can retire it; .*neuralgentics memory supersede ${fresh} ${users}`))
  assert.doesNotMatch(answer, /memory_feedback/)
  // the agent's confirm is refused by memini-core, and the user's fact stays
  assert.match(await tool(hooks, "memory_feedback", { id: users, verdict: "outdated", by: fresh }), /Refused \(403\).*the user's word/)
  assert.equal((await memory(users)).memory.superseded_by, null)
})

test("memory_save replaces: the ids it replaces are superseded on add", async () => {
  const hooks = await load()
  const old = idOf(await tool(hooks, "memory_save", { fact: "The heron build uses Node 18." }))
  const answer = await tool(hooks, "memory_save", { fact: "Gnu runners build on arm64.", replaces: [old] })
  assert.match(answer, new RegExp(`Replaced \\(now hidden\\): ${old}`))
  assert.equal((await memory(old)).memory.superseded_by, idOf(answer))
})

test("memory_feedback outdated supersedes the old memory in one call", async () => {
  const hooks = await load()
  const old = idOf(await tool(hooks, "memory_save", { fact: "The wombat API key rotates monthly." }))
  const fresh = idOf(await tool(hooks, "memory_save", { fact: "Lemur dashboards refresh every five minutes." }))
  const answer = await tool(hooks, "memory_feedback", { id: old, verdict: "outdated", by: fresh })
  assert.match(answer, new RegExp(`${old} is superseded by ${fresh}`))
  assert.equal((await memory(old)).memory.superseded_by, fresh)
  assert.match(await tool(hooks, "memory_feedback", { id: old, verdict: "outdated" }), /Give "by"/)
})

test("project_search says how to index an unindexed project, and finds code in an indexed one", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ng-proj-"))
  writeFileSync(join(dir, "billing.py"), "def refund_invoice(invoice_id):\n    '''Refund a paid invoice.'''\n    return invoice_id\n")
  const hooks = await load({}, fakeClient(), dir)
  assert.match(await tool(hooks, "project_search", { query: "refund an invoice" }), /not indexed.*neuralgentics index/s)
  const job = await api("POST", "/project/index", { path: dir })
  for (let i = 0; i < 100; i++) {
    const state = await api("GET", `/project/index/${job.id}`)
    if (state.status === "done") break
    assert.notEqual(state.status, "failed", JSON.stringify(state))
    await new Promise((r) => setTimeout(r, 200))
  }
  assert.match(await tool(hooks, "project_search", { query: "refund an invoice" }), /billing\.py:1-\d+ \(refund_invoice\)/)
})

test("OpenCode's own requests (title, compaction, a custom title prompt) get no context; the agent's get it once per task", async () => {
  const hooks = await load({}, fakeClient([{ name: "title", prompt: "Name this chat in four words. Be terse and literal about it." }]))
  await say(hooks, "s-sys", "coder", "Implement the CSV exporter for reports")
  for (const internal of [
    "You are a title generator. You output ONLY a thread title.",
    "You are a context summarization agent. Summarise.",
    "Name this chat in four words. Be terse and literal about it.\nMore.",
  ]) {
    const out = { system: [internal] }
    await hooks["experimental.chat.system.transform"]({ sessionID: "s-sys", model: {} }, out)
    assert.deepEqual(out.system, [internal])
  }
  calls.length = 0
  const first = { system: ["You are opencode, an interactive CLI tool."] }
  await hooks["experimental.chat.system.transform"]({ sessionID: "s-sys", model: {} }, first)
  assert.equal(first.system.length, 2)
  assert.match(first.system[1], /^## Context for coder — Code implementation/)
  const second = { system: ["You are opencode, an interactive CLI tool."] }
  await hooks["experimental.chat.system.transform"]({ sessionID: "s-sys", model: {} }, second)
  assert.deepEqual(second, first)
  assert.deepEqual(calls.filter((c) => c.endsWith("/orchestrator/context")), ["POST /orchestrator/context"])
})

test("a save that supersedes a fact: the very next request of the turn carries the new fact, not the old", async () => {
  // issue 27 item 6: the package was cached per agent and task, so it kept the old fact
  const hooks = await load()
  const old = idOf(await tool(hooks, "memory_save", { fact: "The capybara cache runs on Redis 6." }, "build", "s-fresh"))
  await say(hooks, "s-fresh", "build", "Which Redis version does the capybara cache run on?")
  const request = async (): Promise<string> => {
    const out = { system: ["You are opencode, an interactive CLI tool."] }
    await hooks["experimental.chat.system.transform"]({ sessionID: "s-fresh", model: {} }, out)
    return out.system[1] ?? ""
  }
  calls.length = 0
  assert.match(await request(), /Redis 6/)
  const saved = await tool(hooks, "memory_save", { fact: "The capybara cache runs on Redis 7 since the upgrade.", replaces: [old] }, "build", "s-fresh")
  assert.match(saved, new RegExp(`Replaced \\(now hidden\\): ${old}`))
  const next = await request()
  assert.match(next, /Redis 7/)
  assert.doesNotMatch(next, /Redis 6/)
  // no write since: the package is not asked for again
  assert.equal(await request(), next)
  assert.deepEqual(calls.filter((c) => c.endsWith("/orchestrator/context")), ["POST /orchestrator/context", "POST /orchestrator/context"])
})

test("a fact with a relative date is shown with the day it was said", async () => {
  // issue 30 item 5: the text is kept as said; the reader gets the date to resolve it against
  const hooks = await load()
  const id = idOf(await tool(hooks, "memory_save", { fact: "The quokka migration finished yesterday." }))
  const said = (await memory(id)).memory.said_on
  assert.match(said, /^\d{4}-\d{2}-\d{2}$/)
  const found = await tool(hooks, "memory_search", { query: "when did the quokka migration finish" })
  assert.ok(found.includes(`The quokka migration finished yesterday. (said on ${said})`), found)
})

test("a plain question gets context without a push to delegate", async () => {
  const hooks = await load()
  await say(hooks, "s-q", "build", "When do our deploys go out?")
  const out = { system: ["You are opencode."] }
  await hooks["experimental.chat.system.transform"]({ sessionID: "s-q", model: {} }, out)
  assert.match(out.system[1], /^## Context for build\n/)
  assert.doesNotMatch(out.system[1], /subagent_type/)
})

const IMPL = {
  description: "CSV export",
  prompt: "Implement the CSV exporter for the reports page, with a header row",
}

async function tasksOf(session: string): Promise<any[]> {
  return (await api("GET", `/orchestrator/tasks?session=${session}`)).tasks
}

test("a delegation runs the 8 steps: refused with whom to use, run, verified, remembered with links and trust", async () => {
  const hooks = await load()
  const used = idOf(await tool(hooks, "memory_save", { fact: "The reports page CSV exporter must write a header row." }))
  await say(hooks, "s-del", "orchestrator", "Build the CSV export for reports")

  await assert.rejects(
    hooks["tool.execute.before"]({ tool: "task", sessionID: "s-del", callID: "d1" }, { args: { ...IMPL, subagent_type: "architect" } }),
    (err: Error) => {
      assert.match(err.message, /agent "architect" may not take this task: Code implementation \(implementation\) forbids architect\./)
      assert.match(err.message, /Delegate it to "coder": call the task tool again with subagent_type "coder"/)
      return true
    },
  )
  const args = { ...IMPL, subagent_type: "coder" }
  const output = { args: { ...args } }
  await hooks["tool.execute.before"]({ tool: "task", sessionID: "s-del", callID: "d2" }, output)
  assert.deepEqual(output.args, args) // the call itself is not changed
  let [task] = await tasksOf("s-del")
  assert.deepEqual(task.steps.map((s: any) => s.step), ["intake", "recall", "classify", "route", "context", "delegate"])
  assert.ok(task.context_memory_ids.includes(used))

  // the coder's own session gets the package step 5 built, without asking for another
  calls.length = 0
  await say(hooks, "s-child", "coder", IMPL.prompt)
  const sys = { system: ["You are the coder agent of Neuralgentics."] }
  await hooks["experimental.chat.system.transform"]({ sessionID: "s-child", model: {} }, sys)
  assert.match(sys.system[1], /^## Context for coder/)
  assert.ok(sys.system[1].includes("must write a header row"))
  assert.deepEqual(calls.filter((c) => c.includes("/orchestrator/context")), [])

  const done = { title: "CSV export", output: '<task id="ses_x" state="completed">\n<task_result>\nWrote csv_export.py with a header row.\n</task_result>\n</task>', metadata: {} }
  await hooks["tool.execute.after"]({ tool: "task", sessionID: "s-del", callID: "d2", args }, done)
  assert.match(done.output, /\[Neuralgentics\] Code implementation results are verified by reviewer or tester/)
  ;[task] = await tasksOf("s-del")
  assert.equal(task.next_step, "verify")

  const check = { description: "Verify", prompt: "Verify the CSV exporter", subagent_type: "reviewer" }
  await hooks["tool.execute.before"]({ tool: "task", sessionID: "s-del", callID: "d3" }, { args: check })
  const verdict = { title: "Verify", output: "<task_result>\nLooks right.\nVERDICT: pass\n</task_result>", metadata: {} }
  await hooks["tool.execute.after"]({ tool: "task", sessionID: "s-del", callID: "d3", args: check }, verdict)
  assert.match(verdict.output, /verified by reviewer: pass/)
  const all = await tasksOf("s-del")
  assert.equal(all.length, 1, "the verification is a step of the task, not a task of its own")
  ;[task] = all
  assert.deepEqual(task.steps.map((s: any) => s.step), ["intake", "recall", "classify", "route", "context", "delegate", "verify", "return"])
  assert.equal(task.steps[6].data.verified_by, "reviewer")
  const result = await memory(task.result_memory_id)
  assert.match(result.memory.content, /Wrote csv_export.py with a header row/)
  assert.ok(result.relationships.some((r: any) => r.relationship_type === "DERIVED_FROM" && r.target_id === used))
  const trust = await memory(used)
  assert.equal(trust.memory.trust_score, 0.55)
  assert.deepEqual(trust.trust_history.map((e: any) => [e.event, e.actor]), [["agent_used", "coder"]])
})

test("a failed verification sends the work back to the same agent; no trust is given", async () => {
  const hooks = await load()
  const used = idOf(await tool(hooks, "memory_save", { fact: "The invoices PDF export uses A4 paper." }))
  await say(hooks, "s-fail", "orchestrator", "PDF export")
  const args = { description: "PDF export", prompt: "Implement the PDF export of invoices on A4 paper", subagent_type: "coder" }
  await hooks["tool.execute.before"]({ tool: "task", sessionID: "s-fail", callID: "f1" }, { args })
  await hooks["tool.execute.after"]({ tool: "task", sessionID: "s-fail", callID: "f1", args }, { output: "<task_result>done</task_result>" })
  const check = { description: "Verify", prompt: "Verify the PDF export", subagent_type: "tester" }
  await hooks["tool.execute.before"]({ tool: "task", sessionID: "s-fail", callID: "f2" }, { args: check })
  const out = { output: "<task_result>Page size is Letter. VERDICT: fail: not A4</task_result>" }
  await hooks["tool.execute.after"]({ tool: "task", sessionID: "s-fail", callID: "f2", args: check }, out)
  assert.match(out.output, /verification by tester failed: delegate the fix to "coder" again/)
  await hooks["tool.execute.before"]({ tool: "task", sessionID: "s-fail", callID: "f3" }, { args: { ...args, prompt: "Fix: use A4" } })
  const [task] = await tasksOf("s-fail")
  assert.deepEqual(task.steps.map((s: any) => s.step).slice(5), ["delegate", "verify", "delegate"])
  assert.equal(task.steps[7].data.attempt, 2)
  assert.equal((await memory(used)).memory.trust_score, 0.5)
})

test("a task type without a verifier is returned at once", async () => {
  const hooks = await load()
  await say(hooks, "s-find", "orchestrator", "find things")
  const args = { description: "Find", prompt: "Where is the retry policy of the HTTP client configured?", subagent_type: "explore" }
  await hooks["tool.execute.before"]({ tool: "task", sessionID: "s-find", callID: "e1" }, { args })
  const out = { output: "<task_result>In http/retry.py, RetryPolicy.</task_result>" }
  await hooks["tool.execute.after"]({ tool: "task", sessionID: "s-find", callID: "e1", args }, out)
  assert.match(out.output, /result remembered/)
  const [task] = await tasksOf("s-find")
  assert.equal(task.status, "done")
  assert.equal(task.agent, "explore")
  assert.equal(task.steps[6].data.required, false)
})

test("broker calls carry the calling agent as role and its session, whatever the model wrote", async () => {
  const hooks = await load()
  await say(hooks, "s-role", "coder", "what time is it in Tokyo")
  const output = { args: { server: "time", tool: "get_current_time", arguments: { timezone: "Asia/Tokyo" }, role: "admin" } }
  await hooks["tool.execute.before"]({ tool: "neuralgentics_mcp_router_call", sessionID: "s-role", callID: "r1" }, output)
  assert.equal(output.args.role, "coder")
  assert.equal((output.args as Record<string, unknown>).session_id, "s-role")
  assert.deepEqual(output.args.arguments, { timezone: "Asia/Tokyo" })
  const list = { args: {} as Record<string, unknown> }
  await hooks["tool.execute.before"]({ tool: "neuralgentics_get_tool_list", sessionID: "s-role", callID: "c3b" }, list)
  assert.deepEqual(list.args, { role: "coder", session_id: "s-role" })
  // A passthrough tool: the same role, under the broker's own key (its arguments kept as sent).
  const direct = { args: { role: "tool's own", _neuralgentics: { role: "admin" } } as Record<string, unknown> }
  await hooks["tool.execute.before"]({ tool: "neuralgentics_everything_get-env", sessionID: "s-role", callID: "p1" }, direct)
  assert.deepEqual(direct.args, { role: "tool's own", _neuralgentics: { role: "coder", session_id: "s-role" } })
  const other = { args: { path: "/x" } }
  await hooks["tool.execute.before"]({ tool: "read", sessionID: "s-role", callID: "r2" }, other)
  assert.deepEqual(other.args, { path: "/x" })
})

test("compaction backs the session up to memory and recalls memories into the context", async () => {
  const hooks = await load()
  await tool(hooks, "memory_save", { fact: "The narwhal parser now accepts tusks in the header." })
  await say(hooks, "s-compact", "orchestrator", "Continue the narwhal parser work")
  const output: { context: string[] } = { context: [] }
  await hooks["experimental.session.compacting"]({ sessionID: "s-compact" }, output)
  const hits = (await api("POST", "/memory/query", { query: "narwhal parser compacted", project: PROJECT, top_k: 10 })).hits
  assert.ok(hits.some((h: any) => h.memory.source_type === "session_backup" && h.memory.metadata.session_id === "s-compact"))
  assert.equal(output.context.length, 1)
  assert.match(output.context[0], /narwhal parser now accepts tusks/)
})

/** A loopback port nothing listens on (not a fetch "bad port" such as 9). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  const port = (server.address() as any).port
  await new Promise<void>((r) => server.close(() => r()))
  return port
}

test("with memini-core down: one line the user sees, tools say so, the delegation runs unchecked", async () => {
  const port = await closedPort()
  const down = `http://127.0.0.1:${port}`
  const hooks = await load({ service_url: down, broker: "http", broker_url: down })
  notices.length = 0
  await say(hooks, "s-down", "orchestrator", "Implement the thing")
  assert.equal(notices.length, 2, notices.join("\n"))
  assert.ok(notices[0].startsWith(`[neuralgentics] memini-core is not answering at ${down} (connection refused): `), notices[0])
  assert.match(notices[0], /routing unchecked/)
  assert.match(notices[1], /^\[neuralgentics\] the broker is not answering/)
  const sys = { system: ["base"] }
  await hooks["experimental.chat.system.transform"]({ sessionID: "s-down", model: {} }, sys)
  assert.deepEqual(sys.system, ["base"])
  assert.match(await tool(hooks, "memory_search", { query: "x" }), /memory is unavailable/)
  // offered as one line while it is down (issue 30 item 5): no call wasted on it
  for (const toolID of ["memory_search", "memory_save", "memory_feedback", "project_search"]) {
    const def: any = { description: "full", parameters: {} }
    await hooks["tool.definition"]({ toolID }, def)
    assert.match(def.description, /^Unavailable: Neuralgentics memory is down/)
    assert.deepEqual(def.jsonSchema.properties, {})
  }
  const args = { description: "x", prompt: "Implement the thing", subagent_type: "architect" }
  await hooks["tool.execute.before"]({ tool: "task", sessionID: "s-down", callID: "x1" }, { args })
  const out = { output: "done" }
  await hooks["tool.execute.after"]({ tool: "task", sessionID: "s-down", callID: "x1", args }, out)
  assert.match(out.output, /\[Neuralgentics\] routing unchecked \(memini-core did not answer: connection refused\)/)
  const ctx = { context: [] as string[] }
  await hooks["experimental.session.compacting"]({ sessionID: "s-down" }, ctx)
  assert.deepEqual(ctx.context, [])
  assert.equal(notices.length, 2, "no second line while it stays down")
})

test("with memini-core down the installed matrix still refuses a forbidden delegation, naming the agent to use", async () => {
  const routing = JSON.parse(process.env.NEURALGENTICS_TEST_ROUTING ?? "null")
  assert.ok(routing, "NEURALGENTICS_TEST_ROUTING is not set")
  const down = `http://127.0.0.1:${await closedPort()}`
  const hooks = await load({ service_url: down, routing })
  notices.length = 0
  const task = "Implement the CSV export of the report table."
  const before = (callID: string, subagent_type: string, prompt = task) =>
    hooks["tool.execute.before"]({ tool: "task", sessionID: "s-local", callID }, { args: { description: "x", prompt, subagent_type } })
  await assert.rejects(before("l1", "architect"), (err: Error) => {
    assert.match(err.message, /^Neuralgentics routing: agent "architect" may not take this task: .*forbids architect \(checked by the plugin: memini-core is down\)\./)
    assert.match(err.message, /subagent_type "coder"/)
    return true
  })
  assert.match(notices.join("\n"), /routing checked locally/)
  await assert.rejects(before("l2", "nobody"), /unknown agent 'nobody'/)
  await before("l3", "coder")
  const out = { output: "done" }
  await hooks["tool.execute.after"]({ tool: "task", sessionID: "s-local", callID: "l3" }, out)
  assert.match(out.output, /routing checked by the plugin \(memini-core did not answer: connection refused\): coder is the primary agent for /)
  // a text no keyword rule names: only the roster is checked
  await before("l4", "architect", "Ponder the zebra.")
})

test("the local matrix decides as the service's router with similarity off, for every labelled task and agent", async () => {
  const { LocalMatrix } = await import("../../src/neuralgentics/opencode/plugin/ng/routing.ts")
  const matrix = LocalMatrix.from(JSON.parse(process.env.NEURALGENTICS_TEST_ROUTING ?? "null"))
  assert.ok(matrix)
  const cases: { task: string; agent: string; allowed: boolean }[] = JSON.parse(readFileSync(process.env.NEURALGENTICS_TEST_ROUTING_CASES ?? "", "utf8"))
  assert.ok(cases.length > 300, `${cases.length} cases`)
  const differ = cases.filter((c) => matrix.check(c.task, c.agent).allowed !== c.allowed)
  assert.deepEqual(differ, [])
  assert.ok(cases.some((c) => !c.allowed) && cases.some((c) => c.allowed))
})

test("a wrong token: one line naming where it was read from (never the token); nothing throws", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ng-tok-"))
  writeFileSync(join(dir, "token"), "not-the-token\n")
  const hooks = await load({ token_file: join(dir, "token") })
  notices.length = 0
  assert.match(await tool(hooks, "memory_search", { query: "x" }), /Refused \(401\)/)
  await tool(hooks, "memory_search", { query: "y" })
  assert.equal(notices.length, 1)
  assert.match(notices[0], /refused the credential \(401; read from .*ng-tok-.*\/token\)/)
  assert.ok(!notices[0].includes("not-the-token"))
})

test("a service that hangs is given up on after the timeout and the task goes ahead", async () => {
  const sockets: any[] = []
  const server: Server = createServer((s) => sockets.push(s)) // accepts, never answers
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  const port = (server.address() as any).port
  try {
    const hooks = await load({ service_url: `http://127.0.0.1:${port}`, timeout_ms: 300 })
    notices.length = 0
    const args = { description: "x", prompt: "Implement the thing", subagent_type: "architect" }
    await hooks["tool.execute.before"]({ tool: "task", sessionID: "s-hang", callID: "h1" }, { args })
    assert.equal(notices.length, 1)
    assert.match(notices[0], /TimeoutError/)
  } finally {
    for (const s of sockets) s.destroy()
    server.close()
  }
})

test("in the TUI (the plugin runs in a worker) the notice is a toast, once, and nothing goes to stderr", async () => {
  // OpenCode's TUI runs its server, plugins included, in a worker thread, where stderr would
  // garble the screen: the same notice must become a toast there.
  const { Worker } = await import("node:worker_threads")
  const tsx = new URL("../../node_modules/tsx/dist/esm/api/index.mjs", import.meta.url).href
  const service = new URL("../../src/neuralgentics/opencode/plugin/ng/service.ts", import.meta.url).href
  const code = `
    const { register } = await import(${JSON.stringify(tsx)}); register()
    const mod = await import(${JSON.stringify(service)})
    const makeNotice = mod.makeNotice ?? mod.default.makeNotice
    const toasts = [], written = []
    const client = { tui: { showToast: async (t) => { toasts.push(t); return true } }, app: { log: async () => true } }
    const notice = makeNotice(client, (line) => written.push(line))
    notice("memini-down", "memini-core is not answering")
    notice("memini-down", "memini-core is not answering")
    const { parentPort } = await import("node:worker_threads")
    parentPort.postMessage({ toasts, written })`
  const worker = new Worker(new URL("data:text/javascript," + encodeURIComponent(code)))
  const seen: any = await new Promise((resolve, reject) => {
    worker.once("message", resolve)
    worker.once("error", reject)
  })
  await worker.terminate()
  assert.deepEqual(seen.written, [])
  assert.equal(seen.toasts.length, 1)
  assert.equal(seen.toasts[0].body.message, "memini-core is not answering")
  assert.equal(seen.toasts[0].body.variant, "warning")
})
