/**
 * The plugin's one way to memini-core (which also serves the orchestrator): HTTP JSON with the
 * local bearer token and a timeout, and one visible line when it cannot be reached.
 *
 * Settings come from the plugin options `neuralgentics opencode install` writes into
 * opencode.json (`["file:///…/neuralgentics.ts", {service_url, broker_url, broker, token_file}]`);
 * an environment variable, when set, wins over its option:
 *   NEURALGENTICS_SERVICE_URL / service_url      memini-core (default http://127.0.0.1:8900)
 *   NEURALGENTICS_BROKER_URL / broker_url        the broker's HTTP front (health only)
 *   NEURALGENTICS_TOKEN                          the token itself
 *   NEURALGENTICS_TOKEN_FILE, <NEURALGENTICS_CONFIG_DIR>/token, token_file, the default config
 *   dir's token                                  where to read it, on every call (a new token is
 *                                                picked up without restarting OpenCode)
 *   NEURALGENTICS_PLUGIN_TIMEOUT_MS / timeout_ms hot-path calls (default 5000)
 *   NEURALGENTICS_PROJECT / project              memory scope: the repository's key the
 *                                                installer wrote (default: the worktree's name)
 *   credential_file                              this install's project credential (issue 28):
 *                                                when set it wins over every token above, so the
 *                                                plugin never holds the owner's power
 */
import { readFileSync } from "node:fs"
import { isMainThread } from "node:worker_threads"
import { tokenFilePath } from "./token_file.ts"

export type Json = Record<string, unknown>
export type Env = Record<string, string | undefined>
export type Options = {
  service_url?: string
  broker_url?: string
  broker?: string
  token_file?: string
  timeout_ms?: number
  project?: string
  project_name?: string
  credential_file?: string
  // the routing matrix, applied by the plugin while memini-core is down (ng/routing.ts)
  routing?: unknown
}

/** Who a call is for: the agent and the session, sent as headers (labels; the server decides
 * from the credential that the caller is an agent, never from these). */
export type Who = { agent?: string; session?: string }

/** What a call gave: the parsed body, or why there is none. `down`: nothing answered. `T`: the
 * shape the route answers with (declared, not checked: readers still test each field). */
export type Answer<T = unknown> =
  | { ok: true; status: number; body: T }
  | { ok: false; status: number; body: unknown; down: boolean; error: string }

/** A memory as memini-core's routes give it: the fields the plugin reads. */
export type MemoryRow = { id?: string; content?: unknown; trust_score?: unknown; said_on?: string; quarantined?: boolean }
/** A memory search hit: the memory (nested, or the hit itself) and whether one contradicts it. */
export type MemoryHit = MemoryRow & { memory?: MemoryRow; contradicted?: boolean }

/** The error of memini-core's one error body (http_errors.py), when `body` is one. */
export type Problem = { code?: unknown; message?: unknown; suggested_agents?: unknown }
export const problemOf = (body: unknown): Problem | undefined => {
  const error = body !== null && typeof body === "object" ? (body as { error?: unknown }).error : undefined
  return error !== null && typeof error === "object" ? (error as Problem) : undefined
}

/**
 * One line the user sees, at most once per key per ten minutes: on stderr in `opencode run`
 * (stdout would corrupt `--format json`), as a toast in the TUI, whose server runs in a Worker
 * (stderr there garbles the screen). Always in OpenCode's log too. Never awaited by callers.
 */
export type Notice = (key: string, message: string) => void

/** Why a fetch failed, in a few words ("connection refused", "TimeoutError"). */
export const failure = (err: unknown): string => {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } }
  const code = e?.code ?? e?.cause?.code
  if (code === "ConnectionRefused" || code === "ECONNREFUSED") return "connection refused"
  if (e?.name === "TimeoutError") return `TimeoutError: no answer in time`
  // Node's fetch says only "fetch failed"; the reason is in its cause
  const detail = e?.cause?.message || e?.message || ""
  return e?.name ? `${e.name}: ${detail}`.trim() : String(err)
}

/** What the notice uses of OpenCode's client (the SDK's `tui.showToast` and `app.log`). */
export type NoticeClient = {
  tui?: { showToast?: (o: { body: { title?: string; message: string; variant: "warning"; duration?: number } }) => Promise<unknown> }
  app?: { log?: (o: { body: { service: string; level: "warn"; message: string } }) => Promise<unknown> }
}

export const makeNotice = (client: NoticeClient | undefined, write: (line: string) => void = (l) => process.stderr.write(l)): Notice => {
  const last = new Map<string, number>()
  return (key, message) => {
    const now = Date.now()
    if (now - (last.get(key) ?? -Infinity) < 600_000) return
    last.set(key, now)
    const line = `[neuralgentics] ${message}`
    if (isMainThread) write(line + "\n")
    else client?.tui?.showToast?.({ body: { title: "Neuralgentics", message, variant: "warning", duration: 8000 } })?.catch?.(() => {})
    try {
      client?.app?.log?.({ body: { service: "neuralgentics", level: "warn", message: line } })?.catch?.(() => {})
    } catch {
      // the log is a copy: losing it must not break the session
    }
  }
}

