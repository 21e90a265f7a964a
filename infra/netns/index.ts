/** Worker hosts as network namespaces: the network (bridge, veths, delay, partitions), gateways to the services, processes inside a host. */
export { netnsUnavailableReason } from './capability';
export { startGateway, urlThrough, type Gateway } from './gateway';
export { HostNetwork, NetnsUnavailableError, type DelayMethod, type HostNetworkOptions, type NetnsHost } from './host-network';
export { NAME_PREFIX, creatorPid, runNames } from './names';
export { spawnInHost, type NetnsProcess } from './netns-process';
export { removeStaleLeftovers } from './stale';
export { WorkerHosts, type HostWorker, type ServiceUrls } from './worker-hosts';
