/**
 * The static import graph of an entry point, from `deno info --json`: Deno lists dynamic
 * `import()`s with a literal specifier too (marked `isDynamic`) and follows them, so this walks
 * only the static, non-type-only edges from the roots: what loads before the first line runs.
 */

interface InfoDependency {
  specifier: string;
  code?: { specifier: string };
  isDynamic?: boolean;
}

interface InfoModule {
  specifier: string;
  kind: string;
  dependencies?: InfoDependency[];
  npmPackage?: string;
}

/** The parts of `deno info --json` read here. */
export interface DenoInfo {
  roots: string[];
  modules: InfoModule[];
  redirects: Record<string, string>;
  npmPackages: Record<string, { name: string; dependencies: string[] }>;
}

export interface StaticGraph {
  /** How many of the project's own modules (file:) load statically. */
  local: number;
  /** Names of the npm packages that load statically, their dependencies included. */
  npmPackages: string[];
}

/**
 * What the static imports from `info.roots` (or `options.roots`, file URLs) reach; with
 * `dynamic`, the `import()`s too.
 */
export function staticModules(
  info: DenoInfo,
  options: { dynamic?: boolean; roots?: string[] } = {},
): StaticGraph {
  const bySpecifier = new Map(info.modules.map((m) => [m.specifier, m]));
  const resolve = (specifier: string) => {
    for (let i = 0; i < 10 && info.redirects[specifier]; i++) specifier = info.redirects[specifier];
    return specifier;
  };
  const seen = new Set<string>();
  const packages = new Set<string>();
  const addPackage = (id: string) => {
    if (packages.has(id)) return;
    packages.add(id);
    for (const dep of info.npmPackages[id]?.dependencies ?? []) addPackage(dep);
  };
  const queue = (options.roots ?? info.roots).map(resolve);
  while (queue.length > 0) {
    const specifier = queue.pop()!;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    const module = bySpecifier.get(specifier);
    if (module?.npmPackage) addPackage(module.npmPackage);
    for (const dep of module?.dependencies ?? []) {
      if (dep.code && (options.dynamic || !dep.isDynamic)) queue.push(resolve(dep.code.specifier));
    }
  }
  return {
    local: [...seen].filter((s) => s.startsWith("file:")).length,
    npmPackages: [...new Set([...packages].map((id) => info.npmPackages[id]?.name ?? id))].sort(),
  };
}

/** `deno info --json` of `entry` (a path or URL) with the Deno running this. */
export async function denoInfo(entry: string, cwd?: string): Promise<DenoInfo> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`deno info ${entry} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return JSON.parse(new TextDecoder().decode(out.stdout));
}
