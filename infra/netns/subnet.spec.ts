import { cidrRange, pickSubnet } from './subnet';

describe('the harness subnet', () => {
  it('reads CIDRs and bare addresses as ranges', () => {
    expect(cidrRange('10.213.7.0/24')).toEqual({ from: 181_733_120, to: 181_733_375 });
    expect(cidrRange('192.0.2.2')).toEqual({ from: 3_221_225_986, to: 3_221_225_986 });
    expect(cidrRange('default')).toBeUndefined();
    expect(cidrRange('fd00::/64')).toBeUndefined();
  });

  it('picks a /24 that overlaps nothing in use', () => {
    const inUse = [cidrRange('10.213.5.0/24')!, cidrRange('10.213.6.9')!];
    expect(pickSubnet(inUse, 5)).toBe('10.213.7');
    expect(pickSubnet([cidrRange('10.0.0.0/8')!, cidrRange('192.0.2.0/24')!].slice(1), 261)).toBe('10.213.5');
    expect(() => pickSubnet([cidrRange('10.0.0.0/8')!], 1)).toThrow(/no free \/24 in 10\.213\.0\.0\/16/);
  });
});
