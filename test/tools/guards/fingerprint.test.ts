import { describe, expect, it } from 'vitest';
import { Observation } from '../../../src/domain/observation.js';
import { catalogGuard } from '../../../src/tools/catalog.js';
import { argPolicyGuard } from '../../../src/tools/guards/arg-policy.js';
import { fingerprintGuard } from '../../../src/tools/guards/fingerprint.js';
import { answering, cloudTools, harness, parts } from './fixtures.js';

const guards = () => [catalogGuard(), argPolicyGuard(), fingerprintGuard()];
const executes = answering(Observation.success('ok', { code: 0 }));

describe('Fingerprint alone', () => {
  it('the 3rd identical call trips with the default fingerprintRepeats 2 (key order does not matter)', async () => {
    const h = harness({ localTools: cloudTools().tools });
    expect((await h.through(guards(), 'web_site_list', { spaceId: 'sp_1' }, executes)).obs.ok).toBe(true);
    expect((await h.through(guards(), 'web_site_list', '{ "spaceId" : "sp_1" }', executes)).obs.ok).toBe(
      true,
    );
    const third = await h.through(guards(), 'web_site_list', { spaceId: 'sp_1' }, executes);
    expect(parts(third.obs)).toEqual({
      outcome: 'REJECTED',
      code: 'FINGERPRINT_TRIP',
      reason: '相同参数已调用 web_site_list 2 次，本次未执行',
      next: '不要再用相同参数调用 web_site_list；根据已有结果继续，无法继续时调用 builtin_node_follow_up 询问用户，或调用 builtin_node_fail 说明原因',
      message:
        '相同参数已调用 web_site_list 2 次，本次未执行。下一步：不要再用相同参数调用 web_site_list；根据已有结果继续，无法继续时调用 builtin_node_follow_up 询问用户，或调用 builtin_node_fail 说明原因。',
    });
    expect(third.report.executed).toBe(false);
    expect((await h.through(guards(), 'web_site_list', { spaceId: 'sp_2' }, executes)).obs.ok).toBe(true);
  });

  it('uses the node’s own limit when it sets one', async () => {
    const h = harness({
      localTools: cloudTools().tools,
      flow: {
        id: 'f',
        limits: { fingerprintRepeats: 5 },
        nodes: [{ id: 'n', tools: ['space_list'], limits: { fingerprintRepeats: 1 } }],
      },
    });
    await h.through(guards(), 'space_list', {}, executes);
    expect((await h.through(guards(), 'space_list', {}, executes)).obs.errorCode).toBe('FINGERPRINT_TRIP');
  });

  it('counts builtin calls like any other (the seed incident: identical rejected output_set calls)', async () => {
    const h = harness({ localTools: cloudTools().tools });
    const run = () =>
      h.through(guards(), 'builtin_node_fail', { reason: 'x' }, answering(Observation.success('ok'), false));
    expect((await run()).obs.ok).toBe(true);
    expect((await run()).obs.ok).toBe(true);
    expect((await run()).obs.errorCode).toBe('FINGERPRINT_TRIP');
  });

  it('never counts approved writes or verify calls of a pending write', async () => {
    const h = harness({ localTools: cloudTools().tools });
    h.node.pendingWrites.push({
      tool: 'web_site_create',
      fingerprint: 'x',
      verifyTool: 'web_site_get',
      verifyArgs: { siteId: 'site_1' },
      done: 'false',
      scope: { args: {}, result: null, key: 'k' },
    });
    for (let i = 0; i < 4; i++)
      expect((await h.through(guards(), 'web_site_get', { siteId: 'site_1' }, executes)).obs.ok).toBe(true);
    const approved = {
      ...h.ctx('web_site_create', {}),
      approved: true,
      fingerprint: 'web_site_create#x',
      args: {},
    };
    const step = fingerprintGuard();
    for (let i = 0; i < 4; i++) expect(await step(approved)).toEqual({ counted: false });
    expect(Object.keys(h.node.fingerprintCounts)).toHaveLength(0);
  });
});
