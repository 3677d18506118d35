import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { configMapEntries, dataValue, decodeBase64, secretEntries } from './objectData';

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

describe('ConfigMap and Secret data', () => {
  it('decodes UTF-8 text and reports binary content by its size', () => {
    expect(decodeBase64(base64('grüße'))).toEqual({ value: 'grüße', binary: false, size: 7 });
    expect(decodeBase64(Buffer.from([0xff, 0xfe, 0x00, 0x80]).toString('base64'))).toEqual({ value: '', binary: true, size: 4 });
    expect(decodeBase64('not base64!')).toMatchObject({ binary: true });
  });

  it('lists a ConfigMap’s text and binary keys sorted by key', () => {
    const configMap: KubeObject = { metadata: { name: 'c' }, data: { 'z.conf': 'a=1\nb=2\n', color: 'blue' }, binaryData: { 'logo.png': Buffer.from([1, 2, 3]).toString('base64') } };
    expect(configMapEntries(configMap)).toEqual([
      { key: 'color', value: 'blue', binary: false, size: 4 },
      { key: 'logo.png', value: '', binary: true, size: 3 },
      { key: 'z.conf', value: 'a=1\nb=2\n', binary: false, size: 8 },
    ]);
  });

  it('decodes a Secret’s keys and finds one key of either kind', () => {
    const secret: KubeObject = { metadata: { name: 's' }, type: 'Opaque', data: { password: base64('s3cr3t'), user: base64('admin') } };
    expect(secretEntries(secret).map((entry) => [entry.key, entry.value])).toEqual([
      ['password', 's3cr3t'],
      ['user', 'admin'],
    ]);
    expect(dataValue(secret, 'user', true)?.value).toBe('admin');
    expect(dataValue(secret, 'missing', true)).toBeUndefined();
    expect(dataValue(undefined, 'user', true)).toBeUndefined();
  });
});
