import type { ProducedCase } from '../produces.js';

/** What the param contract produces (for docs/observations.md). */
export const PARAM_CONTRACT_PRODUCES: readonly ProducedCase[] = [
  {
    producer: 'ParamContract',
    case: '`enum`: the value (or an element of a list) is not one of the allowed values',
    code: 'PARAM_PROVENANCE_REJECTED',
    next: 'NEXT_ENUM',
  },
  {
    producer: 'ParamContract',
    case: '`source: evidence`: no successful call of any `from` tool yet',
    code: 'PARAM_PROVENANCE_QUERY_FIRST',
    next: 'NEXT_QUERY_FIRST',
  },
  {
    producer: 'ParamContract',
    case: '`source: [evidence, user]`: no successful call of any `from` tool yet, and the user has not said the value',
    code: 'PARAM_PROVENANCE_QUERY_FIRST',
    next: 'NEXT_QUERY_OR_ASK',
  },
  {
    producer: 'ParamContract',
    case: '`source: evidence`: the value (or an element or field) is in none of their results (or of what `path` selects); next lists values of the same field',
    code: 'PARAM_PROVENANCE_MISMATCH',
    next: 'NEXT_PROVENANCE_MISMATCH',
  },
  {
    producer: 'ParamContract',
    case: 'the same with `match: contains`',
    code: 'PARAM_PROVENANCE_MISMATCH',
    next: 'NEXT_PROVENANCE_MISMATCH_CONTAINS',
  },
  {
    producer: 'ParamContract',
    case: 'the same with `source: [evidence, user]`, and the user has not said it either',
    code: 'PARAM_PROVENANCE_MISMATCH',
    next: 'NEXT_PROVENANCE_MISMATCH_OR_USER',
  },
  {
    producer: 'ParamContract',
    case: '`source: evidence` mismatch when the results hold no value of that field to offer',
    code: 'PARAM_PROVENANCE_MISMATCH',
    next: 'NEXT_ASK_FIRST',
  },
  {
    producer: 'ParamContract',
    case: '`source: [evidence, user]` mismatch when the results hold no value of that field to offer',
    code: 'PARAM_PROVENANCE_MISMATCH',
    next: 'NEXT_MISMATCH_OR_ASK',
  },
  {
    producer: 'ParamContract',
    case: '`source: user`: the user has not said the value (run input, follow-up answers)',
    code: 'PARAM_PROVENANCE_ASK_FIRST',
    next: 'NEXT_ASK_FIRST',
  },
  {
    producer: 'ParamContract',
    case: '`untrusted: refuse`: the value stands only in untrusted text (a result or part declared untrusted, or of a tool annotated `openWorldHint`)',
    code: 'PARAM_UNTRUSTED_REFUSED',
    next: 'NEXT_UNTRUSTED_REFUSED',
  },
  {
    producer: 'ParamContract',
    case: '`untrusted: pinned`: the value stands only in untrusted text and the user has not said it',
    code: 'PARAM_UNTRUSTED_NOT_PINNED',
    next: 'NEXT_UNTRUSTED_NOT_PINNED',
  },
  {
    producer: 'ParamContract',
    case: '`untrusted: single`: the value stands in untrusted text beside other candidates of its kind (e-mail addresses, URLs, IBANs, amounts, codes of one shape); the reason lists them all',
    code: 'PARAM_UNTRUSTED_AMBIGUOUS',
    next: 'NEXT_UNTRUSTED_AMBIGUOUS',
  },
  {
    producer: 'ParamContract',
    case: "`derive`: no combination of values passing the operands' contracts gives the value by `op`",
    code: 'PARAM_DERIVATION_MISMATCH',
    next: 'NEXT_DERIVATION',
  },
  {
    producer: 'ParamContract',
    case: 'a write whose arguments carry a confidential value (`trust: { confidential: [...] }` of an earlier result) the user has not stated; the value is shown masked',
    code: 'CONFIDENTIAL_VALUE_REFUSED',
    next: 'NEXT_CONFIDENTIAL_REFUSED',
  },
  {
    producer: 'ParamContract',
    case: 'a write whose free-text argument (`text: { params: [...], untrusted: refuse }`) repeats a name that stands only in untrusted text of the run',
    code: 'TEXT_UNTRUSTED_PHRASE',
    next: 'NEXT_TEXT_UNTRUSTED',
  },
];
