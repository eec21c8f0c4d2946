/**
 * The knowledge base as the matcher reads it: every array sorted (and duplicates dropped) so
 * the index and the results do not depend on the order the caller gave, answers' citations
 * resolved through the knowledge base, and a control's published state in words.
 */
import type {
  KbAnswer,
  KbCertification,
  KbControl,
  KbCriterion,
  KbDocument,
  KnowledgeBase,
  SuggestionCitation,
} from "./types.ts";
import { compareCodePoints } from "../lib/order.ts";

export interface SortedKb {
  answers: KbAnswer[];
  controls: KbControl[];
  criteria: KbCriterion[];
  answerById: Map<string, KbAnswer>;
  /** `${projectSlug}/${controlId}` → the control. */
  controlByKey: Map<string, KbControl>;
  /** The answer itself, then its controls (with their state), certifications and documents. */
  citationsOf: (answer: KbAnswer) => SuggestionCitation[];
}

/**
 * Orders records by their key, then by their whole JSON text, so equal keys order too. The JSON
 * text is made only for records whose key another record shares (answers' keys are their ids):
 * copying 2,000 answers of 9 KB to JSON to sort them by id held the event loop for 50 ms.
 */
function byKeys<T>(list: readonly T[] | undefined, key: (item: T) => string): T[] {
  const keyed = [...(list ?? [])].map((item) => ({ item, key: key(item), json: "", made: false }));
  const json = (record: (typeof keyed)[number]) => {
    if (!record.made) {
      record.json = JSON.stringify(record.item);
      record.made = true;
    }
    return record.json;
  };
  return keyed.sort((a, b) =>
    compareCodePoints(a.key, b.key) || compareCodePoints(json(a), json(b))
  )
    .map(({ item }) => item);
}

/** The first record of each key (the list being sorted, the choice never varies). */
function unique<T>(list: T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return list.filter((item) => !seen.has(key(item)) && Boolean(seen.add(key(item))));
}

/**
 * The knowledge base sorted: answers by id (of two with one id, the later update), controls by
 * project and control (of two, the higher version), criteria by framework, criterion, project.
 */
export function sortedKnowledgeBase(kb: KnowledgeBase): SortedKb {
  const answers = unique(
    byKeys(kb.answers, (a) => `${a.id}\u0000${invert(a.updatedAt)}`),
    (a) => a.id,
  );
  const controlKey = (c: KbControl) => `${c.projectSlug}/${c.controlId}`;
  const controls = unique(
    byKeys(kb.controls, (c) => `${controlKey(c)}\u0000${String(1e15 - c.version).padStart(16)}`),
    controlKey,
  );
  const criteria = byKeys(
    kb.criteria,
    (c) => `${c.framework}\u0000${c.criterionId}\u0000${c.projectSlug}`,
  );
  const certifications = new Map(
    unique(byKeys(kb.certifications, (c) => c.id), (c) => c.id).map((c) => [c.id, c]),
  );
  const documents = new Map(
    unique(byKeys(kb.documents, (d) => d.id), (d) => d.id).map((d) => [d.id, d]),
  );
  const controlsById = new Map<string, KbControl[]>();
  for (const control of controls) {
    controlsById.set(control.controlId, [...controlsById.get(control.controlId) ?? [], control]);
  }
  const memo = new Map<string, SuggestionCitation[]>();
  const citationsOf = (answer: KbAnswer) => {
    let citations = memo.get(answer.id);
    if (!citations) {
      citations = resolveCitations(answer, { controlsById, certifications, documents });
      memo.set(answer.id, citations);
    }
    return citations;
  };
  return {
    answers,
    controls,
    criteria,
    answerById: new Map(answers.map((a) => [a.id, a])),
    controlByKey: new Map(controls.map((c) => [controlKey(c), c])),
    citationsOf,
  };
}

/** A key that sorts later timestamps first (ISO 8601 strings compare as text). */
function invert(text: string): string {
  return [...String(text)].map((ch) => String.fromCharCode(0xffff - ch.charCodeAt(0))).join("");
}

const KIND_ORDER = ["control", "certification", "document"];
const kindOrder = (kind: string) => {
  const i = KIND_ORDER.indexOf(kind);
  return i < 0 ? KIND_ORDER.length : i;
};

/**
 * An answer's citations through the knowledge base: the answer, then its controls (every
 * project's control of that id, by project), certifications and documents, each by id. A
 * citation the knowledge base cannot resolve (an unpublished control, a removed document) is
 * left out: a suggestion cites only what the buyer can open.
 */
export function resolveCitations(
  answer: KbAnswer,
  kb: {
    controlsById: Map<string, KbControl[]>;
    certifications: Map<string, KbCertification>;
    documents: Map<string, KbDocument>;
  },
): SuggestionCitation[] {
  const out: SuggestionCitation[] = [{ kind: "answer", id: answer.id, question: answer.question }];
  const cited = unique(
    [...(answer.citations ?? [])].sort((a, b) =>
      kindOrder(a.kind) - kindOrder(b.kind) || compareCodePoints(a.id, b.id)
    ),
    (c) => `${c.kind}:${c.id}`,
  );
  for (const citation of cited) {
    if (citation.kind === "control") {
      for (const control of kb.controlsById.get(citation.id) ?? []) {
        out.push(controlCitation(control));
      }
    } else if (citation.kind === "certification") {
      const c = kb.certifications.get(citation.id);
      if (c) {
        out.push({ kind: "certification", id: c.id, title: c.title, status: c.status, url: c.url });
      }
    } else if (citation.kind === "document") {
      const d = kb.documents.get(citation.id);
      if (d) out.push({ kind: "document", id: d.id, title: d.title, url: d.url });
    }
  }
  return out;
}

export function controlCitation(control: KbControl): SuggestionCitation {
  return {
    kind: "control",
    projectSlug: control.projectSlug,
    controlId: control.controlId,
    title: control.title,
    state: control.state,
    version: control.version,
    evidenceObservedAt: control.evidenceObservedAt,
    url: control.url,
  };
}

const STATE_WORDS: Record<KbControl["state"], string> = {
  pass: "passing",
  fail: "failing",
  stale: "evidence out of date",
  degraded: "degraded",
  unknown: "not yet evaluated",
};

/**
 * A control's published state as the row's answer, always worded alike:
 * "<title>: passing in <project> version 12, evidence observed 2026-11-20".
 */
export function controlText(control: KbControl): string {
  const state = Object.hasOwn(STATE_WORDS, control.state)
    ? STATE_WORDS[control.state]
    : String(control.state);
  const observed = control.evidenceObservedAt
    ? `evidence observed ${control.evidenceObservedAt.slice(0, 10)}`
    : "no evidence observed";
  return `${control.title}: ${state} in ${control.projectName} version ${control.version}, ${observed}`;
}