export class Service {
  readonly base: string
  readonly brokerBase: string
  readonly brokerMode: string
  readonly timeoutMs: number
  readonly tokenFile: string
  readonly projectCredential: boolean
  /** The memory generation the last answer of memini-core named (memini/generation.py): it
   * changes with every committed memory write, so what was built from memories before is stale. */
  memoryGeneration?: string

  constructor(
    private readonly env: Env,
    options: Options,
    private readonly notice: Notice,
  ) {
    this.base = (env.NEURALGENTICS_SERVICE_URL || options.service_url || "http://127.0.0.1:8900").replace(/\/+$/, "")
    this.brokerBase = (env.NEURALGENTICS_BROKER_URL || options.broker_url || "http://127.0.0.1:8901").replace(/\/+$/, "")
    this.brokerMode = options.broker || "stdio"
    const ms = Number(env.NEURALGENTICS_PLUGIN_TIMEOUT_MS) || Number(options.timeout_ms)
    this.timeoutMs = ms > 0 ? ms : 5000
    this.tokenFile = tokenFilePath(env, options)
    this.projectCredential = typeof options.credential_file === "string" && options.credential_file !== ""
  }

  /** Storing a memory embeds it, and the first embedding of a fresh service loads the model. */
  get writeTimeoutMs(): number {
    return Math.max(this.timeoutMs, 10000)
  }

  token(): string | undefined {
    if (this.env.NEURALGENTICS_TOKEN && !this.projectCredential) return this.env.NEURALGENTICS_TOKEN
    try {
      return readFileSync(this.tokenFile, "utf8").trim() || undefined
    } catch {
      return undefined // no service ever ran with this config dir: calls answer 401, noticed
    }
  }

  // the plugin holds the routing matrix the installer wrote (ng/routing.ts)
  routingLocal = false
  // memini-core did not answer the last call (or the health check): the memory tools are
  // offered as one line saying so (ng/tools.ts), until a call gets through again
  unreachable = false

  /** The service is not answering: say so once, in words that say what the session loses. */
  down(why: string): void {
    this.unreachable = true
    const routing = this.routingLocal
      ? "delegations are checked against the installed routing matrix by keyword rules only (routing checked locally)"
      : "delegations are not checked against the routing matrix (routing unchecked)"
    this.notice(
      "memini-down",
      `memini-core is not answering at ${this.base} (${why}): this session runs without memory, and ${routing}. Start it: neuralgentics up`,
    )
  }

  async call<T = unknown>(method: "GET" | "POST", path: string, body?: Json, ms = this.timeoutMs, who?: Who): Promise<Answer<T>> {
    const headers: Record<string, string> = { accept: "application/json, text/markdown, text/plain" }
    if (who?.agent) headers["x-neuralgentics-agent"] = who.agent.slice(0, 200)
    if (who?.session) headers["x-neuralgentics-session"] = who.session.slice(0, 200)
    if (body !== undefined) headers["content-type"] = "application/json"
    const bearer = this.token()
    if (bearer) headers.authorization = `Bearer ${bearer}`
    let res: Response
    try {
      res = await fetch(this.base + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(ms),
      })
    } catch (err) {
      const why = failure(err)
      this.down(why)
      return { ok: false, status: 0, body: undefined, down: true, error: why }
    }
    const generation = res.headers.get("x-neuralgentics-memory-generation")
    if (generation) this.memoryGeneration = generation
    const text = await res.text().catch(() => "")
    let parsed: unknown = text
    if ((res.headers.get("content-type") || "").includes("json")) {
      try {
        parsed = text ? JSON.parse(text) : {}
      } catch {
        parsed = text
      }
    }
    this.unreachable = res.status === 503
    if (res.ok) return { ok: true, status: res.status, body: parsed as T }
    const problem = problemOf(parsed)?.message
    const message = typeof problem === "string" ? problem : text.slice(0, 300)
    if (res.status === 401) {
      const from = this.env.NEURALGENTICS_TOKEN && !this.projectCredential ? "NEURALGENTICS_TOKEN" : this.tokenFile
      this.notice(
        "unauthorized",
        `memini-core at ${this.base} refused the credential (401; read from ${from}): this session runs without Neuralgentics. Run \`neuralgentics opencode install\` again, or restart the services`,
      )
    } else if (res.status >= 500) {
      this.notice(`status-${res.status}`, `memini-core answered ${res.status} to ${method} ${path}: ${message}`)
    }
    return { ok: false, status: res.status, body: parsed, down: res.status === 503, error: message }
  }

  /** Both services answer `/health` without a token; one line for each that does not. */
  async checkHealth(): Promise<void> {
    const probe = async (url: string): Promise<string | undefined> => {
      try {
        const r = await fetch(url, { signal: AbortSignal.timeout(Math.min(this.timeoutMs, 2000)) })
        return r.ok ? undefined : `HTTP ${r.status}`
      } catch (err) {
        return failure(err)
      }
    }
    const [memini, broker] = await Promise.all([
      probe(this.base + "/health"),
      this.brokerMode === "http" ? probe(this.brokerBase + "/health") : Promise.resolve(undefined),
    ])
    if (memini) this.down(memini)
    if (broker)
      this.notice(
        "broker-down",
        `the broker is not answering at ${this.brokerBase} (${broker}): its MCP tools are missing from this session. Start it: neuralgentics up`,
      )
  }
}
