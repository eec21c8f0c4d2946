/**
 * The per-project control catalog.
 */
import {
  MAX_CONTROLS_PER_PROJECT,
  type TrustControl,
  type UpdateControlRequest,
} from "../domain/control.ts";
import { conflict } from "../domain/errors.ts";
import { controlByKeyKey, controlCountKey, controlKey, controlsOfProjectPrefix } from "./keys.ts";

/** A stored control as the API gives it: one stored before `required` existed is not required. */
function withDefaults(control: TrustControl): TrustControl {
  return control.required === undefined ? { ...control, required: false } : control;
}

/**
 * Adds the writes that seed `controls` into `projectId` to an atomic operation. Each control's
 * key is checked to be free, unless `newProject` says the same commit creates the project: its
 * id is new, so no control can exist under it, and a check per control would take the default
 * catalog past KV Connect's 10 checks per atomic write (denokv).
 */
export function seedControls(
  op: Deno.AtomicOperation,
  projectId: string,
  controls: TrustControl[],
  options: { newProject?: boolean } = {},
): Deno.AtomicOperation {
  for (const control of controls) {
    if (!options.newProject) {
      op.check({ key: controlByKeyKey(projectId, control.key), versionstamp: null });
    }
    op.set(controlKey(projectId, control.id), control)
      .set(controlByKeyKey(projectId, control.key), control.id);
  }
  return op;
}

/**
 * The project's controls, in no particular order (readers sort them with the
 * evaluate layer's `inCatalogOrder`).
 */
export async function listControlsByProject(
  kv: Deno.Kv,
  projectId: string,
): Promise<TrustControl[]> {
  const controls: TrustControl[] = [];
  for await (const entry of kv.list<TrustControl>({ prefix: controlsOfProjectPrefix(projectId) })) {
    controls.push(withDefaults(entry.value));
  }
  return controls;
}

export async function getControl(
  kv: Deno.Kv,
  projectId: string,
  controlId: string,
): Promise<TrustControl | null> {
  const control = (await kv.get<TrustControl>(controlKey(projectId, controlId))).value;
  return control === null ? null : withDefaults(control);
}

/** Counts the project's controls the slow way, for projects made before the count was kept. */
async function countControls(kv: Deno.Kv, projectId: string): Promise<number> {
  let count = 0;
  for await (const _ of kv.list({ prefix: controlsOfProjectPrefix(projectId) })) count++;
  return count;
}

/**
 * Adds a custom control. A taken key is a conflict, and so is a project that
 * already has `MAX_CONTROLS_PER_PROJECT` controls: the count moves in the same
 * atomic as the control, checked, so concurrent creations cannot pass the cap.
 */
export async function createControl(
  kv: Deno.Kv,
  projectId: string,
  control: TrustControl,
): Promise<TrustControl> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const counted = await kv.get<number>(controlCountKey(projectId));
    const count = counted.value ?? await countControls(kv, projectId);
    if (count >= MAX_CONTROLS_PER_PROJECT) {
      throw conflict(
        `A project can have at most ${MAX_CONTROLS_PER_PROJECT} controls and this one has ${count}; disable one instead of adding one`,
      );
    }
    const op = kv.atomic().check(counted).set(controlCountKey(projectId), count + 1);
    if ((await seedControls(op, projectId, [control]).commit()).ok) return control;
    if ((await kv.get(controlByKeyKey(projectId, control.key))).value !== null) {
      throw conflict(`Control key "${control.key}" is already used in this project`);
    }
  }
  throw conflict("The project's controls changed while adding one; please retry");
}

/**
 * Applies `patch` to a control, checked against concurrent changes. Public pages show a
 * control's name beside the answers that cite it, so the commit bumps the project's
 * generation and stages their render.
 */
export async function updateControl(
  kv: Deno.Kv,
  projectId: string,
  controlId: string,
  patch: UpdateControlRequest,
): Promise<TrustControl | null> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const entry = await kv.get<TrustControl>(controlKey(projectId, controlId));
    if (!entry.value) return null;
    const defined = Object.entries(patch).filter(([, v]) => v !== undefined);
    const updated = {
      ...withDefaults(entry.value),
      ...Object.fromEntries(defined),
    } as TrustControl;
    const op = kv.atomic().check(entry).set(entry.key, updated);
    if ((await op.commit()).ok) return updated;
  }
  throw conflict("The control changed while it was being updated; please retry");
}
