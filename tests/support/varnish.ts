/**
 * A real Varnish (7.1 with vmod xkey from varnish-modules) on 127.0.0.1 for tests, running the
 * shipped deploy/varnish/default.vcl with only its backend port changed. Its work directory is
 * a fresh temporary directory, removed by `stop()`; the caller always stops it (`await using`
 * or a `finally`).
 */

/** The running Varnish. */
export interface TestVarnish {
  /** `http://127.0.0.1:<port>`: the cache's public URL. */
  url: string;
  port: number;
  /**
   * A second listening port that speaks the PROXY protocol (v1), so a test on 127.0.0.1 can
   * stand for a client elsewhere (`client.ip` is the address the PROXY line names).
   */
  proxyPort: number;
  /** Hard-purges every object tagged with one of `tags`; the number of objects purged. */
  purge(tags: string[]): Promise<number>;
  /** Everything varnishd printed so far. */
  output: string[];
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** The VCL the product ships. */
export const SHIPPED_VCL = new URL("../../deploy/varnish/default.vcl", import.meta.url).pathname;

/** Where Debian, Ubuntu, Fedora and source builds put Varnish's modules. */
const VMOD_DIRS = [
  "/usr/lib/x86_64-linux-gnu/varnish/vmods",
  "/usr/lib/aarch64-linux-gnu/varnish/vmods",
  "/usr/lib/varnish/vmods",
  "/usr/lib64/varnish/vmods",
  "/usr/local/lib/varnish/vmods",
];

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** The directory that holds vmod xkey (and, next to it, vmod std). */
async function vmodDir(): Promise<string> {
  for (const dir of VMOD_DIRS) {
    if (await exists(`${dir}/libvmod_xkey.so`)) return dir;
  }
  throw new Error(
    `vmod xkey not found in ${VMOD_DIRS.join(", ")}: install varnish and varnish-modules`,
  );
}

/** varnishd: on PATH, or in the sbin directory a user's PATH may leave out. */
async function varnishd(): Promise<string> {
  for (const path of ["/usr/sbin/varnishd", "/usr/local/sbin/varnishd"]) {
    if (await exists(path)) return path;
  }
  return "varnishd";
}

/** The shipped VCL with its backend on `port` instead of 8000. */
export async function vclFor(backendPort: number, vcl = SHIPPED_VCL): Promise<string> {
  const text = await Deno.readTextFile(vcl);
  const replaced = text.replace(/(\.port\s*=\s*)"8000";/, `$1"${backendPort}";`);
  if (replaced === text) throw new Error(`No backend port "8000" in ${vcl}`);
  return replaced;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** Starts varnishd in the foreground in front of 127.0.0.1:`backendPort`; resolves once it answers. */
export async function startVarnish(
  options: { backendPort: number; vcl?: string; startTimeoutMs?: number },
): Promise<TestVarnish> {
  const dir = await Deno.makeTempDir({ prefix: "varnish-" });
  // varnishd started as root runs its compiler and cache process as other users.
  await Deno.chmod(dir, 0o755);
  const vclPath = `${dir}/default.vcl`;
  await Deno.writeTextFile(vclPath, await vclFor(options.backendPort, options.vcl));
  await Deno.chmod(vclPath, 0o644);
  const vmods = await vmodDir();
  const port = freePort();
  const proxyPort = freePort();
  const child = new Deno.Command(await varnishd(), {
    args: [
      "-F",
      "-n",
      `${dir}/work`,
      "-a",
      `127.0.0.1:${port}`,
      "-a",
      `127.0.0.1:${proxyPort},PROXY`,
      "-f",
      vclPath,
      "-s",
      "malloc,64m",
      "-p",
      `vcl_path=${dir}`,
      "-p",
      `vmod_path=${vmods}`,
    ],
    // varnishd does not start under libfaketime (a recursive clock_gettime at its start), so
    // with the tests' clock moved (`deno task test-ahead`) it keeps the real one: only its own
    // TTLs read it, and those are relative.
    ...(Deno.env.get("FAKETIME") === undefined ? {} : { env: { LD_PRELOAD: "" } }),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output: string[] = [];
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      output.push(...chunk.split("\n").filter(Boolean));
    }
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  const url = `http://127.0.0.1:${port}`;

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      if (!exited) {
        child.kill("SIGTERM");
        const killer = setTimeout(() => {
          if (!exited) child.kill("SIGKILL");
        }, 5_000);
        await status;
        clearTimeout(killer);
      }
      await pumps;
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    })();
    return stopped;
  };

  const purge = async (tags: string[]) => {
    const res = await fetch(`${url}/`, {
      method: "PURGE",
      headers: { "xkey-purge": tags.join(" ") },
    });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`PURGE answered ${res.status}: ${body}`);
    return Number(res.headers.get("xkey-purged"));
  };

  // Ready when it answers a PURGE without tags (400 from the VCL, the backend never asked).
  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  try {
    while (true) {
      if (exited) throw new Error(`varnishd exited:\n${output.join("\n")}`);
      if (Date.now() > deadline) throw new Error(`varnishd did not answer:\n${output.join("\n")}`);
      try {
        const res = await fetch(`${url}/`, { method: "PURGE" });
        await res.body?.cancel();
        if (res.status === 400) break;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, port, proxyPort, purge, output, stop, [Symbol.asyncDispose]: stop };
}
