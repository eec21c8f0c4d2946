/**
 * Runs the verifier kit as a buyer does: a Deno subprocess that loads /verify.ts from the
 * running service (and may read and write files in `dir`), reaching 127.0.0.1 only.
 */
import { freshModuleCache } from "./served_modules.ts";
import type { TestServer } from "./server.ts";

export interface KitRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runKit(server: TestServer, dir: string, args: string[]): Promise<KitRun> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-lock",
      "--no-config",
      "--quiet",
      "--allow-net=127.0.0.1",
      `--allow-read=${dir}`,
      `--allow-write=${dir}`,
      `--allow-import=127.0.0.1:${server.port}`,
      `${server.baseUrl}/verify.ts`,
      ...args,
    ],
    cwd: dir,
    env: { NO_COLOR: "1", ...freshModuleCache(dir) },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout).trim(),
    stderr: new TextDecoder().decode(out.stderr).trim(),
  };
}

/** The `--pin …` arguments the kit printed after trusting a server on first use. */
export function printedPins(stdout: string): string[] {
  const match = stdout.match(/--pin jwks=(\S+) --pin log=(\S+)/);
  if (!match) throw new Error(`the kit printed no pins:\n${stdout}`);
  return ["--pin", `jwks=${match[1]}`, "--pin", `log=${match[2]}`];
}
