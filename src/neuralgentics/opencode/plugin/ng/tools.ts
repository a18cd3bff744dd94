/**
 * The agent's memory tools, thin over memini-core's routes. Plain JSON-Schema arguments (no
 * runtime import of @opencode-ai/plugin): OpenCode 1.18 makes every key of `args` required, so
 * `tool.definition` hands it the real schema with the optional ones (notes §2). Arguments are not
 * validated by OpenCode on that path: each tool checks its own.
 *
 * Names and descriptions are short on purpose: they ride on every request (cl100k counts in
 * docs/opencode.md; bench/session_tokens.py measures the session).
 */
import type { Json, MemoryHit, MemoryRow, Service } from "./service.ts"

type Schema = { type: "object"; properties: Record<string, Json>; required: string[]; additionalProperties: false }
type ToolContext = { agent?: string; sessionID?: string }
// the arguments as the model sent them: each tool checks its own (OpenCode does not, see above)
export type ToolDef = { description: string; args: Record<string, Json>; execute: (args: Json, ctx: ToolContext) => Promise<string> }
/** A code search hit (POST /project/search). */
type CodeHit = { file_path?: string; start_line?: number; end_line?: number; symbol?: string; content?: unknown }
/** POST /memory/add: the memory kept, and what the write found it replaces or contradicts. */
type Saved = { memory?: MemoryRow; created?: boolean; superseded?: unknown; contradicts?: unknown; likely_updates?: unknown }
/** POST /memory/{id}/trust: the trust event recorded. */
type TrustAnswer = { event?: { score_after?: unknown; delta?: unknown } }

const schema = (properties: Record<string, Json>, required: string[]): Schema => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
})

const SCOPES = ["project", "user", "agent", "session"]

export const SCHEMAS: Record<string, Schema> = {
  memory_search: schema({ query: { type: "string" }, limit: { type: "integer", minimum: 1, maximum: 20 } }, ["query"]),
  memory_save: schema(
    {
      fact: { type: "string" },
      replaces: { type: "array", items: { type: "string" } },
      scope: {
        type: "string",
        enum: SCOPES,
        description: "project (default); user: all the user's projects; agent: you only; session: this one",
      },
    },
    ["fact"],
  ),
  memory_feedback: schema(
    {
      id: { type: "string" },
      verdict: { type: "string", enum: ["confirmed", "rejected", "wrong", "outdated"] },
      by: { type: "string" },
    },
    ["id", "verdict"],
  ),
  project_search: schema({ query: { type: "string" }, limit: { type: "integer", minimum: 1, maximum: 20 } }, ["query"]),
}

export const DESCRIPTIONS: Record<string, string> = {
  memory_search: "Search project memory (facts, decisions, past task results). Returns id, trust, text.",
  memory_save:
    "Save a fact or decision to memory; says what it replaced, contradicts or probably replaces. replaces: ids it replaces.",
  memory_feedback:
    "Your verdict on a memory of this project: confirmed (it helped), wrong (you found it false), or outdated (by: id of the newer one).",
  project_search: "Search this project's indexed code by meaning and keywords. Returns file:lines and snippets.",
}

/** A memory tool's definition while memini-core does not answer: one line, no arguments (the
 * four cost 357 cl100k tokens per request, these 4 × 48), so no call is wasted on it. */
export const DOWN_DESCRIPTION = "Unavailable: Neuralgentics memory is down (memini-core not answering)."
export const DOWN_SCHEMA: Schema = schema({}, [])

// The agent's verdicts are the agent's events (memini/provenance.py): smaller than the user's,
// within [0.3, 0.6], once per memory and session. Only the user confirms as the user
// (`neuralgentics memory confirm`, the dashboard, /memory-confirm).
const TRUST_EVENT: Record<string, string> = {
  confirmed: "agent_confirmed",
  rejected: "agent_rejected",
  wrong: "agent_rejected",
}
const who = (ctx: ToolContext | undefined) => ({ agent: ctx?.agent, session: ctx?.sessionID })
const MAX_FACT_CHARS = 8000
const clip = (text: string, n: number): string => (text.length > n ? text.slice(0, n - 1) + "…" : text)
const oneLine = (text: unknown, n = 240): string => clip(String(text ?? "").replace(/\s+/g, " ").trim(), n)

const unavailable = (svc: Service, why: string): string =>
  `Neuralgentics memory is unavailable (${why}); go on without it. memini-core: ${svc.base}`

