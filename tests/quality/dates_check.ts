/**
 * Literal instants in tests that run against the real clock. A test that gives a service on the
 * system clock an instant written into its source ("observed at 2026-11-21T08:00:00Z") passes
 * until the calendar reaches the window that instant was meant to be inside, then fails for
 * everyone. This module finds such instants from the TypeScript AST.
 *
 * The rule (docs/hardening.md, "Tests that do not depend on today"):
 *
 * - A file runs against the real clock when it starts something whose time is the system's: a
 *   subprocess (`new Deno.Command`, `Deno.run`), `systemClock`, or a call to a starter: the
 *   test helpers in {@link BASE_STARTERS} and, found by this module, every function of the
 *   scanned tree exported from its file whose body makes such a call (counted where it is
 *   imported). A starter call whose options object passes
 *   `clock:` a fake clock (`fakeClock(…)`, or a name bound to one in the same file) does not
 *   count.
 * - The modules such a file imports from the tree (relative imports, followed on) are checked
 *   with it: their instants can be what it sends.
 * - In such a file, every literal instant is flagged when it lies within {@link WINDOW_YEARS}
 *   years of today: ISO-8601 dates and date-times inside string and template literals, and
 *   `new Date(…)`, `Date.parse(…)`, `Date.UTC(…)` of literals.
 * - Not flagged: instants given to a fake clock (`fakeClock(…)`, its `set`), and instants
 *   marked with a comment `// fixed-instant: <reason>` at the end of their line, or on lines of
 *   its own just before the statement, property or array element holding them (historical
 *   data by intent, an expired case, a name that looks like a date).
 *
 * Far past and far future instants are let through: an instant older than the window has
 * already crossed every expiry or freshness window the service has (the longest are a year or
 * so), and one more than the window ahead is a "future" case for decades. The window is
 * measured from the day the check runs on purpose: a future instant entering it is reported
 * years before it would start failing.
 */
// deno-lint-ignore-file no-import-prefix
import ts from "npm:typescript@5.9.3";

/** How many years around today a literal instant counts as "now-ish". */
export const WINDOW_YEARS = 10;

/** Test helpers that run the application (or a tool) on the system clock unless given one. */
export const BASE_STARTERS = [
  "startTestServer",
  "startService",
  "startDeployHost",
  "runKit",
] as const;

/** One source file of the tree, its path relative to the tree's root. */
export interface SourceText {
  path: string;
  text: string;
}

/**
 * Why a file is checked: the first real-clock call in it, or the real-clock file that imports
 * it (line 0).
 */
export interface RealClockUse {
  path: string;
  line: number;
  what: string;
}

/** A literal instant found in a file. */
export interface InstantLiteral {
  path: string;
  line: number;
  /** The instant as written (the ISO text, or the call). */
  text: string;
  /** Milliseconds since the epoch; NaN when it could not be read. */
  time: number;
  /** The reason of a `fixed-instant:` comment covering it, if any. */
  allowedBecause?: string;
  /** Given to a fake clock. */
  feedsFakeClock: boolean;
}

/** What the check reports on a tree. */
export interface DatesReport {
  realClock: RealClockUse[];
  /** Instants in real-clock files within the window, neither marked nor given to a fake clock. */
  findings: InstantLiteral[];
  /** Instants in real-clock files that a `fixed-instant:` comment lets through. */
  allowed: InstantLiteral[];
  /** The starters found in the tree (base ones first). */
  starters: string[];
}

/**
 * ISO-8601 calendar dates, with an optional time and offset, not inside a longer run of digits
 * or hyphenated words ("abc-2026-01-01" is taken, "12026-01-01" is not).
 */
const ISO_INSTANT =
  /(?<![\d])(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?(?![\d])/g;

const ALLOW = /fixed-instant:[ \t]*(\S[^\n]*?)\s*(?:\*\/)?$/m;

/** Milliseconds of an ISO match (an invalid month or day gives NaN). */
function isoTime(match: RegExpExecArray): number {
  const [, y, mo, d, h, mi, s, zone] = match;
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > 31) return NaN;
  const base = Date.UTC(Number(y), month - 1, day, Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0));
  if (!zone || zone === "Z") return base;
  const sign = zone.startsWith("-") ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  return base - sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
}

