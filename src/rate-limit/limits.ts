/**
 * The limits of the two brute-force guards. Why these shapes: see failure-limiter.ts and docs/oauth.md,
 * docs/web.md. Client secrets are 256-bit random values, so the token endpoint's limits only need to keep
 * guessing pointless and logs quiet; passwords are weaker, so sign-in is tighter.
 */
import type { FailureLimits } from './failure-limiter.js';

const MINUTE = 60_000;

export const TOKEN_ENDPOINT_LIMITS: FailureLimits = {
  pair: { max: 10, windowMs: 5 * MINUTE },
  subject: { max: 100, windowMs: 5 * MINUTE },
  address: { max: 200, windowMs: 5 * MINUTE },
  unknownPerAddress: { max: 10, windowMs: 5 * MINUTE },
};

export const SIGN_IN_LIMITS: FailureLimits = {
  pair: { max: 5, windowMs: 15 * MINUTE },
  subject: { max: 50, windowMs: 15 * MINUTE },
  address: { max: 100, windowMs: 15 * MINUTE },
};
