/**
 * Dashboard (sight) widgets as defined: parsing a widget list of a request into the stored form
 * (positions, titles, and each type's contents as the reference's widget content schemas name
 * them), and the objects the widgets point at. What a widget shows (cell values, report rows,
 * link targets) is not stored: services/assets/sights.ts reads it live at every Get Dashboard.
 */
import sanitizeHtml from 'sanitize-html';
import { InvalidInput, LimitExceeded } from './errors.ts';
import { describe, isId, isObject, type Obj, optionalBodyBool } from './input.ts';

export const WIDGET_TYPES = ['CHART', 'GRIDGANTT', 'IMAGE', 'METRIC', 'RICHTEXT', 'SHORTCUT', 'SHORTCUTICON', 'SHORTCUTLIST', 'TITLE', 'WEBCONTENT'] as const;
export type WidgetType = (typeof WIDGET_TYPES)[number];
/** What a request may name: SHEETSUMMARY is a METRIC widget of summary fields (stored as METRIC). */
const INPUT_TYPES = [...WIDGET_TYPES, 'SHEETSUMMARY'] as const;

/** Widgets a dashboard holds at most, and cell data / shortcut items a widget holds at most. */
export const MAX_WIDGETS = 500;
export const MAX_WIDGET_ITEMS = 1000;
/** Columns of a dashboard's grid: the default, and the most one may have. */
export const DEFAULT_COLUMN_COUNT = 12;
export const MAX_COLUMN_COUNT = 100;

export const FONTS = ['Arial', 'Courier', 'Georgia', 'Gill Sans', 'Helvetica', 'Luminari', 'Monaco', 'Tahoma', 'Times New Roman', 'Verdana'] as const;
const INTERACTION_TYPES = ['DISTI_COPY', 'NONE', 'SMARTSHEET_ITEM', 'SOURCE_SHEET', 'WEB'] as const;
const ATTACHMENT_TYPES = ['BOX_COM', 'DROPBOX', 'EGNYTE', 'EVERNOTE', 'FILE', 'GOOGLE_DRIVE', 'LINK', 'ONEDRIVE', 'SMARTSHEET'] as const;
const ITEM_KEYS = ['sheetId', 'reportId', 'sightId', 'folderId', 'workspaceId'] as const;
export type ItemKey = (typeof ITEM_KEYS)[number];
/** The permalink path of each kind of item (render/permalinks.ts: `<publicUrl>/<kind>/<id in base 36>`). */
export const ITEM_PATHS = { sheetId: 'sheets', reportId: 'reports', sightId: 'sights', folderId: 'folders', workspaceId: 'workspaces' } as const satisfies Record<ItemKey, string>;

/**
 * What parseWidgets needs to take back a dashboard as Get Dashboard showed it to the writer.
 * `hidden` says whether the writer cannot see an item: Get Dashboard left it out (a shortcut
 * item, a widget's link), so a widget that keeps its id keeps what it had of it.
 */
export interface WidgetParseOptions {
  hidden?: (kind: ItemKey, id: number) => boolean;
}

/**
 * Whether `url` is the permalink Get Dashboard shows beside an item's id (whatever address the
 * server was reached by): a shortcut read and written back names both.
 */
function isPermalinkOf(url: unknown, key: ItemKey, id: number): boolean {
  if (typeof url !== 'string') return false;
  try {
    return new URL(url).pathname.endsWith(`/${ITEM_PATHS[key]}/${id.toString(36)}`);
  } catch {
    return false;
  }
}

/** The item a shortcut or widget link names, if it names one. */
export function itemOf(h: Partial<Record<ItemKey, number>> | undefined): [ItemKey, number] | undefined {
  if (h === undefined) return undefined;
  const key = ITEM_KEYS.find((k) => h[k] !== undefined);
  return key === undefined ? undefined : [key, h[key]!];
}

/** WidgetHyperlink: what a click on the widget opens. */
export interface WidgetHyperlink {
  interactionType: (typeof INTERACTION_TYPES)[number];
  url?: string;
  sheetId?: number;
  reportId?: number;
  sightId?: number;
  folderId?: number;
  workspaceId?: number;
}

/**
 * What a METRIC widget shows of its sheet: a cell (`dataSource` CELL: rowId, columnId) or a
 * sheet summary field (SUMMARY_FIELD: profileFieldId), with its label.
 */
