import { creatorPid, runNames } from './names';

describe('harness names', () => {
  it('fit Linux interface names and give back the pid that made them', () => {
    for (const pid of [1, 35, 4_194_304, 12_345]) {
      const n = runNames(pid);
      const links = [n.bridge, n.rootVeth(0), n.hostVeth(0), n.rootVeth(199), n.hostVeth(199)];
      for (const link of links) expect(link.length).toBeLessThanOrEqual(15);
      for (const name of [...links, n.namespace(0), n.namespace(3)]) expect(creatorPid(name)).toBe(pid);
    }
  });

  it('claim nothing that is not theirs', () => {
    for (const name of ['eth0', 'lo', 'docker0', 'sqsw', 'sqswx', 'veth12ab', 'br-sqsw1']) expect(creatorPid(name)).toBeUndefined();
  });
});
