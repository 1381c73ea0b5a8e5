import type { Config } from '../config.ts';

export type PermalinkKind = 'sheets' | 'folders' | 'workspaces' | 'reports' | 'sights' | 'templates';

/**
 * The stable URL of an object as clients see it: SHEETD_PUBLIC_URL, the kind and the id in
 * base 36 (short, like the public service's). It never changes when the object is renamed or moved.
 */
export function permalink(config: Pick<Config, 'publicUrl'>, kind: PermalinkKind, id: number): string {
  return `${config.publicUrl}/${kind}/${id.toString(36)}`;
}
