import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chartData, chartSummary, reportTable, type SourceTable } from '../../src/web/app/dashboards/chartData.ts';

/**
 * What a dashboard's CHART widget draws from its source's rows (the pure part shared by the
 * dashboard page and the published page; the drawing itself is tested in Chromium).
 */
const table: SourceTable = {
  columns: [
    { id: 1, title: 'Region' },
    { id: 2, title: 'Q1' },
    { id: 3, title: 'Q2' },
    { id: 4, title: 'Notes', hidden: true },
  ],
  rows: [
    { id: 10, cells: [{ columnId: 1, value: 'North' }, { columnId: 2, value: 120 }, { columnId: 3, displayValue: '1,200', value: '1,200' }] },
    { id: 11, cells: [{ columnId: 1, value: 'South' }, { columnId: 2, value: '45%' }, { columnId: 3, value: 'n/a' }] },
    { id: 12, cells: [{ columnId: 1, value: 'East' }, { columnId: 2, value: 7 }] },
  ],
};

test('columns order: the first column names the categories, each further column is a series; text numbers read, other text is a gap', () => {
  const d = chartData({ selectionRanges: [{ sourceColumnId1: 1, sourceColumnId2: 3 }], series: [{ title: 'First quarter', seriesType: 'LINE' }] }, table);
  assert.equal(d.type, 'LINE');
  assert.equal(d.categoryTitle, 'Region');
  assert.deepEqual(d.labels, ['North', 'South', 'East']);
  assert.deepEqual(d.series.map((s) => [s.label, s.values]), [['First quarter', [120, 45, 7]], ['Q2', [1200, null, null]]]);
});

test('a range of rows, in the sheet\'s order whichever end is named first; legend and axes', () => {
  const d = chartData({ selectionRanges: [{ sourceColumnId1: 1, sourceColumnId2: 2, sourceRowId1: 12, sourceRowId2: 11 }], legend: { location: 'NONE' }, axes: [{ location: 'BOTTOM', title: 'Where' }, { location: 'LEFT', title: 'How many' }] }, table);
  assert.deepEqual(d.labels, ['South', 'East']);
  assert.deepEqual(d.series[0]!.values, [45, 7]);
  assert.equal(d.type, 'COLUMN');
  assert.equal(d.legend, 'NONE');
  assert.deepEqual(d.axisTitles, { x: 'Where', y: 'How many' });
});

test('rows order: each row is a series named by its first cell, the other columns are the categories', () => {
  const d = chartData({ includedColumnIds: [1, 2, 3], series: [{ seriesSelectionOrder: 'ROWS', seriesType: 'BAR' }] }, table);
  assert.equal(d.type, 'BAR');
  assert.deepEqual(d.labels, ['Q1', 'Q2']);
  assert.deepEqual(d.series.map((s) => [s.label, s.values]), [['North', [120, 1200]], ['South', [45, null]], ['East', [7, null]]]);
});

test('without a range or columns: every visible column; a report\'s rows by virtual column', () => {
  const d = chartData({ series: [{ seriesType: 'PIE' }] }, table);
  assert.deepEqual(d.series.map((s) => s.label), ['Q1', 'Q2'], 'the hidden column is left out');
  const r = reportTable({ columns: [{ virtualId: 7, title: 'Task' }, { virtualId: 8, title: 'Points' }], rows: [{ id: 1, cells: [{ virtualColumnId: 7, value: 'A' }, { virtualColumnId: 8, value: 3 }] }] });
  assert.deepEqual(chartData({}, r).series[0]!.values, [3]);
});

/** A sheet as people keep one: blank rows between the figures and at the bottom. */
const withBlanks: SourceTable = {
  columns: [{ id: 1, title: 'Region' }, { id: 2, title: 'Q1' }, { id: 3, title: 'Q2' }],
  rows: [
    { id: 20, cells: [{ columnId: 1, value: 'North' }, { columnId: 2, value: 5 }, { columnId: 3, value: 6 }] },
    { id: 21, cells: [] },
    { id: 22, cells: [{ columnId: 1, value: 'West' }] },
    { id: 23, cells: [{ columnId: 1, value: '  ' }, { columnId: 2, value: 9 }] },
    { id: 24, cells: [{ columnId: 1, value: null, displayValue: '' }, { columnId: 2, value: null }] },
  ],
};

test('columns order: a row whose category cell is blank is no category; a named row without figures stays, with gaps', () => {
  const d = chartData({ selectionRanges: [{ sourceColumnId1: 1, sourceColumnId2: 3 }] }, withBlanks);
  assert.deepEqual(d.labels, ['North', 'West']);
  assert.deepEqual(d.series.map((s) => [s.label, s.values]), [['Q1', [5, null]], ['Q2', [6, null]]]);
  assert.match(chartSummary('', d), /\b2 Region\b/);
});

test('columns order, one column: blank cells are no bars; the rest keep their row\'s place as the label', () => {
  const d = chartData({ includedColumnIds: [2] }, withBlanks);
  assert.deepEqual(d.labels, ['1', '4']);
  assert.deepEqual(d.series[0]!.values, [5, 9]);
});

test('rows order: a blank row is no series; a row with figures but no name is named by its place', () => {
  const d = chartData({ includedColumnIds: [1, 2, 3], series: [{ seriesSelectionOrder: 'ROWS' }, { title: 'West side', color: '#123456' }] }, withBlanks);
  assert.deepEqual(d.series.map((s) => [s.label, s.values]), [['North', [5, 6]], ['West side', [null, null]], ['Row 4', [9, null]]]);
  assert.equal(d.series[1]!.color, '#123456', 'the widget\'s second series is the second one drawn');
});

test('a chart of blank rows only has no data', () => {
  const blank: SourceTable = { columns: withBlanks.columns, rows: [{ id: 1, cells: [] }, { id: 2, cells: [{ columnId: 1, value: '' }] }] };
  assert.deepEqual(chartData({}, blank).labels, []);
  assert.deepEqual(chartData({ series: [{ seriesSelectionOrder: 'ROWS' }] }, blank).series, []);
});
