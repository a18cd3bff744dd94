/** @jsxImportSource @opentui/solid */
/**
 * Neuralgentics brand for the OpenCode TUI (1.18+): "Neuralgentics powered by OpenCode <version>"
 * with live status, in the session sidebar's footer and the home screen's footer.
 *
 * A TUI plugin, listed in tui.json by `neuralgentics opencode install`. OpenCode compiles this
 * file itself and serves `@opentui/solid` and `solid-js` to it, so it needs no npm install (the
 * `@opencode-ai/plugin/tui` import is types only, erased when OpenCode compiles it).
 * `sidebar_footer` and `home_footer` are single-winner slots: the lowest `order` wins and the
 * built-in footers register at 100, so order 0 replaces them. The built-in home footer shows
 * the directory and the MCP status: this one shows them too.
 *
 * Status is polled from memini-core (`/health`, `/memory?project=`) and the broker's HTTP front
 * (`/servers`) with the local credential, one request at a time per service, each with a
 * short timeout, never awaited by the render: a service that is down shows "offline".
 *
 * Options (from tui.json; the environment overrides them, as for the server plugin):
 *   service_url  memini-core   (NEURALGENTICS_SERVICE_URL; default http://127.0.0.1:8900)
 *   broker_url   broker HTTP   (NEURALGENTICS_BROKER_URL;  default http://127.0.0.1:8901)
 *   broker       "http" | "stdio": with stdio OpenCode runs its own broker, reported from
 *                OpenCode's MCP state instead of the shared broker's
 *   token_file   where the token is (NEURALGENTICS_TOKEN, NEURALGENTICS_TOKEN_FILE first)
 *   poll_ms      how often to ask (NEURALGENTICS_TUI_POLL_MS; default 5000, at least 500)
 *   project      memories are counted for it (NEURALGENTICS_PROJECT; default the worktree's name)
 */
import type { TuiPlugin, TuiPluginModule, TuiSidebarMcpItem } from "@opencode-ai/plugin/tui"
import { createSignal, For, Show } from "solid-js"
import { readFileSync } from "node:fs"
import { homedir } from "node:os"
import { tokenFilePath } from "./ng/token_file.ts"

type Env = Record<string, string | undefined>
type Health = { state: "checking" | "offline" | "refused" | "up"; detail?: string }
/** A row of the broker's GET /servers (the fields the status reads). */
type BrokerServer = { state?: string; first_class?: boolean }

/** `body[key]` when `body` is a JSON object: the services' answers are read, not trusted. */
const field = (body: unknown, key: string): unknown =>
  body !== null && typeof body === "object" ? (body as Record<string, unknown>)[key] : undefined

const abbreviateHome = (p: string): string => {
  const home = homedir()
  return home && (p === home || p.startsWith(home + "/")) ? "~" + p.slice(home.length) : p
}

