/**
 * Neuralgentics plugin for OpenCode: a thin adapter from OpenCode's hooks to memini-core's
 * HTTP JSON routes (memory, orchestrator). All logic lives in Python; every call here has a
 * short timeout, and a service that is down costs a logged warning, never a broken session.
 *
 * OpenCode calls every export of this module as a plugin, so it exports exactly one function.
 *
 * Credential: memini-core answers only requests with the local bearer token (loopback is not
 * trusted). It is NEURALGENTICS_TOKEN when set, else the token file, read on each call (so a
 * service started after OpenCode, or a new token, is picked up): NEURALGENTICS_TOKEN_FILE, else
 * <NEURALGENTICS_CONFIG_DIR>/token, else the `token_file` in neuralgentics.json next to this
 * file (written by `neuralgentics opencode install`), else the default config dir's token.
 * The token itself is never written into the project.
 *
 * Environment (read once when OpenCode loads the plugin):
 *   NEURALGENTICS_SERVICE_URL    memini-core base URL (default http://127.0.0.1:8900)
 *   NEURALGENTICS_TOKEN          the bearer token (else the token file, above)
 *   NEURALGENTICS_PLUGIN_TIMEOUT_MS  per-call timeout on the hot path (default 5000: a cold
 *                                    service loads its embedding model on the first routing call)
 *   NEURALGENTICS_PROJECT        project name stored with memories (default: worktree folder name)
 */
