import { describe, expect, it } from 'vitest';
import { canonicalName, classInternet, DnsFormatError, emptyHeader, encodeMessage, errorReply, nameLabels, parseMessage, RecordType, truncateForUdp, type DnsMessage, type DnsRecord } from './dnsMessage';

function sampleMessage(): DnsMessage {
  const ttl = 5;
  const records: DnsRecord[] = [
    { name: 'web.default.svc.cluster.local', class: classInternet, ttl, type: 'A', address: '10.96.128.7' },
    { name: 'web.default.svc.cluster.local', class: classInternet, ttl, type: 'AAAA', address: 'fd00::1:2' },
    { name: 'ext.default.svc.cluster.local', class: classInternet, ttl, type: 'CNAME', target: 'www.example.com' },
    { name: '_http._tcp.web.default.svc.cluster.local', class: classInternet, ttl, type: 'SRV', priority: 0, weight: 50, port: 8080, target: 'pod-0.web.default.svc.cluster.local' },
    { name: '7.128.96.10.in-addr.arpa', class: classInternet, ttl, type: 'PTR', target: 'web.default.svc.cluster.local' },
    { name: 'dns-version.cluster.local', class: classInternet, ttl, type: 'TXT', texts: ['1.1.0', 'second'] },
  ];
  return {
    header: { ...emptyHeader(0xbeef), response: true, authoritative: true, recursionDesired: true, recursionAvailable: true, responseCode: 3 },
    questions: [{ name: 'Web.Default.svc.cluster.local', type: RecordType.A, class: classInternet }],
    answers: records,
    authorities: [{ name: 'cluster.local', class: classInternet, ttl, type: 'SOA', primary: 'ns.dns.cluster.local', mailbox: 'hostmaster.cluster.local', serial: 1700000000, refresh: 7200, retry: 1800, expire: 86400, minimum: 5 }],
    additionals: [{ name: '', class: 1232, ttl: 0, type: 'OTHER', code: RecordType.OPT, data: Buffer.from([0, 10, 0, 2, 1, 2]) }],
  };
}

