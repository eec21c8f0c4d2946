/**
 * jq 1.7.1 as a command, for tests that run shell text the way a reader's machine would:
 * jqlang's own jq, compiled to WebAssembly by the npm package jq-wasm (Debian 12's apt has
 * only jq 1.6, and npm has no package that installs a native jq 1.7 without downloading it
 * from elsewhere). This runs jq's own main() with this process's arguments, environment and
 * standard input, prints its output and exits with its status.
 *
 *   deno run -A --lock=tests/deno.lock tests/support/jq17.ts -n '1 + 1'
 *
 * The WebAssembly build has an in-memory file system, so the files the arguments name (for
 * --slurpfile, --rawfile, --from-file or as inputs) are copied into it at the same paths,
 * and the working directory is the same. jq-wasm keeps its file system, environment and
 * standard streams inside the module; one line added after its `callMain` export reaches
 * them, and a jq-wasm that no longer has that line fails here rather than running wrongly.
 */
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { jqWasmFile } from "../deps.ts";

const EXPORT = 'Module["callMain"] = callMain;';
// Runs while the module is defined, before its C runtime starts and reads the environment.
const REACH = 'Object.assign(ENV, Module["env"]); Module["__io"] = { FS, ' +
  "setStdin(b) { stdinBuffer = b; }, output: () => [stdoutBuffer, stderrBuffer] };";

interface JqModule {
  callMain(args: string[]): number;
  __io: {
    FS: {
      mkdirTree(path: string): void;
      writeFile(path: string, data: Uint8Array): void;
      chdir(path: string): void;
    };
    setStdin(bytes: Uint8Array): void;
    output(): [Uint8Array, Uint8Array];
  };
}

async function loadJq(env: Record<string, string>): Promise<JqModule> {
  const path = new URL(await jqWasmFile()).pathname;
  const source = await Deno.readTextFile(path);
  if (!source.includes(EXPORT)) throw new Error(`jq-wasm changed: no "${EXPORT}" in ${path}`);
  const module = { exports: {} as unknown };
  new Function(
    "module",
    "exports",
    "require",
    "__filename",
    "__dirname",
    source.replace(
      EXPORT,
      `${EXPORT} ${REACH}`,
    ),
  )(module, module.exports, createRequire(path), path, dirname(path));
  return await (module.exports as (arg: { env: unknown }) => Promise<JqModule>)({ env });
}

async function readStdin(): Promise<Uint8Array> {
  if (Deno.stdin.isTerminal()) return new Uint8Array(0);
  return new Uint8Array(await new Response(Deno.stdin.readable).arrayBuffer());
}

const cwd = Deno.cwd();
const jq = await loadJq({ ...Deno.env.toObject(), PWD: cwd });
const { FS } = jq.__io;
for (const arg of Deno.args) {
  const path = resolve(cwd, arg);
  const info = await Deno.stat(path).catch(() => null);
  if (!info?.isFile) continue;
  FS.mkdirTree(dirname(path));
  FS.writeFile(path, await Deno.readFile(path));
}
FS.mkdirTree(cwd);
FS.chdir(cwd);
jq.__io.setStdin(await readStdin());
const status = jq.callMain([...Deno.args]);
const [stdout, stderr] = jq.__io.output();
for (const [stream, bytes] of [[Deno.stdout, stdout], [Deno.stderr, stderr]] as const) {
  for (let done = 0; done < bytes.length;) done += await stream.write(bytes.subarray(done));
}
Deno.exit(status);
