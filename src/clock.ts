/**
 * The current time in epoch milliseconds. Services whose behaviour depends on elapsed time (caches,
 * failure windows, write throttles) take one, so tests move time forward instead of sleeping.
 */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();
