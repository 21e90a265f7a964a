import { int, usd } from '../lib/format';

/** The planner's answer to a dry run: what the run would do after reuse, and what its LLM calls would cost. */
export interface PlanSummary {
  variants: number; items: number; stageJobs: number; reused: number; simulated: boolean; cacheNamespace?: string;
  byStage: Array<{ stage: string; needed?: number; reused?: number; llmCalls?: number; inputTokens?: number; outputTokens?: number; costUsd?: number }>;
}

export function planTotals(p: PlanSummary) {
  const sum = (k: 'llmCalls' | 'inputTokens' | 'outputTokens' | 'costUsd') => p.byStage.reduce((n, s) => n + (s[k] ?? 0), 0);
  return { llmCalls: sum('llmCalls'), inputTokens: sum('inputTokens'), outputTokens: sum('outputTokens'), costUsd: sum('costUsd') };
}

export function PlanEstimate({ plan }: { plan: PlanSummary }) {
  const t = planTotals(plan);
  return (
    <div className="estimate" data-testid="plan-estimate">
      <p>
        Dry run: <b>{plan.variants}</b> variants × <b>{plan.items}</b> items · <b data-testid="estimate-stage-jobs">{int(plan.stageJobs)}</b> stage jobs to run,
        {' '}{int(plan.reused)} reused · <b data-testid="estimate-llm-calls">{int(t.llmCalls)}</b> LLM calls ·
        {' '}{int(t.inputTokens)} tokens in, {int(t.outputTokens)} out · estimated <b data-testid="estimate-cost">{usd(t.costUsd)}</b>
        {plan.cacheNamespace ? <> · cache namespace <code>{plan.cacheNamespace}</code></> : null}
        {plan.simulated ? ' · simulated' : ''}
      </p>
      <table>
        <thead><tr><th>stage</th><th className="num">to run</th><th className="num">reused</th><th className="num">LLM calls</th><th className="num">est. cost</th></tr></thead>
        <tbody>
          {plan.byStage.map((s) => (
            <tr key={s.stage}><td>{s.stage}</td><td className="num">{int(s.needed ?? 0)}</td><td className="num">{int(s.reused ?? 0)}</td><td className="num">{int(s.llmCalls ?? 0)}</td><td className="num">{usd(s.costUsd ?? 0)}</td></tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