describe('dnsMessage', () => {
  it('writes and reads back every record type unchanged', () => {
    const message = sampleMessage();
    expect(parseMessage(encodeMessage(message))).toEqual(message);
  });

  it('compresses repeated names and suffixes into pointers', () => {
    const encoded = encodeMessage({
      header: emptyHeader(7),
      questions: [{ name: 'a.example.com', type: RecordType.A, class: classInternet }],
      answers: [
        { name: 'a.example.com', class: classInternet, ttl: 5, type: 'A', address: '192.0.2.1' },
        { name: 'b.example.com', class: classInternet, ttl: 5, type: 'CNAME', target: 'a.example.com' },
      ],
      authorities: [],
      additionals: [],
    });
    // question at 12 (15 octets of name + 4); first answer's name is a pointer to 12
    expect(encoded.subarray(31, 33)).toEqual(Buffer.from([0xc0, 12]));
    // second answer: "b" then a pointer to "example.com" at 14; its CNAME target is a pointer to 12
    expect(encoded.subarray(47, 51)).toEqual(Buffer.from([1, 0x62, 0xc0, 14]));
    expect(encoded.subarray(encoded.length - 2)).toEqual(Buffer.from([0xc0, 12]));
    expect(encoded.length).toBe(12 + 19 + 16 + 4 + 10 + 2);
  });

  it('keeps the spelling of a name that differs only in case', () => {
    const message = sampleMessage();
    const parsed = parseMessage(encodeMessage(message));
    expect(parsed.questions[0].name).toBe('Web.Default.svc.cluster.local');
    expect(parsed.answers[0].name).toBe('web.default.svc.cluster.local');
  });

  it('follows pointers written by someone else, including chains of pointers', () => {
    // header, question "a.example.com" A IN, answer "b" + pointer to "example.com", CNAME -> pointer to the answer name
    const parts = [
      Buffer.from([0x12, 0x34, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0]),
      Buffer.from([1, 0x61, 7, ...Buffer.from('example'), 3, ...Buffer.from('com'), 0, 0, 1, 0, 1]),
    ];
    const answerAt = 12 + 15 + 4;
    parts.push(Buffer.from([1, 0x62, 0xc0, 14, 0, 5, 0, 1, 0, 0, 0, 60, 0, 2, 0xc0, answerAt]));
    const parsed = parseMessage(Buffer.concat(parts));
    expect(parsed.questions[0].name).toBe('a.example.com');
    expect(parsed.answers[0]).toEqual({ name: 'b.example.com', class: 1, ttl: 60, type: 'CNAME', target: 'b.example.com' });
  });

  it.each([
    ['shorter than a header', Buffer.from([1, 2, 3])],
    ['a question count with no question', Buffer.from([0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0])],
    ['a label running past the end', Buffer.from([0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 9, 0x61, 0x62])],
    ['a pointer to itself', Buffer.from([0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 12, 0, 1, 0, 1])],
    ['a pointer pointing forwards', Buffer.from([0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 14, 0, 0, 1, 0, 1])],
    ['the reserved 0x40 label type', Buffer.from([0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x41, 0x61, 0, 0, 1, 0, 1])],
    ['an A record of 3 octets', Buffer.from([0, 1, 0x80, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 5, 0, 3, 1, 2, 3])],
    ['a record length past the end', Buffer.from([0, 1, 0x80, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 5, 0, 9, 1, 2, 3])],
  ])('rejects %s with DnsFormatError', (_description, buffer) => {
    expect(() => parseMessage(buffer)).toThrow(DnsFormatError);
  });

  it('rejects names longer than 255 octets on both sides', () => {
    const long = Array.from({ length: 5 }, () => 'x'.repeat(60)).join('.');
    expect(() => encodeMessage({ header: emptyHeader(), questions: [{ name: long, type: 1, class: 1 }], answers: [], authorities: [], additionals: [] })).toThrow(DnsFormatError);
    const labels = Array.from({ length: 5 }, () => Buffer.from([60, ...Buffer.alloc(60, 0x78)]));
    const wire = Buffer.concat([Buffer.from([0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]), ...labels, Buffer.from([0, 0, 1, 0, 1])]);
    expect(() => parseMessage(wire)).toThrow(DnsFormatError);
  });

  it('never throws anything but DnsFormatError on random or mutated input', () => {
    let seed = 12345;
    const random = (limit: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % limit;
    };
    const valid = encodeMessage(sampleMessage());
    for (let round = 0; round < 600; round++) {
      let buffer: Buffer;
      if (round % 2 === 0) {
        buffer = Buffer.from(Array.from({ length: random(80) }, () => random(256)));
        // plausible counts make the parser go deeper than the header
        if (buffer.length >= 12) buffer.writeUInt16BE(random(3), 4);
      } else {
        buffer = Buffer.from(valid.subarray(0, random(valid.length + 1)));
        for (let flips = random(4); flips >= 0 && buffer.length > 0; flips--) buffer[random(buffer.length)] = random(256);
      }
      try {
        const parsed = parseMessage(buffer);
        // whatever parses must also be writable, or fail with a format error
        try {
          encodeMessage(parsed);
        } catch (error) {
          expect(error).toBeInstanceOf(DnsFormatError);
        }
      } catch (error) {
        expect(error).toBeInstanceOf(DnsFormatError);
      }
    }
  });

  it('builds error replies that keep the id and the recursion-desired bit', () => {
    const reply = errorReply(Buffer.from([0xab, 0xcd, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, 99]), 1);
    expect(reply).toEqual(Buffer.from([0xab, 0xcd, 0x81, 0x81, 0, 0, 0, 0, 0, 0, 0, 0]));
    expect(errorReply(Buffer.from([1, 2]))).toBeUndefined();
  });

  it('truncates an oversized answer to its header and question with TC set', () => {
    const message = sampleMessage();
    const encoded = encodeMessage(message);
    const truncated = parseMessage(truncateForUdp(encoded, 100));
    expect(truncated.header.truncated).toBe(true);
    expect(truncated.questions).toEqual(message.questions);
    expect(truncated.answers).toEqual([]);
    expect(truncateForUdp(encoded, 4096)).toBe(encoded);
  });

  it.each([
    ['kubernetes.default.svc.cluster.local.', ['kubernetes', 'default', 'svc', 'cluster', 'local'], 'kubernetes.default.svc.cluster.local'],
    ['Web.Default', ['Web', 'Default'], 'web.default'],
    ['.', [], ''],
    ['', [], ''],
    ['a\\.b.c', ['a.b', 'c'], 'a\\.b.c'],
  ])('splits %j into labels', (name, labels, canonical) => {
    expect(nameLabels(name)).toEqual(labels);
    expect(canonicalName(name)).toBe(canonical);
  });
});
