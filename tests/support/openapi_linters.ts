/**
 * Runs the OpenAPI linters on a document under Deno's npm support: Stoplight
 * Spectral (spectral:oas, the repository's .spectral.yaml) and Redocly CLI
 * (`lint`, the repository's redocly.yaml: the recommended ruleset).
 */
export const SPECTRAL = "npm:@stoplight/spectral-cli@6.16.3";
export const REDOCLY = "npm:@redocly/cli@2.77.0";

export interface SpectralResult {
  code: string;
  message: string;
  path: string[];
  severity: number;
}

export interface RedoclyProblem {
  ruleId: string;
  severity: "error" | "warn";
  message: string;
  location: Array<{ pointer?: string }>;
}

/** Writes `document` to a temporary file, runs `tool` on it and returns its stdout. */
async function runLinter(
  document: unknown,
  tool: { name: string; args: (file: string) => string[]; env?: Record<string, string> },
): Promise<string> {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/openapi.json`;
    await Deno.writeTextFile(file, JSON.stringify(document));
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--no-lock", ...tool.args(file)],
      cwd: dir,
      env: tool.env,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout).trim();
    if (!text.startsWith("[") && !text.startsWith("{")) {
      throw new Error(`${tool.name} did not report: ${new TextDecoder().decode(out.stderr)}`);
    }
    return text;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const config = (name: string) => new URL(`../../${name}`, import.meta.url).pathname;

/** Spectral's findings on `document` (severity 0 = error, 1 = warning). */
export async function lintOpenApi(document: unknown): Promise<SpectralResult[]> {
  return JSON.parse(
    await runLinter(document, {
      name: "Spectral",
      args: (
        file,
      ) => [SPECTRAL, "lint", file, "--ruleset", config(".spectral.yaml"), "-f", "json", "-q"],
    }),
  );
}

/** Every problem Redocly reports on `document`. */
export async function lintWithRedocly(document: unknown): Promise<RedoclyProblem[]> {
  const report = await runLinter(document, {
    name: "Redocly",
    args: (file) => [REDOCLY, "lint", file, "--config", config("redocly.yaml"), "--format", "json"],
    env: { REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
  });
  return JSON.parse(report).problems;
}