function calleeName(node: ts.CallExpression | ts.NewExpression): string {
  const callee = node.expression;
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) {
    const object = callee.expression;
    const left = ts.isIdentifier(object)
      ? object.text
      : ts.isPropertyAccessExpression(object)
      ? object.name.text
      : "";
    return left ? `${left}.${callee.name.text}` : callee.name.text;
  }
  return "";
}

function isFakeClockCall(node: ts.Node | undefined): boolean {
  if (!node) return false;
  while (ts.isParenthesizedExpression(node) || ts.isAwaitExpression(node)) node = node.expression;
  return ts.isCallExpression(node) && calleeName(node) === "fakeClock";
}

/** Names bound to a fake clock in a file (`const clock = fakeClock(…)`). */
function fakeClockNames(sourceFile: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node) => {
    if (
      ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) &&
      isFakeClockCall(node.initializer)
    ) names.add(node.name.text);
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return names;
}

/** The call passes `clock:` a fake clock in an options object. */
function passesFakeClock(
  node: ts.CallExpression | ts.NewExpression,
  fakeNames: Set<string>,
): boolean {
  for (const arg of node.arguments ?? []) {
    if (!ts.isObjectLiteralExpression(arg)) continue;
    for (const property of arg.properties) {
      if (ts.isShorthandPropertyAssignment(property) && property.name.text === "clock") {
        return fakeNames.has(property.name.text);
      }
      if (
        ts.isPropertyAssignment(property) && ts.isIdentifier(property.name) &&
        property.name.text === "clock"
      ) {
        const value = property.initializer;
        return isFakeClockCall(value) || (ts.isIdentifier(value) && fakeNames.has(value.text));
      }
    }
  }
  return false;
}

function isExported(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
}

/**
 * The name of the function a node declares, when it is exported from its file (`export
 * function f`, `export const f = () => …`): the functions other files can call.
 */
function exportedFunctionName(node: ts.Node): string | undefined {
  if (ts.isFunctionDeclaration(node) && node.name && isExported(node)) return node.name.text;
  if (
    (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) &&
    ts.isVariableDeclaration(node.parent) && ts.isIdentifier(node.parent.name) &&
    ts.isVariableDeclarationList(node.parent.parent) &&
    isExported(node.parent.parent.parent)
  ) return node.parent.name.text;
  return undefined;
}

interface ParsedFile {
  path: string;
  source: ts.SourceFile;
  fakeNames: Set<string>;
  /** Paths (in the tree) of the modules it imports or re-exports relatively. */
  imports: string[];
  /** Names it imports from those modules (the local names). */
  importedNames: Set<string>;
}

/** `a/b/c.ts` + `../d.ts` → `a/d.ts`; undefined when it leaves the tree. */
function resolve(from: string, specifier: string): string | undefined {
  const parts = from.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "." || part === "") continue;
    if (part === "..") {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(part);
  }
  return parts.join("/");
}

function parse(file: SourceText): ParsedFile {
  const source = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.Latest, true);
  const imports: string[] = [];
  const importedNames = new Set<string>();
  for (const statement of source.statements) {
    if (
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
      statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier) &&
      statement.moduleSpecifier.text.startsWith(".")
    ) {
      const path = resolve(file.path, statement.moduleSpecifier.text);
      if (path) imports.push(path);
      const bindings = ts.isImportDeclaration(statement)
        ? statement.importClause?.namedBindings
        : undefined;
      if (bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) importedNames.add(element.name.text);
      }
    }
  }
  return { path: file.path, source, fakeNames: fakeClockNames(source), imports, importedNames };
}

/**
 * The real-clock calls of a file, each with the exported function it sits in (undefined when it
 * is in none: top level, a test's body, a function of the file's own).
 */
