// The one token-file routine (plugin/ng/token_file.ts) the server plugin and the TUI brand
// share: its order and the platform folders, as the Python side resolves them. Pure: no
// service, no OpenCode.
import assert from "node:assert/strict"
import { homedir } from "node:os"
import { join } from "node:path"
import { test } from "node:test"

import { tokenFilePath } from "../../src/neuralgentics/opencode/plugin/ng/token_file.ts"

const home = homedir()

test("macOS, Linux and Windows default folders match platformdirs", () => {
  assert.equal(tokenFilePath({}, {}, "darwin"), join(home, "Library", "Application Support", "neuralgentics", "token"))
  assert.equal(tokenFilePath({}, {}, "linux"), join(home, ".config", "neuralgentics", "token"))
  assert.equal(tokenFilePath({ XDG_CONFIG_HOME: "/x" }, {}, "linux"), "/x/neuralgentics/token")
  assert.equal(tokenFilePath({ LOCALAPPDATA: "C:/L" }, {}, "win32"), join("C:/L", "neuralgentics", "neuralgentics", "token"))
})

test("the order: credential file, NEURALGENTICS_TOKEN_FILE, config dir, token_file option", () => {
  const env = { NEURALGENTICS_TOKEN_FILE: "~/t", NEURALGENTICS_CONFIG_DIR: "/cfg" }
  assert.equal(tokenFilePath(env, { credential_file: "/p/credential", token_file: "/o" }), "/p/credential")
  assert.equal(tokenFilePath(env, { token_file: "/o" }), join(home, "t"))
  assert.equal(tokenFilePath({ NEURALGENTICS_CONFIG_DIR: "/cfg" }, { token_file: "/o" }), "/cfg/token")
  assert.equal(tokenFilePath({}, { token_file: "~/o" }, "darwin"), join(home, "o"))
  assert.equal(tokenFilePath({}, { token_file: 3 }, "linux"), join(home, ".config", "neuralgentics", "token"))
})
