// Times each plugin hook against a running memini-core (URL in argv[2]), N rounds each, and a
// baseline in the same run: a bare fetch of GET /health (the cheapest round trip to the service).
// Prints one JSON object: medians in ms and each hook's median as a ratio of the baseline.
import { NeuralgenticsPlugin } from "../src/neuralgentics/opencode/plugin/neuralgentics.ts"

const url = process.argv[2]
const rounds = Number(process.argv[3] ?? 30)
process.env.NEURALGENTICS_SERVICE_URL = url
process.env.NEURALGENTICS_PROJECT = "bench-plugin"

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
async function time(fn: (i: number) => Promise<unknown>): Promise<number> {
  await fn(-1) // warm
  const xs: number[] = []
  for (let i = 0; i < rounds; i++) {
    const t = performance.now()
    await fn(i)
    xs.push(performance.now() - t)
  }
  return median(xs)
}

const hooks: any = await NeuralgenticsPlugin({ directory: "/tmp/bench", worktree: "/tmp/bench" } as any)
await hooks["chat.message"]({ sessionID: "b", agent: "orchestrator" }, { parts: [{ type: "text", text: "Implement the CSV exporter" }] })

const baseline = await time(() => fetch(`${url}/health`).then((r) => r.text()))
const results: Record<string, number> = {
  // a different task text each round, so no cache on the service side answers for the classifier
  "tool.execute.before (task, allowed)": await time((i) =>
    hooks["tool.execute.before"]({ tool: "task", sessionID: "b", callID: "c" }, {
      args: { description: "CSV export", prompt: `Add a --csv${i} flag to the export command`, subagent_type: "coder" },
    })),
  "tool.execute.before (broker role stamp, no HTTP)": await time(() =>
    hooks["tool.execute.before"]({ tool: "neuralgentics_mcp_router_call", sessionID: "b", callID: "c" }, { args: {} })),
  "experimental.chat.system.transform (first per task)": await time(async (i) => {
    await hooks["chat.message"]({ sessionID: `sys${i}`, agent: "coder" }, { parts: [{ type: "text", text: `Implement exporter variant ${i}` }] })
    await hooks["experimental.chat.system.transform"]({ sessionID: `sys${i}`, model: {} }, { system: [] })
  }),
  "experimental.chat.system.transform (cached)": await time(() =>
    hooks["experimental.chat.system.transform"]({ sessionID: "b", model: {} }, { system: [] })),
  "tool.execute.after (task result -> memory)": await time((i) =>
    hooks["tool.execute.after"]({ tool: "task", sessionID: "b", callID: `c${i}`, args: { description: "d", subagent_type: "coder" } },
      { title: "t", output: `result number ${i} of the exporter work ${Math.random()}`, metadata: {} })),
}
const out: Record<string, unknown> = { rounds, baseline_health_ms: +baseline.toFixed(2) }
for (const [k, v] of Object.entries(results)) out[k] = { median_ms: +v.toFixed(3), x_baseline: +(v / baseline).toFixed(1) }
console.log(JSON.stringify(out, null, 2))