const tui: TuiPlugin = async (api, options) => {
  const env: Env = (globalThis as { process?: { env: Env } }).process?.env ?? {}
  const opt = (options ?? {}) as Record<string, unknown>
  const str = (v: unknown): string | undefined => (typeof v === "string" && v ? v : undefined)
  const serviceUrl = (env.NEURALGENTICS_SERVICE_URL || str(opt.service_url) || "http://127.0.0.1:8900").replace(/\/+$/, "")
  const brokerUrl = (env.NEURALGENTICS_BROKER_URL || str(opt.broker_url) || "http://127.0.0.1:8901").replace(/\/+$/, "")
  const brokerMode = str(opt.broker) === "stdio" ? "stdio" : "http"
  const pollMs = Math.max(500, Number(env.NEURALGENTICS_TUI_POLL_MS) || Number(opt.poll_ms) || 5000)
  // the server plugin's routine (ng/token_file.ts, copied beside this file by the installer)
  const tokenFile = tokenFilePath(env, { token_file: opt.token_file })
  // Read on every poll: a service started after the TUI (a new token) is picked up.
  const token = (): string | undefined => {
    if (env.NEURALGENTICS_TOKEN) return env.NEURALGENTICS_TOKEN
    try {
      return readFileSync(tokenFile, "utf8").trim() || undefined
    } catch {
      return undefined
    }
  }
  const project = (): string => {
    if (env.NEURALGENTICS_PROJECT) return env.NEURALGENTICS_PROJECT
    if (str(opt.project)) return str(opt.project) as string
    const path = api.state?.path ?? {}
    const root = path.worktree && path.worktree !== "/" ? path.worktree : path.directory
    return (root ? String(root).split(/[\\/]/).filter(Boolean).pop() : undefined) || "default"
  }
  // the repository's key counts the memories; people read its folder name (issue 28)
  const projectName = (): string => str(opt.project_name) || project()

  const [memory, setMemory] = createSignal<Health>({ state: "checking" })
  const [broker, setBroker] = createSignal<Health>({ state: "checking" })
  const [stalled, setStalled] = createSignal(0)

  /** GET a JSON route: the body, or the reason it could not be had. */
  const get = async (url: string): Promise<{ ok: true; body: unknown } | { ok: false; why: Health["state"] }> => {
    const headers: Record<string, string> = { accept: "application/json" }
    const bearer = token()
    if (bearer) headers.authorization = `Bearer ${bearer}`
    try {
      const res = await fetch(url, { headers, signal: AbortSignal.timeout(1500) })
      if (res.status === 401) return { ok: false, why: "refused" }
      if (!res.ok) return { ok: false, why: "offline" }
      return { ok: true, body: await res.json() }
    } catch {
      return { ok: false, why: "offline" }
    }
  }

  const pollMemory = async (): Promise<void> => {
    const health = await get(serviceUrl + "/health")
    if (!health.ok) {
      setMemory({ state: health.why })
      return
    }
    const list = await get(`${serviceUrl}/memory?limit=1&project=${encodeURIComponent(project())}`)
    if (!list.ok) {
      setMemory({ state: list.why === "refused" ? "refused" : "up" })
      return
    }
    const n = Number(field(list.body, "total") ?? 0)
    setMemory({ state: "up", detail: `${n} ${n === 1 ? "memory" : "memories"}` })
    // tasks stuck at verify (the model skipped the check): `neuralgentics task list` says more
    const tasks = await get(`${serviceUrl}/orchestrator/tasks?stalled=true`)
    const stalledTasks = tasks.ok ? field(tasks.body, "tasks") : undefined
    setStalled(Array.isArray(stalledTasks) ? stalledTasks.length : 0)
  }

  const pollBroker = async (): Promise<void> => {
    if (brokerMode === "stdio") return // read from OpenCode's MCP state at render time
    const res = await get(brokerUrl + "/servers")
    if (!res.ok) {
      setBroker({ state: res.why })
      return
    }
    const rows: unknown[] = Array.isArray(res.body) ? res.body : []
    const servers = rows.filter(
      (s): s is BrokerServer => s !== null && typeof s === "object" && !(s as BrokerServer).first_class,
    )
    const warm = servers.filter((s) => s.state === "warm").length
    setBroker({ state: "up", detail: `${warm}/${servers.length} warm` })
  }

  // One poll in flight at a time; the next starts pollMs after the last one finished.
  let timer: ReturnType<typeof setTimeout> | undefined
  let stopped = false
  const poll = async (): Promise<void> => {
    await Promise.allSettled([pollMemory(), pollBroker()])
    if (!stopped) timer = setTimeout(poll, pollMs)
  }
  void poll()
  api.lifecycle.onDispose(() => {
    stopped = true
    if (timer) clearTimeout(timer)
  })

  const theme = () => api.theme.current
  // an OpenCode without MCP state in its TUI API shows no MCP status
  const mcp = (): ReadonlyArray<TuiSidebarMcpItem> => (typeof api.state?.mcp === "function" ? api.state.mcp() : [])

  const brokerText = (): string => {
    if (brokerMode === "stdio") {
      const own = mcp().find((m) => m.name === "neuralgentics")
      if (!own) return "broker not configured"
      return own.status === "connected" ? "broker connected" : `broker ${own.status}`
    }
    const b = broker()
    if (b.state === "up") return `broker ${b.detail}`
    if (b.state === "refused") return "broker refused the token"
    return `broker ${b.state}`
  }
  const memoryText = (): string => {
    const m = memory()
    if (m.state === "up") return m.detail ? `${m.detail} in ${projectName()}` : "memory up"
    if (m.state === "refused") return "memory refused the token"
    return `memory ${m.state}`
  }
  /** The status as short parts: one line in the home footer, one row each in the sidebar. */
  const statusParts = (): string[] => {
    const m = memory().state
    const b = brokerMode === "stdio" ? "stdio" : broker().state
    if (m === "offline" && (b === "offline" || b === "stdio")) return ["services offline"]
    const lead = m === "up" && (b === "up" || b === "stdio") ? ["services up"] : []
    const n = m === "up" ? stalled() : 0
    // short: the home footer shares its line with OpenCode's start-up spinner
    const tasks = n ? [`${n} stalled ${n === 1 ? "task" : "tasks"}`] : []
    return [...lead, memoryText(), brokerText(), ...tasks]
  }
  const statusColor = () => {
    const m = memory().state
    if (m === "up") return theme().success
    if (m === "checking") return theme().textMuted
    return theme().warning
  }

  const Dot = () => <span style={{ fg: theme().success }}>•</span>
  const Brand = () => (
    <text fg={theme().textMuted}>
      <Dot /> <b>Neuralgentics</b> powered by <span style={{ fg: theme().text }}>OpenCode</span>{" "}
      <span>{api.app.version}</span>
    </text>
  )
  // The sidebar is 38 columns wide: the same words on two rows, broken where a reader expects.
  const SidebarBrand = () => (
    <box>
      <text fg={theme().textMuted}>
        <Dot /> <b>Neuralgentics</b>
      </text>
      <text fg={theme().textMuted}>
        {"  "}powered by <span style={{ fg: theme().text }}>OpenCode</span> <span>{api.app.version}</span>
      </text>
    </box>
  )
  const Status = () => (
    <text fg={theme().textMuted}>
      <span style={{ fg: statusColor() }}>●</span> <span>{statusParts().join(" · ")}</span>
    </text>
  )
  const SidebarStatus = () => (
    <box>
      <For each={statusParts()}>
        {(part, i) => (
          <text fg={theme().textMuted}>
            <span style={{ fg: i() === 0 ? statusColor() : theme().textMuted }}>{i() === 0 ? "●" : " "}</span>{" "}
            <span>{part}</span>
          </text>
        )}
      </For>
    </box>
  )
  const location = (directory?: string): string => {
    const dir = directory || api.state?.path?.directory || ""
    const branch = dir === api.state?.path?.directory ? api.state?.vcs?.branch : undefined
    const shown = abbreviateHome(dir)
    return branch ? `${shown}:${branch}` : shown
  }
  const McpStatus = () => {
    const list = () => mcp()
    const failed = () => list().some((m) => m.status === "failed")
    const connected = () => list().filter((m) => m.status === "connected").length
    return (
      <Show when={list().length > 0}>
        <text fg={theme().text}>
          <span style={{ fg: failed() ? theme().error : connected() > 0 ? theme().success : theme().textMuted }}>⊙ </span>
          <span>{connected()}</span> MCP <span style={{ fg: theme().textMuted }}>/status</span>
        </text>
      </Show>
    )
  }

  api.slots.register({
    order: 0,
    slots: {
      sidebar_footer(_ctx: unknown, props: { session_id?: string; directory?: string }) {
        const session = () => (props?.session_id ? api.state?.session?.get?.(props.session_id) : undefined)
        const dir = () => props?.directory || session()?.directory
        return (
          <box gap={0}>
            <text fg={theme().textMuted}>
              <span>{location(dir())}</span>
            </text>
            <SidebarBrand />
            <SidebarStatus />
          </box>
        )
      },
      home_footer() {
        return (
          <box width="100%" paddingTop={1} paddingBottom={1} paddingLeft={2} paddingRight={2} flexShrink={0}>
            <box flexDirection="row" gap={2}>
              <text fg={theme().textMuted}>
                <span>{location()}</span>
              </text>
              <McpStatus />
              <box flexGrow={1} />
              <Brand />
            </box>
            <box flexDirection="row">
              <box flexGrow={1} />
              <Status />
            </box>
          </box>
        )
      },
    },
  })
}

export default { id: "neuralgentics-brand", tui } satisfies TuiPluginModule
