// Times the plugin's hooks and tools against a running memini-core (URL in argv[2]), N rounds
// each, and a baseline in the same run: a bare fetch of GET /health (the cheapest round trip to
// the service). Each round uses new text, so no cache answers for the classifier or the store.
// Checks that each timed call did its work (a failed call would time as fast as a no-op).
// Prints one JSON object: medians in ms and each median as a ratio of the baseline.
import assert from "node:assert/strict"

import { NeuralgenticsPlugin } from "../src/neuralgentics/opencode/plugin/neuralgentics.ts"

const url = process.argv[2]
const rounds = Number(process.argv[3] ?? 30)
const directory = process.argv[4] ?? "/tmp"
process.env.NEURALGENTICS_SERVICE_URL = url
process.env.NEURALGENTICS_PROJECT = "bench-plugin"

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
async function time(fn: (i: number) => Promise<unknown>, check?: (out: unknown) => void): Promise<number> {
  check?.(await fn(-1)) // warm, and the proof it works
  const xs: number[] = []
  for (let i = 0; i < rounds; i++) {
    const t = performance.now()
    await fn(i)
    xs.push(performance.now() - t)
  }
  return median(xs)
}

const hooks: any = await NeuralgenticsPlugin({ directory, worktree: directory, client: undefined } as any)
const say = (sessionID: string, agent: string, text: string) =>
  hooks["chat.message"]({ sessionID, agent }, { message: { agent }, parts: [{ type: "text", text }] })
const tool = (name: string, args: unknown) => hooks.tool[name].execute(args, { agent: "build", sessionID: "t" })
const SYSTEM = "You are opencode, an interactive CLI tool."

// A delegation to the agent the matrix names, of a type without a verifier (the after-hook then
// runs verify and return at once), in a session of its own per round.
const delegation = (i: number) => ({
  description: "Lint the exporter",
  prompt: `Run ruff and fix the lint errors in exporter_${i}.py`,
  subagent_type: "linter",
})
const before = async (i: number) => {
  await say(`d${i}`, "orchestrator", "Lint the exporter")
  const output = { args: delegation(i) }
  await hooks["tool.execute.before"]({ tool: "task", sessionID: `d${i}`, callID: `c${i}` }, output)
  return output
}
for (let i = -1; i < rounds; i++) await before(i) // the delegations the after-hook closes

const baseline = await time(() => fetch(`${url}/health`).then((r) => r.text()))
const results: Record<string, number> = {
  "tool.execute.before (task: intake..delegate, 6 calls)": await time((i) => before(1000 + i)),
  "tool.execute.after (task: verify + return, stores the result)": await time(
    async (i) => {
      const output = { title: "t", output: `<task_result>\nFixed the lint errors in exporter_${i}.py ${Math.random()}\n</task_result>`, metadata: {} }
      await hooks["tool.execute.after"]({ tool: "task", sessionID: `d${i}`, callID: `c${i}`, args: delegation(i) }, output)
      return output.output
    },
    (out) => assert.match(String(out), /result remembered \(task /, String(out)),
  ),
  "tool.execute.before (broker role stamp, no HTTP)": await time(() =>
    hooks["tool.execute.before"]({ tool: "neuralgentics_mcp_router_call", sessionID: "b", callID: "r" }, { args: {} })),
  "experimental.chat.system.transform (first per task)": await time(
    async (i) => {
      await say(`sys${i}`, "coder", `Implement exporter variant ${i}`)
      const output = { system: [SYSTEM] }
      await hooks["experimental.chat.system.transform"]({ sessionID: `sys${i}`, model: {} }, output)
      return output.system
    },
    (out) => assert.match((out as string[]).join("\n"), /## Context for coder/),
  ),
  "experimental.chat.system.transform (cached)": await time(() =>
    hooks["experimental.chat.system.transform"]({ sessionID: "sys-1", model: {} }, { system: [SYSTEM] })),
  "memory_save (embeds; update detection)": await time(
    (i) => tool("memory_save", { fact: `The exporter batch ${i} ${Math.random()} runs nightly.` }),
    (out) => assert.match(String(out), /^Saved /),
  ),
  "memory_search": await time(
    (i) => tool("memory_search", { query: `when does exporter batch ${i} run` }),
    (out) => assert.match(String(out), /memories \(id/),
  ),
}
const out: Record<string, unknown> = { rounds, baseline_health_ms: +baseline.toFixed(2) }
for (const [k, v] of Object.entries(results)) out[k] = { median_ms: +v.toFixed(3), x_baseline: +(v / baseline).toFixed(1) }
console.log(JSON.stringify(out, null, 2))
