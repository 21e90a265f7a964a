/** Shown wherever a figure comes from the LLM simulator rather than a real model. */
export function Simulated({ on }: { on: boolean }) {
  if (!on) return null;
  return <span className="badge simulated" data-testid="simulated-badge" title="produced with the LLM simulator, not a real model">simulated</span>;
}