export interface StoredCellData {
  dataSource: 'CELL' | 'SUMMARY_FIELD';
  rowId?: number;
  columnId?: number;
  profileFieldId?: number;
  label?: string;
  labelFormat?: string;
  labelFont?: string;
  valueFormat?: string;
  valueFont?: string;
  order: number;
}

/** An item of a SHORTCUT widget: a link to a sheet, report or dashboard, or to a URL. */
export interface StoredShortcut {
  label?: string;
  labelFormat?: string;
  labelFont?: string;
  attachmentType: (typeof ATTACHMENT_TYPES)[number];
  mimeType?: string;
  hyperlink: { url?: string; sheetId?: number; reportId?: number; sightId?: number };
  order: number;
}

export type StoredContents =
  | { type: 'TITLE'; htmlContent: string; backgroundColor?: string }
  | { type: 'RICHTEXT'; htmlContent: string }
  | { type: 'WEBCONTENT'; url: string }
  | { type: 'IMAGE'; fileName?: string; privateId?: string; fit?: string; margin?: string; format?: string; width?: number; height?: number; hyperlink?: WidgetHyperlink }
  | { type: 'METRIC'; sheetId: number; cellData: StoredCellData[]; hyperlink?: WidgetHyperlink }
  | { type: 'GRIDGANTT'; reportId: number; backgroundColor?: string; hyperlink?: WidgetHyperlink }
  | {
      type: 'CHART'; sheetId?: number; reportId?: number; selectionRanges?: Obj[]; includedColumnIds?: number[];
      series?: Obj[]; axes?: Obj[]; legend?: Obj; hyperlink?: WidgetHyperlink;
    }
  | { type: 'SHORTCUT' | 'SHORTCUTICON' | 'SHORTCUTLIST'; shortcutData: StoredShortcut[] };

export interface StoredWidget {
  id: number;
  type: WidgetType;
  title?: string;
  showTitle: boolean;
  showTitleIcon: boolean;
  titleFormat?: string;
  titleFont?: string;
  xPosition: number;
  yPosition: number;
  width: number;
  height: number;
  viewMode?: 1 | 2;
  version: number;
  contents: StoredContents;
}

const STYLE = /^[^;{}<>]*$/;
const STYLES = Object.fromEntries(['color', 'font-family', 'font-size', 'font-style', 'font-weight', 'text-align', 'text-decoration'].map((k) => [k, [STYLE]]));

/**
 * The HTML of RICHTEXT (a, br, li, ol, p, span, ul) and TITLE (br, p, span) widgets, reduced to
 * the tags and CSS properties the reference lists for them: anything else (scripts, event
 * handlers, other tags) is dropped, so the published page can show it as it is.
 */
export function cleanWidgetHtml(html: string, type: 'RICHTEXT' | 'TITLE'): string {
  return sanitizeHtml(html, {
    allowedTags: type === 'RICHTEXT' ? ['a', 'br', 'li', 'ol', 'p', 'span', 'ul'] : ['br', 'p', 'span'],
    allowedAttributes: { a: ['href', 'style', 'class'], '*': ['style', 'class'] },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedStyles: { '*': STYLES },
  });
}

function str(v: unknown, attr: string, opts: { max?: number; required?: boolean } = {}): string | undefined {
  if (v === undefined || v === null) {
    if (opts.required) throw new InvalidInput(1012, attr);
    return undefined;
  }
  if (typeof v !== 'string') throw new InvalidInput(1031, describe(v), attr);
  if (opts.required && v.trim() === '') throw new InvalidInput(1012, attr);
  const max = opts.max ?? 4000;
  if (v.length > max) throw new LimitExceeded(1041, attr, max, v.length);
  return v;
}

function oneOf<T extends string>(v: unknown, allowed: readonly T[], attr: string): T | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) throw new InvalidInput(1031, describe(v), attr);
  return v as T;
}

function int(v: unknown, attr: string, min: number, max: number, dflt: number): number {
  if (v === undefined || v === null) return dflt;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw new InvalidInput(1031, describe(v), attr);
  return v;
}

function bool(v: unknown, attr: string, dflt: boolean): boolean {
  return optionalBodyBool(v, attr) ?? dflt;
}

