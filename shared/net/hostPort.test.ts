import { describe, expect, it } from 'vitest';
import { joinHostPort } from './hostPort';

describe('joinHostPort', () => {
  it.each<[string, number | string, string]>([
    ['10.0.0.1', 80, '10.0.0.1:80'],
    ['localhost', '8080', 'localhost:8080'],
    ['fd00::1', 80, '[fd00::1]:80'],
    ['::1', 443, '[::1]:443'],
  ])('joins %s and %s as %s', (host, port, address) => {
    expect(joinHostPort(host, port)).toBe(address);
  });
});
