import type { Config } from '../../config.ts';
import type { ColumnDef } from '../../engine/columns.ts';
import { ITEM_PATHS, itemOf, type StoredWidget, type WidgetHyperlink } from '../../engine/sights.ts';
import { presentAccessLevel, type AccessLevel } from '../../services/access/access.ts';
import type { ReadOptions } from '../../services/platform/context.ts';
import type { ReportData } from '../../services/assets/reports.ts';
import { refKey, type SightData, type SightPublishView, type SightView } from '../../services/assets/sights.ts';
import type { SightRow } from '../../store/sights.ts';
import { ts } from './dates.ts';
import { permalink, type PermalinkKind } from '../../render/permalinks.ts';
import { addOwnerInfo, type OwnerEmails } from './owners.ts';
import { presentModelColumn } from './sheetContents.ts';
import { rowCells } from '../../render/rowCells.ts';
import { reportCells } from './reports.ts';
import { presentField } from './summary.ts';
import { shownText } from '../../render/csv.ts';

/** Rows a GRIDGANTT widget's HTML shows at most (the report itself has them all). */
export const WIDGET_REPORT_ROWS = 500;

/** The abbreviated Dashboard of List Dashboards, copy, and folder, workspace and Home contents. */
export function sightSummary(config: Config, s: SightRow, level: AccessLevel, ro: ReadOptions, opts: { favorite?: boolean; owners?: OwnerEmails } = {}) {
  const out: Record<string, unknown> = {
    id: s.id,
    name: s.name,
    accessLevel: presentAccessLevel(level, ro.accessApiLevel),
    permalink: permalink(config, 'sights', s.id),
    createdAt: ts(s.created_at, ro.numericDates),
    modifiedAt: ts(s.modified_at, ro.numericDates),
  };
  addOwnerInfo(out, s.owner_id, ro, opts.owners);
  if (opts.favorite) out.favorite = true;
  return out;
}

