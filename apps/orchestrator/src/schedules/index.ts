import { SchedulesController } from './schedules.controller';
import { SchedulesHost } from './schedules.host';

export { SchedulesController, SchedulesHost };
export type { ScheduleEnv } from './schedules.host';
/** Register in OrchestratorModule: `controllers: [...schedulesControllers]`, `providers: [...schedulesProviders]`. */
export const schedulesControllers = [SchedulesController];
export const schedulesProviders = [SchedulesHost];