function id(v: unknown, attr: string, required = false): number | undefined {
  if (v === undefined || v === null) {
    if (required) throw new InvalidInput(1012, attr);
    return undefined;
  }
  if (!isId(v)) throw new InvalidInput(1031, describe(v), attr);
  return v;
}

const COLOR = /^#[0-9A-Fa-f]{6}([0-9A-Fa-f]{2})?$/;
export function parseColor(v: unknown, attr: string): string | undefined {
  const s = str(v, attr, { max: 9 });
  if (s !== undefined && !COLOR.test(s)) throw new InvalidInput(1031, describe(v), attr);
  return s;
}

/** An absolute http(s) URL (what a browser may open from a dashboard). */
export function parseUrl(v: unknown, attr: string, required = false): string | undefined {
  const s = str(v, attr, { max: 4000, required });
  if (s === undefined) return undefined;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw new InvalidInput(1031, describe(v), attr);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new InvalidInput(1031, describe(v), attr);
  return s;
}

function obj(v: unknown, attr: string): Obj {
  if (!isObject(v)) throw new InvalidInput(1031, describe(v), attr);
  return v;
}

function arr(v: unknown, attr: string, required = false): unknown[] | undefined {
  if (v === undefined || v === null) {
    if (required) throw new InvalidInput(1012, attr);
    return undefined;
  }
  if (!Array.isArray(v)) throw new InvalidInput(1031, describe(v), attr);
  if (v.length > MAX_WIDGET_ITEMS) throw new InvalidInput(1031, `${v.length} items`, attr);
  return v;
}

/** Plain JSON of a chart's series, axes or legend: kept as written (sheetd draws no charts). */
function objects(v: unknown, attr: string): Obj[] | undefined {
  const a = arr(v, attr);
  return a?.map((x, i) => obj(x, `${attr}[${i}]`));
}

export function parseWidgetHyperlink(v: unknown, attr: string): WidgetHyperlink | undefined {
  if (v === undefined || v === null) return undefined;
  const o = obj(v, attr);
  const interactionType = oneOf(o.interactionType, INTERACTION_TYPES, `${attr}.interactionType`);
  if (interactionType === undefined) throw new InvalidInput(1012, `${attr}.interactionType`);
  const out: WidgetHyperlink = { interactionType };
  if (interactionType === 'WEB') out.url = parseUrl(o.url, `${attr}.url`, true);
  if (interactionType === 'SMARTSHEET_ITEM') {
    const given = ITEM_KEYS.filter((k) => o[k] !== undefined && o[k] !== null);
    if (given.length === 0) throw new InvalidInput(1012, `${attr}.sheetId`);
    if (given.length > 1) throw new InvalidInput(1031, describe(v), attr);
    out[given[0]!] = id(o[given[0]!], `${attr}.${given[0]!}`);
  }
  return out;
}

function parseCellData(v: unknown, attr: string, i: number): StoredCellData {
  const o = obj(v, attr);
  const dataSource = oneOf(o.dataSource, ['CELL', 'SUMMARY_FIELD'] as const, `${attr}.dataSource`) ?? 'CELL';
  const out: StoredCellData = { dataSource, order: int(o.order, `${attr}.order`, 0, 1_000_000, i) };
  if (dataSource === 'CELL') {
    out.rowId = id(o.rowId, `${attr}.rowId`, true)!;
    out.columnId = id(o.columnId, `${attr}.columnId`, true)!;
  } else {
    const field = o.profileField === undefined || o.profileField === null ? {} : obj(o.profileField, `${attr}.profileField`);
    out.profileFieldId = id(field.id, `${attr}.profileField.id`, true)!;
  }
  const label = str(o.label, `${attr}.label`, { max: 500 });
  if (label !== undefined) out.label = label;
  const labelFormat = str(o.labelFormat, `${attr}.labelFormat`, { max: 100 });
  if (labelFormat !== undefined) out.labelFormat = labelFormat;
  const valueFormat = str(o.valueFormat, `${attr}.valueFormat`, { max: 100 });
  if (valueFormat !== undefined) out.valueFormat = valueFormat;
  const labelFont = oneOf(o.labelFont, FONTS, `${attr}.labelFont`);
  if (labelFont !== undefined) out.labelFont = labelFont;
  const valueFont = oneOf(o.valueFont, FONTS, `${attr}.valueFont`);
  if (valueFont !== undefined) out.valueFont = valueFont;
  return out;
}

