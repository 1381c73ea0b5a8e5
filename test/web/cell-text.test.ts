import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dayOrder, parseTypedDay } from '../../src/web/app/sheet/dates.ts';
import { contactText, mergePeople, splitContacts, type Person } from '../../src/web/app/sheet/contacts.ts';
import { copyText, editText, inputFromText, optimisticCell, readableRefusal } from '../../src/web/app/sheet/values.ts';
import type { Column } from '../../src/web/app/sheet/types.ts';

/**
 * What the sheet page sends for text typed or pasted into a cell (the pure part of the grid's
 * editors and paste; typing into the grid itself is tested in Chromium): days as the page
 * shows them, contacts by name, and refusals in words.
 */

const col = (type: string, extra: Partial<Column> = {}): Column => ({ id: 7, index: 0, title: type === 'DATE' ? 'Due' : 'Owner', type, ...extra });
const people: Person[] = [
  { email: 'ada@example.com', name: 'Ada Lovelace' },
  { email: 'bob@example.com', name: 'Bob' },
  { email: 'bob.two@example.com', name: 'Bob' },
  { email: 'grace@example.com' },
];

test('the order of a locale\'s numeric dates: the US month first, Britain and Germany the day first, Japan the year', () => {
  assert.equal(dayOrder('en-US'), 'MDY');
  assert.equal(dayOrder('en-GB'), 'DMY');
  assert.equal(dayOrder('de-DE'), 'DMY');
  assert.equal(dayOrder('ja-JP'), 'YMD');
});

test('a day typed as the date picker and the grid show it (the locale\'s order), or in ISO, is sent as its ISO day', () => {
  const due = col('DATE');
  assert.deepEqual(inputFromText(due, '04/15/2025', { order: 'MDY' }), { value: '2025-04-15' });
  assert.deepEqual(inputFromText(due, '4/15/25', { order: 'MDY' }), { value: '2025-04-15' });
  assert.deepEqual(inputFromText(due, '2025-04-15', { order: 'MDY' }), { value: '2025-04-15' });
  assert.deepEqual(inputFromText(due, ' 2025/4/15 ', { order: 'DMY' }), { value: '2025-04-15' });
  assert.deepEqual(inputFromText(due, '15/04/2025', { order: 'DMY' }), { value: '2025-04-15' });
  assert.deepEqual(inputFromText(due, '15.4.2025', { order: 'DMY' }), { value: '2025-04-15' });
  assert.deepEqual(inputFromText(due, 'Apr 15, 2025', { order: 'DMY' }), { value: '2025-04-15' });
  assert.deepEqual(inputFromText(due, '15 April 2025', { order: 'MDY' }), { value: '2025-04-15' });
  assert.deepEqual(inputFromText(due, '2/29/2024', { order: 'MDY' }), { value: '2024-02-29' });
  // a project sheet's dates take the day too; an ISO date-time is sent as typed
  assert.deepEqual(inputFromText(col('ABSTRACT_DATETIME'), '4/15/2025', { order: 'MDY' }), { value: '2025-04-15' });
  assert.deepEqual(inputFromText(col('ABSTRACT_DATETIME'), '2025-04-15T10:00:00', { order: 'MDY' }), { value: '2025-04-15T10:00:00' });
  // a formula and a clear are what they were
  assert.deepEqual(inputFromText(due, '=TODAY()', { order: 'MDY' }), { formula: '=TODAY()' });
  assert.deepEqual(inputFromText(due, '', { order: 'MDY' }), { value: '' });
  assert.deepEqual(inputFromText(due, '  ', { order: 'MDY' }), { value: '' });
});

