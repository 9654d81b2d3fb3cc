// The error the context modules throw: a ContextError with a stable .code
// and a message written for the user. Reference image checks and compaction
// both throw it, so it sits here, apart from either of them.

import { CodedError } from '../../shared/core/coded_error.js';

/** Stable codes of ContextError. */
export const CONTEXT_CODES = Object.freeze({
  TOO_MANY_IMAGES: 'TOO_MANY_IMAGES',
  IMAGE_TOO_LARGE: 'IMAGE_TOO_LARGE',
  IMAGES_TOO_LARGE: 'IMAGES_TOO_LARGE',
  NOT_AN_IMAGE: 'NOT_AN_IMAGE',
  EMPTY_SUMMARY: 'EMPTY_SUMMARY',
});

/** An error with a stable .code and a message meant for the user. */
export class ContextError extends CodedError {}
