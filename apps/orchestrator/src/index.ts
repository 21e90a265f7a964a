export { createOrchestratorApp } from './app';