function parseShortcut(v: unknown, attr: string, i: number): StoredShortcut {
  const o = obj(v, attr);
  const h = obj(o.hyperlink ?? null, `${attr}.hyperlink`);
  const targets = (['sheetId', 'reportId', 'sightId'] as const).filter((k) => h[k] !== undefined && h[k] !== null);
  // Get Dashboard shows an item's permalink beside its id: that url is not a second target
  const shownUrl = targets.length === 1 && isId(h[targets[0]!]) && isPermalinkOf(h.url, targets[0]!, h[targets[0]!] as number);
  const hasUrl = h.url !== undefined && h.url !== null && !shownUrl;
  // as cell hyperlinks: a URL, or one sheet, report or dashboard (then no URL: the permalink is shown)
  if (targets.length > 0 && hasUrl) throw new InvalidInput(1112);
  if (targets.length === 0 && !hasUrl) throw new InvalidInput(1117);
  if (targets.length > 1) throw new InvalidInput(1031, describe(h), `${attr}.hyperlink`);
  const hyperlink: StoredShortcut['hyperlink'] = {};
  if (hasUrl) hyperlink.url = parseUrl(h.url, `${attr}.hyperlink.url`, true);
  else hyperlink[targets[0]!] = id(h[targets[0]!], `${attr}.hyperlink.${targets[0]!}`);
  const out: StoredShortcut = {
    attachmentType: oneOf(o.attachmentType, ATTACHMENT_TYPES, `${attr}.attachmentType`) ?? (hasUrl ? 'LINK' : 'SMARTSHEET'),
    hyperlink,
    order: int(o.order, `${attr}.order`, 0, 1_000_000, i),
  };
  const label = str(o.label, `${attr}.label`, { max: 500 });
  if (label !== undefined) out.label = label;
  const labelFormat = str(o.labelFormat, `${attr}.labelFormat`, { max: 100 });
  if (labelFormat !== undefined) out.labelFormat = labelFormat;
  const labelFont = oneOf(o.labelFont, FONTS, `${attr}.labelFont`);
  if (labelFont !== undefined) out.labelFont = labelFont;
  const mimeType = str(o.mimeType, `${attr}.mimeType`, { max: 200 });
  if (mimeType !== undefined) out.mimeType = mimeType;
  return out;
}

/**
 * The contents' link as given; absent (not null) on a widget that keeps its id and had a link
 * to an item the writer cannot see (Get Dashboard left it out), that link.
 */
function withHyperlink<T extends object>(c: T, o: Obj, attr: string, kept: Kept): T & { hyperlink?: WidgetHyperlink } {
  let h = parseWidgetHyperlink(o.hyperlink, `${attr}.hyperlink`);
  if (o.hyperlink === undefined && kept.before !== undefined && 'hyperlink' in kept.before.contents) {
    const was = kept.before.contents.hyperlink;
    const item = itemOf(was);
    if (item !== undefined && kept.hidden(...item)) h = was;
  }
  return h === undefined ? c : { ...c, hyperlink: h };
}

/** The widget a parsed one replaces (same id), and what the writer cannot see. */
interface Kept {
  before: StoredWidget | undefined;
  hidden: (kind: ItemKey, id: number) => boolean;
}

/**
 * A shortcut widget's items: those given (in their `order`), with the items of the widget it
 * replaces that the writer cannot see put back where they were (Get Dashboard left them out);
 * numbered again from 0. A one-item widget given an item has that item only.
 */
