import { z } from 'zod';
import { flowBuilder } from '../../src/index.js';

/** A refund: small totals are refunded at once, larger ones go to a person first. */
export const refundFlow = flowBuilder({
  id: 'refund',
  locale: 'en',
  input: {
    type: 'object',
    properties: { lines: { type: 'array', items: { type: 'number' } } },
    required: ['lines'],
  },
})
  .node({
    id: 'total',
    run: (ctx) => ({ amount: (ctx.input as { lines: number[] }).lines.reduce((a, b) => a + b, 0) }),
    outputs: { amount: { required: true, schema: z.number() } },
  })
  .node({
    id: 'review',
    instructions: 'Ask the person whether to refund {{nodes.total.outputs.amount}}.',
    outputs: { approved: { required: true, sources: ['user'], schema: z.boolean() } },
  })
  .node({
    id: 'refund',
    run: (ctx) => ({ refunded: ctx.nodes.total?.amount }),
    outputs: { refunded: { schema: z.number() } },
  })
  // `outputs.amount` is a number here: a typo (`outputs.amout`) or a node that does not exist is a compile error.
  .edge('total', 'refund', { when: ({ status, outputs }) => status === 'completed' && outputs.amount <= 100 })
  .edge('total', 'review')
  .edge('review', 'refund', { when: ({ outputs }) => outputs.approved === true })
  .build();