function realClockCalls(
  file: ParsedFile,
  starters: Set<string>,
): { line: number; what: string; inside?: string }[] {
  const out: { line: number; what: string; inside?: string }[] = [];
  const base = new Set<string>(BASE_STARTERS);
  // A starter found in the tree is the one its file exports: calls to it count in a file that
  // imports it or exports it, not to a function of the same name of another file's own.
  const own = new Set<string>();
  const collectOwn = (node: ts.Node) => {
    const name = exportedFunctionName(node);
    if (name) own.add(name);
    ts.forEachChild(node, collectOwn);
  };
  collectOwn(file.source);
  const isStarter = (name: string) =>
    base.has(name) || (starters.has(name) && (file.importedNames.has(name) || own.has(name)));
  const lineOf = (node: ts.Node) =>
    file.source.getLineAndCharacterOfPosition(node.getStart(file.source)).line + 1;
  const visit = (node: ts.Node, inside?: string) => {
    const name = exportedFunctionName(node) ?? inside;
    if (ts.isNewExpression(node) || ts.isCallExpression(node)) {
      const callee = calleeName(node);
      if (callee === "Deno.Command" || callee === "Deno.run") {
        out.push({ line: lineOf(node), what: `a subprocess (${callee})`, inside: name });
      } else if (isStarter(callee) && !passesFakeClock(node, file.fakeNames)) {
        out.push({ line: lineOf(node), what: `${callee}(…) on the system clock`, inside: name });
      }
    } else if (ts.isIdentifier(node) && node.text === "systemClock") {
      const parent = node.parent;
      const isImport = ts.isImportSpecifier(parent);
      const isDeclaration = ts.isVariableDeclaration(parent) && parent.name === node;
      if (!isImport && !isDeclaration) {
        out.push({ line: lineOf(node), what: "systemClock", inside: name });
      }
    }
    ts.forEachChild(node, (child) => visit(child, name));
  };
  visit(file.source);
  return out;
}

/** A span of lines (1-based, inclusive) a `fixed-instant:` comment lets through. */
interface Cover {
  from: number;
  to: number;
  reason: string;
}

/**
 * The spans covered by `fixed-instant:` comments: a comment after code covers its line; a
 * comment on lines of its own covers the statement, property or element that follows it, all
 * of its lines.
 */
function covers(file: ParsedFile): Cover[] {
  const text = file.source.text;
  const out: Cover[] = [];
  const seen = new Set<number>();
  const lineAt = (pos: number) => file.source.getLineAndCharacterOfPosition(pos).line + 1;
  const collect = (ranges: ts.CommentRange[] | undefined, owner: ts.Node | undefined) => {
    for (const range of ranges ?? []) {
      if (seen.has(range.pos)) continue;
      seen.add(range.pos);
      const match = ALLOW.exec(text.slice(range.pos, range.end));
      if (!match) continue;
      const lineStart = text.lastIndexOf("\n", range.pos - 1) + 1;
      const ownLine = text.slice(lineStart, range.pos).trim() === "";
      if (!ownLine || !owner) {
        out.push({ from: lineAt(range.pos), to: lineAt(range.pos), reason: match[1] });
      } else {
        out.push({
          from: lineAt(owner.getStart(file.source)),
          to: lineAt(owner.getEnd()),
          reason: match[1],
        });
      }
    }
  };
  // Pre-order: the outermost node starting after a comment owns it.
  const visit = (node: ts.Node) => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()), node);
    collect(ts.getTrailingCommentRanges(text, node.getEnd()), undefined);
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(file.source, visit);
  collect(ts.getLeadingCommentRanges(text, file.source.endOfFileToken.getFullStart()), undefined);
  return out;
}

function literalNumber(node: ts.Node | undefined): number | undefined {
  if (!node) return undefined;
  if (ts.isNumericLiteral(node)) return Number(node.text.replaceAll("_", ""));
  return undefined;
}

function stringText(node: ts.Node | undefined): string | undefined {
  if (!node) return undefined;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  return undefined;
}

function insideFakeClock(node: ts.Node, fakeNames: Set<string>): boolean {
  for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
    if (ts.isCallExpression(at)) {
      if (calleeName(at) === "fakeClock") return true;
      const callee = at.expression;
      if (
        ts.isPropertyAccessExpression(callee) && callee.name.text === "set" &&
        ts.isIdentifier(callee.expression) && fakeNames.has(callee.expression.text)
      ) return true;
    }
    if (ts.isStatement(at)) return false;
  }
  return false;
}

