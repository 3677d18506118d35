// Quantities as validation compares them. Parsing is shared/kubernetes/quantity's; resource lists
// (podSpec.ts resourceListAt) keep each value's exact nano-units, so requests, limits and
// LimitRange bounds compare as BigInts.

/** Quantity.Cmp of two values in nano-units: -1, 0 or 1. */
export function compareQuantities(left: bigint, right: bigint): number {
  return left === right ? 0 : left < right ? -1 : 1;
}
