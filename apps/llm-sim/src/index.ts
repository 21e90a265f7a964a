export { startLlmSimulator, LlmSimulator, type LlmSimulatorOptions, type LlmSimulatorHandle, type ModelStats } from './server';
export { loadSimConfig, parseSimConfig, DEFAULT_SIM_CONFIG_FILE, type SimConfig, type SimModelConfig } from './sim-config';
export { GoldIndex, type GoldItem } from './gold-index';
export { corruptSql, type Corruption, type CorruptionKind } from './corrupt-sql';
export { detectProtocol, type StageProtocol } from './answer';
