/**
 * Whether this machine lets the harness make network namespaces: root, `ip` and `tc` installed, and a namespace
 * can actually be added (a container without CAP_SYS_ADMIN cannot). Undefined when it can, else one line saying why not.
 */
import { findIpTools, runTool } from './ip-command';
import { runNames } from './names';

export function netnsUnavailableReason(): string | undefined {
  if (process.platform !== 'linux') return `network namespaces need Linux (this is ${process.platform})`;
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return 'network namespaces need root (ip netns add); this process is not root';
  const { ip, tc } = findIpTools();
  if (!ip) return 'no `ip` command (iproute2) on PATH or in /usr/sbin, /sbin';
  if (!tc) return 'no `tc` command (iproute2) on PATH or in /usr/sbin, /sbin';
  const probe = `${runNames().namespace(0)}-probe`;
  const added = runTool(ip, ['netns', 'add', probe]);
  if (!added.ok) return `ip netns add failed: ${added.stderr}`;
  runTool(ip, ['netns', 'del', probe]);
  return undefined;
}
