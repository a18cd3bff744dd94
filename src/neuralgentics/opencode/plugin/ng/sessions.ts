/**
 * Who is speaking in each session, and which LLM requests are OpenCode's own.
 *
 * OpenCode 1.18's `experimental.chat.system.transform` names no agent, and fires for the title
 * and compaction requests with the user's session id. So: the agent of a session comes from
 * `chat.message` (`output.message.agent`, set for every user message, the subagent's prompt
 * from `task` included), and an internal request is told apart by the first system message,
 * which starts with that agent's own prompt (read in OpenCode 1.18.33's source).
 */

export type SessionState = {
  agent?: string
  // the latest user message: the task the context package is built for
  task?: string
  // what the context text was built for (agent + task), so each LLM step does not re-ask
  contextKey?: string
  contextText?: string
  /** The memory generation the package was built at: a newer one (a save that superseded a
   * fact, in this turn or elsewhere) builds it again before the next request. */
  contextGeneration?: string
}

// OpenCode's hidden agents: they call no tools and must get no context package.
export const INTERNAL_AGENTS = ["title", "summary", "compaction"]
// Their built-in prompts' openings (1.18.33), used until (or if) the live ones cannot be read.
export const INTERNAL_PROMPT_STARTS = [
  "You are a title generator",
  "You are a context summarization agent",
  "Summarize what was done in this conversation",
]
// A TUI can stay open for days: keep the most recently used sessions only.
const MAX_SESSIONS = 500

export class Sessions {
  private readonly map = new Map<string, SessionState>()

  get(sessionID: string | undefined): SessionState {
    const key = sessionID ?? ""
    const s = this.map.get(key) ?? {}
    this.map.delete(key) // re-insert: Map order is recency order
    this.map.set(key, s)
    if (this.map.size > MAX_SESSIONS) this.map.delete(this.map.keys().next().value as string)
    return s
  }
}

/**
 * `(system0) => true` for OpenCode's internal requests. The prompts a user configured for
 * title/summary/compaction are read once, lazily, from `client.app.agents()` inside a hook —
 * never in the plugin's init, where awaiting the client deadlocks OpenCode 1.18.
 */
/** What the detector uses of OpenCode's client: the SDK's `app.agents()` (answers `{ data }`). */
export type AgentsClient = { app?: { agents?: () => Promise<unknown> } }
type AgentRow = { name?: unknown; prompt?: unknown }

export const makeInternalDetector = (client: AgentsClient | undefined, timeoutMs = 2000): ((system0: string | undefined) => Promise<boolean>) => {
  let prompts: Promise<string[]> | undefined
  const load = async (): Promise<string[]> => {
    try {
      const res = await Promise.race([
        client?.app?.agents?.(),
        new Promise((resolve) => setTimeout(() => resolve(undefined), timeoutMs)),
      ])
      const data = (res as { data?: unknown } | undefined)?.data
      const agents: AgentRow[] = Array.isArray(data) ? data : []
      return agents
        .filter(
          (a): a is { name: string; prompt: string } =>
            typeof a?.name === "string" && INTERNAL_AGENTS.includes(a.name) && typeof a?.prompt === "string" && a.prompt.trim() !== "",
        )
        .map((a) => a.prompt.trim().slice(0, 60))
    } catch {
      return []
    }
  }
  return async (system0) => {
    const head = (system0 ?? "").trimStart()
    if (!head) return false
    if (INTERNAL_PROMPT_STARTS.some((p) => head.startsWith(p))) return true
    prompts ??= load()
    return (await prompts).some((p) => head.startsWith(p))
  }
}

/** The user-visible text of a message's parts (not OpenCode's synthetic ones). */
export const textOf = (parts: unknown): string =>
  Array.isArray(parts)
    ? parts
        .filter((p): p is { type: string; text: string } => !!p && p.type === "text" && typeof p.text === "string" && !p.synthetic)
        .map((p) => p.text)
        .join("\n")
    : ""
