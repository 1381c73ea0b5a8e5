/**
 * The shapes of the OpenAPI document's bodies, shared by bodies.ts (which merges them) and the
 * modules it merges (adapt.ts, extensions.ts), so neither side imports the other for a type.
 */
export type Schema = { [k: string]: unknown };

/** media type -> schema */
export type Content = Record<string, Schema>;

export interface Bodies {
  /** media type -> schema of the request body, for an operation that takes one */
  request?: Content;
  /** status -> media type -> schema; a status with no media type answers no body */
  responses: Record<string, Content>;
}
