/**
 * Access levels as the API names them (accessLevel, with accessApiLevel=1 so COMMENTER shows),
 * weakest first. A panel offers only what the person's level allows; the server refuses the
 * rest anyway (1004), and the panel then shows the catalogue's message.
 */
export const LEVELS = ['VIEWER', 'COMMENTER', 'EDITOR', 'EDITOR_SHARE', 'ADMIN', 'OWNER'] as const;
export type Level = (typeof LEVELS)[number];

/** True when `level` is `min` or stronger (an unknown level is below everything). */
export function atLeast(level: string | undefined, min: Level): boolean {
  const i = LEVELS.indexOf(level as Level);
  return i >= 0 && i >= LEVELS.indexOf(min);
}

/** The words a person reads for a level. */
export const LEVEL_NAMES: Record<Level, string> = {
  VIEWER: 'Viewer',
  COMMENTER: 'Commenter',
  EDITOR: 'Editor',
  EDITOR_SHARE: 'Editor (can share)',
  ADMIN: 'Admin',
  OWNER: 'Owner',
};

/** The page's API client as the panels use it (api.ts `api`; a stand-in in isolation). */
export interface ApiClient {
  get<T = unknown>(path: string, query?: Record<string, string | number | boolean | undefined | null>): Promise<T>;
  post<T = unknown>(path: string, body?: unknown, query?: Record<string, string | number | boolean | undefined | null>): Promise<T>;
  put<T = unknown>(path: string, body?: unknown, query?: Record<string, string | number | boolean | undefined | null>): Promise<T>;
  del<T = unknown>(path: string, query?: Record<string, string | number | boolean | undefined | null>): Promise<T>;
  upload<T = unknown>(path: string, file: File | Blob, name: string, query?: Record<string, string | number | boolean | undefined | null>): Promise<T>;
}

/** A person as the API shows them on comments, attachments and history. */
export interface Person { name?: string; email?: string }

export function personName(p: Person | undefined): string {
  return p?.name || p?.email || 'Someone';
}
