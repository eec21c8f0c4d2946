/**
 * Runs main.ts as a child process, the way `deno task start` does, and
 * reads its output line by line with a deadline.
 */
export const START_ARGS = [
  "run",
  "--allow-net",
  "--allow-env",
  "--allow-read",
  "--allow-write",
  "--allow-sys=hostname",
  new URL("../../main.ts", import.meta.url).pathname,
];

/**
 * libfaketime's variables of this process (`LD_PRELOAD`, `FAKETIME…`), for a child started
 * with a cleared environment: it keeps the test's clock when the tests run with the clock moved
 * (`deno task test-ahead`). Empty otherwise.
 */
export function clockEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(Deno.env.toObject())) {
    if (name === "LD_PRELOAD" || name.startsWith("FAKETIME")) env[name] = value;
  }
  return env;
}

/** A free TCP port on 127.0.0.1 (bound, then released). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

export interface ServiceProcess {
  child: Deno.ChildProcess;
  lines: string[];
  /** Resolves with the first line matching `pattern`, or rejects after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  stop(signal?: Deno.Signal): Promise<Deno.CommandStatus>;
  /** Waits for the process to exit by itself. */
  exited(): Promise<Deno.CommandStatus>;
}

/** A module that makes the KV's queue and watch calls fail, as Deno Deploy and KV Connect do. */
export const NO_KV_QUEUES = new URL("./no_kv_queues.ts", import.meta.url).pathname;

export function startService(
  env: Record<string, string>,
  options: { preload?: string } = {},
): ServiceProcess {
  const args = options.preload
    ? [...START_ARGS.slice(0, -1), "--preload", options.preload, START_ARGS.at(-1)!]
    : START_ARGS;
  const child = new Deno.Command(Deno.execPath(), {
    args,
    env: { ...env, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    let buffer = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      const parts = buffer.split("\n");
      buffer = parts.pop()!;
      lines.push(...parts);
      waiters.forEach((w) => w());
    }
    if (buffer) lines.push(buffer);
    waiters.forEach((w) => w());
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  let stopped: Promise<Deno.CommandStatus> | undefined;
  const exited = async () => {
    const status = await child.status;
    await pumps;
    return status;
  };
  return {
    child,
    lines,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const line = lines.find((l) => pattern.test(l));
          if (line !== undefined) {
            cleanup();
            resolve(line);
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`Timed out waiting for ${pattern}; output:\n${lines.join("\n")}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    stop(signal: Deno.Signal = "SIGTERM") {
      stopped ??= (async () => {
        try {
          child.kill(signal);
        } catch {
          // already exited
        }
        return await exited();
      })();
      return stopped;
    },
    exited,
  };
}
