// Unit tests of the plugin's pure helpers with Node's test runner (run through tsx): no
// service, no OpenCode. tests/opencode/test_plugin_node.py runs this file; plugin.test.ts is
// the suite against a running memini-core.
import assert from "node:assert/strict"
import { test } from "node:test"

import { taskResult, verdictOf } from "../../src/neuralgentics/opencode/plugin/ng/protocol.ts"
import { LocalMatrix, type LocalMatrixDoc } from "../../src/neuralgentics/opencode/plugin/ng/routing.ts"
import { failure, makeNotice, problemOf } from "../../src/neuralgentics/opencode/plugin/ng/service.ts"
import { INTERNAL_PROMPT_STARTS, makeInternalDetector, Sessions, textOf } from "../../src/neuralgentics/opencode/plugin/ng/sessions.ts"
import { DESCRIPTIONS, SCHEMAS } from "../../src/neuralgentics/opencode/plugin/ng/tools.ts"

test("failure names why a fetch failed in a few words", () => {
  assert.equal(failure({ code: "ECONNREFUSED" }), "connection refused")
  assert.equal(failure({ name: "TypeError", message: "fetch failed", cause: { code: "ECONNREFUSED" } }), "connection refused")
  assert.equal(failure({ name: "TimeoutError", message: "The operation was aborted" }), "TimeoutError: no answer in time")
  // Node's fetch says only "fetch failed": the cause says what happened
  assert.equal(failure({ name: "TypeError", message: "fetch failed", cause: { message: "getaddrinfo ENOTFOUND x" } }), "TypeError: getaddrinfo ENOTFOUND x")
  assert.equal(failure("plain"), "plain")
})

test("problemOf reads memini-core's error body and nothing else", () => {
  const body = { error: { code: "step_refused", message: "no", suggested_agents: ["coder"] } }
  assert.deepEqual(problemOf(body), body.error)
  for (const other of [undefined, null, "error", 3, {}, { error: "text" }, { error: null }]) assert.equal(problemOf(other), undefined)
})

test("a notice is written once per key in ten minutes, with the plugin's prefix", () => {
  const lines: string[] = []
  const notice = makeNotice(undefined, (line) => lines.push(line))
  notice("memini-down", "memini-core is not answering")
  notice("memini-down", "memini-core is not answering")
  notice("unauthorized", "refused the credential")
  assert.deepEqual(lines, ["[neuralgentics] memini-core is not answering\n", "[neuralgentics] refused the credential\n"])
})

test("a notice also goes to OpenCode's log, and a log that throws breaks nothing", () => {
  const logged: string[] = []
  makeNotice({ app: { log: async (o) => void logged.push(o.body.message) } }, () => {})("k", "one")
  assert.deepEqual(logged, ["[neuralgentics] one"])
  const throwing = {
    app: {
      log: (): Promise<unknown> => {
        throw new Error("log gone")
      },
    },
  }
  assert.doesNotThrow(() => makeNotice(throwing, () => {})("k", "two"))
})

test("textOf keeps the user's text parts, not OpenCode's synthetic ones", () => {
  const parts = [
    { type: "text", text: "first" },
    { type: "file", text: "not text" },
    { type: "text", text: "hidden", synthetic: true },
    null,
    { type: "text", text: "second" },
  ]
  assert.equal(textOf(parts), "first\nsecond")
  assert.equal(textOf(undefined), "")
  assert.equal(textOf("text"), "")
})

test("Sessions keeps one state per session, the same object each time", () => {
  const sessions = new Sessions()
  const s = sessions.get("a")
  s.agent = "coder"
  assert.equal(sessions.get("a").agent, "coder")
  assert.equal(sessions.get("b").agent, undefined)
  assert.equal(sessions.get(undefined), sessions.get(undefined))
})

test("OpenCode's internal requests are told apart by their prompt, built-in or configured", async () => {
  const client = {
    app: {
      agents: async () => ({
        data: [
          { name: "title", prompt: "Name this chat in five words" },
          { name: "build", prompt: "You build things" },
          { name: "summary", prompt: 3 },
          null,
        ],
      }),
    },
  }
  const internal = makeInternalDetector(client)
  assert.equal(await internal(INTERNAL_PROMPT_STARTS[0] + " for this conversation"), true)
  assert.equal(await internal("  Name this chat in five words, please"), true)
  assert.equal(await internal("You build things"), false) // a real agent's prompt
  assert.equal(await internal(undefined), false)
  assert.equal(await internal(""), false)
})

