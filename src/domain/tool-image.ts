/**
 * An image a tool returned, as the conversation keeps it for models that read images: the base64
 * `data` with its `mimeType`, decoded size and SHA-256 digest. It lives in the node run's stored
 * conversation only; the result, the evidence and the trace keep `{type: 'image', mimeType, bytes,
 * sha256}` instead of the data.
 */
export interface ToolImage {
  readonly mimeType: string;
  /** The image's bytes, base64-encoded as the server sent them. */
  readonly data: string;
  /** The decoded size in bytes. */
  readonly bytes: number;
  /** SHA-256 of the decoded bytes, lowercase hex (the same value as in the result's placeholder). */
  readonly sha256: string;
}

/** The largest image a tool message keeps for the model (5 MiB decoded); a larger one stays a placeholder. */
export const MAX_TOOL_IMAGE_BYTES = 5 * 1024 * 1024;

/** At most this many images of one tool result are kept for the model; the rest stay placeholders. */
export const MAX_TOOL_IMAGES = 8;
