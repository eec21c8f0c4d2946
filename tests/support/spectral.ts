/**
 * Runs Stoplight Spectral (spectral:oas ruleset, the repository's
 * .spectral.yaml) on an OpenAPI document, under Deno's npm support.
 */
export const SPECTRAL = "npm:@stoplight/spectral-cli@6.16.3";

export interface SpectralResult {
  code: string;
  message: string;
  path: string[];
  severity: number;
}

/** Lints `document`; returns every finding (severity 0 = error, 1 = warning). */
export async function lintOpenApi(document: unknown): Promise<SpectralResult[]> {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/openapi.json`;
    await Deno.writeTextFile(file, JSON.stringify(document));
    const ruleset = new URL("../../.spectral.yaml", import.meta.url).pathname;
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--no-lock",
        SPECTRAL,
        "lint",
        file,
        "--ruleset",
        ruleset,
        "-f",
        "json",
        "-q",
      ],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout).trim();
    if (!text.startsWith("[")) {
      throw new Error(`Spectral did not report: ${new TextDecoder().decode(out.stderr)}`);
    }
    return JSON.parse(text);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