test("a client that cannot list its agents leaves the built-in prompts as the only test", async () => {
  const failing = { app: { agents: async (): Promise<unknown> => Promise.reject(new Error("down")) } }
  const internal = makeInternalDetector(failing)
  assert.equal(await internal("Name this chat in five words"), false)
  assert.equal(await internal(INTERNAL_PROMPT_STARTS[1]), true)
  assert.equal(await makeInternalDetector(undefined)("anything"), false)
})

test("taskResult takes the subagent's answer out of OpenCode's task envelope", () => {
  assert.equal(taskResult('<task id="1">\n<task_result>\nDone: 3 files.\n</task_result>\n</task>'), "Done: 3 files.")
  assert.equal(taskResult("  plain answer  "), "plain answer")
  assert.equal(taskResult({ output: "<task_result>in JSON</task_result>" }), "in JSON")
  assert.equal(taskResult(undefined), '""')
})

test("verdictOf: the last VERDICT counts; none is a pass noted as not explicit", () => {
  assert.deepEqual(verdictOf("VERDICT: pass"), { passed: true, explicit: true })
  assert.deepEqual(verdictOf("VERDICT: fail: tests break\n...\nverdict: **PASS**"), { passed: true, explicit: true })
  assert.deepEqual(verdictOf("VERDICT: pass\nthen VERDICT : fail, missing test"), { passed: false, explicit: true })
  assert.deepEqual(verdictOf("looks fine to me"), { passed: true, explicit: false })
})

const MATRIX: LocalMatrixDoc = {
  version: 1,
  agents: ["coder", "tester", "general"],
  keyword: 1,
  keyword_cap: 3,
  temperature: 0.5,
  ambiguity_margin: 0.15,
  types: [
    { id: "code", label: "Code implementation", primary: "coder", forbidden: ["general"], keywords: [["\\bimplement\\b", 1]] },
    { id: "test", label: "Testing", primary: "tester", forbidden: ["general", "coder"], keywords: [["\\btests?\\b", 1], ["(?<=x)(?P<py>y)", 1]] },
  ],
}

test("the local matrix refuses what the matrix forbids, naming the primary agent", () => {
  const matrix = LocalMatrix.from(MATRIX)
  assert.ok(matrix)
  assert.deepEqual(matrix.check("write tests for the parser", "coder"), {
    allowed: false,
    reason: "Testing (test) forbids coder",
    suggested: ["tester"],
  })
  assert.equal(matrix.check("write tests for the parser", "tester").allowed, true)
  assert.equal(matrix.check("implement the parser", "coder").reason, "coder is the primary agent for Code implementation (code)")
  // no keyword rule names it: the roster alone decides
  assert.deepEqual(matrix.check("what time is it", "general"), { allowed: true, reason: "no keyword rule of the matrix names this task", suggested: [] })
  const unknown = matrix.check("implement the parser", "nobody")
  assert.equal(unknown.allowed, false)
  assert.match(unknown.reason, /^unknown agent 'nobody'; the roster has: coder, tester, general/)
  assert.deepEqual(unknown.suggested, ["coder"])
})

test("a matrix of another version or shape is not used", () => {
  assert.equal(LocalMatrix.from({ ...MATRIX, version: 2 }), undefined)
  assert.equal(LocalMatrix.from({ ...MATRIX, agents: "coder" }), undefined)
  assert.equal(LocalMatrix.from(undefined), undefined)
  assert.equal(LocalMatrix.from("matrix"), undefined)
})

test("every memory tool has a description and a schema whose required keys it defines", () => {
  assert.deepEqual(Object.keys(SCHEMAS).sort(), Object.keys(DESCRIPTIONS).sort())
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    assert.equal(schema.type, "object", name)
    assert.equal(schema.additionalProperties, false, name)
    for (const key of schema.required) assert.ok(key in schema.properties, `${name}: ${key}`)
  }
})