function shortcutItems(type: 'SHORTCUT' | 'SHORTCUTICON' | 'SHORTCUTLIST', o: Obj, attr: string, kept: Kept): StoredShortcut[] {
  const b = kept.before?.contents;
  const hiddenAt: Array<[number, StoredShortcut]> = [];
  if (b !== undefined && 'shortcutData' in b) {
    [...b.shortcutData].sort((x, y) => x.order - y.order).forEach((item, k) => {
      const target = itemOf(item.hyperlink);
      if (target !== undefined && kept.hidden(...target)) hiddenAt.push([k, item]);
    });
  }
  const given = arr(o.shortcutData, `${attr}.shortcutData`, hiddenAt.length === 0) ?? [];
  const items = given.map((x, i) => parseShortcut(x, `${attr}.shortcutData[${i}]`, i)).sort((x, y) => x.order - y.order);
  if (type === 'SHORTCUTLIST' || items.length === 0) for (const [k, item] of hiddenAt) items.splice(Math.min(k, items.length), 0, item);
  if (items.length === 0) throw new InvalidInput(1012, `${attr}.shortcutData`);
  if (type !== 'SHORTCUTLIST' && items.length > 1) throw new InvalidInput(1031, `${items.length} items`, `${attr}.shortcutData`);
  return items.map((item, i) => ({ ...item, order: i }));
}

function parseContents(type: WidgetType, raw: unknown, attr: string, kept: Kept): StoredContents {
  if (raw === undefined || raw === null) throw new InvalidInput(1012, attr);
  const o = obj(raw, attr);
  // the contents type Get Dashboard shows: SHORTCUT for every shortcut widget (what the SDKs read)
  const shownType = type === 'SHORTCUTICON' || type === 'SHORTCUTLIST' ? 'SHORTCUT' : type === 'METRIC' ? 'SHEETSUMMARY' : type;
  if (o.type !== undefined && o.type !== null && o.type !== type && o.type !== shownType) throw new InvalidInput(1031, describe(o.type), `${attr}.type`);
  switch (type) {
    case 'TITLE': {
      const c: StoredContents = { type, htmlContent: cleanWidgetHtml(str(o.htmlContent, `${attr}.htmlContent`, { required: true, max: 10_000 })!, type) };
      const bg = parseColor(o.backgroundColor, `${attr}.backgroundColor`);
      return bg === undefined ? c : { ...c, backgroundColor: bg };
    }
    case 'RICHTEXT':
      return { type, htmlContent: cleanWidgetHtml(str(o.htmlContent, `${attr}.htmlContent`, { required: true, max: 100_000 })!, type) };
    case 'WEBCONTENT':
      return { type, url: parseUrl(o.url, `${attr}.url`, true)! };
    case 'IMAGE': {
      const c: Extract<StoredContents, { type: 'IMAGE' }> = { type };
      const fileName = str(o.fileName, `${attr}.fileName`, { max: 500 });
      if (fileName !== undefined) c.fileName = fileName;
      const privateId = str(o.privateId, `${attr}.privateId`, { max: 200 });
      if (privateId !== undefined) c.privateId = privateId;
      const fit = oneOf(o.fit, ['ACTUAL_SIZE', 'FILL', 'FIT'] as const, `${attr}.fit`);
      c.fit = fit ?? 'FIT';
      const margin = oneOf(o.margin, ['MARGIN', 'NO_MARGIN'] as const, `${attr}.margin`);
      c.margin = margin ?? 'NO_MARGIN';
      const format = str(o.format, `${attr}.format`, { max: 100 });
      if (format !== undefined) c.format = format;
      if (o.width !== undefined && o.width !== null) c.width = int(o.width, `${attr}.width`, 1, 100_000, 1);
      if (o.height !== undefined && o.height !== null) c.height = int(o.height, `${attr}.height`, 1, 100_000, 1);
      return withHyperlink(c, o, attr, kept);
    }
    case 'METRIC': {
      const cells = arr(o.cellData, `${attr}.cellData`, true)!;
      if (cells.length === 0) throw new InvalidInput(1012, `${attr}.cellData`);
      const c: StoredContents = { type, sheetId: id(o.sheetId, `${attr}.sheetId`, true)!, cellData: cells.map((x, i) => parseCellData(x, `${attr}.cellData[${i}]`, i)) };
      return withHyperlink(c, o, attr, kept);
    }
    case 'GRIDGANTT': {
      const c: Extract<StoredContents, { type: 'GRIDGANTT' }> = { type, reportId: id(o.reportId, `${attr}.reportId`, true)! };
      const bg = parseColor(o.backgroundColor, `${attr}.backgroundColor`);
      if (bg !== undefined) c.backgroundColor = bg;
      return withHyperlink(c, o, attr, kept);
    }
    case 'CHART': {
      const sheetId = id(o.sheetId, `${attr}.sheetId`);
      const reportId = id(o.reportId, `${attr}.reportId`);
      if (sheetId === undefined && reportId === undefined) throw new InvalidInput(1012, `${attr}.sheetId`);
      if (sheetId !== undefined && reportId !== undefined) throw new InvalidInput(1031, describe(raw), attr);
      const c: Extract<StoredContents, { type: 'CHART' }> = { type };
      if (sheetId !== undefined) c.sheetId = sheetId;
      if (reportId !== undefined) c.reportId = reportId;
      const ranges = objects(o.selectionRanges, `${attr}.selectionRanges`);
      if (ranges !== undefined) {
        ranges.forEach((r, i) => {
          for (const k of ['sourceColumnId1', 'sourceColumnId2', 'sourceRowId1', 'sourceRowId2']) id(r[k], `${attr}.selectionRanges[${i}].${k}`);
        });
        c.selectionRanges = ranges;
      }
      const cols = arr(o.includedColumnIds, `${attr}.includedColumnIds`);
      if (cols !== undefined) c.includedColumnIds = cols.map((x, i) => id(x, `${attr}.includedColumnIds[${i}]`, true)!);
      const series = objects(o.series, `${attr}.series`);
      if (series !== undefined) c.series = series;
      const axes = objects(o.axes, `${attr}.axes`);
      if (axes !== undefined) c.axes = axes;
      if (o.legend !== undefined && o.legend !== null) c.legend = obj(o.legend, `${attr}.legend`);
      return withHyperlink(c, o, attr, kept);
    }
    case 'SHORTCUT':
    case 'SHORTCUTICON':
    case 'SHORTCUTLIST': {
      return { type, shortcutData: shortcutItems(type, o, attr, kept) };
    }
  }
}

