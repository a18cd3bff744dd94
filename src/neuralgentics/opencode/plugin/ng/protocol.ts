/**
 * Delegations through OpenCode's `task` tool run the orchestrator's 8 steps (POST
 * /orchestrator/tasks, then /orchestrator/tasks/{id}/step):
 *
 *   tool.execute.before(task): intake, recall, classify, route (a forbidden agent throws: OpenCode
 *     blocks the call and the model reads why and whom to use), context (the package the subagent
 *     gets, so it is not built twice), delegate.
 *   tool.execute.after(task): for a type the matrix verifies, the result waits for the verifier;
 *     the next `task` to one of the verifiers is that verification, and its `VERDICT: pass|fail`
 *     decides verify; then return stores the result, linked DERIVED_FROM to the memories the
 *     context used, which gain trust only when the task succeeded. A type without a verifier
 *     goes straight to verify (not required) and return.
 *
 * When memini-core does not answer, the matrix the installer wrote into the plugin options is
 * applied here (ng/routing.ts): a forbidden delegation is refused all the same, naming the agent
 * to use; an allowed one goes ahead, not recorded, and the model and the user are told so.
 */
import { LocalMatrix } from "./routing.ts"
import { type Json, problemOf, type Service } from "./service.ts"

type Work = { kind: "work"; taskId: string; agent: string; verifyWith: string[]; label: string }
type Verify = { kind: "verify"; taskId: string; verifier: string }
type Unchecked = { kind: "unchecked"; why: string; local?: string }
type CallEntry = Work | Verify | Unchecked
type Awaiting = { taskId: string; agent: string; verifyWith: string[]; label: string; summary: string }
/** A task record as GET /orchestrator/tasks lists it: the fields read here. */
type TaskRow = { id?: unknown; agent?: unknown; task_type?: unknown; waiting_for?: string[]; result_summary?: unknown }
/** What a protocol step answers (POST /orchestrator/tasks/{id}/step): its output. */
type StepAnswer = { output?: { verify_with?: unknown; label?: unknown; task_type?: unknown; markdown?: unknown } }
type SessionTasks = {
  // tasks refused at route, kept so the same delegation to the right agent continues the record
  open: Map<string, string>
  awaiting?: Awaiting
  redelegate?: Awaiting
  // asked the service once for a task of this session left waiting for its verification
  // (by an earlier OpenCode process: `opencode run --continue`, a reopened TUI)
  synced?: boolean
}

const MAX_SUMMARY_CHARS = 20000
const MAX_PENDING = 200

/** The subagent's answer inside OpenCode's `<task …><task_result>…</task_result></task>`. */
export const taskResult = (output: unknown): string => {
  const text = typeof output === "string" ? output : JSON.stringify(output ?? "")
  const m = /<task_result>\n?([\s\S]*?)\n?<\/task_result>/.exec(text)
  return (m ? m[1] : text).trim()
}

/** A verifier's verdict: `VERDICT: pass` / `VERDICT: fail …` (the last one counts); none given
 * counts as a pass, noted as such, since the verifier raised nothing. */
export const verdictOf = (text: string): { passed: boolean; explicit: boolean } => {
  const all = [...text.matchAll(/VERDICT\s*:\s*\**\s*(pass|fail)/gi)]
  if (!all.length) return { passed: true, explicit: false }
  return { passed: all[all.length - 1][1].toLowerCase() === "pass", explicit: true }
}

/** A refused delegation: OpenCode blocks the call and the model reads why and whom to use. */
const refuse = (target: string, reason: string, suggested: string[], note?: string): never => {
  const instead = suggested.find((a) => a !== target)
  throw new Error(
    `Neuralgentics routing: agent "${target}" may not take this task: ${reason.replace(/\.$/, "")}` +
      (note ? ` (${note})` : "") +
      "." +
      (instead ? ` Delegate it to "${instead}": call the task tool again with subagent_type "${instead}".` : ""),
  )
}

export class Delegations {
  private readonly sessions = new Map<string, SessionTasks>()
  private readonly calls = new Map<string, CallEntry>()
  // context packages built by step 5, waiting for the subagent's session to start
  private readonly pending: { agent: string; prompt: string; markdown: string }[] = []

  constructor(
    private readonly svc: Service,
    private readonly projectDir: string,
    private readonly project: string,
    private readonly matrix?: LocalMatrix,
  ) {}