const KIND: Record<keyof typeof ITEM_PATHS, PermalinkKind> = ITEM_PATHS;

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A GRIDGANTT widget's report as an HTML table: its column titles, then what each cell shows. */
export function reportHtml(data: ReportData, ro: ReadOptions, permalinkBase: string): string {
  const head = data.definition.columns.map((c) => `<th>${esc(c.title)}</th>`).join('');
  const rows = data.rows.slice(0, WIDGET_REPORT_ROWS).map((ref) => {
    const cells = reportCells(data.definition, ref, { ro, users: data.users, permalinkBase });
    return `<tr>${cells.map((c) => `<td>${esc(shownText(c.cell as { value?: unknown; displayValue?: string }) ?? '')}</td>`).join('')}</tr>`;
  });
  return `<table class="sheetd-report"><thead><tr>${head}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/**
 * The widgets as the caller sees them now. Links to sheets, reports, dashboards, folders and
 * workspaces carry their permalink as `url` when the caller can see them; a widget link it
 * cannot see is left out, and so is a shortcut item. METRIC cells are read from their sheet
 * (`cell`, `objectValue`) with the sheet's `columns`; GRIDGANTT widgets carry the report's rows
 * as `htmlContent`. Nothing is shown from a sheet or report the caller cannot see.
 */
export function presentWidget(config: Config, data: SightData, w: StoredWidget, ro: ReadOptions): Record<string, unknown> {
  const link = (h: WidgetHyperlink | undefined): Record<string, unknown> | undefined => {
    if (h === undefined) return undefined;
    const item = itemOf(h);
    if (item === undefined) return { ...h };
    if (!data.visible.has(refKey(...item))) return undefined;
    return { ...h, url: permalink(config, KIND[item[0]], item[1]) };
  };
  const out: Record<string, unknown> = { id: w.id, type: w.type };
  if (w.title !== undefined) out.title = w.title;
  out.showTitle = w.showTitle;
  out.showTitleIcon = w.showTitleIcon;
  if (w.titleFormat !== undefined) out.titleFormat = w.titleFormat;
  if (w.titleFont !== undefined) out.titleFont = w.titleFont;
  out.xPosition = w.xPosition;
  out.yPosition = w.yPosition;
  out.width = w.width;
  out.height = w.height;
  out.version = w.version;
  if (ro.level >= 2 && w.viewMode !== undefined) out.viewMode = w.viewMode;
  const c = w.contents;
  let contents: Record<string, unknown>;
  switch (c.type) {
    case 'METRIC': {
      const src = data.sheets.get(c.sheetId);
      const used: ColumnDef[] = [];
      const summaryItems = c.cellData.some((d) => d.dataSource === 'SUMMARY_FIELD');
      const cellData = [...c.cellData].sort((a, b) => a.order - b.order).map((d) => {
        const { profileFieldId, ...rest } = d;
        const item: Record<string, unknown> = { ...rest, sheetId: c.sheetId };
        if (d.dataSource === 'SUMMARY_FIELD') {
          const field = src?.summary?.fields.find((f) => f.def.id === profileFieldId);
          if (src?.summary && field) {
            const pf = presentField(src.summary, field, ro, config.publicUrl);
            item.profileField = pf;
            if (item.label === undefined) item.label = field.def.title;
            if (pf.objectValue !== undefined) item.objectValue = pf.objectValue;
          } else {
            item.profileField = { id: profileFieldId };
          }
          return item;
        }
        const col = src?.model.columnsById.get(d.columnId!);
        const row = src?.model.rows.get(d.rowId!);
        if (src && col && row) {
          if (!used.includes(col)) used.push(col);
          const [cell] = rowCells(src.model, row, { ro, level: src.level, users: () => undefined, permalinkBase: config.publicUrl, columns: [col] });
          if (cell) {
            item.cell = cell;
            if (item.label === undefined) item.label = col.title;
            if (ro.include.has('objectValue') && cell.objectValue !== undefined) item.objectValue = cell.objectValue;
            else if (cell.value !== undefined) item.objectValue = cell.value;
          }
        }
        return item;
      });
      // a metric of summary fields is a SHEETSUMMARY widget to clients below level 4; its contents
      // stay METRIC, the only contents type the SDKs read as cell link contents (theirs for SHEETSUMMARY)
      if (summaryItems && ro.level < 4) out.type = 'SHEETSUMMARY';
      contents = { type: 'METRIC', sheetId: c.sheetId, cellData };
      if (src) contents.columns = used.map((col) => presentModelColumn(src.model, col, ro.level, false, false));
      const h = link(c.hyperlink);
      if (h) contents.hyperlink = h;
      break;
    }
    case 'GRIDGANTT': {
      contents = { type: c.type, reportId: c.reportId };
      if (c.backgroundColor !== undefined) contents.backgroundColor = c.backgroundColor;
      const report = data.reports.get(c.reportId);
      if (report) contents.htmlContent = reportHtml(report, ro, config.publicUrl);
      const h = link(c.hyperlink);
      if (h) contents.hyperlink = h;
      break;
    }
    case 'SHORTCUT':
    case 'SHORTCUTICON':
    case 'SHORTCUTLIST': {
      const items = [...c.shortcutData].sort((a, b) => a.order - b.order).flatMap((s) => {
        const item = itemOf(s.hyperlink);
        if (item === undefined) return [{ ...s, hyperlink: { ...s.hyperlink } }];
        const [key, id] = item;
        const name = data.visible.get(refKey(key, id));
        if (name === undefined) return [];
        return [{ ...s, label: s.label ?? name, hyperlink: { [key]: id, url: permalink(config, KIND[key], id) } }];
      });
      // SHORTCUT whatever the widget's type: the SDKs read shortcut contents only of that type
      // (SHORTCUTICON and SHORTCUTLIST contents would be null to them)
      contents = { type: 'SHORTCUT', shortcutData: items };
      break;
    }
    default: {
      const { hyperlink, ...rest } = c as typeof c & { hyperlink?: WidgetHyperlink };
      contents = { ...rest };
      const h = link(hyperlink);
      if (h) contents.hyperlink = h;
    }
  }
  out.contents = contents;
  return out;
}

/** Get Dashboard: the Sight with its widgets as the caller sees them. */
export function sightBody(config: Config, data: SightData, ro: ReadOptions): Record<string, unknown> {
  const s = data.sight;
  const out: Record<string, unknown> = { ...sightSummary(config, s, data.level, { ...ro, include: new Set() }), ownerId: s.owner_id, columnCount: s.column_count };
  if (s.background_color !== null) out.backgroundColor = s.background_color;
  if (s.default_widget_background_color !== null) out.defaultWidgetBackgroundColor = s.default_widget_background_color;
  if (data.workspace) out.workspace = { id: data.workspace.id, name: data.workspace.name };
  if (ro.include.has('source') && data.source) out.source = { id: data.source.id, type: 'sight' };
  out.widgets = [...data.widgets].sort((a, b) => a.yPosition - b.yPosition || a.xPosition - b.xPosition).map((w) => presentWidget(config, data, w, ro));
  return out;
}

/** The definition as the sheetd extension answers create and update: the widgets as stored. */
export function sightDefinition(config: Config, v: SightView, ro: ReadOptions): Record<string, unknown> {
  const s = v.sight;
  const out: Record<string, unknown> = {
    ...sightSummary(config, s, v.level, { ...ro, include: new Set() }),
    ownerId: s.owner_id,
    location: s.folder_id !== null ? { destinationType: 'folder', destinationId: s.folder_id } : s.workspace_id !== null ? { destinationType: 'workspace', destinationId: s.workspace_id } : { destinationType: 'home', destinationId: null },
    columnCount: s.column_count,
    widgets: v.widgets,
  };
  if (s.background_color !== null) out.backgroundColor = s.background_color;
  if (s.default_widget_background_color !== null) out.defaultWidgetBackgroundColor = s.default_widget_background_color;
  return out;
}

/** SightPublish: the published URL is the read-only page sheetd serves at /published/sights/{token}. */
export function sightPublish(config: Config, p: SightPublishView): Record<string, unknown> {
  if (!p.enabled) return { readOnlyFullEnabled: false };
  return { readOnlyFullEnabled: true, readOnlyFullAccessibleBy: p.accessibleBy, readOnlyFullUrl: `${config.publicUrl}/published/sights/${p.token}` };
}
