import type { LanguageModelV4Message, LanguageModelV4Prompt } from '@ai-sdk/provider';
import type { ToolImage } from '../../domain/tool-image.js';
import type { ConversationMessage } from '../model.js';
import { appendMessage, systemMessage, type ToolImagePolicy } from './prompt.js';

/** One converted conversation message: the message, and the converted prompt's state after it. */
interface Mark {
  message: ConversationMessage;
  /** Length of the converted prompt after this message. */
  length: number;
  /** The prompt's last message then (a tool message grows by one result per tool message). */
  last: LanguageModelV4Message | undefined;
}

/**
 * `toPrompt` for the successive requests of one client, converting only what is new: the messages
 * that start the request the same as the previous request's (the same objects, or equal ones) keep
 * their converted form, and only the rest is converted. The result is always equal to `toPrompt` of
 * the same input; a returned prompt is never changed afterwards (merged tool results make a new tool
 * message). A node's conversation grows by a round per request, so a request costs what its new
 * messages cost, plus a copy of the array.
 */
export class PromptConverter {
  #marks: Mark[] = [];
  #converted: LanguageModelV4Message[] = [];

  /** `images`: which images of tool results the client's model is shown (fixed for the converter). */
  constructor(private readonly images?: ToolImagePolicy) {}

  convert(system: string, messages: readonly ConversationMessage[], cache = false): LanguageModelV4Prompt {
    let same = 0;
    const limit = Math.min(messages.length, this.#marks.length);
    while (same < limit && sameMessage(this.#marks[same]?.message, messages[same] as ConversationMessage))
      same += 1;
    const kept = same > 0 ? (this.#marks[same - 1] as Mark) : undefined;
    this.#marks.length = same;
    this.#converted.length = kept?.length ?? 0;
    if (kept?.last) this.#converted[kept.length - 1] = kept.last;
    for (let i = same; i < messages.length; i += 1) {
      const message = messages[i] as ConversationMessage;
      appendMessage(this.#converted, message, this.images);
      this.#marks.push({ message, length: this.#converted.length, last: this.#converted.at(-1) });
    }
    return system === '' ? this.#converted.slice() : [systemMessage(system, cache), ...this.#converted];
  }
}

/** The same message: the same object, or one with the same role and fields. */
function sameMessage(a: ConversationMessage | undefined, b: ConversationMessage): boolean {
  if (a === b) return true;
  if (!a || a.role !== b.role) return false;
  switch (b.role) {
    case 'user':
      return a.role === 'user' && a.content === b.content;
    case 'tool':
      return (
        a.role === 'tool' &&
        a.callId === b.callId &&
        a.tool === b.tool &&
        a.content === b.content &&
        sameImages(a.images, b.images)
      );
    case 'assistant': {
      if (a.role !== 'assistant' || a.text !== b.text || a.toolCalls.length !== b.toolCalls.length)
        return false;
      return a.toolCalls.every((c, i) => {
        const d = b.toolCalls[i];
        return d !== undefined && c.callId === d.callId && c.tool === d.tool && c.rawArgs === d.rawArgs;
      });
    }
  }
}

/** The same images (by digest, in order); absent counts as none. */
function sameImages(a: readonly ToolImage[] = [], b: readonly ToolImage[] = []): boolean {
  return a.length === b.length && a.every((image, i) => image.sha256 === b[i]?.sha256);
}