const refused = (answer: { status: number; error: string }): string => `Refused (${answer.status}): ${answer.error}`

const limitOf = (value: unknown, fallback: number): number => {
  const n = Number(value)
  return Number.isInteger(n) && n >= 1 && n <= 20 ? n : fallback
}

/** `superseded` / `contradicts` / `likely_updates` entries (the write path's contract), or the
 * older `superseded: "<id>"` of a service without update detection. */
type Finding = { id: string; content: string; score?: number; reason?: string; needs_user?: boolean }
const findings = (value: unknown): Finding[] => {
  if (typeof value === "string" && value) return [{ id: value, content: "" }]
  if (!Array.isArray(value)) return []
  return value
    .filter((f): f is { id: string; content?: unknown; score?: unknown; reason?: string; needs_user?: unknown } => f && typeof f === "object" && typeof f.id === "string")
    .map((f) => ({
      id: f.id,
      content: String(f.content ?? ""),
      score: typeof f.score === "number" ? f.score : undefined,
      reason: f.reason,
      needs_user: f.needs_user === true,
    }))
}

export const memoryTools = (svc: Service, project: string, directory: string): Record<string, ToolDef> => ({
  memory_search: {
    description: DESCRIPTIONS.memory_search,
    args: SCHEMAS.memory_search.properties,
    async execute(args, ctx) {
      const query = typeof args?.query === "string" ? args.query.trim() : ""
      if (!query) return "Give a query (what to look for, in words)."
      const body: Json = { query: query.slice(0, 4000), project, top_k: limitOf(args?.limit, 8) }
      // the user's, this agent's and this session's memories join the project's (docs/memini.md, Scopes)
      if (ctx?.agent) body.agent = ctx.agent
      if (ctx?.sessionID) body.session = ctx.sessionID
      const res = await svc.call<{ hits?: MemoryHit[] }>("POST", "/memory/query", body, svc.timeoutMs, who(ctx))
      if (!res.ok) return res.down ? unavailable(svc, res.error) : refused(res)
      const hits = Array.isArray(res.body?.hits) ? res.body.hits : []
      if (!hits.length) return "No memory matches."
      const lines = hits.map((h) => {
        const m = h?.memory ?? h
        const flag = (h?.contradicted ? " (contradicted)" : "") + (m?.quarantined ? " (unconfirmed)" : "")
        // a relative date ("last week") is read against the day it was said
        const said = m.said_on ? ` (said on ${m.said_on})` : ""
        return `- ${m.id} · trust ${Number(m.trust_score).toFixed(2)}${flag} · ${oneLine(m.content, 400)}${said}`
      })
      return `${hits.length} memories (id · trust · text):\n${lines.join("\n")}`
    },
  },

  memory_save: {
    description: DESCRIPTIONS.memory_save,
    args: SCHEMAS.memory_save.properties,
    async execute(args, ctx) {
      const fact = typeof args?.fact === "string" ? args.fact.trim() : ""
      if (!fact) return "Give the fact to save."
      const replaces = Array.isArray(args?.replaces) ? args.replaces.filter((x: unknown) => typeof x === "string" && x) : []
      const scope = args?.scope ?? "project"
      if (typeof scope !== "string" || !SCOPES.includes(scope)) return `scope must be one of ${SCOPES.join(", ")}.`
      if (scope === "agent" && !ctx?.agent) return "scope agent needs to know which agent you are; save it to the project instead."
      if (scope === "session" && !ctx?.sessionID) return "scope session needs a session; save it to the project instead."
      const body: Json = {
        content: fact.slice(0, MAX_FACT_CHARS),
        source_type: "agent",
        scope,
        actor: ctx?.agent ?? null,
        metadata: { session_id: ctx?.sessionID ?? null, agent: ctx?.agent ?? null },
      }
      // user and agent memories belong to no project; a session memory stays in its project
      if (scope === "project" || scope === "session") body.project = project
      if (scope === "agent") body.agent = ctx?.agent
      if (scope === "session") body.session = ctx?.sessionID
      if (replaces.length) body.supersedes = replaces
      const res = await svc.call<Saved>("POST", "/memory/add", body, svc.writeTimeoutMs, who(ctx))
      if (!res.ok) return res.down ? unavailable(svc, res.error) : refused(res)
      const m: MemoryRow = res.body?.memory ?? {}
      const out = [res.body?.created === false ? `Already known as ${m.id} (trust ${Number(m.trust_score).toFixed(2)}).` : `Saved ${m.id}.`]
      const gone = findings(res.body?.superseded)
      if (gone.length) out.push(`Replaced (now hidden): ${gone.map((f) => `${f.id}${f.content ? ` "${oneLine(f.content, 160)}"` : ""}`).join("; ")}.`)
      const against = findings(res.body?.contradicts)
      if (against.length) out.push(`Contradicts (their trust lowered): ${against.map((f) => `${f.id} "${oneLine(f.content, 160)}"`).join("; ")}.`)
      const likely = findings(res.body?.likely_updates)
      if (likely.length) {
        out.push(
          `Probably replaces: ${likely
            .map((f) => `${f.id} "${oneLine(f.content, 160)}"${f.score !== undefined ? ` (${f.score.toFixed(2)}${f.reason ? `: ${oneLine(f.reason, 80)}` : ""})` : ""}`)
            .join("; ")}.`,
        )
        // the user's own facts only the user retires (memini-core refuses the agent's call)
        const users = likely.filter((f) => f.needs_user)
        const mine = likely.filter((f) => !users.includes(f))
        if (mine.length)
          out.push(
            `If it does, one call: memory_feedback {"id": "${mine[0].id}", "verdict": "outdated", "by": "${m.id}"}` +
              (mine.length > 1 ? " (once per id)." : "."),
          )
        if (users.length)
          out.push(
            `The user wrote ${users.map((f) => f.id).join(", ")}: only they can retire it; if it is outdated, ask them to run: neuralgentics memory supersede ${m.id} ${users.map((f) => f.id).join(" ")}`,
          )
      }
      return out.join("\n")
    },
  },

  memory_feedback: {
    description: DESCRIPTIONS.memory_feedback,
    args: SCHEMAS.memory_feedback.properties,
    async execute(args, ctx) {
      const id = typeof args?.id === "string" ? args.id.trim() : ""
      const verdict = typeof args?.verdict === "string" ? args.verdict.trim() : ""
      if (!id) return "Give the id of the memory."
      if (verdict === "outdated") {
        const by = typeof args?.by === "string" ? args.by.trim() : ""
        if (!by) return 'Give "by": the id of the memory that replaces it (save the new fact first with memory_save).'
        const res = await svc.call("POST", `/memory/${encodeURIComponent(by)}/supersede`, { ids: [id], actor: ctx?.agent ?? null }, svc.writeTimeoutMs, who(ctx))
        if (!res.ok) return res.down ? unavailable(svc, res.error) : refused(res)
        return `${id} is superseded by ${by}: it no longer comes up in recall.`
      }
      const event = TRUST_EVENT[verdict]
      if (!event) return 'verdict must be one of: confirmed, rejected, wrong, outdated.'
      const res = await svc.call<TrustAnswer>(
        "POST",
        `/memory/${encodeURIComponent(id)}/trust`,
        { event, actor: ctx?.agent ?? null, note: `memory_feedback: ${verdict}` },
        svc.timeoutMs,
        who(ctx),
      )
      if (!res.ok) return res.down ? unavailable(svc, res.error) : refused(res)
      const e = res.body?.event ?? {}
      const before = Number(e.score_after) - Number(e.delta)
      return `${id}: ${verdict} (${event}); trust ${before.toFixed(2)} → ${Number(e.score_after).toFixed(2)}.`
    },
  },

  project_search: {
    description: DESCRIPTIONS.project_search,
    args: SCHEMAS.project_search.properties,
    async execute(args) {
      const query = typeof args?.query === "string" ? args.query.trim() : ""
      if (!query) return "Give a query (what to look for, in words)."
      const res = await svc.call<{ hits?: CodeHit[] }>("POST", "/project/search", { query: query.slice(0, 4000), project: directory, top_k: limitOf(args?.limit, 5) })
      if (!res.ok) {
        if (res.down) return unavailable(svc, res.error)
        if (res.status === 404) return `This project is not indexed (${res.error}). Index it: neuralgentics index ${directory}`
        return refused(res)
      }
      const hits = Array.isArray(res.body?.hits) ? res.body.hits : []
      if (!hits.length) return "No code matches."
      return hits
        .map((h) => {
          const where = `${h.file_path}:${h.start_line}-${h.end_line}${h.symbol ? ` (${h.symbol})` : ""}`
          const snippet = String(h.content ?? "").split("\n").slice(0, 8).join("\n")
          return `${where}\n${clip(snippet, 600)}`
        })
        .join("\n\n")
    },
  },
})
