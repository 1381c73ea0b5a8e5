import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import smartsheet from 'smartsheet';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { pngBytes } from '../helpers/images.ts';

// Attachments, discussions and comments through the official JavaScript SDK, unchanged but
// for the base URL: its file methods send simple uploads (Content-Disposition, the file's type).
let t: TestServer;
before(async () => {
  t = await startSuiteServer({ SHEETD_RATE_LIMIT: '100000' });
});
after(() => t.close());

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

test('attachments, discussions and comments through the SDK', async () => {
  const c: Loose = smartsheet.createClient({ accessToken: t.adminToken, baseUrl: t.base + '/', logLevel: 'error' });
  const sheet = (await c.sheets.createSheet({ body: { name: 'SDK files', columns: [{ title: 'Item', type: 'TEXT_NUMBER', primary: true }] } })).result;
  const rowId = (await c.sheets.addRows({ sheetId: sheet.id, body: [{ toBottom: true, cells: [{ columnId: sheet.columns[0].id, value: 'a' }] }] })).result[0].id;

  const file = path.join(t.dataDir, 'picture.png');
  const png = pngBytes(6, 6, 1);
  fs.writeFileSync(file, png);
  const up = await c.sheets.addFileAttachment({ sheetId: sheet.id, fileSize: png.length, fileName: 'picture.png', fileStream: fs.createReadStream(file) });
  assert.equal(up.message, 'SUCCESS');
  assert.equal(up.result.mimeType, 'image/png');
  const got = await c.sheets.getAttachment({ sheetId: sheet.id, attachmentId: up.result.id });
  assert.deepEqual(Buffer.from(await (await fetch(got.url)).arrayBuffer()), png);

  const v2 = await c.sheets.attachNewVersion({ sheetId: sheet.id, attachmentId: up.result.id, fileSize: 3, fileName: 'picture.txt', fileStream: Readable.from([Buffer.from('two')]) });
  assert.equal(v2.result.name, 'picture.txt');
  const versions = await c.sheets.listAttachmentVersions({ sheetId: sheet.id, attachmentId: up.result.id });
  assert.equal(versions.data.length, 2);

  const link = await c.sheets.addRowUrlAttachment({ sheetId: sheet.id, rowId, body: { attachmentType: 'LINK', url: 'https://example.com', name: 'site' } });
  assert.equal(link.result.parentType, 'ROW');
  const rowFile = await c.sheets.addRowFileAttachment({ sheetId: sheet.id, rowId, fileSize: 2, fileName: 'r.txt', fileStream: Readable.from([Buffer.from('hi')]) });
  assert.equal(rowFile.result.mimeType, 'text/plain');
  assert.equal((await c.sheets.getRowAttachments({ sheetId: sheet.id, rowId })).totalCount, 2);
  assert.equal((await c.sheets.listAttachments({ sheetId: sheet.id })).totalCount, 3);

  const d = await c.sheets.createDiscussion({ sheetId: sheet.id, body: { comment: { text: 'hello' } } });
  assert.equal(d.result.title, 'hello');
  const rd = await c.sheets.createRowDiscussion({ sheetId: sheet.id, rowId, body: { comment: { text: 'on the row' } } });
  const comment = await c.sheets.addDiscussionComment({ sheetId: sheet.id, discussionId: rd.result.id, body: { text: 'reply' } });
  const edited = await c.sheets.editComment({ sheetId: sheet.id, commentId: comment.result.id, body: { text: 'reply, edited' } });
  assert.equal(edited.result.text, 'reply, edited');
  const ca = await c.sheets.addCommentFileAttachment({ sheetId: sheet.id, commentId: comment.result.id, fileSize: 1, fileName: 'c.txt', fileStream: Readable.from([Buffer.from('c')]) });
  assert.equal(ca.result.parentType, 'COMMENT');
  const cu = await c.sheets.addCommentUrlAttachment({ sheetId: sheet.id, commentId: comment.result.id, body: { attachmentType: 'LINK', url: 'https://example.org' } });
  assert.equal(cu.result.attachmentType, 'LINK');
  assert.equal((await c.sheets.listDiscussionAttachments({ sheetId: sheet.id, discussionId: rd.result.id })).totalCount, 2);
  const list = await c.sheets.getDiscussions({ sheetId: sheet.id, queryParameters: { include: 'comments' } });
  assert.equal(list.totalCount, 2);
  assert.equal((await c.sheets.getRowDiscussions({ sheetId: sheet.id, rowId })).totalCount, 1);
  assert.equal((await c.sheets.getComment({ sheetId: sheet.id, commentId: comment.result.id })).text, 'reply, edited');
  assert.equal((await c.sheets.getDiscussion({ sheetId: sheet.id, discussionId: rd.result.id })).commentCount, 2);
  assert.equal((await c.sheets.deleteComment({ sheetId: sheet.id, commentId: comment.result.id })).message, 'SUCCESS');
  assert.equal((await c.sheets.deleteDiscussion({ sheetId: sheet.id, discussionId: d.result.id })).message, 'SUCCESS');
  assert.equal((await c.sheets.deleteAttachment({ sheetId: sheet.id, attachmentId: link.result.id })).message, 'SUCCESS');
  assert.equal((await c.sheets.deleteAllAttachmentVersions({ sheetId: sheet.id, attachmentId: up.result.id })).message, 'SUCCESS');
  assert.equal((await c.sheets.listAttachments({ sheetId: sheet.id })).totalCount, 1);
  await assert.rejects(c.sheets.addFileAttachment({ sheetId: sheet.id, fileSize: 1, fileName: 'x', fileStream: Readable.from([Buffer.from('x')]), accessToken: 'nope' }), (e: { statusCode: number }) => e.statusCode === 401);
});
