/** The two databases sheetd runs on (db.ts opens them; the migrations pick the few type names that differ). */
export type Dialect = 'sqlite' | 'postgres';
