import { cpus, totalmem } from 'node:os';

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGb: number;
}

export function machineInfo(): MachineInfo {
  const list = cpus();
  return { cpuModel: list[0]?.model ?? 'unknown', cores: list.length, memoryGb: Math.round(totalmem() / 2 ** 30) };
}

export const machineLabel = (m: MachineInfo = machineInfo()): string => `${m.cpuModel} x${m.cores}, ${m.memoryGb} GiB`;
