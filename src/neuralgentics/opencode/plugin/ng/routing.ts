/**
 * The routing matrix applied here, while memini-core does not answer (fail closed).
 *
 * `neuralgentics opencode install` writes the matrix as the orchestrator resolves it for the
 * project (built-in, user and project layers) into the plugin options as `routing`
 * (orchestrator/local_matrix.py). The text is scored by the keyword rules as the service's
 * classifier scores them with similarity off (the embedding model is not in the plugin), and the
 * agent checked as the service's Router.check does: an agent outside the roster is refused; one
 * every recognised candidate type forbids is refused, naming the primary; a text no keyword rule
 * recognises is left to the roster check alone (what the service would decide by similarity
 * cannot be told here, and a session with its services down must still work).
 */
export type LocalType = { id: string; label: string; primary: string; forbidden: string[]; keywords: [string, number][] }
export type LocalMatrixDoc = {
  version: number
  agents: string[]
  keyword: number
  keyword_cap: number
  temperature: number
  ambiguity_margin: number
  types: LocalType[]
}
export type Verdict = { allowed: boolean; reason: string; suggested: string[] }

const VERSION = 1

type Compiled = { type: LocalType; rules: [RegExp, number][] }

export class LocalMatrix {
  private readonly types: Compiled[]

  private constructor(private readonly doc: LocalMatrixDoc) {
    this.types = doc.types.map((type) => ({
      type,
      rules: type.keywords.flatMap(([pattern, weight]): [RegExp, number][] => {
        try {
          return [[new RegExp(pattern, "i"), Number(weight)]]
        } catch {
          return [] // a Python-only construct: that rule is the service's alone
        }
      }),
    }))
  }

  /** The matrix from the plugin options, or undefined when there is none this plugin reads. */
  static from(value: unknown): LocalMatrix | undefined {
    const doc = value as LocalMatrixDoc | undefined
    if (!doc || typeof doc !== "object" || doc.version !== VERSION) return undefined
    if (!Array.isArray(doc.agents) || !Array.isArray(doc.types)) return undefined
    return new LocalMatrix(doc)
  }

  /** The candidate types (best first; two when the scores are close), as TaskClassifier picks them. */
  private candidates(text: string): { type: LocalType; kw: number }[] {
    const d = this.doc
    const scored = this.types.map(({ type, rules }) => {
      let kw = 0
      for (const [re, weight] of rules) if (re.test(text)) kw += weight
      return { type, kw: Math.min(kw, d.keyword_cap) }
    })
    const scores = scored.map((s) => d.keyword * s.kw)
    const top = Math.max(...scores)
    const exp = scores.map((x) => Math.exp((x - top) / d.temperature))
    const sum = exp.reduce((a, b) => a + b, 0)
    const ranked = scored.map((s, i) => ({ ...s, p: exp[i] / sum })).sort((a, b) => b.kw - a.kw)
    const [best, second] = ranked
    const ambiguous = second !== undefined && best.p - second.p < d.ambiguity_margin
    const candidates = ambiguous ? [best, second] : [best]
    // recognised when a keyword rule of a candidate matched (TaskClassifier's rule, similarity off)
    return candidates.some((c) => c.kw > 0) ? candidates : []
  }

  /** Whether `agent` may take `task`, as Router.check decides it with the keyword half alone. */
  check(task: string, agent: string): Verdict {
    const d = this.doc
    const candidates = this.candidates(task)
    const primaries = [...new Set(candidates.map((c) => c.type.primary))]
    if (!d.agents.includes(agent))
      return {
        allowed: false,
        reason: `unknown agent '${agent}'; the roster has: ${d.agents.join(", ")} (add it to .neuralgentics/roster.yaml to use it)`,
        suggested: primaries,
      }
    if (!candidates.length) return { allowed: true, reason: "no keyword rule of the matrix names this task", suggested: [] }
    const refusals: string[] = []
    for (const { type } of candidates) {
      if (!type.forbidden.includes(agent))
        return { allowed: true, reason: `${agent} ${agent === type.primary ? "is the primary agent" : "is not forbidden"} for ${type.label} (${type.id})`, suggested: [] }
      refusals.push(`${type.label} (${type.id}) forbids ${agent}`)
    }
    return { allowed: false, reason: refusals.join("; "), suggested: primaries }
  }
}
