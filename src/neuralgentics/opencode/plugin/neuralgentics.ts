/**
 * Neuralgentics plugin for OpenCode 1.18: a thin adapter from OpenCode's hooks to memini-core's
 * HTTP JSON routes (memory, project index, orchestrator). All logic lives in Python; every call
 * has a timeout, and a service that is down costs one visible line, never a broken session.
 *
 * - memory tools for the agent: memory_search, memory_save, memory_feedback, project_search
 *   (ng/tools.ts);
 * - the context package in the system prompt of each request of a real agent, never of
 *   OpenCode's title/summary/compaction requests (ng/sessions.ts);
 * - `task` delegations through the 8-step protocol (ng/protocol.ts);
 * - the calling agent stamped as the role of every broker call;
 * - on compaction, a backup of what the session was doing and the memories recalled for it.
 *
 * OpenCode calls every export of this module as a plugin, so it exports exactly one function.
 * It imports only types from @opencode-ai/plugin (erased at load time), so nothing needs to be
 * installed next to it. Settings: ng/service.ts (plugin options, environment).
 */
import type { Hooks, Plugin } from "@opencode-ai/plugin"

import { Delegations } from "./ng/protocol.ts"
import { LocalMatrix } from "./ng/routing.ts"
import { type Json, makeNotice, type MemoryHit, type Options, Service } from "./ng/service.ts"
import { makeInternalDetector, Sessions, textOf } from "./ng/sessions.ts"
import { DOWN_DESCRIPTION, DOWN_SCHEMA, memoryTools, SCHEMAS } from "./ng/tools.ts"

// The broker's meta-tools as OpenCode names them: `<mcp server>_<tool>` (the installer names the
// server "neuralgentics"). Each answers for a role: the catalog it lists, the calls it allows.
const BROKER_PREFIX = "neuralgentics_"
const BROKER_META_TOOLS = new Set(["get_tool_list", "mcp_router_call", "describe_tool", "find_tool"])
const MAX_MEMORY_CHARS = 8000

