import { encodeSqlValue, pyFloatRepr, pythonSortKey, sqlValueKey } from './sql-value';

describe('SqlValue encoding', () => {
  it('keeps INTEGER and REAL apart, survives JSON, and encodes big integers and blobs', () => {
    const encoded = [2n, 1, 1.5, 2n ** 60n, Buffer.from([0, 255]), null, 'x', Infinity].map(encodeSqlValue);
    expect(JSON.parse(JSON.stringify(encoded))).toEqual([2, { real: 1 }, 1.5, { int: '1152921504606846976' }, { blob: 'AP8=' }, null, 'x', { real: 'Infinity' }]);
  });

  it('gives equal keys exactly when Python == holds', () => {
    expect(sqlValueKey(1)).toBe(sqlValueKey({ real: 1 }));
    expect(sqlValueKey({ int: '1152921504606846976' })).toBe(sqlValueKey({ real: 2 ** 60 }));
    expect(sqlValueKey({ int: '1152921504606846977' })).not.toBe(sqlValueKey({ real: 2 ** 60 }));
    expect(sqlValueKey('1')).not.toBe(sqlValueKey(1));
    expect(sqlValueKey(null)).not.toBe(sqlValueKey('None'));
  });

  it("reproduces Python's repr(float) and str(type(x))", () => {
    expect([1, 0.1, 1e16, 1e15, 1e-5, -0, 2.5e20].map(pyFloatRepr)).toEqual(['1.0', '0.1', '1e+16', '1000000000000000.0', '1e-05', '-0.0', '2.5e+20']);
    expect(pythonSortKey({ real: 1 })).toBe("1.0<class 'float'>");
    expect(pythonSortKey(3)).toBe("3<class 'int'>");
    expect(pythonSortKey(null)).toBe("None<class 'NoneType'>");
    expect(pythonSortKey({ blob: Buffer.from("a'\n\x01").toString('base64') })).toBe("b'a\\'\\n\\x01'<class 'bytes'>");
  });
});
