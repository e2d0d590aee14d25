import { RuntimeErrorCode } from './error-codes.js';
import type { Locale } from './locale.js';
import { Outcome } from './outcome.js';
import type { ToolImage } from './tool-image.js';

/** The plain-JSON form of an observation, as persisted and traced. */
export interface ObservationJSON {
  outcome: 'SUCCESS' | 'FAILED' | 'REJECTED' | 'DEFERRED';
  errorCode: string | null;
  /** The success summary, or the reason of a non-success. */
  reason: string;
  next: string | null;
  data?: unknown;
  evidenceId?: string | null;
}

/**
 * The result of one tool call as the model sees it (docs/observations.md). Built only through the four factories:
 * a non-success without an error code or a next step cannot exist, and a code can only be used with
 * the outcome the code table (error-codes.ts) gives it.
 */
export class Observation {
  private constructor(
    readonly outcome: Outcome,
    readonly code: RuntimeErrorCode | null,
    /** For SUCCESS the short summary; otherwise what happened, without advice. */
    readonly reason: string,
    /** What to do next; null only for SUCCESS. */
    readonly next: string | null,
    readonly data: unknown,
    /** The evidence this observation cites (`ev_7`), when the call executed or reused one. */
    readonly evidenceId: string | null,
    /**
     * Images of the result for models that read images (src/domain/tool-image.ts). Never persisted
     * or traced with the observation (`toJSON` leaves them out): `data` holds their placeholders.
     */
    readonly images: readonly ToolImage[] = [],
  ) {}

  /** The tool really ran and succeeded. */
  static success(summary: string, data?: unknown): Observation {
    return new Observation(Outcome.SUCCESS, null, requireText(summary, 'summary'), null, data, null);
  }

  /** The tool really ran and failed. */
  static failed(code: RuntimeErrorCode, reason: string, next: string, data?: unknown): Observation {
    return Observation.nonSuccess(Outcome.FAILED, code, reason, next, data);
  }

  /** The call broke a rule and was stopped before running. */
  static rejected(code: RuntimeErrorCode, reason: string, next: string): Observation {
    return Observation.nonSuccess(Outcome.REJECTED, code, reason, next, undefined);
  }

  /** The call is legitimate but `prerequisite` must be done first. */
  static deferred(code: RuntimeErrorCode, reason: string, prerequisite: string): Observation {
    return Observation.nonSuccess(Outcome.DEFERRED, code, reason, prerequisite, undefined);
  }

  /** Rebuilds an observation from its persisted form, through the same checks. */
  static fromJSON(json: ObservationJSON): Observation {
    const outcome = Outcome.of(json.outcome);
    const obs =
      outcome === Outcome.SUCCESS
        ? Observation.success(json.reason, json.data)
        : Observation.nonSuccess(
            outcome,
            json.errorCode === null ? null : RuntimeErrorCode.of(json.errorCode),
            json.reason,
            json.next,
            json.data,
          );
    return json.evidenceId ? obs.withEvidence(json.evidenceId) : obs;
  }

  private static nonSuccess(
    outcome: Outcome,
    code: RuntimeErrorCode | null | undefined,
    reason: string,
    next: string | null | undefined,
    data: unknown,
  ): Observation {
    if (!code) throw new Error(`a ${outcome.name} observation needs an error code`);
    if (code.outcome !== outcome.name) {
      throw new Error(`error code ${code.name} belongs to ${code.outcome}, not ${outcome.name}`);
    }
    return new Observation(
      outcome,
      code,
      requireText(reason, 'reason'),
      requireText(next, 'next step'),
      data,
      null,
    );
  }

  /** True for SUCCESS. */
  get ok(): boolean {
    return this.outcome === Outcome.SUCCESS;
  }

  /** The code's name, or null for SUCCESS. */
  get errorCode(): string | null {
    return this.code?.name ?? null;
  }

  /**
   * The text for the model: the summary for a success, else `<原因>。下一步：<下一步>` (zh-CN) or
   * `<reason>. Next: <next step>` (en).
   */
  message(locale: Locale = 'zh-CN'): string {
    if (this.next === null) return this.reason;
    return joinReasonAndNext(locale, this.reason, this.next);
  }

  /** A copy with another next step (a success has none to replace). */
  withNext(next: string): Observation {
    if (this.outcome === Outcome.SUCCESS) throw new Error('a SUCCESS observation has no next step');
    return new Observation(
      this.outcome,
      this.code,
      this.reason,
      requireText(next, 'next step'),
      this.data,
      this.evidenceId,
      this.images,
    );
  }

  /** A copy citing an evidence id. */
  withEvidence(evidenceId: string): Observation {
    const { outcome, code, reason, next, data, images } = this;
    return new Observation(outcome, code, reason, next, data, evidenceId, images);
  }

  /** A copy with another payload. */
  withData(data: unknown): Observation {
    const { outcome, code, reason, next, evidenceId, images } = this;
    return new Observation(outcome, code, reason, next, data, evidenceId, images);
  }

  /** A copy carrying the result's images for the model (none: the same observation). */
  withImages(images: readonly ToolImage[]): Observation {
    if (images.length === 0 && this.images.length === 0) return this;
    const { outcome, code, reason, next, data, evidenceId } = this;
    return new Observation(outcome, code, reason, next, data, evidenceId, images);
  }

  toJSON(): ObservationJSON {
    return {
      outcome: this.outcome.name,
      errorCode: this.errorCode,
      reason: this.reason,
      next: this.next,
      data: this.data,
      evidenceId: this.evidenceId,
    };
  }
}

/** Joins a reason and a next step in a locale's format, without doubling final punctuation. */
export function joinReasonAndNext(locale: Locale, reason: string, next: string): string {
  if (locale === 'zh-CN') return `${trimEnd(reason, '。.')}。下一步：${ensureEnd(next, '。')}`;
  return `${trimEnd(reason, '.。')}. Next: ${ensureEnd(next, '.')}`;
}

function requireText(text: string | null | undefined, what: string): string {
  if (typeof text !== 'string' || text.trim() === '')
    throw new Error(`an observation needs a non-empty ${what}`);
  return text;
}

function trimEnd(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text.charAt(end - 1))) end--;
  return text.slice(0, end);
}

function ensureEnd(text: string, mark: string): string {
  const trimmed = trimEnd(text, '。.');
  return `${trimmed}${mark}`;
}
