/**
 * Names of what one harness run creates. Everything starts with `sqsw`, then the run's tag: the creating process's pid
 * in base 36. A leftover whose tag names a process that no longer runs is stale (a crashed run) and is removed by the
 * next run; a live run's names are left alone, so two harnesses can run side by side. Interface names stay within
 * Linux's 15 characters: `sqsw<tag>br` for the bridge, `sqsw<tag>h<i>r` / `sqsw<tag>h<i>n` for a host's veth ends
 * (root side, namespace side); namespaces are `sqsw-<tag>-h<i>`.
 */
export const NAME_PREFIX = 'sqsw';

export interface RunNames {
  tag: string;
  bridge: string;
  namespace(host: number): string;
  /** The veth end in the root namespace, enslaved to the bridge. */
  rootVeth(host: number): string;
  /** The veth end moved into the host's namespace. */
  hostVeth(host: number): string;
}

export function runNames(pid = process.pid): RunNames {
  const tag = pid.toString(36);
  return {
    tag,
    bridge: `${NAME_PREFIX}${tag}br`,
    namespace: (h) => `${NAME_PREFIX}-${tag}-h${h}`,
    rootVeth: (h) => `${NAME_PREFIX}${tag}h${h}r`,
    hostVeth: (h) => `${NAME_PREFIX}${tag}h${h}n`,
  };
}

/** The pid of the run that made a namespace or link of ours, or undefined for a name that is not ours. */
export function creatorPid(name: string): number | undefined {
  const m = /^sqsw-?([0-9a-z]+?)(?:br|-h\d+|h\d+[rn])$/.exec(name);
  return m ? Number.parseInt(m[1], 36) : undefined;
}