/** Every literal instant of a file, marked or not. */
function instantsOf(file: ParsedFile): InstantLiteral[] {
  const out: InstantLiteral[] = [];
  const spans = covers(file);
  const reasonAt = (line: number) =>
    spans.find((span) => span.from <= line && line <= span.to)?.reason;
  const text = file.source.text;
  const lineAt = (pos: number) => file.source.getLineAndCharacterOfPosition(pos).line + 1;
  const push = (node: ts.Node, pos: number, written: string, time: number) => {
    const line = lineAt(pos);
    const startLine = lineAt(node.getStart(file.source));
    out.push({
      path: file.path,
      line,
      text: written,
      time,
      allowedBecause: reasonAt(line) ?? reasonAt(startLine),
      feedsFakeClock: insideFakeClock(node, file.fakeNames),
    });
  };
  const taken = new Set<ts.Node>();
  const visit = (node: ts.Node) => {
    if (ts.isNewExpression(node) || ts.isCallExpression(node)) {
      const callee = calleeName(node);
      const args = node.arguments ?? [];
      const isDate = ts.isNewExpression(node) && callee === "Date";
      if ((isDate || callee === "Date.parse") && args.length === 1) {
        const str = stringText(args[0]);
        const num = literalNumber(args[0]);
        if (str !== undefined && !ISO_INSTANT.test(str)) {
          // Not ISO (those are taken below, as every string is): "Nov 21, 2026" and the like.
          const time = Date.parse(str);
          if (!Number.isNaN(time)) push(node, node.getStart(file.source), node.getText(), time);
        } else if (num !== undefined && isDate) {
          push(node, node.getStart(file.source), node.getText(), num);
        }
        ISO_INSTANT.lastIndex = 0;
      } else if ((isDate && args.length >= 2) || callee === "Date.UTC") {
        const year = literalNumber(args[0]);
        if (year !== undefined) {
          const month = literalNumber(args[1]) ?? 0;
          const day = literalNumber(args[2]) ?? 1;
          push(node, node.getStart(file.source), node.getText(), Date.UTC(year, month, day));
          args.forEach((arg) => taken.add(arg));
        }
      }
    }
    if (
      !taken.has(node) &&
      (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) ||
        ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node))
    ) {
      const start = node.getStart(file.source);
      const raw = text.slice(start, node.getEnd());
      for (const match of raw.matchAll(ISO_INSTANT)) {
        push(node, start + match.index, match[0], isoTime(match));
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file.source);
  return out;
}

/**
 * Applies the rule to a tree of sources: which files run against the real clock, and the
 * instants in them that stand within the window around `now` without a fake clock or a reason.
 */
export function checkDates(files: SourceText[], now: Date): DatesReport {
  const parsed = files.map(parse);
  // Starters: the base helpers, then every named function whose body makes a real-clock call,
  // until no new name is found.
  const starters = new Set<string>(BASE_STARTERS);
  for (let round = 0; round < 20; round++) {
    const before = starters.size;
    for (const file of parsed) {
      for (const call of realClockCalls(file, starters)) {
        if (call.inside) starters.add(call.inside);
      }
    }
    if (starters.size === before) break;
  }
  const realClock: RealClockUse[] = [];
  const findings: InstantLiteral[] = [];
  const allowed: InstantLiteral[] = [];
  const window = WINDOW_YEARS * 365.25 * 86_400_000;
  const checked = new Map<string, RealClockUse>();
  for (const file of parsed) {
    const calls = realClockCalls(file, starters);
    if (calls.length > 0) {
      checked.set(file.path, { path: file.path, line: calls[0].line, what: calls[0].what });
    }
  }
  const byPath = new Map(parsed.map((file) => [file.path, file]));
  const queue = [...checked.keys()];
  while (queue.length > 0) {
    const importer = queue.shift()!;
    for (const path of byPath.get(importer)?.imports ?? []) {
      if (checked.has(path) || !byPath.has(path)) continue;
      checked.set(path, { path, line: 0, what: `imported by ${importer}` });
      queue.push(path);
    }
  }
  for (const file of parsed) {
    const use = checked.get(file.path);
    if (!use) continue;
    realClock.push(use);
    for (const instant of instantsOf(file)) {
      if (Number.isNaN(instant.time) || instant.feedsFakeClock) continue;
      if (Math.abs(instant.time - now.getTime()) > window) continue;
      (instant.allowedBecause ? allowed : findings).push(instant);
    }
  }
  return { realClock, findings, allowed, starters: [...starters] };
}

/** Every `.ts` file under a directory, as paths relative to it, sorted. */
export async function readTree(dir: URL, prefix = ""): Promise<SourceText[]> {
  const out: SourceText[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) {
      out.push(...await readTree(new URL(`${entry.name}/`, dir), `${prefix}${entry.name}/`));
    } else if (entry.name.endsWith(".ts")) {
      out.push({
        path: `${prefix}${entry.name}`,
        text: await Deno.readTextFile(new URL(entry.name, dir)),
      });
    }
  }
  return out.sort((a, b) => a.path.localeCompare(b.path));
}
