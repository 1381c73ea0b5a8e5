/**
 * What the engine refuses, as data. The engine knows no HTTP status and no message template: an
 * error names the catalogue code of spec part B that describes the refusal and the arguments of
 * its message, and its class says what kind of refusal it is. `services/platform/errors.ts` (apiErrorOf)
 * is the one place that turns it into the catalogued ApiError a client sees (docs/architecture.md
 * "Engine errors").
 */
export type EngineErrorKind = 'invalid' | 'limit' | 'notFound' | 'notPermitted';

export abstract class EngineError extends Error {
  abstract readonly kind: EngineErrorKind;
  /** The catalogue code (src/errors.ts CATALOGUE) of this refusal. */
  readonly errorCode: number;
  /** The arguments of the catalogue's message template, in order. */
  readonly args: readonly unknown[];

  constructor(errorCode: number, args: readonly unknown[]) {
    super(args.length === 0 ? `engine refusal ${errorCode}` : `engine refusal ${errorCode}: ${args.map(String).join(', ')}`);
    this.errorCode = errorCode;
    this.args = args;
  }
}

/** Input the engine cannot accept: a value, attribute, column definition, row location or formula. */
export class InvalidInput extends EngineError {
  readonly kind = 'invalid' as const;
  constructor(errorCode: number, ...args: unknown[]) {
    super(errorCode, args);
    this.name = 'InvalidInput';
  }
}

/** A count, length or size over one of the engine's limits. */
export class LimitExceeded extends EngineError {
  readonly kind = 'limit' as const;
  constructor(errorCode: number, ...args: unknown[]) {
    super(errorCode, args);
    this.name = 'LimitExceeded';
  }
}

/** Something the input names (a row, a column, a sheet) is not there. */
export class NotFound extends EngineError {
  readonly kind = 'notFound' as const;
  constructor(errorCode: number, ...args: unknown[]) {
    super(errorCode, args);
    this.name = 'NotFound';
  }
}

/** The model forbids the change: a locked column or row, an override only a sheet admin may make. */
export class NotPermitted extends EngineError {
  readonly kind = 'notPermitted' as const;
  constructor(errorCode: number, ...args: unknown[]) {
    super(errorCode, args);
    this.name = 'NotPermitted';
  }
}

export function isEngineError(e: unknown): e is EngineError {
  return e instanceof EngineError;
}
