/**
 * Runs Redocly CLI (`lint`, the repository's redocly.yaml: the recommended
 * ruleset) on an OpenAPI document, under Deno's npm support, as Spectral is.
 */
export const REDOCLY = "npm:@redocly/cli@2.77.0";

export interface RedoclyProblem {
  ruleId: string;
  severity: "error" | "warn";
  message: string;
  location: Array<{ pointer?: string }>;
}

/** Lints `document`; returns every problem Redocly reports. */
export async function lintWithRedocly(document: unknown): Promise<RedoclyProblem[]> {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/openapi.json`;
    await Deno.writeTextFile(file, JSON.stringify(document));
    const config = new URL("../../redocly.yaml", import.meta.url).pathname;
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--no-lock",
        REDOCLY,
        "lint",
        file,
        "--config",
        config,
        "--format",
        "json",
      ],
      cwd: dir,
      env: { REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout).trim();
    if (!text.startsWith("{")) {
      throw new Error(`Redocly did not report: ${new TextDecoder().decode(out.stderr)}`);
    }
    return JSON.parse(text).problems;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
