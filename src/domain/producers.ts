/** Who produces a code (docs/observations.md). Documentation only: producers pick their codes, the loop never reads them. */
export type Producer =
  | 'invoker'
  | 'response-contract'
  | 'arg-policy'
  | 'param-contract'
  | 'catalog'
  | 'fingerprint'
  | 'write-gate'
  | 'recovery'
  | 'builtin_node_approval'
  | 'builtin_node_follow_up'
  | 'builtin_output_set'
  | 'builtin_node_finish'
  | 'builtin_node_delegate'
  | 'builtin_evidence_read'
  | 'builtin_resource_read'
  | 'builtin_resource_list'
  | 'user-guards';