test('a day that is not in the calendar, or text that is no day, is refused in words (nothing is sent)', () => {
  const due = col('DATE');
  assert.deepEqual(inputFromText(due, '02/30/2025', { order: 'MDY' }), { refused: '“02/30/2025” is not a date (February 2025 has 28 days).' });
  assert.deepEqual(inputFromText(due, '2/29/2025', { order: 'MDY' }), { refused: '“2/29/2025” is not a date (February 2025 has 28 days).' });
  assert.deepEqual(inputFromText(due, '2025-02-30', { order: 'MDY' }), { refused: '“2025-02-30” is not a date (February 2025 has 28 days).' });
  // 04/15/2025 read day first: there is no month 15
  assert.deepEqual(inputFromText(due, '04/15/2025', { order: 'DMY' }), { refused: '“04/15/2025” is not a date (there is no month 15). Type it as 15/04/2025 or 2025-04-15.' });
  assert.deepEqual(inputFromText(due, 'next week', { order: 'MDY' }), { refused: '“next week” is not a date. Type it as 04/15/2025 or 2025-04-15.' });
  assert.deepEqual(parseTypedDay('2025-13-01T10:00:00', 'MDY'), { error: '“2025-13-01T10:00:00” is not a date (there is no month 13). Type it as 04/15/2025 or 2025-04-15.' });
});

test('a contact typed by name is the one person of that name (case and spaces aside), saved with email and name', () => {
  const owner = col('CONTACT_LIST');
  assert.deepEqual(inputFromText(owner, 'Ada Lovelace', { people }), { objectValue: { objectType: 'CONTACT', email: 'ada@example.com', name: 'Ada Lovelace' } });
  assert.deepEqual(inputFromText(owner, '  ada   LOVELACE ', { people }), { objectValue: { objectType: 'CONTACT', email: 'ada@example.com', name: 'Ada Lovelace' } });
  // an email address (a known one gets its name, case aside); an unknown one is saved as typed
  assert.deepEqual(inputFromText(owner, 'ADA@example.com', { people }), { objectValue: { objectType: 'CONTACT', email: 'ada@example.com', name: 'Ada Lovelace' } });
  assert.deepEqual(inputFromText(owner, 'new@example.org', { people }), { objectValue: { objectType: 'CONTACT', email: 'new@example.org' } });
  // Name <email>, as copied
  assert.deepEqual(inputFromText(owner, 'Countess <ada@example.com>', { people }), { objectValue: { objectType: 'CONTACT', email: 'ada@example.com', name: 'Countess' } });
  assert.deepEqual(inputFromText(owner, '"Lovelace, Ada" <ada@example.com>', { people }), { objectValue: { objectType: 'CONTACT', email: 'ada@example.com', name: 'Lovelace, Ada' } });
  assert.deepEqual(inputFromText(owner, '<ada@example.com>', { people }), { objectValue: { objectType: 'CONTACT', email: 'ada@example.com', name: 'Ada Lovelace' } });
});

test('a contact name nobody has, one that two people have, or a bad address in <...> is refused in words', () => {
  const owner = col('CONTACT_LIST');
  assert.deepEqual(inputFromText(owner, 'Charles Babbage', { people }), { refused: '“Charles Babbage” is not a known contact. Type an email address, or choose a person from the list.' });
  assert.deepEqual(inputFromText(owner, 'bob', { people }), { refused: '“bob” is the name of 2 contacts (bob@example.com, bob.two@example.com). Type the email address of the one you mean.' });
  assert.deepEqual(inputFromText(owner, 'Ada <not an address>', { people }), { refused: '“Ada <not an address>” is not a contact (“not an address” is not an email address).' });
  // without the people known, a name is no contact
  assert.ok('refused' in inputFromText(owner, 'Ada Lovelace'));
});

test('several contacts: names, addresses and Name <email> entries, split outside quotes; one unknown refuses them all', () => {
  const team = col('MULTI_CONTACT_LIST');
  assert.deepEqual(splitContacts('"Lovelace, Ada" <ada@example.com>, Bob <bob@example.com>;x@y.org\nGrace'), ['"Lovelace, Ada" <ada@example.com>', 'Bob <bob@example.com>', 'x@y.org', 'Grace']);
  assert.deepEqual(inputFromText(team, 'Ada Lovelace, grace@example.com; Ada Lovelace <ADA@example.com>', { people }), {
    objectValue: { objectType: 'MULTI_CONTACT', values: [{ objectType: 'CONTACT', email: 'ada@example.com', name: 'Ada Lovelace' }, { objectType: 'CONTACT', email: 'grace@example.com' }] },
  });
  assert.deepEqual(inputFromText(team, 'a@x.org b@x.org', { people }), {
    objectValue: { objectType: 'MULTI_CONTACT', values: [{ objectType: 'CONTACT', email: 'a@x.org' }, { objectType: 'CONTACT', email: 'b@x.org' }] },
  });
  assert.deepEqual(inputFromText(team, 'Ada Lovelace, Nobody', { people }), { refused: '“Nobody” is not a known contact. Type an email address, or choose a person from the list.' });
});

