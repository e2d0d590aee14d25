/** How the runtime introduces itself to MCP servers (and names itself when it registers as an OAuth client). */
export const CLIENT_INFO = { name: 'g2rain-agent-runtime', version: '0.1.0' } as const;

/** The client name of CLIENT_INFO. */
export const CLIENT_NAME: string = CLIENT_INFO.name;