export const NeuralgenticsPlugin: Plugin = async ({ client, directory, worktree }, options?: Record<string, unknown>) => {
  const opts = (options ?? {}) as Options
  const env = process.env as Record<string, string | undefined>
  const notice = makeNotice(client)
  const svc = new Service(env, opts, notice)
  const root = worktree && worktree !== "/" ? worktree : directory
  const project =
    env.NEURALGENTICS_PROJECT || opts.project || (root ? root.split(/[\\/]/).filter(Boolean).pop() : undefined) || "default"
  const sessions = new Sessions()
  const isInternal = makeInternalDetector(client)
  // the matrix the installer wrote: applied here while memini-core is down (fail closed)
  const matrix = LocalMatrix.from(opts.routing)
  svc.routingLocal = matrix !== undefined
  const delegations = new Delegations(svc, directory, project, matrix)
  // the first message of this OpenCode instance checks that the services answer (once)
  let checked: Promise<void> | undefined

  return {
    // Plain JSON-Schema args, which the .d.ts (zod only) does not describe: OpenCode 1.18 takes
    // them on its "legacy" path (notes §2), so the type is widened here and nowhere else.
    tool: memoryTools(svc, project, directory) as unknown as NonNullable<Hooks["tool"]>,

    // `jsonSchema`: the plain schema OpenCode 1.18's legacy path reads (the .d.ts lacks it)
    "tool.definition": async (input: { toolID: string }, output: { description: string; jsonSchema?: unknown }) => {
      // plain-schema tools get every key required; hand OpenCode the real schema instead
      const schema = SCHEMAS[input.toolID]
      if (!schema) return
      // asked for every request: while memini-core is down the tool says so in one line
      output.jsonSchema = svc.unreachable ? DOWN_SCHEMA : schema
      if (svc.unreachable) output.description = DOWN_DESCRIPTION
    },

    "chat.message": async (input, output) => {
      checked ??= svc.checkHealth()
      await checked
      const s = sessions.get(input.sessionID)
      const agent = (output?.message as { agent?: string } | undefined)?.agent ?? input.agent
      if (agent) s.agent = agent
      const text = textOf(output?.parts)
      if (!text) return
      s.task = text
      // a subagent started by a delegation gets the package step 5 built, not a second one
      const prepared = delegations.takeContext(s.agent, text)
      if (prepared !== undefined) {
        s.contextKey = `${s.agent}\u0000${text}`
        s.contextText = prepared.trim() || undefined
        s.contextGeneration = svc.memoryGeneration
      }
    },

    "experimental.chat.system.transform": async (input, output) => {
      if (await isInternal(output.system[0])) return // title, summary, compaction: nothing to add
      const s = sessions.get(input.sessionID)
      if (!s.task) return
      const agent = s.agent ?? "build"
      const key = `${agent}\u0000${s.task}`
      // built again for a new task or agent, and after any memory write memini-core reported
      // (the save of this very turn included): a superseded fact must not reach the next step
      if (s.contextKey !== key || s.contextGeneration !== svc.memoryGeneration) {
        const res = await svc.call(
          "POST",
          "/orchestrator/context",
          // the session: its memories join, and a task of it left waiting for its verification
          // is recalled to the orchestrator (a reminder on its next turn)
          { task: s.task.slice(0, 20000), agent, format: "markdown", project_dir: directory || undefined, project, session: input.sessionID || undefined },
          svc.writeTimeoutMs,
        )
        if (!res.ok) return // noticed once; asked again on the next step
        s.contextKey = key
        s.contextText = typeof res.body === "string" ? res.body.trim() || undefined : undefined
        s.contextGeneration = svc.memoryGeneration
      }
      if (s.contextText) output.system.push(s.contextText)
    },

    "tool.execute.before": async (input, output) => {
      if (input.tool === "task") {
        await delegations.before(input.sessionID, input.callID, (output.args ?? {}) as Json)
        return
      }
      if (input.tool.startsWith(BROKER_PREFIX) && BROKER_META_TOOLS.has(input.tool.slice(BROKER_PREFIX.length))) {
        // The broker checks every call against the role; the model must not pick its own.
        // The session id names this OpenCode session in the broker's audit and egress header.
        if (output.args === undefined || output.args === null) output.args = {}
        if (typeof output.args === "object") {
          output.args.role = sessions.get(input.sessionID).agent ?? "build"
          if (input.sessionID) output.args.session_id = input.sessionID
        }
      } else if (input.tool.startsWith(BROKER_PREFIX)) {
        // A passthrough tool (`expose: tools`): the same role, under a key of the broker's own
        // (the tool's arguments may have a `role`); the broker removes it before the call.
        if (output.args === undefined || output.args === null) output.args = {}
        if (typeof output.args === "object") {
          const stamp: Record<string, string> = { role: sessions.get(input.sessionID).agent ?? "build" }
          if (input.sessionID) stamp.session_id = input.sessionID
          output.args._neuralgentics = stamp
        }
      }
    },

    "tool.execute.after": async (input, output) => {
      if (input.tool !== "task") return
      const note = await delegations.after(input.sessionID, input.callID, output?.output)
      if (note && output && typeof output.output === "string") output.output += `\n\n${note}`
    },

    "experimental.session.compacting": async (input, output) => {
      const s = sessions.get(input.sessionID)
      if (s.task) {
        await svc.call(
          "POST",
          "/memory/add",
          {
            content: `Session ${input.sessionID} (agent ${s.agent ?? "unknown"}) was compacted while working on:\n${s.task}`.slice(0, MAX_MEMORY_CHARS),
            source_type: "session_backup",
            project,
            tags: ["compaction", ...(s.agent ? [s.agent] : [])],
            metadata: { session_id: input.sessionID, agent: s.agent ?? null },
            actor: s.agent ?? null,
          },
          svc.writeTimeoutMs,
        )
      }
      // with no task the project's path is no question: any of its memories will do (no floor)
      const res = await svc.call<{ hits?: MemoryHit[] }>("POST", "/memory/query", {
        query: (s.task || project).slice(0, 4000),
        project,
        top_k: 5,
        min_score: s.task ? undefined : -1,
      })
      const hits = res.ok && Array.isArray(res.body?.hits) ? res.body.hits : []
      const lines = hits
        .map((h) => h?.memory ?? h)
        .filter((m) => m && typeof m.content === "string")
        .map((m) => `- ${String(m.content).slice(0, 500)}${m.said_on ? ` (said on ${m.said_on})` : ""}`)
      if (lines.length) output.context.push(`Neuralgentics memory recalled for this session:\n${lines.join("\n")}`)
    },
  }
}
