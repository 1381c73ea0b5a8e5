import type { Dialect } from '../dialect.ts';

export type { Dialect };

/** The few column types that differ between SQLite and PostgreSQL. */
export function types(d: Dialect) {
  return {
    id: d === 'postgres' ? ('bigint' as const) : ('integer' as const),
    serial: d === 'postgres' ? ('bigserial' as const) : ('integer' as const),
    ms: d === 'postgres' ? ('bigint' as const) : ('integer' as const),
    float: d === 'postgres' ? ('double precision' as const) : ('real' as const),
    blob: d === 'postgres' ? ('bytea' as const) : ('blob' as const),
  };
}