import type { Plugin } from "@opencode-ai/plugin"
import { readFileSync } from "node:fs"
import { homedir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

type Json = Record<string, unknown>

type SessionState = {
  agent?: string
  task?: string
  // what the last system-prompt addition was computed for, so each LLM step does not re-ask
  contextKey?: string
  contextText?: string
}

// Tools whose results are worth keeping besides `task` (step 8 of the protocol stores them).
const REMEMBERED_TOOLS = new Set(["task"])
// The broker's meta-tools as OpenCode names them: `<mcp server>_<tool>` (the installer names the
// server "neuralgentics"). Each answers for a role: the catalog it lists, the calls it allows.
const BROKER_PREFIX = "neuralgentics_"
const BROKER_META_TOOLS = new Set(["get_tool_list", "mcp_router_call", "describe_tool", "find_tool"])
const MAX_MEMORY_CHARS = 8000
// A TUI can stay open for days: keep the most recently used sessions only.
const MAX_SESSIONS = 500

type Env = Record<string, string | undefined>

/** Where the token file is (see the header comment for the order). */
const tokenFilePath = (env: Env): string => {
  const home = homedir()
  const expand = (p: string): string => (p.startsWith("~/") ? join(home, p.slice(2)) : p)
  if (env.NEURALGENTICS_TOKEN_FILE) return expand(env.NEURALGENTICS_TOKEN_FILE)
  if (env.NEURALGENTICS_CONFIG_DIR) return join(expand(env.NEURALGENTICS_CONFIG_DIR), "token")
  try {
    const here = dirname(fileURLToPath(import.meta.url))
    const installed = JSON.parse(readFileSync(join(here, "neuralgentics.json"), "utf8")) as { token_file?: unknown }
    if (typeof installed.token_file === "string" && installed.token_file) return expand(installed.token_file)
  } catch {
    // not installed by `neuralgentics opencode install` (or its file was removed): the default
  }
  // platformdirs' user_config_dir("neuralgentics"), as the Python side resolves it
  const platform = (globalThis as { process?: { platform?: string } }).process?.platform
  if (platform === "darwin") return join(home, "Library", "Application Support", "neuralgentics", "token")
  if (platform === "win32") return join(env.LOCALAPPDATA || join(home, "AppData", "Local"), "neuralgentics", "neuralgentics", "token")
  return join(env.XDG_CONFIG_HOME || join(home, ".config"), "neuralgentics", "token")
}

export const NeuralgenticsPlugin: Plugin = async ({ client, directory, worktree }) => {
  const env: Env = (globalThis as { process?: { env: Env } }).process?.env ?? {}
  const tokenFile = tokenFilePath(env)
  const token = (): string | undefined => {
    if (env.NEURALGENTICS_TOKEN) return env.NEURALGENTICS_TOKEN
    try {
      return readFileSync(tokenFile, "utf8").trim() || undefined
    } catch {
      return undefined // no service was ever started with this config dir: calls answer 401, logged
    }
  }
  const base = (env.NEURALGENTICS_SERVICE_URL || "http://127.0.0.1:8900").replace(/\/+$/, "")
  const timeoutMs = Number(env.NEURALGENTICS_PLUGIN_TIMEOUT_MS) > 0 ? Number(env.NEURALGENTICS_PLUGIN_TIMEOUT_MS) : 5000
  // Storing a memory embeds it; the first embedding of a fresh service loads the model.
  const writeTimeoutMs = Math.max(timeoutMs, 10000)
  const root = worktree && worktree !== "/" ? worktree : directory
  const project = env.NEURALGENTICS_PROJECT || (root ? root.split(/[\\/]/).filter(Boolean).pop() : undefined) || "default"
  const sessions = new Map<string, SessionState>()

  const state = (sessionID: string | undefined): SessionState => {
    const key = sessionID ?? ""
    const s = sessions.get(key) ?? {}
    sessions.delete(key) // re-insert: Map order is recency order
    sessions.set(key, s)
    if (sessions.size > MAX_SESSIONS) sessions.delete(sessions.keys().next().value as string)
    return s
  }

  // While a service is down every model step would warn again: one line per route per minute.
  const lastWarned = new Map<string, number>()
  const warn = async (message: string, extra: Json = {}, key = message): Promise<void> => {
    const now = Date.now()
    if (now - (lastWarned.get(key) ?? -Infinity) < 60_000) return
    lastWarned.set(key, now)
    const line = `[neuralgentics] ${message}`
    try {
      if (client?.app?.log) {
        await client.app.log({ body: { service: "neuralgentics", level: "warn", message: line, extra } })
        return
      }
    } catch {
      // fall through to stderr: a log that cannot be written must not break the session either
    }
    console.warn(line)
  }

  /** One HTTP call; the body text, or `undefined` (after a logged warning) when the service is down or refuses. */
  const request = async (method: "GET" | "POST", path: string, body?: Json, ms = timeoutMs): Promise<string | undefined> => {
    const headers: Record<string, string> = { accept: "application/json, text/markdown, text/plain" }
    if (body !== undefined) headers["content-type"] = "application/json"
    const bearer = token()
    if (bearer) headers.authorization = `Bearer ${bearer}`
    try {
      const res = await fetch(base + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(ms),
      })
      const text = await res.text()
      if (res.status === 401) {
        const from = env.NEURALGENTICS_TOKEN ? "NEURALGENTICS_TOKEN" : tokenFile
        await warn(`${base} refused the credential (401; read from ${from}): run \`neuralgentics opencode install\` again, or set NEURALGENTICS_TOKEN to the token the service uses; continuing without Neuralgentics`, {}, "401")
        return undefined
      }
      if (!res.ok) {
        await warn(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}; continuing without Neuralgentics`, {}, `${method} ${path}`)
        return undefined
      }
      return text
    } catch (err) {
      const why = err instanceof Error ? `${err.name}: ${err.message}` : String(err)
      await warn(`${method} ${base}${path} failed (${why}); continuing without Neuralgentics`, {}, `${method} ${path}`)
      return undefined
    }
  }

  const call = async (method: "GET" | "POST", path: string, body?: Json, ms = timeoutMs): Promise<Json | undefined> => {
    const text = await request(method, path, body, ms)
    if (text === undefined) return undefined
    try {
      return text ? (JSON.parse(text) as Json) : {}
    } catch {
      await warn(`${method} ${path} answered something that is not JSON; continuing without Neuralgentics`)
      return undefined
    }
  }

  const remember = async (
    content: string,
    sourceType: string,
    tags: string[],
    metadata: Json,
    actor: string | null,
  ): Promise<void> => {
    const text = content.trim()
    if (!text) return
    await call(
      "POST",
      "/memory/add",
      { content: text.slice(0, MAX_MEMORY_CHARS), source_type: sourceType, project, tags, metadata, actor },
      writeTimeoutMs,
    )
  }

  const textOf = (parts: unknown): string =>
    Array.isArray(parts)
      ? parts
          .filter((p): p is { type: string; text: string } => !!p && p.type === "text" && typeof p.text === "string" && !p.synthetic)
          .map((p) => p.text)
          .join("\n")
      : ""

  return {
    "chat.message": async (input, output) => {
      const s = state(input.sessionID)
      if (input.agent) s.agent = input.agent
      const text = textOf(output?.parts)
      if (text) s.task = text
    },

    "chat.params": async (input) => {
      if (input.agent) state(input.sessionID).agent = input.agent
    },

    "experimental.chat.system.transform": async (input, output) => {
      const s = state(input.sessionID)
      const agent = s.agent ?? "build"
      const key = `${agent}\u0000${s.task ?? ""}`
      if (s.contextKey !== key) {
        // The context package (capabilities, skills, memories, code) is built for a task; before
        // the first user message there is none, so only the capability declarations go in.
        const text = s.task
          ? await request("POST", "/orchestrator/context", { task: s.task.slice(0, 20000), agent, format: "markdown" }, writeTimeoutMs)
          : await request("GET", "/orchestrator/agents-md")
        if (text === undefined) return // service down: try again on the next step
        s.contextKey = key
        s.contextText = text.trim() || undefined
      }
      if (s.contextText) output.system.push(s.contextText)
    },

    "tool.execute.before": async (input, output) => {
      const s = state(input.sessionID)
      if (input.tool === "task") {
        const args = (output.args ?? {}) as Json
        const target = typeof args.subagent_type === "string" ? args.subagent_type : ""
        const task = [args.description, args.prompt].filter((x) => typeof x === "string" && x).join("\n\n")
        if (!task || !target) return // OpenCode itself rejects a task call without them
        const res = await call("POST", "/orchestrator/route", { task: task.slice(0, 20000), agent: target })
        if (res && res.allowed === false) {
          const suggested = Array.isArray(res.suggested_agents) ? res.suggested_agents.filter((a) => typeof a === "string") : []
          const instead = (suggested[0] as string | undefined) ?? (typeof res.primary_agent === "string" ? res.primary_agent : undefined)
          const reason = [res.allowed_reason, res.reason, res.message].find((x) => typeof x === "string" && x) as string | undefined
          const kind = typeof res.label === "string" ? res.label : typeof res.task_type === "string" ? res.task_type : undefined
          throw new Error(
            `Neuralgentics routing: agent "${target}" may not take this task` +
              (kind ? ` (task type: ${kind})` : "") +
              (reason ? `: ${reason.replace(/\.$/, "")}.` : ".") +
              (instead && instead !== target
                ? ` Delegate it to "${instead}": call the task tool again with subagent_type "${instead}".`
                : ""),
          )
        }
        return
      }
      if (input.tool.startsWith(BROKER_PREFIX) && BROKER_META_TOOLS.has(input.tool.slice(BROKER_PREFIX.length))) {
        // The broker checks every call against the role; the model must not pick its own.
        // The session id names this OpenCode session in the broker's audit and egress header.
        if (output.args === undefined || output.args === null) output.args = {}
        if (typeof output.args === "object") {
          output.args.role = s.agent ?? "build"
          if (input.sessionID) output.args.session_id = input.sessionID
        }
      }
    },

    "tool.execute.after": async (input, output) => {
      if (!REMEMBERED_TOOLS.has(input.tool)) return
      const s = state(input.sessionID)
      const args = (input.args ?? {}) as Json
      const subagent = typeof args.subagent_type === "string" ? args.subagent_type : undefined
      const description = typeof args.description === "string" ? args.description : ""
      const body = typeof output?.output === "string" ? output.output : JSON.stringify(output?.output ?? "")
      await remember(
        `Result of "${description || input.tool}" by ${subagent ?? s.agent ?? "agent"}:\n${body}`,
        "task_result",
        ["boomerang", input.tool, ...(subagent ? [subagent] : [])],
        {
          session_id: input.sessionID,
          call_id: input.callID,
          tool: input.tool,
          agent: s.agent ?? null,
          subagent_type: subagent ?? null,
          description,
          task: s.task ?? null,
        },
        subagent ?? s.agent ?? null,
      )
    },

    "experimental.session.compacting": async (input, output) => {
      const s = state(input.sessionID)
      if (s.task) {
        await remember(
          `Session ${input.sessionID} (agent ${s.agent ?? "unknown"}) was compacted while working on:\n${s.task}`,
          "session_backup",
          ["compaction", ...(s.agent ? [s.agent] : [])],
          { session_id: input.sessionID, agent: s.agent ?? null },
          s.agent ?? null,
        )
      }
      // with no task the project's path is no question: any of its memories will do (no floor)
      const res = await call("POST", "/memory/query", {
        query: s.task || project,
        project,
        top_k: 5,
        min_score: s.task ? undefined : -1,
      })
      const items = Array.isArray(res?.hits) ? res.hits : []
      const lines = (items as Json[])
        .map((m) => (m && typeof m === "object" ? (m.memory as Json | undefined) ?? m : undefined))
        .filter((m): m is Json => !!m && typeof m.content === "string")
        .map((m) => `- ${String(m.content).slice(0, 500)}`)
      if (lines.length) output.context.push(`Neuralgentics memory recalled for this session:\n${lines.join("\n")}`)
    },
  }
}
