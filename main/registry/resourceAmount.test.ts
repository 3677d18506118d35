import { describe, expect, it } from 'vitest';
import { addAmounts, canonicalQuantity, countAmount, parseAmount, type Amount } from './resourceAmount';

describe('canonicalQuantity', () => {
  it.each([
    ['1000m', '1'],
    ['500m', '500m'],
    ['0.5', '500m'],
    ['1.5', '1500m'],
    ['1024Mi', '1Gi'],
    ['1536Mi', '1536Mi'],
    ['512', '512'],
    ['1000', '1k'],
    ['2e3', '2e3'],
    ['0', '0'],
    [2, '2'],
  ])('prints %s as %s, as upstream Quantity.String()', (input, expected) => {
    expect(canonicalQuantity(input)).toBe(expected);
  });

  it('keeps the left operand format when adding', () => {
    const memory = parseAmount('128Mi') as Amount;
    expect(canonicalQuantity('1Gi')).toBe('1Gi');
    const sum = addAmounts(memory, memory);
    expect(sum.format).toBe('BinarySI');
    expect(addAmounts(countAmount(1), countAmount(2)).nanos).toBe(3_000_000_000n);
  });
});
