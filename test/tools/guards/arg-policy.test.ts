import { describe, expect, it } from 'vitest';
import { Observation } from '../../../src/domain/observation.js';
import { catalogGuard } from '../../../src/tools/catalog.js';
import { argPolicyGuard, parseArgs } from '../../../src/tools/guards/arg-policy.js';
import { defineTool } from '../../../src/tools/tool.js';
import { answering, harness, parts } from './fixtures.js';

const orderCreate = defineTool({
  name: 'order_create',
  description: 'Create an order',
  write: true,
  inputSchema: {
    type: 'object',
    properties: {
      buyer: { type: 'string' },
      quota: { type: 'integer' },
      address: { type: 'object', properties: { city: { type: 'string' } } },
      code: { type: 'string', pattern: '^[A-Z]{3}$' },
    },
  },
  execute: () => ({ ok: true }),
});

const tagged = defineTool({
  name: 'tagged',
  description: 'A tool with a 2020-12 schema',
  inputSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false },
    },
    required: ['pair'],
  },
  execute: () => ({ ok: true }),
});

function setup(locale: 'zh-CN' | 'en' = 'zh-CN') {
  return harness({
    localTools: [orderCreate, tagged],
    flow: {
      id: 'orders',
      locale,
      tools: {
        order_create: {
          params: { buyer: { required: true }, quota: { schema: { type: 'integer', maximum: 10 } } },
        },
      },
      nodes: [{ id: 'n', tools: ['order_create', 'tagged'] }],
    },
  });
}

const reached = answering(Observation.success('reached'), false);

async function check(
  args: Record<string, unknown> | string,
  tool = 'order_create',
  locale: 'zh-CN' | 'en' = 'zh-CN',
) {
  const h = setup(locale);
  const { obs, report } = await h.through([catalogGuard(), argPolicyGuard()], tool, args, reached);
  return { ...parts(obs), en: obs.message('en'), report };
}

describe('ArgPolicy alone', () => {
  it('ARG_JSON_INVALID for text that is not JSON', async () => {
    const r = await check('{buyer: alice');
    expect(r.outcome).toBe('REJECTED');
    expect(r.code).toBe('ARG_JSON_INVALID');
    expect(r.reason).toMatch(/^参数不是合法的 JSON 对象：无法解析（.+）$/);
    expect(r.next).toBe('用合法的 JSON 对象作为参数重新调用 order_create');
    expect(r.message).toMatch(/。下一步：用合法的 JSON 对象作为参数重新调用 order_create。$/);
  });

  it('ARG_JSON_INVALID for JSON that is not an object, in both locales', async () => {
    const r = await check('[1,2]', 'order_create', 'en');
    expect(r.code).toBe('ARG_JSON_INVALID');
    expect(r.en).toBe(
      'The arguments are not a valid JSON object: got array. Next: call order_create again with a valid JSON object as its arguments.',
    );
    expect((await check('"x"')).reason).toBe('参数不是合法的 JSON 对象：得到的是 string');
    expect((await check('null')).reason).toBe('参数不是合法的 JSON 对象：得到的是 null');
  });

  it('treats an empty argument string as no arguments', () => {
    expect(parseArgs('  ', 'zh-CN')).toEqual({ ok: true, args: {} });
  });

  it('PARAM_REQUIRED_MISSING for a flow `required: true` field (the SPEC example)', async () => {
    const r = await check({ quota: 1 });
    expect(r).toMatchObject({
      outcome: 'REJECTED',
      code: 'PARAM_REQUIRED_MISSING',
      reason: '缺少必填参数 [buyer]',
    });
    expect(r.message).toBe(
      '缺少必填参数 [buyer]。下一步：补齐后再调用；无法补齐时调用 builtin_node_follow_up 询问用户，或调用 builtin_node_fail 说明原因。',
    );
    expect((await check({ quota: 1 }, 'order_create', 'en')).en).toBe(
      'Missing required argument [buyer]. Next: add it and call again; if you cannot, ask the user with builtin_node_follow_up, or call builtin_node_fail with the reason.',
    );
  });

  it('PARAM_REQUIRED_MISSING for schema `required`, listing every missing field before other violations', async () => {
    const h = harness({
      localTools: [orderCreate],
      flow: {
        id: 'f',
        nodes: [
          { id: 'n', tools: ['order_create'], outputs: { orderId: { required: true, sources: ['model'] } } },
        ],
      },
    });
    const { obs } = await h.through(
      [catalogGuard(), argPolicyGuard()],
      'builtin_output_set',
      { value: 1, sourceType: 7 },
      reached,
    );
    expect(parts(obs)).toMatchObject({ code: 'PARAM_REQUIRED_MISSING', reason: '缺少必填参数 [key]' });
    const both = await h.through([catalogGuard(), argPolicyGuard()], 'builtin_node_approval', {}, reached);
    expect(both.obs.reason).toBe('缺少必填参数 [tool、summary]');
  });

  it('ARG_REJECTED names the field and the rule: tool schema type, nested path, pattern', async () => {
    expect(await check({ buyer: 42 })).toMatchObject({
      code: 'ARG_REJECTED',
      reason: '参数 [buyer] 不符合规则：类型应为 string',
      next: '按规则修正参数 [buyer] 后再调用 order_create',
    });
    expect((await check({ buyer: 'a', address: { city: 1 } })).reason).toBe(
      '参数 [address.city] 不符合规则：类型应为 string',
    );
    expect((await check({ buyer: 'a', code: 'ab' })).reason).toBe(
      '参数 [code] 不符合规则：应匹配正则表达式 ^[A-Z]{3}$',
    );
  });

  it('ARG_REJECTED for a flow `schema:` tightening', async () => {
    const r = await check({ buyer: 'alice', quota: 11 });
    expect(r).toMatchObject({
      outcome: 'REJECTED',
      code: 'ARG_REJECTED',
      reason: '参数 [quota] 不符合规则：不能大于 10',
    });
    expect(r.message).toBe(
      '参数 [quota] 不符合规则：不能大于 10。下一步：按规则修正参数 [quota] 后再调用 order_create。',
    );
    expect((await check({ buyer: 'alice', quota: 11 }, 'order_create', 'en')).en).toBe(
      'Argument [quota] breaks a rule: must be <= 10. Next: fix argument [quota] as the rule says and call order_create again.',
    );
  });

  it('ARG_REJECTED for an argument the tool does not take (builtins are closed)', async () => {
    const r = await check({ summary: 'done', extra: true }, 'builtin_node_finish');
    expect(r.reason).toBe('参数 [extra] 不符合规则：不是该工具接受的参数（接受：summary）');
  });

  it('validates with Ajv 2020-12 when the schema says so', async () => {
    expect((await check({ pair: ['a', 1] }, 'tagged')).reason).toBe('reached');
    expect((await check({ pair: ['a', 'b'] }, 'tagged')).reason).toBe(
      '参数 [pair.1] 不符合规则：类型应为 integer',
    );
  });

  it('passes valid arguments on with args and fingerprint set', async () => {
    const r = await check({ buyer: 'alice', quota: 3 });
    expect(r.reason).toBe('reached');
    expect(r.report.args).toEqual({ buyer: 'alice', quota: 3 });
    expect(r.report.fingerprint).toMatch(/^order_create#[0-9a-f]{24}$/);
  });
});
