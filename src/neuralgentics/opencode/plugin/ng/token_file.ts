/**
 * Where the local credential is, for the server plugin (`ng/service.ts`) and the TUI brand
 * (`neuralgentics-brand.tsx`, which the installer gives its own copy of this file): one
 * routine, so the two cannot disagree (they did on macOS). The order is the Python side's
 * (`credentials.token_location`): the project credential the installer wrote, then
 * NEURALGENTICS_TOKEN_FILE, <NEURALGENTICS_CONFIG_DIR>/token, the `token_file` option, and
 * the platform's config folder. Only `node:` imports: OpenCode compiles the brand without
 * an npm install.
 */
import { homedir } from "node:os"
import { join } from "node:path"

type Env = Record<string, string | undefined>
type TokenOptions = { credential_file?: unknown; token_file?: unknown }

export const expandHome = (p: string): string => (p.startsWith("~/") ? join(homedir(), p.slice(2)) : p)

/** platformdirs' user_config_dir("neuralgentics"), as the Python side resolves it. */
export const defaultTokenFile = (env: Env, platform: string = process.platform): string => {
  const home = homedir()
  if (platform === "darwin") return join(home, "Library", "Application Support", "neuralgentics", "token")
  if (platform === "win32") return join(env.LOCALAPPDATA || join(home, "AppData", "Local"), "neuralgentics", "neuralgentics", "token")
  return join(env.XDG_CONFIG_HOME || join(home, ".config"), "neuralgentics", "token")
}

const text = (v: unknown): string | undefined => (typeof v === "string" && v ? v : undefined)

export const tokenFilePath = (env: Env, options: TokenOptions, platform: string = process.platform): string => {
  const credential = text(options.credential_file)
  if (credential) return expandHome(credential)
  if (env.NEURALGENTICS_TOKEN_FILE) return expandHome(env.NEURALGENTICS_TOKEN_FILE)
  if (env.NEURALGENTICS_CONFIG_DIR) return join(expandHome(env.NEURALGENTICS_CONFIG_DIR), "token")
  const option = text(options.token_file)
  if (option) return expandHome(option)
  return defaultTokenFile(env, platform)
}
