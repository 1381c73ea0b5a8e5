import reference from './reference.json' with { type: 'json' };
import { SHEETD_COMPONENTS, SHEETD_OPERATIONS, UNDESCRIBED } from './extensions.ts';
import { adaptComponents, adaptOperations } from './adapt.ts';
import type { Bodies, Schema } from './schema.ts';

/**
 * What each operation takes and answers, as JSON schemas (OpenAPI 3.1, i.e. JSON Schema 2020-12):
 * the request body per media type and the success response per status and media type. Failures
 * answer the Error object (components.Error) whatever the operation.
 *
 * Three sources, merged here:
 * - reference.json: the public service's component schemas and the bodies of the operations it
 *   describes, taken once from its published description (prose and examples left out, its
 *   overlapping `oneOf` unions as `anyOf`, `nullable` as a type list, schemas its operations
 *   reached by pointer named as components of their own);
 * - adapt.ts: where sheetd's specification says otherwise than that description, or sheetd answers
 *   more than it says (docs/decisions.md, "The OpenAPI document's bodies");
 * - extensions.ts: sheetd's own operations (/sheetd/...) and those the official SDKs call that the
 *   description does not list; and the operations not described yet, each named with a reason.
 */
const ref = reference as unknown as { components: Record<string, Schema>; operations: Record<string, Bodies> };

/** components.schemas of the served document (Error is sheetd's: spec part B) */
export const COMPONENTS: Record<string, Schema> = { ...adaptComponents(ref.components), ...SHEETD_COMPONENTS };

const OPERATIONS: Record<string, Bodies> = { ...adaptOperations(ref.operations), ...SHEETD_OPERATIONS };

/** The bodies of 'METHOD /path' (the path as the document names it, below /2.0). */
export function operationBodies(key: string): Bodies | undefined {
  return OPERATIONS[key];
}

/** Operations answered without a described body, on purpose and for now: key -> why. */
export { UNDESCRIBED };

export const ERROR_REF = { $ref: '#/components/schemas/Error' } as const;
