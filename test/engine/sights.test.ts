import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cleanWidgetHtml, parseWidgets, retargetWidgets, widgetRefs } from '../../src/engine/sights.ts';
import { InvalidInput } from '../../src/engine/errors.ts';

let next = 100;
const newId = () => ++next;
const code = (n: number) => (e: unknown) => e instanceof InvalidInput && e.errorCode === n;

test('parseWidgets: defaults, ids kept by id, versions, grid bounds', () => {
  const [w] = parseWidgets([{ type: 'TITLE', contents: { htmlContent: '<p>x</p>' } }], [], 12, newId);
  assert.deepEqual({ ...w, id: 0 }, { id: 0, type: 'TITLE', showTitle: false, showTitleIcon: false, xPosition: 0, yPosition: 0, width: 4, height: 4, version: 1, contents: { type: 'TITLE', htmlContent: '<p>x</p>' } });
  const again = parseWidgets([{ id: w!.id, type: 'TITLE', title: 'T', contents: { htmlContent: 'y' } }, { type: 'WEBCONTENT', contents: { url: 'https://example.com' } }], [w!], 12, newId);
  assert.equal(again[0]!.id, w!.id);
  assert.equal(again[0]!.version, 2);
  assert.equal(again[0]!.showTitle, true);
  assert.notEqual(again[1]!.id, w!.id);
  assert.throws(() => parseWidgets([{ id: 5, type: 'TITLE', contents: { htmlContent: 'y' } }], [w!], 12, newId), code(1031));
  assert.throws(() => parseWidgets([{ type: 'TITLE', xPosition: 9, width: 4, contents: { htmlContent: 'y' } }], [], 12, newId), code(1031));
  assert.throws(() => parseWidgets([{ type: 'TITLE' }], [], 12, newId), code(1012));
  assert.throws(() => parseWidgets([{ type: 'CHART', contents: { sheetId: 1, reportId: 2 } }], [], 12, newId), code(1031));
  assert.throws(() => parseWidgets([{ type: 'SHORTCUT', contents: { shortcutData: [{ hyperlink: { url: 'https://a' } }, { hyperlink: { url: 'https://b' } }] } }], [], 12, newId), code(1031));
  assert.throws(() => parseWidgets([{ type: 'METRIC', contents: { sheetId: 1, cellData: [{ rowId: 1, columnId: 2, dataSource: 'SUMMARY_FIELD' }] } }], [], 12, newId), code(1012));
  assert.throws(() => parseWidgets([{ type: 'METRIC', contents: { sheetId: 1, cellData: [{ rowId: 1, columnId: 2, dataSource: 'FORMULA' }] } }], [], 12, newId), code(1031));
  const [summary] = parseWidgets([{ type: 'SHEETSUMMARY', contents: { sheetId: 1, cellData: [{ dataSource: 'SUMMARY_FIELD', profileField: { id: 9 } }] } }], [], 12, newId);
  assert.equal(summary!.type, 'METRIC');
  assert.deepEqual(summary!.contents, { type: 'METRIC', sheetId: 1, cellData: [{ dataSource: 'SUMMARY_FIELD', profileFieldId: 9, order: 0 }] });
  assert.throws(() => parseWidgets([{ type: 'IMAGE', contents: { hyperlink: { interactionType: 'SMARTSHEET_ITEM' } } }], [], 12, newId), code(1012));
});

test('cleanWidgetHtml keeps the listed tags and styles only', () => {
  assert.equal(cleanWidgetHtml('<p style="color:red;position:fixed" onclick="x()">a<script>b</script><b>c</b></p>', 'RICHTEXT'), '<p style="color:red">ac</p>');
  assert.equal(cleanWidgetHtml('<ul><li><a href="javascript:alert(1)">x</a></li></ul>', 'RICHTEXT'), '<ul><li><a>x</a></li></ul>');
  assert.equal(cleanWidgetHtml('<ul><li>x</li></ul><br />', 'TITLE'), 'x<br />');
});

test('widgetRefs and retargetWidgets follow copied sheets, rows and columns', () => {
  const ws = parseWidgets([
    { type: 'METRIC', contents: { sheetId: 1, cellData: [{ rowId: 10, columnId: 20 }], hyperlink: { interactionType: 'SMARTSHEET_ITEM', reportId: 7 } } },
    { type: 'SHORTCUTLIST', contents: { shortcutData: [{ hyperlink: { sheetId: 2 } }, { hyperlink: { sightId: 3 } }] } },
    { type: 'CHART', contents: { sheetId: 1, selectionRanges: [{ sourceColumnId1: 20, sourceRowId1: 10 }], includedColumnIds: [20] } },
  ], [], 12, newId);
  const refs = widgetRefs(ws);
  assert.deepEqual([...refs.sheetId].sort(), [1, 2]);
  assert.deepEqual([...refs.reportId], [7]);
  assert.deepEqual([...refs.sightId], [3]);
  const out = retargetWidgets(ws, { sheetMap: new Map([[1, 11]]), rowMap: new Map([[10, 110]]), colMap: new Map([[20, 120]]) });
  assert.deepEqual(out[0]!.contents, { type: 'METRIC', sheetId: 11, cellData: [{ dataSource: 'CELL', rowId: 110, columnId: 120, order: 0 }], hyperlink: { interactionType: 'SMARTSHEET_ITEM', reportId: 7 } });
  assert.deepEqual((out[1]!.contents as { shortcutData: Array<{ hyperlink: unknown }> }).shortcutData.map((s) => s.hyperlink), [{ sheetId: 2 }, { sightId: 3 }]);
  assert.deepEqual(out[2]!.contents, { type: 'CHART', sheetId: 11, selectionRanges: [{ sourceColumnId1: 120, sourceRowId1: 110 }], includedColumnIds: [120] });
});
