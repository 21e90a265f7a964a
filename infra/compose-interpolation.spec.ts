import { interpolate, interpolateTree } from './compose-interpolation';

describe('interpolate (Compose rules)', () => {
  const env = { SET: 'x', EMPTY: '' };

  it.each([
    ['${SET}', 'x'],
    ['$SET/y', 'x/y'],
    ['${UNSET}', ''],
    ['${UNSET:-d}', 'd'],
    ['${EMPTY:-d}', 'd'],
    ['${EMPTY-d}', ''],
    ['${UNSET-d}', 'd'],
    ['${SET:-d}', 'x'],
    ['$${SET}', '${SET}'],
    ['a ${UNSET:-http://h:1} b', 'a http://h:1 b'],
  ])('%s -> %s', (input, expected) => {
    expect(interpolate(input, env)).toBe(expected);
  });

  it('fails on a required variable, naming where', () => {
    expect(() => interpolate('${UNSET:?set it}', env, 'services.x.environment.Y')).toThrow(
      'services.x.environment.Y: required variable UNSET is not set: set it',
    );
    expect(() => interpolate('${EMPTY:?}', env)).toThrow('required variable EMPTY');
    expect(interpolate('${EMPTY?}', env)).toBe('');
  });

  it('rejects malformed expressions', () => {
    expect(() => interpolate('${1BAD}', env, 'f')).toThrow('f: invalid interpolation "${1BAD}"');
  });

  it('walks maps and lists, leaving numbers alone', () => {
    expect(interpolateTree({ a: ['${SET}', 2], b: { c: '${UNSET:-3}' } }, env)).toEqual({ a: ['x', 2], b: { c: '3' } });
  });
});