test('a contact cell is copied as Name <email> (its name alone is what it shows) and pasting that back gives the same contact', () => {
  const owner = col('CONTACT_LIST');
  const cell = { columnId: 7, value: 'ada@example.com', displayValue: 'Lovelace, Ada', objectValue: { objectType: 'CONTACT', email: 'ada@example.com', name: 'Lovelace, Ada' } };
  const copied = copyText(owner, cell, 'Lovelace, Ada');
  assert.equal(copied, '"Lovelace, Ada" <ada@example.com>');
  assert.deepEqual(inputFromText(owner, copied, { people: [] }), { objectValue: { objectType: 'CONTACT', email: 'ada@example.com', name: 'Lovelace, Ada' } });
  assert.equal(editText(owner, cell), copied);
  const team = col('MULTI_CONTACT_LIST');
  const many = { columnId: 7, displayValue: 'Ada Lovelace, grace@example.com', objectValue: { objectType: 'MULTI_CONTACT', values: [{ objectType: 'CONTACT', email: 'ada@example.com', name: 'Ada Lovelace' }, { objectType: 'CONTACT', email: 'grace@example.com' }] } };
  const both = copyText(team, many, 'Ada Lovelace, grace@example.com');
  assert.equal(both, 'Ada Lovelace <ada@example.com>, grace@example.com');
  assert.deepEqual(inputFromText(team, both, { people: [] }), { objectValue: { objectType: 'MULTI_CONTACT', values: many.objectValue.values } });
  // other cells are copied as they are shown
  assert.equal(copyText(col('DATE'), { columnId: 7, value: '2025-04-15' }, '2025-04-15'), '2025-04-15');
  assert.equal(contactText({ email: 'x@y.org' }), 'x@y.org');
  // shown at once with the name, before the server answers
  assert.equal(optimisticCell(owner, { objectValue: { objectType: 'CONTACT', email: 'ada@example.com', name: 'Ada Lovelace' } }, undefined).displayValue, 'Ada Lovelace');
});

test('people from several lists: each email once, a name from any list kept', () => {
  assert.deepEqual(mergePeople([{ email: 'a@x.org' }, { name: 'No email' }], [{ email: 'A@x.org', name: 'Ann' }, { email: 'b@x.org', name: 'b@x.org' }]), [{ email: 'a@x.org', name: 'Ann' }, { email: 'b@x.org' }]);
});

test('a refusal of the server quoting a value as JSON is shown in words, the column by its title, the type by its name', () => {
  const title = (id: number) => (id === 6867049077898992 ? 'Owner' : undefined);
  assert.equal(
    readableRefusal('Cell value in column 6867049077898992, {"objectType":"CONTACT","email":"Ada Lovelace"}, violates strict requirements of type CONTACT_LIST.', title),
    'Cell value in column “Owner”, “Ada Lovelace”, violates strict requirements of type Contact.',
  );
  assert.equal(
    readableRefusal('Cell value in column 5, {"objectType":"MULTI_CONTACT","values":[{"objectType":"CONTACT","email":"x"},{"objectType":"CONTACT","email":"a@b.c","name":"A"}]}, violates strict requirements of type MULTI_CONTACT_LIST.', title),
    'Cell value in column 5, “x, A <a@b.c>”, violates strict requirements of type Multiple contacts.',
  );
  assert.equal(readableRefusal('Value {"a":[1,2]} invalid for attribute objectValue.', title), 'Value “1, 2” invalid for attribute objectValue.');
  // no JSON: as the server wrote it
  assert.equal(readableRefusal('Value {0} is not {here}.', title), 'Value {0} is not {here}.');
});
