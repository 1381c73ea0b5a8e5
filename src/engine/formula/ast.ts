/**
 * The parsed form of a formula. References hold cell IDENTITY (column id, row id) or `@row`,
 * never positions, so renaming columns and moving rows leaves a formula on the same cells; the
 * text a client sees is rendered back from this form (see render.ts).
 */
import type { ErrorCode } from './values.ts';

export type ColumnId = number;
export type RowId = number;

/** [start, end) offsets of a reference in the formula's source text. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

export interface ColRef {
  readonly colId: ColumnId;
  /** `$` before the column. */
  readonly abs: boolean;
  /** Written in brackets (kept when rendering even if the title would not need them). */
  readonly bracket: boolean;
}

/** A row by identity, the host row (`@row`), or a row number the sheet did not have when parsed. */
export type RowRef =
  | { readonly kind: 'id'; readonly rowId: RowId; readonly abs: boolean }
  | { readonly kind: 'at' }
  | { readonly kind: 'missing'; readonly rowNumber: number; readonly abs: boolean };

export type BinaryOp = '+' | '-' | '*' | '/' | '^' | '=' | '<>' | '<' | '>' | '<=' | '>=';
export type CompareOp = '=' | '<>' | '<' | '>' | '<=' | '>=';

export interface CellNode {
  readonly type: 'cell';
  readonly col: ColRef;
  readonly row: RowRef;
  readonly span: Span;
}

/** `[A]1:[B]5` (rows given) or `[A]:[B]` (whole columns, r1 = r2 = null). */
export interface RangeNode {
  readonly type: 'range';
  readonly c1: ColRef;
  readonly c2: ColRef;
  readonly r1: RowRef | null;
  readonly r2: RowRef | null;
  readonly span: Span;
}

/** `{Reference Name}`: a range in another sheet, supplied by the service. */
export interface CrossSheetNode {
  readonly type: 'xref';
  readonly name: string;
  readonly span: Span;
}

export type RefNode = CellNode | RangeNode | CrossSheetNode;

export type Node =
  | { readonly type: 'number'; readonly value: number }
  | { readonly type: 'string'; readonly value: string }
  | { readonly type: 'boolean'; readonly value: boolean }
  /** An omitted argument: `IF(x, , 1)`. */
  | { readonly type: 'empty' }
  /** An error literal, e.g. the `#REF` that a reference to a deleted row renders as. */
  | { readonly type: 'error'; readonly code: ErrorCode; readonly span: Span }
  | CellNode
  | RangeNode
  | CrossSheetNode
  | { readonly type: 'atcell' }
  | { readonly type: 'unary'; readonly op: '-' | '+'; readonly arg: Node }
  | { readonly type: 'binary'; readonly op: BinaryOp; readonly left: Node; readonly right: Node }
  /** A criterion written with a leading comparison: `COUNTIF([A]:[A], > 5)`. */
  | { readonly type: 'criterion'; readonly op: CompareOp; readonly arg: Node }
  | { readonly type: 'call'; readonly name: string; readonly args: readonly Node[] };

/** The result of parsing: a tree, or the marker for text that does not parse (evaluates to #UNPARSEABLE). */
export type Formula =
  | { readonly ok: true; readonly text: string; readonly root: Node }
  | { readonly ok: false; readonly text: string; readonly code: '#UNPARSEABLE' | '#IMBALANCED'; readonly reason: string };

/** Visits every node, parents before children. */
export function walk(node: Node, visit: (n: Node) => void): void {
  visit(node);
  switch (node.type) {
    case 'unary':
    case 'criterion':
      walk(node.arg, visit);
      break;
    case 'binary':
      walk(node.left, visit);
      walk(node.right, visit);
      break;
    case 'call':
      for (const a of node.args) walk(a, visit);
      break;
    default:
      break;
  }
}

/** Rebuilds a tree with some nodes replaced (`f` returns a replacement or undefined to keep). */
export function mapNodes(node: Node, f: (n: Node) => Node | undefined): Node {
  const replaced = f(node);
  if (replaced !== undefined) return replaced;
  switch (node.type) {
    case 'unary':
      return { ...node, arg: mapNodes(node.arg, f) };
    case 'criterion':
      return { ...node, arg: mapNodes(node.arg, f) };
    case 'binary':
      return { ...node, left: mapNodes(node.left, f), right: mapNodes(node.right, f) };
    case 'call':
      return { ...node, args: node.args.map((a) => mapNodes(a, f)) };
    default:
      return node;
  }
}

/** Whether a cross-sheet reference occurs anywhere in an expression, function arguments included. */
export function readsCrossSheet(n: Node): boolean {
  switch (n.type) {
    case 'xref':
      return true;
    case 'unary':
    case 'criterion':
      return readsCrossSheet(n.arg);
    case 'binary':
      return readsCrossSheet(n.left) || readsCrossSheet(n.right);
    case 'call':
      return n.args.some(readsCrossSheet);
    default:
      return false;
  }
}
