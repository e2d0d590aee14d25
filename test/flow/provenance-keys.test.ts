import { describe, expect, it } from 'vitest';
import { BASE, problemLines } from './helpers.js';

// The provenance keys of params (docs/flows.md): a list `source`, `match`, `fields`.

const edit = (from: string, to: string): string => {
  expect(BASE).toContain(from);
  return BASE.replace(from, () => to);
};
const NAME = 'name: { source: user, required: true }';

describe('params: source lists, match and fields', () => {
  it('accepts a list of sources, `match: contains` and field contracts', async () => {
    const yaml = edit(
      NAME,
      'name: { source: [user, evidence], from: [space_list], match: contains }\n      spaceIds: { fields: { id: { source: evidence, from: [space_list] }, note: { source: user, required: true } } }',
    );
    expect(await problemLines(yaml)).toEqual([]);
  });

  it('an unknown source, an empty list and an unknown match are structure problems', async () => {
    expect(await problemLines(edit(NAME, 'name: { source: [user, users] }'))).toEqual([
      expect.stringMatching(/params\.name\.source: expected a list of "evidence" and "user"; got "users"$/),
    ]);
    expect((await problemLines(edit(NAME, 'name: { source: [] }')))[0]).toMatch(/params\.name\.source: /);
    expect((await problemLines(edit(NAME, 'name: { source: user, match: inside }')))[0]).toMatch(
      /params\.name\.match: expected one of: "equals", "contains"; got "inside"$/,
    );
  });

  it('evidence in a list needs from; match needs evidence; fields stand alone and are checked themselves', async () => {
    const lines = await problemLines(
      edit(
        NAME,
        'name: { source: [user, evidence] }\n      other: { source: user, match: contains }\n      obj: { source: user, fields: { a: { source: evidence } } }',
      ),
    );
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/params\.name\.source: source: evidence needs from/),
        expect.stringMatching(/params\.other\.match: match applies to source: evidence only/),
        expect.stringMatching(/params\.obj\.source: source does not apply beside fields/),
        expect.stringMatching(/params\.obj\.fields\.a\.source: source: evidence needs from/),
      ]),
    );
    expect(lines).toHaveLength(4);
  });

  it('trust: { confidential } alone or beside untrusted; an empty object, an empty list or a bad path is a problem; reply: { untrusted: refuse }', async () => {
    const policy = (trust: string) => edit('tools:\n', `tools:\n  space_list: { trust: ${trust} }\n`);
    expect(await problemLines(policy("{ confidential: ['`Passport Number`'] }"))).toEqual([]);
    expect(await problemLines(policy("{ untrusted: [notes], confidential: ['$'] }"))).toEqual([]);
    expect((await problemLines(policy('{}')))[0]).toMatch(
      /tools\.space_list\.trust: expected untrusted: \[<JSONata path>, …\], confidential: \[<JSONata path>, …\] or both/,
    );
    expect((await problemLines(policy('{ confidential: [] }')))[0]).toMatch(/tools\.space_list\.trust/);
    expect((await problemLines(policy("{ confidential: ['a[('] }")))[0]).toMatch(
      /tools\.space_list\.trust\.confidential\[0\]: expected a JSONata expression/,
    );
    const reply = (value: string) => edit('  - id: query\n', `  - id: query\n    reply: ${value}\n`);
    expect(await problemLines(reply('{ untrusted: refuse }'))).toEqual([]);
    expect((await problemLines(reply('{ untrusted: allow }')))[0]).toMatch(
      /nodes\[0\]\.reply\.untrusted: expected "refuse", got "allow"/,
    );
  });

  it('text: { params, untrusted: refuse } on a write tool; an empty or repeated list, another mode or a read tool is a problem', async () => {
    const text = (value: string) => edit('    write: true\n', `    write: true\n    text: ${value}\n`);
    expect(await problemLines(text('{ params: [name], untrusted: refuse }'))).toEqual([]);
    expect((await problemLines(text('{ params: [], untrusted: refuse }')))[0]).toMatch(
      /tools\.web_site_create\.text\.params: /,
    );
    expect((await problemLines(text('{ params: [name, name], untrusted: refuse }')))[0]).toMatch(
      /tools\.web_site_create\.text\.params: expected each argument once/,
    );
    expect((await problemLines(text('{ params: [name], untrusted: allow }')))[0]).toMatch(
      /tools\.web_site_create\.text\.untrusted: expected "refuse", got "allow"/,
    );
    expect((await problemLines(text('{ untrusted: refuse }')))[0]).toMatch(
      /tools\.web_site_create\.text\.params/,
    );
    const read = edit(
      'tools:\n',
      'tools:\n  space_list: { write: false, text: { params: [q], untrusted: refuse } }\n',
    );
    expect(await problemLines(read)).toEqual([
      expect.stringMatching(
        /tools\.space_list\.text: text applies to write tools only; expected write: true or no text$/,
      ),
    ]);
  });
});