/**
 * Reads the `widgets` of a request. A widget that names the `id` of one of `previous` keeps it
 * (its version goes up); the others get ids from `newId`. Widgets lie inside the grid:
 * xPosition + width at most `columnCount`. What Get Dashboard shows beside the definition is
 * taken back as it shows it (SHORTCUT contents of every shortcut widget, permalinks beside ids;
 * values read live are not read), and a kept widget keeps what it had of items `opts.hidden`
 * says the writer cannot see.
 */
export function parseWidgets(raw: unknown, previous: readonly StoredWidget[], columnCount: number, newId: () => number, opts: WidgetParseOptions = {}): StoredWidget[] {
  const hidden = opts.hidden ?? (() => false);
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new InvalidInput(1031, describe(raw), 'widgets');
  if (raw.length > MAX_WIDGETS) throw new InvalidInput(1031, `${raw.length} widgets`, 'widgets');
  const old = new Map(previous.map((w) => [w.id, w]));
  const ids = new Set<number>();
  return raw.map((item: unknown, i) => {
    const attr = `widgets[${i}]`;
    const o = obj(item, attr);
    const asked = oneOf(o.type, INPUT_TYPES, `${attr}.type`);
    if (asked === undefined) throw new InvalidInput(1012, `${attr}.type`);
    const type: WidgetType = asked === 'SHEETSUMMARY' ? 'METRIC' : asked;
    const given = id(o.id, `${attr}.id`);
    const before = given !== undefined ? old.get(given) : undefined;
    if (given !== undefined && (before === undefined || ids.has(given))) throw new InvalidInput(1031, describe(o.id), `${attr}.id`);
    const wid = before?.id ?? newId();
    ids.add(wid);
    const width = int(o.width, `${attr}.width`, 1, columnCount, Math.min(4, columnCount));
    const xPosition = int(o.xPosition, `${attr}.xPosition`, 0, columnCount - 1, 0);
    if (xPosition + width > columnCount) throw new InvalidInput(1031, describe(o.width), `${attr}.width`);
    const w: StoredWidget = {
      id: wid,
      type,
      showTitle: false,
      showTitleIcon: bool(o.showTitleIcon, `${attr}.showTitleIcon`, false),
      xPosition,
      yPosition: int(o.yPosition, `${attr}.yPosition`, 0, 100_000, 0),
      width,
      height: int(o.height, `${attr}.height`, 1, 1000, 4),
      version: before ? before.version + 1 : 1,
      contents: parseContents(type, o.contents, `${attr}.contents`, { before, hidden }),
    };
    const title = str(o.title, `${attr}.title`, { max: 500 });
    if (title !== undefined) w.title = title;
    w.showTitle = bool(o.showTitle, `${attr}.showTitle`, title !== undefined && title !== '');
    const titleFormat = str(o.titleFormat, `${attr}.titleFormat`, { max: 100 });
    if (titleFormat !== undefined) w.titleFormat = titleFormat;
    const titleFont = oneOf(o.titleFont, FONTS, `${attr}.titleFont`);
    if (titleFont !== undefined) w.titleFont = titleFont;
    if (o.viewMode !== undefined && o.viewMode !== null) w.viewMode = int(o.viewMode, `${attr}.viewMode`, 1, 2, 1) as 1 | 2;
    return w;
  });
}