  private session(id: string): SessionTasks {
    let s = this.sessions.get(id)
    if (!s) {
      s = { open: new Map() }
      this.sessions.set(id, s)
      if (this.sessions.size > 500) this.sessions.delete(this.sessions.keys().next().value as string)
    }
    return s
  }

  private async step(taskId: string, step: string, data: Json = {}) {
    return this.svc.call<StepAnswer>("POST", `/orchestrator/tasks/${encodeURIComponent(taskId)}/step`, { step, data }, this.svc.writeTimeoutMs)
  }

  /** A task of this session still waiting for its verification (the service keeps it, and the
   * agent's answer): the next delegation to one of its verifiers verifies it. */
  private async sync(sessionID: string, s: SessionTasks): Promise<void> {
    const res = await this.svc.call<{ tasks?: TaskRow[] }>("GET", `/orchestrator/tasks?session=${encodeURIComponent(sessionID)}&limit=20`)
    if (!res.ok) return // down: nothing to resume; asked again on the next delegation
    s.synced = true
    const tasks = Array.isArray(res.body?.tasks) ? res.body.tasks : []
    const t = tasks.find(
      (x): x is TaskRow & { waiting_for: string[]; result_summary: string } =>
        Array.isArray(x?.waiting_for) && x.waiting_for.length > 0 && typeof x.result_summary === "string",
    )
    if (t)
      s.awaiting = { taskId: String(t.id), agent: String(t.agent), verifyWith: t.waiting_for, label: String(t.task_type), summary: t.result_summary }
  }

  /** The package step 5 built for this agent and prompt (taken once), for the subagent's session. */
  takeContext(agent: string | undefined, text: string): string | undefined {
    const t = text.trim()
    const i = this.pending.findIndex((p) => p.agent === agent && (t === p.prompt || t.includes(p.prompt)))
    if (i < 0) return undefined
    return this.pending.splice(i, 1)[0].markdown
  }

  /** memini-core could not check it: the installed matrix decides here (a refusal throws). */
  private unchecked(callID: string, answer: { status: number; error: string }, task: string, target: string): void {
    const why = answer.status ? `memini-core answered ${answer.status}: ${answer.error}` : `memini-core did not answer: ${answer.error}`
    const verdict = this.matrix?.check(task, target)
    if (verdict && !verdict.allowed) refuse(target, verdict.reason, verdict.suggested, "checked by the plugin: memini-core is down")
    this.calls.set(callID, { kind: "unchecked", why, local: verdict?.reason })
  }

  async before(sessionID: string, callID: string, args: Json): Promise<void> {
    const target = typeof args.subagent_type === "string" ? args.subagent_type : ""
    const prompt = typeof args.prompt === "string" ? args.prompt : ""
    // The prompt is the task; the description is its 3-5 word title. Classified alone, the
    // prompt keeps its opening words where the matrix's rules look for them ("Where is …").
    const task = (prompt || (typeof args.description === "string" ? args.description : "")).trim()
    if (!task || !target) return // OpenCode itself rejects a task call without them
    const s = this.session(sessionID)
    if (!s.awaiting && !s.synced) await this.sync(sessionID, s)

    if (s.awaiting && s.awaiting.verifyWith.includes(target)) {
      this.calls.set(callID, { kind: "verify", taskId: s.awaiting.taskId, verifier: target })
      return
    }
    if (s.redelegate && s.redelegate.agent === target) {
      const again = await this.step(s.redelegate.taskId, "delegate", { agent: target })
      if (again.ok) {
        const r = s.redelegate
        s.redelegate = undefined
        this.calls.set(callID, { kind: "work", taskId: r.taskId, agent: target, verifyWith: r.verifyWith, label: r.label })
        return
      }
      if (again.down) return this.unchecked(callID, again, task, target)
      // delegated too often: close it as failed, and treat this call as a new task
      await this.step(s.redelegate.taskId, "return", { summary: s.redelegate.summary, outcome: "failed" })
      s.redelegate = undefined
    }

    let taskId = s.open.get(task)
    if (!taskId) {
      const created = await this.svc.call<{ id?: unknown }>(
        "POST",
        "/orchestrator/tasks",
        { task: task.slice(0, 20000), session: sessionID, project_dir: this.projectDir || undefined, project: this.project },
      )
      if (!created.ok) return this.unchecked(callID, created, task, target)
      taskId = String(created.body.id)
      for (const step of ["recall", "classify"]) {
        const r = await this.step(taskId, step)
        if (!r.ok) return this.unchecked(callID, r, task, target)
      }
    }
    const route = await this.step(taskId, "route", { agent: target })
    if (!route.ok) {
      const problem = problemOf(route.body)
      if (route.status === 409 && problem?.code === "step_refused") {
        s.open.set(task, taskId)
        const suggested: string[] = Array.isArray(problem.suggested_agents) ? problem.suggested_agents : []
        const reason = String(problem.message || "")
          .replace(/^agent '[^']*' refused: /, "")
          .replace(/: delegate to .* instead\.?$/, "")
        refuse(target, reason, suggested)
      }
      return this.unchecked(callID, route, task, target)
    }
    s.open.delete(task)
    const verifyWith: string[] = Array.isArray(route.body?.output?.verify_with) ? route.body.output.verify_with : []
    const label = String(route.body?.output?.label ?? route.body?.output?.task_type ?? "")
    const context = await this.step(taskId, "context")
    if (context.ok && typeof context.body?.output?.markdown === "string") {
      this.pending.push({ agent: target, prompt: prompt.trim() || task.trim(), markdown: context.body.output.markdown })
      if (this.pending.length > MAX_PENDING) this.pending.shift()
    }
    const delegated = await this.step(taskId, "delegate", { agent: target })
    if (!delegated.ok) return this.unchecked(callID, delegated, task, target)
    this.calls.set(callID, { kind: "work", taskId, agent: target, verifyWith, label })
  }

