import type { PublishState } from '../../services/publish.ts';

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
  out.readOnlyFullEnabled = s.tokens.readOnlyFull !== undefined;
  if (s.tokens.readOnlyFull !== undefined) {
    out.readOnlyFullAccessibleBy = s.settings.readOnlyFullAccessibleBy ?? 'ALL';
    out.readOnlyFullDefaultView = s.settings.readOnlyFullDefaultView ?? 'GRID';
    out.readOnlyFullShowToolbar = s.settings.readOnlyFullShowToolbar ?? true;
    const full = url('readOnlyFull');
    if (full !== undefined) out.readOnlyFullUrl = full;
  }
  if (s.type === 'sheet') {
    out.readWriteEnabled = s.tokens.readWrite !== undefined;
    if (s.tokens.readWrite !== undefined) {
      out.readWriteAccessibleBy = s.settings.readWriteAccessibleBy ?? 'ALL';
      out.readWriteDefaultView = s.settings.readWriteDefaultView ?? 'GRID';
      out.readWriteShowToolbar = s.settings.readWriteShowToolbar ?? true;
      const rw = url('readWrite');
      if (rw !== undefined) out.readWriteUrl = rw;
    }
    out.icalEnabled = s.tokens.ical !== undefined;
    const ical = url('ical');
    if (ical !== undefined) out.icalUrl = ical;
  }
  return out;
}