/** Everything the widgets point at, by kind (the writer must see each). */
export function widgetRefs(widgets: readonly StoredWidget[]): Record<ItemKey, Set<number>> {
  const out: Record<ItemKey, Set<number>> = { sheetId: new Set(), reportId: new Set(), sightId: new Set(), folderId: new Set(), workspaceId: new Set() };
  const add = (h: Partial<Record<ItemKey, number>> | undefined) => {
    if (!h) return;
    for (const k of ITEM_KEYS) if (h[k] !== undefined) out[k].add(h[k]);
  };
  for (const w of widgets) {
    const c = w.contents;
    if ('hyperlink' in c) add(c.hyperlink);
    if (c.type === 'METRIC') out.sheetId.add(c.sheetId);
    if (c.type === 'GRIDGANTT') out.reportId.add(c.reportId);
    if (c.type === 'CHART') add(c);
    if (c.type === 'SHORTCUT' || c.type === 'SHORTCUTICON' || c.type === 'SHORTCUTLIST') for (const s of c.shortcutData) add(s.hyperlink);
  }
  return out;
}

/** Id maps of a folder or workspace copy: old sheet, row and column ids to their copies'. */
export interface CopyMaps {
  sheetMap: ReadonlyMap<number, number>;
  rowMap: ReadonlyMap<number, number>;
  colMap: ReadonlyMap<number, number>;
}

/** The widgets with every sheet copied in the same operation replaced by its copy (and its rows and columns). */
export function retargetWidgets(widgets: readonly StoredWidget[], m: CopyMaps): StoredWidget[] {
  if (m.sheetMap.size === 0) return [...widgets];
  const row = (x: number) => m.rowMap.get(x) ?? x;
  const col = (x: number) => m.colMap.get(x) ?? x;
  const swap = <T extends { sheetId?: number }>(x: T): T => (x.sheetId !== undefined && m.sheetMap.has(x.sheetId) ? { ...x, sheetId: m.sheetMap.get(x.sheetId)! } : x);
  return widgets.map((w) => {
    let c = w.contents;
    if (c.type === 'METRIC' && m.sheetMap.has(c.sheetId)) {
      c = { ...swap(c), cellData: c.cellData.map((d) => (d.dataSource === 'CELL' ? { ...d, rowId: row(d.rowId!), columnId: col(d.columnId!) } : d)) };
    }
    if (c.type === 'CHART' && c.sheetId !== undefined && m.sheetMap.has(c.sheetId)) {
      const ranges = c.selectionRanges?.map((r) => {
        const out: Obj = { ...r };
        for (const k of ['sourceColumnId1', 'sourceColumnId2']) if (typeof r[k] === 'number') out[k] = col(r[k]);
        for (const k of ['sourceRowId1', 'sourceRowId2']) if (typeof r[k] === 'number') out[k] = row(r[k]);
        return out;
      });
      c = { ...swap(c), ...(ranges ? { selectionRanges: ranges } : {}), ...(c.includedColumnIds ? { includedColumnIds: c.includedColumnIds.map(col) } : {}) };
    }
    if ('hyperlink' in c && c.hyperlink !== undefined) c = { ...c, hyperlink: swap(c.hyperlink) } as StoredContents;
    if (c.type === 'SHORTCUT' || c.type === 'SHORTCUTICON' || c.type === 'SHORTCUTLIST') c = { ...c, shortcutData: c.shortcutData.map((s) => ({ ...s, hyperlink: swap(s.hyperlink) })) };
    return { ...w, contents: c };
  });
}