  /** Returns a note for the model, appended to the task's output (undefined: none). */
  async after(sessionID: string, callID: string, output: unknown): Promise<string | undefined> {
    const entry = this.calls.get(callID)
    if (!entry) return undefined
    this.calls.delete(callID)
    if (entry.kind === "unchecked")
      return entry.local
        ? `[Neuralgentics] routing checked by the plugin (${entry.why}): ${entry.local}; by keyword rules only, and the result is not remembered.`
        : `[Neuralgentics] routing unchecked (${entry.why}): this delegation was not checked against the routing matrix and its result is not remembered.`
    const s = this.session(sessionID)
    const result = taskResult(output).slice(0, MAX_SUMMARY_CHARS) || "(no output)"

    if (entry.kind === "work") {
      if (entry.verifyWith.length) {
        s.awaiting = { taskId: entry.taskId, agent: entry.agent, verifyWith: entry.verifyWith, label: entry.label, summary: result }
        // kept by the service too: a later turn, `task close` or `task resume` finds it there
        await this.svc.call("POST", `/orchestrator/tasks/${encodeURIComponent(entry.taskId)}/result`, { summary: result }, this.svc.writeTimeoutMs)
        return (
          `[Neuralgentics] ${entry.label} results are verified by ${entry.verifyWith.join(" or ")}: delegate the check ` +
          `(task tool, subagent_type "${entry.verifyWith[0]}"), asking for "VERDICT: pass" or "VERDICT: fail: why". ` +
          `The result is remembered once it passes.`
        )
      }
      const verified = await this.step(entry.taskId, "verify")
      const returned = verified.ok ? await this.step(entry.taskId, "return", { summary: result, outcome: "succeeded" }) : verified
      return returned.ok ? `[Neuralgentics] result remembered (task ${entry.taskId}).` : undefined
    }

    const awaiting = s.awaiting
    s.awaiting = undefined
    if (!awaiting || awaiting.taskId !== entry.taskId) return undefined
    const verdict = verdictOf(result)
    const notes = (verdict.explicit ? "" : "no explicit verdict; ") + result
    const verified = await this.step(entry.taskId, "verify", {
      verified_by: entry.verifier,
      passed: verdict.passed,
      notes: notes.slice(0, MAX_SUMMARY_CHARS),
    })
    if (!verified.ok) return undefined
    if (!verdict.passed) {
      s.redelegate = awaiting
      return `[Neuralgentics] verification by ${entry.verifier} failed: delegate the fix to "${awaiting.agent}" again (task tool, subagent_type "${awaiting.agent}"), then have it verified.`
    }
    const returned = await this.step(entry.taskId, "return", { summary: awaiting.summary, outcome: "succeeded" })
    return returned.ok
      ? `[Neuralgentics] verified by ${entry.verifier}: pass. The result is remembered (task ${entry.taskId}).`
      : undefined
  }
}
