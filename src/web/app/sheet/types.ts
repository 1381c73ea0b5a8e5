/** The API's JSON as the sheet page reads it (Get Sheet with include=objectValue,format,filters). */

export interface Contact { email?: string; name?: string; objectType?: string }
export interface ObjectValue {
  objectType?: string;
  value?: unknown;
  values?: unknown[];
  email?: string;
  name?: string;
  [k: string]: unknown;
}

/** A cell's link: a web address, or another sheet, report or dashboard (whose address the server gives as url). */
export interface Hyperlink { url?: string; sheetId?: number; reportId?: number; sightId?: number }

export interface Cell {
  columnId: number;
  value?: string | number | boolean | null;
  displayValue?: string;
  formula?: string;
  format?: string;
  conditionalFormat?: string;
  objectValue?: ObjectValue;
  hyperlink?: Hyperlink;
  image?: unknown;
}

export interface Column {
  id: number;
  index: number;
  title: string;
  type: string;
  primary?: boolean;
  options?: string[];
  symbol?: string;
  systemColumnType?: string;
  width?: number;
  hidden?: boolean;
  locked?: boolean;
  lockedForUser?: boolean;
  formula?: string;
  format?: string;
  validation?: boolean;
  /** A project sheet's column roles (GANTT_START_DATE, GANTT_END_DATE, ...). */
  tags?: string[];
  contactOptions?: Contact[];
  description?: string;
  autoNumberFormat?: unknown;
}

export interface Row {
  id: number;
  rowNumber?: number;
  parentId?: number;
  siblingId?: number;
  expanded?: boolean;
  locked?: boolean;
  lockedForUser?: boolean;
  format?: string;
  conditionalFormat?: string;
  cells?: Cell[];
  createdAt?: string;
  modifiedAt?: string;
  /** Hidden by the filter the read applied (the person's applied filter, or filterId). */
  filteredOut?: boolean;
}

/** A saved filter; `applied`: the one the person has applied (Get Sheet with include=filters then marks the rows it hides). */
export interface Filter { id: number; name?: string; filterType?: string; query?: unknown; applied?: boolean; [k: string]: unknown }

export interface Sheet {
  id: number;
  name: string;
  version?: number;
  accessLevel: 'OWNER' | 'ADMIN' | 'EDITOR_SHARE' | 'EDITOR' | 'COMMENTER' | 'VIEWER' | string;
  permalink?: string;
  columns: Column[];
  rows: Row[];
  totalRowCount?: number;
  dependenciesEnabled?: boolean;
  projectSettings?: unknown;
  filters?: Filter[];
  effectiveAttachmentOptions?: string[];
  favorite?: boolean;
}
