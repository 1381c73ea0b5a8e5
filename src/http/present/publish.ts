import type { PublishState } from '../../services/collaboration/publish.ts';

/** Where a published view is served (web/published.ts): the root, never /2.0. */
export function publishedUrl(base: string, token: string, kind: string): string {
  return kind === 'ical' ? `${base}/published/${token}.ics` : `${base}/published/${token}`;
}

/**
 * SheetPublish / ReportPublish: every flag; a view's settings and URL only while it is
 * published, and URLs only for those who may publish (a URL is access to the view).
 */
export function presentPublish(s: PublishState, base: string): Record<string, unknown> {
  const url = (kind: 'readOnlyLite' | 'readOnlyFull' | 'readWrite' | 'ical') => {
    const token = s.tokens[kind];
    return token !== undefined && s.showUrls ? publishedUrl(base, token, kind) : undefined;
  };
  const out: Record<string, unknown> = {};
  if (s.type === 'sheet') {
    out.readOnlyLiteEnabled = s.tokens.readOnlyLite !== undefined;
    const lite = url('readOnlyLite');
    if (lite !== undefined) {
      out.readOnlyLiteUrl = lite;
      // the same address: sheetd serves one scheme, the one of SHEETD_PUBLIC_URL
      out.readOnlyLiteSslUrl = lite;
    }
  }
  // the full views (read-only, and read-write for sheets): who may open them, how, and where
  const fullView = (kind: 'readOnlyFull' | 'readWrite') => {
    out[`${kind}Enabled`] = s.tokens[kind] !== undefined;
    if (s.tokens[kind] === undefined) return;
    out[`${kind}AccessibleBy`] = s.settings[`${kind}AccessibleBy`] ?? 'ALL';
    out[`${kind}DefaultView`] = s.settings[`${kind}DefaultView`] ?? 'GRID';
    out[`${kind}ShowToolbar`] = s.settings[`${kind}ShowToolbar`] ?? true;
    const u = url(kind);
    if (u !== undefined) out[`${kind}Url`] = u;
  };
  fullView('readOnlyFull');
  if (s.type === 'sheet') {
    fullView('readWrite');
    out.icalEnabled = s.tokens.ical !== undefined;
    const ical = url('ical');
    if (ical !== undefined) out.icalUrl = ical;
  }
  return out;
}
