/** `deno fmt` of text held in memory, with the project's settings (deno.json at the root). */
const ROOT = new URL("../", import.meta.url);

/** The text as `deno fmt` writes a file of the extension `ext` ("md", "ts"). */
export async function denoFmt(text: string, ext: string): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["fmt", `--ext=${ext}`, "-"],
    cwd: ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const out = await child.output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}
